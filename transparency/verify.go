package transparency

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/hashchain"
	"github.com/todoaudit/todo/internal/jsondoc"
)

// ProofBundle is the answer of a version's proof: a signed checkpoint, the
// leaf's index and bytes, and the RFC 6962 inclusion proof of the leaf in
// the checkpoint's tree.
type ProofBundle struct {
	Checkpoint string      `json:"checkpoint"`
	Index      int64       `json:"index"`
	Leaf       []byte      `json:"leaf"`
	Proof      []tlog.Hash `json:"proof"`
}

// ConsistencyProof is the answer of a consistency proof between two tree
// sizes.
type ConsistencyProof struct {
	From  int64       `json:"from"`
	To    int64       `json:"to"`
	Proof []tlog.Hash `json:"proof"`
}

// decodeStrict decodes one JSON value into v refusing what encoding/json
// lets through: duplicate members, invalid UTF-8, unknown fields.
func decodeStrict(b []byte, v any) error {
	if _, err := jsondoc.Check(b); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// ParseProofBundle reads a proof bundle.
func ParseProofBundle(b []byte) (ProofBundle, error) {
	var p ProofBundle
	if err := ProblemAnswer(b); err != nil {
		return p, err
	}
	if err := decodeStrict(b, &p); err != nil {
		return p, fmt.Errorf("not a proof bundle: %w", err)
	}
	return p, nil
}

// ParseConsistencyProof reads a consistency proof answer.
func ParseConsistencyProof(b []byte) (ConsistencyProof, error) {
	var p ConsistencyProof
	if err := decodeStrict(b, &p); err != nil {
		return p, fmt.Errorf("not a consistency proof: %w", err)
	}
	return p, nil
}

// Verify checks the bundle's checkpoint signature with v and the inclusion
// of its leaf in the checkpoint's tree, and returns both, the leaf parsed.
func (p *ProofBundle) Verify(v note.Verifier) (Checkpoint, Leaf, error) {
	c, err := OpenCheckpoint([]byte(p.Checkpoint), v)
	if err != nil {
		return c, Leaf{}, err
	}
	leaf, err := ParseLeaf(p.Leaf)
	if err != nil {
		return c, leaf, err
	}
	if p.Index < 0 || p.Index >= c.Size {
		return c, leaf, fmt.Errorf("leaf index %d is outside the checkpoint's tree of size %d", p.Index, c.Size)
	}
	if err := tlog.CheckRecord(p.Proof, c.Size, c.Root, p.Index, tlog.RecordHash(p.Leaf)); err != nil {
		return c, leaf, fmt.Errorf("the leaf is not at index %d of the checkpoint's tree: %w", p.Index, err)
	}
	return c, leaf, nil
}

// VerifyConsistency checks two signed checkpoints and that the newer tree
// extends the older: two of the same size must have the same root (else
// the log forked), and a larger one must come with a valid consistency
// proof from the smaller.
func VerifyConsistency(older, newer []byte, proof []tlog.Hash, v note.Verifier) (Checkpoint, Checkpoint, error) {
	a, err := OpenCheckpoint(older, v)
	if err != nil {
		return a, Checkpoint{}, fmt.Errorf("older checkpoint: %w", err)
	}
	b, err := OpenCheckpoint(newer, v)
	if err != nil {
		return a, b, fmt.Errorf("newer checkpoint: %w", err)
	}
	switch {
	case a.Size == b.Size:
		if a.Root != b.Root {
			return a, b, fmt.Errorf("the log forked: two checkpoints of size %d with roots %s and %s", a.Size, a.Root, b.Root)
		}
		return a, b, nil
	case a.Size > b.Size:
		return a, b, fmt.Errorf("the older checkpoint (size %d) is larger than the newer (size %d)", a.Size, b.Size)
	case a.Size == 0:
		if a.Root != emptyRoot {
			return a, b, fmt.Errorf("the older checkpoint of the empty tree has root %s", a.Root)
		}
		return a, b, nil
	}
	if err := tlog.CheckTree(proof, b.Size, b.Root, a.Size, a.Root); err != nil {
		return a, b, fmt.Errorf("the tree of size %d does not extend the tree of size %d: %w", b.Size, a.Size, err)
	}
	return a, b, nil
}

// VerifyHistory checks a whole history answer offline: each version's
// chain link (hash and prevHash, as the service computes them) and, with
// its proof bundle, its inclusion in a signed checkpoint, the leaf being
// that very version's (its hash, and in LeafV1 its entity, version and
// time). A bundle is matched to its version by the version its leaf names
// (LeafV1) or else by the hash it holds (LeafV2). It returns how many
// versions were proven included; a version without a bundle is only
// chain-checked.
func VerifyHistory(records []todo.AuditRecord, bundles []ProofBundle, v note.Verifier) (int, error) {
	byVersion, byHash := map[int64]*ProofBundle{}, map[string]*ProofBundle{}
	for i := range bundles {
		leaf, err := ParseLeaf(bundles[i].Leaf)
		switch {
		case err != nil:
			return 0, fmt.Errorf("proof bundle %d: %w", i+1, err)
		case leaf.Names():
			byVersion[leaf.Version] = &bundles[i]
		default:
			byHash[leaf.Hash] = &bundles[i]
		}
	}
	prev, proven := "", 0
	for i := range records {
		r := &records[i]
		if r.Version != int64(i+1) {
			return proven, fmt.Errorf("record %d is version %d: the history is not complete from version 1", i+1, r.Version)
		}
		a, err := hashchain.Verified(r)
		var unverified *hashchain.UnverifiedError
		switch {
		case errors.As(err, &unverified):
			return proven, fmt.Errorf("the content of version %d does not match its hash: %w", r.Version, err)
		case err != nil:
			return proven, fmt.Errorf("version %d: %w", r.Version, err)
		}
		// The first version after a move links to the old id's history,
		// which this answer does not hold.
		moved := i == 0 && r.Operation == todo.OpMove && a.Entity.MovedFrom != ""
		if !moved && r.PrevHash != prev {
			return proven, fmt.Errorf("the prevHash of version %d is not the hash of version %d", r.Version, r.Version-1)
		}
		prev = r.Hash
		b, ok := byVersion[r.Version]
		if !ok {
			if b, ok = byHash[r.Hash]; !ok {
				continue
			}
		}
		if _, _, err := b.Verify(v); err != nil {
			return proven, fmt.Errorf("version %d: %w", r.Version, err)
		}
		want, err := LeafOf(r)
		if err != nil {
			return proven, fmt.Errorf("version %d: %w", r.Version, err)
		}
		if !want.LoggedAs(tlog.RecordHash(b.Leaf)) {
			return proven, fmt.Errorf("version %d: the logged leaf is not this version's (another entity, version or time)", r.Version)
		}
		proven++
	}
	if proven != len(bundles) {
		return proven, fmt.Errorf("%d of the proof bundles are of versions the history does not hold (a leaf that names no version holds a hash no record of the history has)", len(bundles)-proven)
	}
	return proven, nil
}

// TreeFromTiles recomputes the root of a checkpoint's tree from its tiles,
// read through tr, and checks it: a tampered or missing tile fails.
func TreeFromTiles(c Checkpoint, tr tlog.TileReader) error {
	h, err := tlog.TreeHash(c.Size, tlog.TileHashReader(c.Tree(), tr))
	if err != nil {
		return fmt.Errorf("the tiles do not give the checkpoint's tree: %w", err)
	}
	if h != c.Root {
		return fmt.Errorf("the tiles give root %s, the checkpoint %s", h, c.Root)
	}
	return nil
}

// TileFetcher reads tiles by their C2SP path (from a URL or a directory),
// for checking a checkpoint's tree from outside. What it returns is
// trusted only once the tree's root checks out.
type TileFetcher func(path string) ([]byte, error)

// Height is the tiles' height.
func (f TileFetcher) Height() int { return TileHeight }

// ReadTiles fetches each tile.
func (f TileFetcher) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(tiles))
	for i, t := range tiles {
		b, err := f(TilePath(t))
		if err != nil {
			return nil, err
		}
		if len(b) != t.W*tlog.HashSize {
			return nil, fmt.Errorf("tile %s holds %d bytes, not %d", TilePath(t), len(b), t.W*tlog.HashSize)
		}
		out[i] = b
	}
	return out, nil
}

// SaveTiles keeps nothing.
func (f TileFetcher) SaveTiles([]tlog.Tile, [][]byte) {}

// VerifyBundles checks, offline, every entry bundle of a checkpoint's
// tree, read through f: each holds as many entries as the tree has leaves
// in it, and each entry hashes to the tree's leaf at its index (the tiles
// read through f, each checked against the checkpoint's root). An entry
// bundle is what an outsider reads to list the log's leaves: an edited one
// fails. A bundle f answers with ErrWithheld (one holding leaves that name
// their versions, which the log serves to its administrators only) is
// counted and skipped: the tiles alone prove the tree. It returns the
// number of entries checked and of those withheld.
func VerifyBundles(c Checkpoint, f TileFetcher) (checked, withheld int64, err error) {
	hr := tlog.TileHashReader(c.Tree(), f)
	for n := int64(0); n*tileWidth < c.Size; n++ {
		t := bundleTile(c.Size, n)
		b, err := f(TilePath(t))
		if errors.Is(err, ErrWithheld) {
			withheld += int64(t.W)
			continue
		}
		if err != nil {
			return checked, withheld, err
		}
		entries, err := ParseBundle(b)
		if err == nil && len(entries) != t.W {
			err = fmt.Errorf("it holds %d entries, not %d", len(entries), t.W)
		}
		if err != nil {
			return checked, withheld, fmt.Errorf("entry bundle %s: %w", TilePath(t), err)
		}
		idx := make([]int64, t.W)
		for i := range idx {
			idx[i] = tlog.StoredHashIndex(0, n*tileWidth+int64(i))
		}
		hs, err := hr.ReadHashes(idx)
		if err != nil {
			return checked, withheld, fmt.Errorf("the tiles do not give the checkpoint's tree: %w", err)
		}
		for i, e := range entries {
			if tlog.RecordHash(e) != hs[i] {
				return checked, withheld, fmt.Errorf("entry %d of bundle %s is not the tree's leaf %d", i, TilePath(t), n*tileWidth+int64(i))
			}
		}
		checked += int64(t.W)
	}
	return checked, withheld, nil
}

// ErrWithheld is what a TileFetcher answers for an entry bundle the log
// does not serve to the caller: one that holds leaves naming their
// versions (LeafV1), served to the log's administrators only.
var ErrWithheld = errors.New("the log serves this entry bundle to its administrators only (ForAdminsOnly)")

// ForAdminsOnly reports whether an entry bundle holds anything but LeafV2
// leaves, which name nothing: a leaf that names its version (LeafV1), or
// bytes that are no leaf at all. The log serves such a bundle to its
// administrators only.
func ForAdminsOnly(bundle []byte) bool {
	entries, err := ParseBundle(bundle)
	if err != nil {
		return true
	}
	for _, e := range entries {
		if l, err := ParseLeaf(e); err != nil || l.Names() {
			return true
		}
	}
	return false
}
