package transparency

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/store"
)

// Log serves what the log publishes: the latest checkpoint, tiles, and
// inclusion and consistency proofs under the latest checkpoint.
type Log struct {
	Leases store.Container
	Keys   *Keys
	// Audit and Anchors are what Audit walks the log against.
	Audit   store.Container
	Anchors Anchors
	// Witnesses is the witness policy its checkpoints are cosigned under,
	// nil without witnesses.
	Witnesses *Policy
	// Damaged, when set, hears of damage a reader found: a tile that does
	// not give the checkpoint's tree, an entry bundle that does not hold
	// its leaves, a stored checkpoint that does not verify
	// (Integrator.Damaged).
	Damaged func(error)
	// LeafIndex, when set, is the store's key set (LeafIndexSet) that the
	// integrator keeps its leaves' indices in; the index documents of
	// versions logged before, or without it, are read as well.
	LeafIndex KeySet

	// opened is the stored checkpoint verified last: a monitor polls the
	// checkpoint far more often than it changes, and the same note's
	// signature is not checked again.
	opened atomic.Pointer[openedCheckpoint]
}

type openedCheckpoint struct {
	note string
	c    Checkpoint
}

// Signed tells l of a checkpoint this process has just signed and
// published (Integrator.Published): while the store holds that note, l
// serves it without checking its signature, which is the most a poll of
// the checkpoint costs (an Ed25519 verification a new checkpoint).
func (l *Log) Signed(note []byte, c Checkpoint) {
	l.opened.Store(&openedCheckpoint{note: string(note), c: c})
}

// Checkpoint returns the latest signed checkpoint, as published, and its
// body. NotFound before the first.
func (l *Log) Checkpoint(ctx context.Context) ([]byte, Checkpoint, error) {
	msg, c, _, err := l.Published(ctx)
	return msg, c, err
}

// Published is Checkpoint with the time the store took it: when the log
// last grew, within a pass of the integrator (a leaf names no time).
func (l *Log) Published(ctx context.Context) ([]byte, Checkpoint, time.Time, error) {
	var d checkpointDoc
	_, err := read(ctx, l.Leases, checkpointID, &d)
	if todo.IsKind(err, todo.NotFound) {
		return nil, Checkpoint{}, time.Time{}, todo.Errorf(todo.NotFound, "the log has no checkpoint yet")
	}
	if err != nil {
		return nil, Checkpoint{}, time.Time{}, err
	}
	at := time.Unix(d.TS, 0).UTC()
	if o := l.opened.Load(); o != nil && o.note == d.Note {
		return []byte(d.Note), o.c, at, nil
	}
	c, err := OpenCheckpoint([]byte(d.Note), l.Keys.Verifier)
	if err != nil {
		return nil, c, at, l.damaged(todo.Wrap(todo.Internal, err, "the stored checkpoint does not verify"))
	}
	l.opened.Store(&openedCheckpoint{note: d.Note, c: c})
	return []byte(d.Note), c, at, nil
}

// Tile returns the tile or entry bundle at a C2SP tlog-tiles path.
func (l *Log) Tile(ctx context.Context, path string) ([]byte, tlog.Tile, error) {
	t, err := ParseTilePath(path)
	if err != nil {
		return nil, t, todo.Errorf(todo.Invalid, "%s", err.Error())
	}
	b, err := newTileReader(ctx, l.Leases).read(t)
	if todo.IsKind(err, todo.NotFound) {
		return nil, t, todo.Errorf(todo.NotFound, "the log has no tile %s", path)
	}
	return b, t, err
}

// Inclusion is a version's leaf and its inclusion proof in the tree of a
// checkpoint.
type Inclusion struct {
	Checkpoint []byte
	Index      int64
	Leaf       []byte
	Proof      tlog.RecordProof
}

// Prove returns the inclusion proof of one version of an entity under the
// latest checkpoint. NotFound when that version is not in it (yet).
func (l *Log) Prove(ctx context.Context, entityKey string, version int64) (Inclusion, error) {
	var in Inclusion
	msg, c, err := l.Checkpoint(ctx)
	if err != nil {
		return in, err
	}
	d, err := l.locate(ctx, entityKey, version, c.Size)
	if err != nil {
		return in, err
	}
	tr := newTileReader(ctx, l.Leases)
	leaf, err := versionLeaf(tr, c.Tree(), d.Index, entityKey, version)
	if err != nil {
		return in, l.damaged(err)
	}
	proof, err := tlog.ProveRecord(c.Size, d.Index, tr.hashes(c.Tree()))
	if err != nil {
		return in, l.damaged(todo.Wrap(todo.Internal, err, "the log's tiles give no proof"))
	}
	return Inclusion{Checkpoint: msg, Index: d.Index, Leaf: leaf, Proof: proof}, nil
}

// locate reads where a version's leaf is: NotFound unless it is in the tree
// of the given size.
func (l *Log) locate(ctx context.Context, entityKey string, version int64, size int64) (indexDoc, error) {
	d, err := l.readIndex(ctx, entityKey, version)
	if todo.IsKind(err, todo.NotFound) || (err == nil && d.Index >= size) {
		return d, todo.Errorf(todo.NotFound, "version %d is not in the log's latest checkpoint (yet)", version)
	}
	return d, err
}

// readIndex reads a version's index document, NotFound before the version
// is appended. Its id, a digest of the entity key and the version, names
// the version; Prove and Check check the leaf at its index against the
// tree.
func (l *Log) readIndex(ctx context.Context, entityKey string, version int64) (indexDoc, error) {
	index, err := l.index().one(ctx, entityKey, version)
	return indexDoc{ID: indexID(entityKey, version), Index: index}, err
}

// index is where l finds its leaves.
func (l *Log) index() leafIndex { return leafIndex{leases: l.Leases, keys: l.LeafIndex} }

// versionLeaf reads the leaf at index of the tree t from its entry bundle,
// and checks that it is the one the tree holds there and, when its
// encoding names its version (LeafV1), the version asked for: an index
// document that locates another version's leaf is damage to the log, never
// a proof of that version. A LeafV2 leaf names nothing: the proof's reader
// checks it against the version's record, and AuditStore checks every
// index document against the records.
func versionLeaf(tr *tileReader, t tlog.Tree, index int64, entityKey string, version int64) ([]byte, error) {
	entries, err := tr.entries(bundleTile(t.N, index/tileWidth))
	if err != nil {
		return nil, todo.Wrap(todo.Internal, err, fmt.Sprintf("the log's entry bundle of leaf %d does not read", index))
	}
	b := entries[index%tileWidth]
	h, err := treeLeaf(tr.hashes(t), index)
	if err != nil {
		return nil, err
	}
	if h != tlog.RecordHash(b) {
		return nil, todo.Errorf(todo.Internal, "the log's entry bundle does not hold the tree's leaf %d", index)
	}
	leaf, err := ParseLeaf(b)
	if err != nil {
		return nil, todo.Wrap(todo.Internal, err, fmt.Sprintf("the log's leaf %d does not parse", index))
	}
	if leaf.Names() && (leaf.EntityKey() != entityKey || leaf.Version != version) {
		return nil, todo.Errorf(todo.Internal, "the log's index of version %d locates another version's leaf", version)
	}
	return b, nil
}

// damaged tells Damaged of err when it is damage to the log, not a store
// that failed to answer, and returns it.
func (l *Log) damaged(err error) error {
	if l.Damaged != nil && isDamage(err) {
		l.Damaged(err)
	}
	return err
}

// treeLeaf is the leaf hash the tree that hr reads holds at index.
func treeLeaf(hr tlog.HashReader, index int64) (tlog.Hash, error) {
	hs, err := treeLeaves(hr, []int64{index})
	if err != nil {
		return tlog.Hash{}, err
	}
	return hs[0], nil
}

// Consistency returns the consistency proof between the trees of sizes
// from and to, both at most the latest checkpoint's.
func (l *Log) Consistency(ctx context.Context, from, to int64) (tlog.TreeProof, error) {
	_, c, err := l.Checkpoint(ctx)
	if err != nil {
		return nil, err
	}
	if from < 0 || from > to || to > c.Size {
		return nil, todo.Errorf(todo.Invalid, "from and to must satisfy 0 <= from <= to <= %d, the latest checkpoint's size", c.Size)
	}
	if from == 0 || from == to {
		return tlog.TreeProof{}, nil // the empty tree, and a tree itself, need no proof
	}
	p, err := tlog.ProveTree(to, from, newTileReader(ctx, l.Leases).hashes(c.Tree()))
	if err != nil {
		return nil, l.damaged(todo.Wrap(todo.Internal, err, "the log's tiles give no proof"))
	}
	return p, nil
}

// Logged says how many of the versions checked are in the latest
// checkpoint with the leaf their records give, and how many are not in it
// yet.
type Logged struct {
	Logged, Pending int
	// Differs is the first version whose logged leaf is not the one its
	// record gives (another hash, link or time), 0 if none.
	Differs int64
}

// Check compares versions, as their audit records give them, with the log:
// each is logged when the tree holds, at the index its index document
// names, the leaf of its record (LeafOf). The leaf is computed, not read:
// a version costs the read of its index document, and the tiles are read
// and checked against the checkpoint's root in one pass over them all
// (treeLeaves), not once a version.
func (l *Log) Check(ctx context.Context, records []todo.AuditRecord) (Logged, error) {
	var out Logged
	_, c, err := l.Checkpoint(ctx)
	if todo.IsKind(err, todo.NotFound) {
		out.Pending = len(records)
		return out, nil
	}
	if err != nil {
		return out, err
	}
	refs := make([]VersionRef, len(records))
	for i := range records {
		refs[i] = VersionRef{EntityKey: records[i].EntityKey, Version: records[i].Version}
	}
	located, err := l.Locate(ctx, refs)
	if err != nil {
		return out, err
	}
	// The records in the tree, in their order, and their leaves' indices.
	var in []int
	var idx []int64
	for i, x := range located {
		if x < 0 || x >= c.Size {
			out.Pending++
			continue
		}
		in, idx = append(in, i), append(idx, x)
	}
	logged, err := treeLeaves(newTileReader(ctx, l.Leases).hashes(c.Tree()), idx)
	if err != nil {
		return out, l.damaged(err)
	}
	for k, i := range in {
		r := &records[i]
		if leaf, err := LeafOf(r); err != nil || !leaf.LoggedAs(logged[k]) {
			if out.Differs == 0 {
				out.Differs = r.Version
			}
			continue
		}
		out.Logged++
	}
	return out, nil
}

// treeLeaves are the leaf hashes the tree that hr reads holds at the
// indices, read leavesAtOnce at a time: each read fetches the tiles those
// leaves need once and checks each once against the tree's root, where a
// read a leaf would hash the same tiles up to the root again for every
// leaf.
func treeLeaves(hr tlog.HashReader, indices []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, 0, len(indices))
	stored := make([]int64, 0, min(len(indices), leavesAtOnce))
	for start := 0; start < len(indices); start += leavesAtOnce {
		stored = stored[:0]
		for _, x := range indices[start:min(start+leavesAtOnce, len(indices))] {
			stored = append(stored, tlog.StoredHashIndex(0, x))
		}
		hs, err := hr.ReadHashes(stored)
		if err != nil {
			return nil, todo.Wrap(todo.Internal, err, "the log's tiles do not match its checkpoint")
		}
		out = append(out, hs...)
	}
	return out, nil
}

// After returns the newest version of an entity after version that the
// latest checkpoint holds, found by the versions' index documents one after
// another, and its inclusion proof; 0 when it holds none. A history or a
// verification that ends at version while the log holds a later one has
// lost versions the log still commits to: the proof is the evidence,
// checked like any other.
func (l *Log) After(ctx context.Context, entityKey string, version int64) (int64, Inclusion, error) {
	_, c, err := l.Checkpoint(ctx)
	if todo.IsKind(err, todo.NotFound) {
		return 0, Inclusion{}, nil
	}
	if err != nil {
		return 0, Inclusion{}, err
	}
	newest := version
	for {
		_, err := l.locate(ctx, entityKey, newest+1, c.Size)
		if todo.IsKind(err, todo.NotFound) {
			break
		}
		if err != nil {
			return 0, Inclusion{}, err
		}
		newest++
	}
	if newest == version {
		return 0, Inclusion{}, nil
	}
	in, err := l.Prove(ctx, entityKey, newest)
	if err != nil {
		return 0, in, err
	}
	return newest, in, nil
}
