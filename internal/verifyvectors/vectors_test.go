package verifyvectors

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/sha256"
	"crypto/x509"
	"encoding/asn1"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"math/big"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/note"
	sumdb "golang.org/x/mod/sumdb/tlog"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/export"
	"github.com/todoaudit/todo/hashchain"
	"github.com/todoaudit/todo/internal/jsondoc"
	"github.com/todoaudit/todo/transparency"
)

var update = flag.Bool("update", false, "rewrite testdata/vectors.json")

const vectorsFile = "testdata/vectors.json"

// TestVectors writes every case (with -update) or checks that the
// committed vectors are exactly what the Go code writes now: a change of
// an encoding, a proof or a verdict makes them stale.
func TestVectors(t *testing.T) {
	got := encode(t, generate(t))
	if *update {
		if err := os.WriteFile(vectorsFile, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(vectorsFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale: run go test ./internal/verifyvectors -run TestVectors -update", vectorsFile)
	}
}

// encode writes v with one case a line, so that a change shows as the
// cases it changes.
func encode(t *testing.T, v Vectors) []byte {
	b := append([]byte(`{"keys":`), marshal(t, v.Keys)...)
	b = append(append(b, ",\n\"tiles\":"...), marshal(t, v.Tiles)...)
	b = append(b, ",\n\"cases\":["...)
	for i, c := range v.Cases {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(append(b, '\n'), marshal(t, c)...)
	}
	return append(b, "\n]}\n"...)
}

// Vectors is the file's content: the verifier keys by name, the log's
// tiles by tree, and the cases.
type Vectors struct {
	Keys  map[string]string            `json:"keys"`
	Tiles map[string]map[string][]byte `json:"tiles"`
	Cases []Case                       `json:"cases"`
}

// Case is one input of one kind and the Go verifier's verdict on it.
type Case struct {
	Name string `json:"name"`
	// Kind is checkpoint (Note), inclusion (Bundle), consistency (Older,
	// Newer, Proof), history (Records as served, Bundles), record (Record
	// as stored) or export (Export, with the log's Tiles).
	Kind string `json:"kind"`
	Key  string `json:"key,omitempty"`
	Note string `json:"note,omitempty"`
	// The JSON inputs are kept as their text: a member given twice must
	// reach the verifier as it is.
	Bundle  string   `json:"bundle,omitempty"`
	Older   string   `json:"older,omitempty"`
	Newer   string   `json:"newer,omitempty"`
	Proof   string   `json:"proof,omitempty"`
	Records []string `json:"records,omitempty"`
	Bundles []string `json:"bundles,omitempty"`
	Record  string   `json:"record,omitempty"`
	Export  string   `json:"export,omitempty"`
	Tiles   string   `json:"tiles,omitempty"`
	// CoversTree says the export holds every leaf of its checkpoint's
	// tree, all of one leaf encoding, so that its inclusion can be checked
	// without the tiles.
	CoversTree bool `json:"coversTree,omitempty"`
	// Verdict is "verified" or "failed"; Reason is the Go error.
	Verdict string `json:"verdict"`
	Reason  string `json:"reason,omitempty"`
	// Proven is, for a history, how many versions the Go verifier proved
	// in the log (the others are only chained: pending).
	Proven int `json:"proven,omitempty"`
}

const origin = "todoaudit.example/log"

// gen builds the cases over one log.
type gen struct {
	t       *testing.T
	v       Vectors
	signers map[string]note.Signer
	verify  map[string]note.Verifier
	hashes  []sumdb.Hash
	leaves  [][]byte
	index   map[string]int64 // leaf index by entity key and version
	todos   int              // histories written, for distinct times
}

func generate(t *testing.T) Vectors {
	g := &gen{t: t, v: Vectors{Keys: map[string]string{}, Tiles: map[string]map[string][]byte{}},
		signers: map[string]note.Signer{}, verify: map[string]note.Verifier{}, index: map[string]int64{}}
	g.ed25519Key("ed25519", origin, 1)
	g.ed25519Key("other", origin, 2)
	g.ed25519Key("elsewhere", "elsewhere.example/log", 3)
	g.ecdsaKey("ecdsa", origin, 4)

	h1 := g.history("alice", "Grocery:0001", []int{0, 0, 0}, nil)
	h2 := g.history("alice", "Grocery:0002", []int{2, 2, 2}, nil)
	h3 := g.history("bob", "Work:0003", []int{3, 3, 3, 3}, nil)
	mixed := g.history("carol", "Home:0004", []int{0, 2, 3}, nil)
	// An erasure erases every personal value of every version of its
	// user's todos: exports are refused any other shape of erasure.
	all := todo.PersonalFields
	erased := g.history("erin", "Home:0006", []int{2, 3, 3}, map[int][]string{0: all, 1: all, 2: all})
	// The older histories are logged with leaves that name their
	// versions, as earlier builds wrote them, the others with leaves that
	// name nothing; one todo's chain runs across both.
	for _, h := range [][]todo.AuditRecord{h1, h2, mixed[:1]} {
		for i := range h {
			g.append(&h[i], transparency.LeafV1)
		}
	}
	for _, h := range [][]todo.AuditRecord{h3[:3], mixed[1:], erased} {
		for i := range h {
			g.append(&h[i], transparency.LeafV2)
		}
	}
	g.append(&h3[3], transparency.LeafV2) // integrated, not yet under a checkpoint
	size := int64(len(g.leaves) - 1)
	early := int64(5)
	cp := g.sign("ed25519", g.checkpoint(size))
	cpECDSA := g.sign("ecdsa", g.checkpoint(size))
	cpEarly := g.sign("ed25519", g.checkpoint(early))
	g.tiles("main", size)
	g.tiles("early", early)

	g.checkpointCases(size, cp, cpECDSA)
	g.inclusionCases(size, cp, cpECDSA)
	g.consistencyCases(size, early, cp, cpEarly, cpECDSA)
	g.historyCases(size, cp, h1, h2, h3, mixed, erased)
	g.recordCases(h2, h3, erased)
	g.exportCases(size, cp, cpECDSA, cpEarly, [][]todo.AuditRecord{h1, h2, h3[:3], mixed, erased}, h2, h3)
	g.exportSeedCases(cp, [][]todo.AuditRecord{h1, h2, h3[:3], mixed, erased}, h2, h3)
	g.exportErasureCases(cp, h3, erased)
	g.exportErasureEntryCases(cp, erased)
	g.exportFilterCases(cp, h2)
	return g.v
}

// add labels c with the Go verdict err gives, which must be want: a
// tampered case the Go verifier accepts tests nothing.
func (g *gen) add(c Case, err error, want string) {
	g.t.Helper()
	c.Verdict = "verified"
	if err != nil {
		c.Verdict, c.Reason = "failed", err.Error()
	}
	if c.Verdict != want {
		g.t.Fatalf("case %s: the Go verifier says %s (%v), the case means %s", c.Name, c.Verdict, err, want)
	}
	g.v.Cases = append(g.v.Cases, c)
}

func fixedBytes(n int, b byte) []byte { return bytes.Repeat([]byte{b}, n) }

func (g *gen) ed25519Key(name, keyName string, fill byte) {
	seed := fixedBytes(ed25519.SeedSize, fill)
	vkey, err := note.NewEd25519VerifierKey(keyName, ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey))
	if err != nil {
		g.t.Fatal(err)
	}
	parts := strings.Split(vkey, "+")
	keys, err := transparency.NewKeys(fmt.Sprintf("PRIVATE+KEY+%s+%s+%s", keyName, parts[1], base64.StdEncoding.EncodeToString(append([]byte{1}, seed...))))
	if err != nil {
		g.t.Fatal(err)
	}
	g.v.Keys[name], g.signers[name], g.verify[name] = keys.VerifierKey, keys.Signer, keys.Verifier
}

// ecdsaSigner signs notes as a Key Vault key does (C2SP type 0x02), with
// deterministic signatures (RFC 6979) so that the vectors are stable.
type ecdsaSigner struct {
	name string
	hash uint32
	key  *ecdsa.PrivateKey
}

func (s *ecdsaSigner) Name() string    { return s.name }
func (s *ecdsaSigner) KeyHash() uint32 { return s.hash }
func (s *ecdsaSigner) Sign(msg []byte) ([]byte, error) {
	sum := sha256.Sum256(msg)
	return s.key.Sign(nil, sum[:], crypto.SHA256)
}

func (g *gen) ecdsaKey(name, keyName string, fill byte) {
	key, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), fixedBytes(32, fill))
	if err != nil {
		g.t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		g.t.Fatal(err)
	}
	sum := sha256.Sum256(der)
	hash := binary.BigEndian.Uint32(sum[:4])
	vkey := fmt.Sprintf("%s+%08x+%s", keyName, hash, base64.StdEncoding.EncodeToString(append([]byte{2}, der...)))
	v, err := transparency.NewVerifier(vkey)
	if err != nil {
		g.t.Fatal(err)
	}
	g.v.Keys[name], g.signers[name], g.verify[name] = vkey, &ecdsaSigner{name: keyName, hash: hash, key: key}, v
}

var base = time.Date(2026, 11, 30, 7, 0, 0, 123456789, time.UTC)

// history writes the versions of one todo, version i in chain encoding
// chains[i] (0 the first), then erases the fields erase names of the
// versions it names (by index).
func (g *gen) history(owner, id string, chains []int, erase map[int][]string) []todo.AuditRecord {
	var out []todo.AuditRecord
	prev := ""
	due := base.Add(72 * time.Hour)
	for i, chain := range chains {
		v := int64(i + 1)
		at := base.Add(time.Duration(g.todos*10+i) * time.Minute)
		op := todo.OpUpdate
		if i == 0 {
			op = todo.OpCreate
		}
		f := todo.Fields{Category: strings.Split(id, ":")[0], Title: fmt.Sprintf("buy oat milk, %d litres", i+1),
			Notes: "the one in the blue carton", Tags: []string{"shop", fmt.Sprintf("week%d", 48+i)}, IsCompleted: i == 2}
		if i%2 == 1 {
			f.DueDate = &due
		}
		entity, err := todo.MarshalJSON(todo.Todo{ID: id, Type: todo.TypeTodo, UserID: owner, Fields: f, Version: v,
			CreatedAt: base, UpdatedAt: at, LastOperation: op, UpdatedBy: owner})
		if err != nil {
			g.t.Fatal(err)
		}
		r := todo.AuditRecord{ID: todo.AuditID(id, v), EntityKey: todo.EntityKey(owner, id), EntityID: id, EntityType: todo.EntityTypeTodo,
			Version: v, Operation: op, Entity: entity, DateCreatedUTC: at, Actor: owner, PrevHash: prev, Chain: chain}
		if chain != 0 {
			seed := sha256.Sum256([]byte(r.ID))
			r.Seed = hex.EncodeToString(seed[:hashchain.SeedBytes])
		}
		g.seal(&r)
		for _, name := range erase[i] {
			if err := hashchain.EraseRecord(&r, name); err != nil {
				g.t.Fatal(err)
			}
		}
		out = append(out, r)
		prev = r.Hash
	}
	g.todos++
	return out
}

// seal sets r's hash from its content and links.
func (g *gen) seal(r *todo.AuditRecord) {
	a, err := hashchain.Content(r)
	if err != nil {
		g.t.Fatal(err)
	}
	r.Hash = a.Hash(r.PrevHash)
}

func (g *gen) hashReader() sumdb.HashReader {
	return sumdb.HashReaderFunc(func(idx []int64) ([]sumdb.Hash, error) {
		out := make([]sumdb.Hash, len(idx))
		for i, x := range idx {
			out[i] = g.hashes[x]
		}
		return out, nil
	})
}

func refKey(entityKey string, version int64) string {
	return entityKey + "@" + strconv.FormatInt(version, 10)
}

// append logs r with a leaf of the encoding enc.
func (g *gen) append(r *todo.AuditRecord, enc string) {
	leaf, err := transparency.LeafOf(r)
	if err != nil {
		g.t.Fatal(err)
	}
	b := leaf.EncodeAs(enc)
	hs, err := sumdb.StoredHashes(int64(len(g.leaves)), b, g.hashReader())
	if err != nil {
		g.t.Fatal(err)
	}
	g.index[refKey(r.EntityKey, r.Version)] = int64(len(g.leaves))
	g.leaves = append(g.leaves, b)
	g.hashes = append(g.hashes, hs...)
}

func (g *gen) checkpoint(size int64) transparency.Checkpoint {
	root, err := sumdb.TreeHash(size, g.hashReader())
	if err != nil {
		g.t.Fatal(err)
	}
	return transparency.Checkpoint{Origin: origin, Size: size, Root: root}
}

func (g *gen) sign(key string, c transparency.Checkpoint) string {
	b, err := c.Sign(g.signers[key])
	if err != nil {
		g.t.Fatal(err)
	}
	return string(b)
}

func (g *gen) tiles(name string, size int64) {
	m := map[string][]byte{}
	for _, tile := range sumdb.NewTiles(transparency.TileHeight, 0, size) {
		data, err := sumdb.ReadTileData(tile, g.hashReader())
		if err != nil {
			g.t.Fatal(err)
		}
		m[transparency.TilePath(tile)] = data
	}
	g.v.Tiles[name] = m
}

// flipAt changes the character of s at i (a base64 digit of a signature).
func flipAt(s string, i int) string {
	c := byte('A')
	if s[i] == 'A' {
		c = 'B'
	}
	return s[:i] + string(c) + s[i+1:]
}

// resign replaces the signature of an ECDSA-signed note with sig.
func resign(noteText string, keyHash uint32, sig []byte) string {
	i := strings.LastIndex(noteText, " ")
	return noteText[:i+1] + base64.StdEncoding.EncodeToString(append(binary.BigEndian.AppendUint32(nil, keyHash), sig...)) + "\n"
}

func (g *gen) checkpointCases(size int64, cp, cpECDSA string) {
	resized := strings.Replace(cp, fmt.Sprintf("\n%d\n", size), fmt.Sprintf("\n%d\n", size-1), 1)
	open := func(n, key string) error { _, err := transparency.OpenCheckpoint([]byte(n), g.verify[key]); return err }
	for _, c := range []struct{ name, key, note, want string }{
		{"ed25519 checkpoint", "ed25519", cp, "verified"},
		{"ecdsa checkpoint", "ecdsa", cpECDSA, "verified"},
		{"ed25519 checkpoint checked with the ecdsa key", "ecdsa", cp, "failed"},
		{"checkpoint signed by another key of the same name", "other", cp, "failed"},
		{"ed25519 signature altered", "ed25519", flipAt(cp, len(cp)-10), "failed"},
		{"ecdsa signature altered", "ecdsa", flipAt(cpECDSA, len(cpECDSA)-10), "failed"},
		{"checkpoint size altered", "ed25519", resized, "failed"},
		{"checkpoint of another origin", "elsewhere", g.signOrigin("elsewhere", cp), "failed"},
	} {
		g.add(Case{Name: c.name, Kind: "checkpoint", Key: c.key, Note: c.note}, open(c.note, c.key), c.want)
	}
	// An extension line after the root is allowed and ignored.
	withExt := g.signText("ed25519", strings.SplitN(cp, "\n\n", 2)[0]+"\nextension line\n")
	g.add(Case{Name: "checkpoint with an extension line", Kind: "checkpoint", Key: "ed25519", Note: withExt}, open(withExt, "ed25519"), "verified")
	// ECDSA: (r, n-s) verifies as well as (r, s); an INTEGER not in its
	// minimal encoding does not decode.
	s := g.signers["ecdsa"].(*ecdsaSigner)
	var sig struct{ R, S *big.Int }
	raw := decodeNoteSig(cpECDSA)
	if _, err := asn1.Unmarshal(raw, &sig); err != nil {
		g.t.Fatal(err)
	}
	high, _ := asn1.Marshal(struct{ R, S *big.Int }{sig.R, new(big.Int).Sub(elliptic.P256().Params().N, sig.S)})
	highNote := resign(cpECDSA, s.hash, high)
	g.add(Case{Name: "ecdsa signature with the high s", Kind: "checkpoint", Key: "ecdsa", Note: highNote}, open(highNote, "ecdsa"), "verified")
	padded := append([]byte{0x30, raw[1] + 1, 0x02, raw[3] + 1, 0x00}, raw[4:]...)
	padNote := resign(cpECDSA, s.hash, padded)
	g.add(Case{Name: "ecdsa signature not in DER", Kind: "checkpoint", Key: "ecdsa", Note: padNote}, open(padNote, "ecdsa"), "failed")
}

// decodeNoteSig is the signature bytes of a note's one signature line,
// after the key hash.
func decodeNoteSig(n string) []byte {
	line := strings.TrimSuffix(n[strings.LastIndex(n, " ")+1:], "\n")
	b, _ := base64.StdEncoding.DecodeString(line)
	return b[4:]
}

// signText signs any note text.
func (g *gen) signText(key, text string) string {
	b, err := note.Sign(&note.Note{Text: text}, g.signers[key])
	if err != nil {
		g.t.Fatal(err)
	}
	return string(b)
}

// signOrigin signs cp's body under key, whose name is not its origin.
func (g *gen) signOrigin(key, cp string) string {
	return g.signText(key, strings.SplitN(cp, "\n\n", 2)[0]+"\n")
}

func (g *gen) bundle(size int64, cp string, index int64) transparency.ProofBundle {
	p, err := sumdb.ProveRecord(size, index, g.hashReader())
	if err != nil {
		g.t.Fatal(err)
	}
	return transparency.ProofBundle{Checkpoint: cp, Index: index, Leaf: g.leaves[index], Proof: p}
}

func marshal(t *testing.T, v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func (g *gen) inclusionCases(size int64, cp, cpECDSA string) {
	check := func(name, key string, b transparency.ProofBundle, want string) {
		raw := marshal(g.t, b)
		p, err := transparency.ParseProofBundle(raw)
		if err == nil {
			_, _, err = p.Verify(g.verify[key])
		}
		g.add(Case{Name: name, Kind: "inclusion", Key: key, Bundle: string(raw)}, err, want)
	}
	for _, i := range []int64{0, 1, 5, size - 2, size - 1} {
		check(fmt.Sprintf("inclusion of leaf %d of %d", i, size), "ed25519", g.bundle(size, cp, i), "verified")
	}
	check("inclusion under the ecdsa checkpoint", "ecdsa", g.bundle(size, cpECDSA, 7), "verified")
	b := g.bundle(size, cp, 6)
	b.Proof[1][0] ^= 1
	check("inclusion proof altered", "ed25519", b, "failed")
	b = g.bundle(size, cp, 6)
	b.Index = 7
	check("inclusion at another index", "ed25519", b, "failed")
	b = g.bundle(size, cp, 6)
	b.Leaf = bytes.Replace(b.Leaf, []byte("version 1"), []byte("version 9"), 1)
	check("inclusion of an altered leaf", "ed25519", b, "failed")
	b = g.bundle(size, cp, 6)
	b.Proof = b.Proof[:len(b.Proof)-1]
	check("inclusion proof cut short", "ed25519", b, "failed")
	b = g.bundle(size, cp, size-1)
	b.Index = size
	check("inclusion beyond the tree", "ed25519", b, "failed")
	b = g.bundle(size, cp, 3)
	b.Checkpoint = flipAt(cp, len(cp)-10)
	check("inclusion under a checkpoint whose signature is altered", "ed25519", b, "failed")
}

func (g *gen) consistencyCases(size, early int64, cp, cpEarly, cpECDSA string) {
	check := func(name, key, older, newer string, p *transparency.ConsistencyProof, want string) {
		var raw json.RawMessage
		var proof transparency.ConsistencyProof
		if p != nil {
			raw, proof = marshal(g.t, p), *p
		}
		a, b, err := transparency.VerifyConsistency([]byte(older), []byte(newer), proof.Proof, g.verify[key])
		if err == nil && a.Size != b.Size && (proof.From != a.Size || proof.To != b.Size) {
			err = fmt.Errorf("the proof is from %d to %d, the checkpoints are of sizes %d and %d", proof.From, proof.To, a.Size, b.Size)
		}
		g.add(Case{Name: name, Kind: "consistency", Key: key, Older: older, Newer: newer, Proof: string(raw)}, err, want)
	}
	prove := func(from, to int64) *transparency.ConsistencyProof {
		p, err := sumdb.ProveTree(to, from, g.hashReader())
		if err != nil {
			g.t.Fatal(err)
		}
		return &transparency.ConsistencyProof{From: from, To: to, Proof: p}
	}
	for _, from := range []int64{1, 2, 3, 4, early, 8, size - 1} {
		check(fmt.Sprintf("consistency from %d to %d", from, size), "ed25519", g.sign("ed25519", g.checkpoint(from)), cp, prove(from, size), "verified")
	}
	check("consistency of one checkpoint with itself", "ed25519", cp, cp, nil, "verified")
	check("consistency from the empty tree", "ed25519", g.sign("ed25519", g.checkpoint(0)), cp, &transparency.ConsistencyProof{To: size}, "verified")
	check("consistency from the empty tree without a proof", "ed25519", g.sign("ed25519", g.checkpoint(0)), cp, nil, "failed")
	check("consistency under the ecdsa key", "ecdsa", g.sign("ecdsa", g.checkpoint(early)), cpECDSA, prove(early, size), "verified")
	forked := g.checkpoint(size)
	forked.Root[0] ^= 1
	check("a fork: two roots of one size", "ed25519", cp, g.sign("ed25519", forked), nil, "failed")
	check("a rollback: the newer is smaller", "ed25519", cp, cpEarly, prove(early, size), "failed")
	p := prove(early, size)
	p.Proof[0][3] ^= 1
	check("consistency proof altered", "ed25519", cpEarly, cp, p, "failed")
	p = prove(early, size)
	p.From = early + 1
	check("consistency proof of other sizes", "ed25519", cpEarly, cp, p, "failed")
	check("consistency without a proof", "ed25519", cpEarly, cp, &transparency.ConsistencyProof{From: early, To: size}, "failed")
	forked = g.checkpoint(early)
	forked.Root[0] ^= 1
	check("consistency from a forked older checkpoint", "ed25519", g.sign("ed25519", forked), cp, prove(early, size), "failed")
}

// served is r as history and exports serve it: its commitments in place
// of its seed.
func (g *gen) served(r todo.AuditRecord) json.RawMessage {
	if err := hashchain.ExpandRecord(&r); err != nil {
		g.t.Fatal(err)
	}
	return g.stored(r)
}

// stored is r as the store keeps it.
func (g *gen) stored(r todo.AuditRecord) json.RawMessage {
	b, err := r.AppendJSON(nil)
	if err != nil {
		g.t.Fatal(err)
	}
	return b
}

// edit changes a served record's JSON: the member path (entity.title,
// commitments.title.salt) set to v, or removed when v is nil.
func (g *gen) edit(raw json.RawMessage, path string, v any) json.RawMessage {
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		g.t.Fatal(err)
	}
	names := strings.Split(path, ".")
	at := m
	for _, n := range names[:len(names)-1] {
		at = at[n].(map[string]any)
	}
	if v == nil {
		delete(at, names[len(names)-1])
	} else {
		at[names[len(names)-1]] = v
	}
	return marshal(g.t, m)
}

func (g *gen) historyCases(size int64, cp string, h1, h2, h3, mixed, erased []todo.AuditRecord) {
	check := func(name string, records []json.RawMessage, bundles []transparency.ProofBundle, want string) {
		var recs []todo.AuditRecord
		var err error
		for _, raw := range records {
			var r todo.AuditRecord
			if err = jsondoc.UnmarshalStrict(raw, &r); err != nil {
				break
			}
			recs = append(recs, r)
		}
		proven := 0
		if err == nil {
			proven, err = transparency.VerifyHistory(recs, bundles, g.verify["ed25519"])
		}
		c := Case{Name: name, Kind: "history", Key: "ed25519"}
		for _, r := range records {
			c.Records = append(c.Records, string(r))
		}
		for _, b := range bundles {
			c.Bundles = append(c.Bundles, string(marshal(g.t, b)))
		}
		if err == nil {
			c.Proven = proven
		}
		g.add(c, err, want)
	}
	servedAll := func(h []todo.AuditRecord) []json.RawMessage {
		var out []json.RawMessage
		for _, r := range h {
			out = append(out, g.served(r))
		}
		return out
	}
	bundlesOf := func(h []todo.AuditRecord) []transparency.ProofBundle {
		var out []transparency.ProofBundle
		for _, r := range h {
			if i := g.index[refKey(r.EntityKey, r.Version)]; i < size {
				out = append(out, g.bundle(size, cp, i))
			}
		}
		return out
	}
	for _, c := range []struct {
		name string
		h    []todo.AuditRecord
	}{{"first encoding", h1}, {"second encoding", h2}, {"third encoding, the last version pending", h3},
		{"first, second and third encodings in one history", mixed}, {"second and third encodings, every personal value erased", erased}} {
		check("history: "+c.name, servedAll(c.h), bundlesOf(c.h), "verified")
		check("history without proofs: "+c.name, servedAll(c.h), nil, "verified")
	}
	// The second form of a history page shows a record stored with its
	// seed as it is stored: the seed in place of its commitments.
	storedAll := func(h []todo.AuditRecord) []json.RawMessage {
		var out []json.RawMessage
		for _, r := range h {
			out = append(out, g.stored(r))
		}
		return out
	}
	for _, c := range []struct {
		name string
		h    []todo.AuditRecord
	}{{"third encoding, the last version pending", h3}, {"first, second and third encodings in one history", mixed},
		{"second and third encodings, every personal value erased", erased}} {
		check("history in the second form: "+c.name, storedAll(c.h), bundlesOf(c.h), "verified")
	}
	tamperStored := func(name string, version int, path string, v any) {
		records := storedAll(h3)
		records[version-1] = g.edit(records[version-1], path, v)
		check("history in the second form: "+name, records, bundlesOf(h3), "failed")
	}
	altered := "0" + h3[1].Seed[1:] // still 16 bytes in lowercase hex
	if altered == h3[1].Seed {
		altered = "1" + altered[1:]
	}
	tamperStored("a seed altered", 2, "seed", altered)
	tamperStored("a seed in upper case", 2, "seed", strings.ToUpper(h3[1].Seed))
	tamperStored("a title edited", 1, "entity.title", "forged")
	var served map[string]any
	if err := json.Unmarshal(g.served(h3[0]), &served); err != nil {
		g.t.Fatal(err)
	}
	tamperStored("a seed and commitments both", 1, "commitments", served["commitments"])
	tamper := func(name string, h []todo.AuditRecord, version int, path string, v any) {
		records := servedAll(h)
		records[version-1] = g.edit(records[version-1], path, v)
		check("history: "+name, records, bundlesOf(h), "failed")
	}
	tamper("first encoding, a title edited", h1, 2, "entity.title", "forged")
	tamper("second encoding, a title edited", h2, 3, "entity.title", "forged")
	tamper("third encoding, notes edited", h3, 1, "entity.notes", "forged")
	tamper("third encoding, a tag removed", h3, 2, "entity.tags", []string{"shop"})
	tamper("third encoding, completion flipped", h3, 1, "entity.isCompleted", true)
	tamper("third encoding, the due date moved", h3, 2, "entity.dueDate", "2027-01-01T00:00:00Z")
	tamper("third encoding, the actor changed", h3, 2, "actor", "mallory")
	tamper("third encoding, the time changed", h3, 2, "dateCreatedUtc", "2026-11-30T08:00:00Z")
	tamper("second encoding, an erased title put back", erased, 1, "entity.title", "buy oat milk, 1 litres")
	tamper("third encoding, an erased field keeps a salt", erased, 2, "commitments.title.salt", strings.Repeat("ab", 16))
	tamper("third encoding, a digest in upper case", h3, 1, "commitments.notes.digest", strings.ToUpper(g.commitment(h3[0], "notes").Digest))
	tamper("third encoding, a field not committed", h3, 1, "commitments.notes", nil)
	tamper("third encoding, a commitment to a field no todo has", h3, 1, "commitments.colour", map[string]any{"salt": strings.Repeat("ab", 16), "digest": strings.Repeat("cd", 32)})
	tamper("third encoding, an entity member no todo has", h3, 1, "entity.colour", "red")
	tamper("third encoding, a record member it never has", h3, 1, "note", "hello")
	tamper("first encoding with commitments", h1, 1, "commitments", map[string]any{})
	tamper("an unknown chain encoding", h3, 1, "chain", 9)

	records := servedAll(h3)
	records[0] = json.RawMessage(strings.Replace(string(records[0]), `"title":"`, `"title":"forged","title":"`, 1))
	check("history: a member given twice", records, bundlesOf(h3), "failed")
	records = servedAll(h3)
	records[0] = json.RawMessage(strings.Replace(string(records[0]), `"title":"`, `"TITLE":"forged","title":"`, 1))
	check("history: a member in another case", records, bundlesOf(h3), "failed")
	records = servedAll(h2)
	check("history: a version missing", append(records[:1:1], records[2]), nil, "failed")

	// A chain rewritten consistently verifies as a chain; only the log
	// shows that version 2 is not the one it holds.
	rewritten := append([]todo.AuditRecord(nil), h1...)
	for i := 1; i < len(rewritten); i++ {
		if i == 1 {
			rewritten[i].Entity = g.edit(rewritten[i].Entity, "title", "forged")
		}
		rewritten[i].PrevHash = rewritten[i-1].Hash
		g.seal(&rewritten[i])
	}
	check("history rewritten consistently, without proofs", servedAll(rewritten), nil, "verified")
	check("history rewritten consistently, with proofs", servedAll(rewritten), bundlesOf(h1), "failed")
	wrongLink := append([]todo.AuditRecord(nil), h2...)
	wrongLink[1].PrevHash = h1[0].Hash
	g.seal(&wrongLink[1])
	check("history: a version linked to another todo's", servedAll(wrongLink), nil, "failed")
	swapped := bundlesOf(h3)
	swapped[1] = g.bundle(size, cp, g.index[refKey(h1[1].EntityKey, 2)])
	check("history: a proof of another todo's version", servedAll(h3), swapped, "failed")
}

func (g *gen) commitment(r todo.AuditRecord, name string) todo.Commitment {
	if err := hashchain.ExpandRecord(&r); err != nil {
		g.t.Fatal(err)
	}
	return r.Commitments[name]
}

func (g *gen) recordCases(h2, h3, erased []todo.AuditRecord) {
	check := func(name string, raw json.RawMessage, want string) {
		_, _, err := hashchain.DecodeVerifiedRecord(raw)
		g.add(Case{Name: name, Kind: "record", Record: string(raw)}, err, want)
	}
	check("stored record of the second encoding, with its seed", g.stored(h2[0]), "verified")
	check("stored record of the third encoding, with its seed", g.stored(h3[0]), "verified")
	check("stored record with its personal fields erased, no seed", g.stored(erased[1]), "verified")
	check("stored record with the store's properties", g.edit(g.stored(h3[1]), "_etag", `"00000000-0000"`), "verified")
	check("stored record, seed-derived, its title edited", g.edit(g.stored(h3[1]), "entity.title", "forged"), "failed")
	check("stored record, its seed replaced", g.edit(g.stored(h3[1]), "seed", strings.Repeat("0", 32)), "failed")
	check("stored record, its seed in upper case", g.edit(g.stored(h3[1]), "seed", strings.ToUpper(h3[1].Seed)), "failed")
	check("stored record with a seed and commitments", g.edit(g.stored(h3[1]), "commitments", map[string]any{}), "failed")
	v1 := g.history("dave", "Misc:0005", []int{0}, nil)[0]
	check("stored record of the first encoding with a seed", g.edit(g.stored(v1), "seed", strings.Repeat("ab", 16)), "failed")
	check("stored record of the first encoding", g.stored(v1), "verified")
}

// exportLog is the log as an export sees it.
type exportLog struct {
	note  string
	cp    transparency.Checkpoint
	index map[string]int64
}

func (l exportLog) Checkpoint(context.Context) ([]byte, transparency.Checkpoint, error) {
	return []byte(l.note), l.cp, nil
}

func (l exportLog) Locate(_ context.Context, refs []transparency.VersionRef) ([]int64, error) {
	out := make([]int64, len(refs))
	for i, r := range refs {
		x, ok := l.index[refKey(r.EntityKey, r.Version)]
		if !ok || x >= l.cp.Size {
			x = -1
		}
		out[i] = x
	}
	return out, nil
}

// checkExport labels an export case with the Go verdict, its inclusion
// checked against the main tiles.
func (g *gen) checkExport(name, key, text string, covers bool, want string) {
	g.checkExportOn("main", name, key, text, covers, want)
}

// checkExportOn is checkExport against the named set of tiles.
func (g *gen) checkExportOn(tileSet, name, key, text string, covers bool, want string) {
	tiles := g.v.Tiles[tileSet]
	_, err := export.Verify(strings.NewReader(text), g.verify[key], transparency.TileFetcher(func(p string) ([]byte, error) {
		if b, ok := tiles[p]; ok {
			return b, nil
		}
		return nil, errors.New("no tile " + p)
	}))
	g.add(Case{Name: name, Kind: "export", Key: key, Export: text, Tiles: tileSet, CoversTree: covers}, err, want)
}

// writeExport writes records as an export in format under the checkpoint
// note, its manifest naming filters, in the first form (every record with
// its commitments), as the vectors were first written.
func (g *gen) writeExport(format, note string, filters map[string]string, records []todo.AuditRecord) string {
	return g.writeExportIn(format, export.FormCommitments, note, filters, records)
}

// writeExportIn is writeExport in the given form.
func (g *gen) writeExportIn(format string, form int, note string, filters map[string]string, records []todo.AuditRecord) string {
	c, err := transparency.ParseCheckpoint(strings.SplitN(note, "\n\n", 2)[0] + "\n")
	if err != nil {
		g.t.Fatal(err)
	}
	var b bytes.Buffer
	w := export.NewForm(&b, format, form, filters, exportLog{note: note, cp: c, index: g.index})
	for _, r := range records {
		if err := w.Write(r); err != nil {
			g.t.Fatal(err)
		}
	}
	if _, err := w.Close(context.Background()); err != nil {
		g.t.Fatal(err)
	}
	return b.String()
}

// exportErasureCases are exports whose records show an erasure no
// erasure makes: it erases every personal value of a version, personal
// fields only, and every version before the newest it erases.
func (g *gen) exportErasureCases(cp string, h3, erased []todo.AuditRecord) {
	erase := func(r todo.AuditRecord, names ...string) todo.AuditRecord {
		r.Commitments = maps.Clone(r.Commitments) // r's own: the history's stay as they are
		for _, n := range names {
			if err := hashchain.EraseRecord(&r, n); err != nil {
				g.t.Fatal(err)
			}
		}
		return r
	}
	for _, format := range []string{export.NDJSON, export.CSV} {
		kind := map[string]string{export.NDJSON: "NDJSON", export.CSV: "CSV"}[format]
		g.checkExport(kind+" export of a todo with every personal value erased", "ed25519", g.writeExport(format, cp, nil, erased), false, "verified")
		g.checkExport(kind+" export, a version's title alone shown erased", "ed25519",
			g.writeExport(format, cp, nil, []todo.AuditRecord{erase(h3[1], "title")}), false, "failed")
		g.checkExport(kind+" export, a version's category shown erased as well", "ed25519",
			g.writeExport(format, cp, nil, []todo.AuditRecord{erase(erased[1], "category")}), false, "failed")
		g.checkExport(kind+" export, the last version erased and the ones before it kept", "ed25519",
			g.writeExport(format, cp, nil, []todo.AuditRecord{h3[0], h3[1], erase(h3[2], todo.PersonalFields...)}), false, "failed")
	}
	g.checkExport("NDJSON export, the first version erased and a later one kept", "ed25519",
		g.writeExport(export.NDJSON, cp, nil, []todo.AuditRecord{erase(h3[0], todo.PersonalFields...), h3[1]}), false, "verified")
}

// exportErasureEntryCases are exports holding an erasure's own entry, as
// an activity or admin export shows it: no chain or log covers it, so it
// is checked against its hash, the SHA-256 of its entity (the run's
// status), shown in the governance partition without a logIndex, and
// counted among the manifest's pending records.
func (g *gen) exportErasureEntryCases(cp string, erased []todo.AuditRecord) {
	status := []byte(`{"id":"erasure:erin","userId":"erin","reason":"asked by erin","requestedBy":"admin","run":1,"state":"done","phase":"done"}`)
	sum := sha256.Sum256(status)
	entry := todo.AuditRecord{ID: "erasure:erin", EntityKey: todo.GovernanceKey, EntityID: "erasure:erin", EntityType: todo.EntityTypeErasure,
		Version: 1, Operation: todo.OpErase, Entity: status, DateCreatedUTC: erased[len(erased)-1].DateCreatedUTC.Add(time.Second),
		Actor: "admin", Hash: hex.EncodeToString(sum[:])}
	records := append(append([]todo.AuditRecord(nil), erased...), entry)
	for _, format := range []string{export.NDJSON, export.CSV} {
		kind := map[string]string{export.NDJSON: "NDJSON", export.CSV: "CSV"}[format]
		text := g.writeExport(format, cp, nil, records)
		q := map[string]string{export.NDJSON: `"`, export.CSV: `""`}[format] // a quote, as the manifest's JSON shows it
		g.checkExport(kind+" export with an erasure entry", "ed25519", text, false, "verified")
		g.checkExport(kind+" export with an erasure entry whose entity is edited", "ed25519",
			strings.Replace(text, "asked by", "asked of", 1), false, "failed")
		moved := entry
		moved.EntityKey = "todo/erin/erasure:erin"
		g.checkExport(kind+" export with an erasure entry outside the governance partition", "ed25519",
			g.writeExport(format, cp, nil, append(records[:len(records)-1:len(records)-1], moved)), false, "failed")
		g.checkExport(kind+" export with an erasure entry the manifest does not count as pending", "ed25519",
			strings.Replace(text, "pending"+q+":1", "pending"+q+":0", 1), false, "failed")
	}
	ndjson := g.writeExport(export.NDJSON, cp, nil, records)
	g.checkExport("NDJSON export with an erasure entry given a logIndex", "ed25519",
		strings.Replace(ndjson, `"entityType":"erasure"`, `"entityType":"erasure","logIndex":0`, 1), false, "failed")
	g.checkExport("NDJSON export with an erasure entry under a manifest filter of its user", "ed25519",
		g.writeExport(export.NDJSON, cp, map[string]string{"owner": "erin"}, records), false, "verified")
	g.checkExport("NDJSON export with an erasure entry under a manifest filter of another user", "ed25519",
		g.writeExport(export.NDJSON, cp, map[string]string{"owner": "bob"}, records), false, "failed")
}

// exportFilterCases are exports of one todo whose manifest names filters:
// each record must be one they select, and an unknown filter fails.
func (g *gen) exportFilterCases(cp string, h2 []todo.AuditRecord) {
	since := h2[0].DateCreatedUTC.Format(time.RFC3339Nano)
	until := h2[len(h2)-1].DateCreatedUTC.Format(time.RFC3339Nano)
	for _, c := range []struct {
		name    string
		filters map[string]string
		want    string
	}{
		{"every filter its records are of", map[string]string{"owner": "alice", "entityId": "Grocery:0002", "id": "Grocery:0002",
			"category": "Grocery", "actor": "alice", "since": since, "until": until}, "verified"},
		{"another owner", map[string]string{"owner": "bob"}, "failed"},
		{"another todo", map[string]string{"entityId": "Work:0003"}, "failed"},
		{"one operation of two", map[string]string{"operation": "create"}, "failed"},
		{"another category", map[string]string{"category": "Work"}, "failed"},
		{"another actor", map[string]string{"actor": "bob"}, "failed"},
		{"since after its first record", map[string]string{"since": h2[1].DateCreatedUTC.Format(time.RFC3339Nano)}, "failed"},
		{"until before its last record", map[string]string{"until": h2[1].DateCreatedUTC.Format(time.RFC3339Nano)}, "failed"},
		{"since not a time", map[string]string{"since": "yesterday"}, "failed"},
		{"an unknown filter", map[string]string{"colour": "blue"}, "failed"},
	} {
		g.checkExport("NDJSON export with a manifest filter: "+c.name, "ed25519", g.writeExport(export.NDJSON, cp, c.filters, h2), false, c.want)
	}
	g.checkExport("CSV export with a manifest filter: another owner", "ed25519",
		g.writeExport(export.CSV, cp, map[string]string{"owner": "bob"}, h2), false, "failed")
}

func (g *gen) exportCases(size int64, cp, cpECDSA, cpEarly string, logged [][]todo.AuditRecord, h2, h3 []todo.AuditRecord) {
	write := func(format, note string, records []todo.AuditRecord) string {
		return g.writeExport(format, note, nil, records)
	}
	check := g.checkExport
	tiles := g.v.Tiles["main"]
	var all []todo.AuditRecord
	for _, h := range logged {
		all = append(all, h...)
	}
	for _, format := range []string{export.NDJSON, export.CSV} {
		kind := map[string]string{export.NDJSON: "NDJSON", export.CSV: "CSV"}[format]
		full := write(format, cp, all)
		one := write(format, cp, h2)
		// The whole log, its leaves of both encodings: without its tiles a
		// verifier cannot tell which encoding each leaf is in.
		check(kind+" export of the whole log", "ed25519", full, false, "verified")
		// The early tree's five leaves all name their versions.
		g.checkExportOn("early", kind+" export of the whole early tree", "ed25519", write(format, cpEarly, append(append([]todo.AuditRecord(nil), logged[0]...), logged[1][:2]...)), true, "verified")
		check(kind+" export of one todo", "ed25519", one, false, "verified")
		check(kind+" export under the ecdsa key", "ecdsa", write(format, cpECDSA, h2), false, "verified")
		check(kind+" export with a title edited", "ed25519", strings.Replace(one, "buy oat milk, 3 litres", "buy oat milk, 9 litres", 1), false, "failed")
		check(kind+" export with a pending record", "ed25519", write(format, cp, append(append([]todo.AuditRecord(nil), all...), h3[3])), false, "failed")
		check(kind+" export checked with another key", "other", one, false, "failed")
		check(kind+" export without its manifest", "ed25519", one[:strings.LastIndex(strings.TrimSuffix(one, "\n"), "\n")+1], false, "failed")
		// A record edited and re-sealed, the manifest's digest made to
		// match: only the log shows it.
		forged := append([]todo.AuditRecord(nil), h2...)
		forged[2].Entity = g.edit(forged[2].Entity, "title", "forged")
		g.seal(&forged[2])
		check(kind+" export of a re-sealed record", "ed25519", write(format, cp, forged), false, "failed")
		check(kind+" export missing its first record", "ed25519", write(format, cp, h2[1:]), false, "verified")
		lines := strings.SplitAfter(one, "\n")
		firstRecord := 0
		if format == export.CSV {
			firstRecord = 1
		}
		check(kind+" export with a line removed", "ed25519", strings.Join(append(lines[:firstRecord:firstRecord], lines[firstRecord+1:]...), ""), false, "failed")
	}
	bad := map[string][]byte{}
	for p, b := range tiles {
		bad[p] = bytes.Clone(b)
		if strings.HasPrefix(p, "tile/0/000") {
			bad[p][0] ^= 1
		}
	}
	g.v.Tiles["tampered"] = bad
	text := write(export.NDJSON, cp, h2)
	_, err := export.Verify(strings.NewReader(text), g.verify["ed25519"], transparency.TileFetcher(func(p string) ([]byte, error) { return bad[p], nil }))
	g.add(Case{Name: "NDJSON export checked against altered tiles", Kind: "export", Key: "ed25519", Export: text, Tiles: "tampered"}, err, "failed")
}

// exportSeedCases are NDJSON exports of the second form, whose records
// stored with a seed show it in place of their commitments, and each way
// of tampering with one: a value or the seed edited, a seed beside
// commitments, the manifest's form removed or unknown, a record re-sealed,
// a line removed.
func (g *gen) exportSeedCases(cp string, logged [][]todo.AuditRecord, h2, h3 []todo.AuditRecord) {
	write := func(records []todo.AuditRecord) string {
		return g.writeExportIn(export.NDJSON, export.FormSeeds, cp, nil, records)
	}
	check := func(name, text, want string) {
		g.checkExport("NDJSON export of the second form, "+name, "ed25519", text, false, want)
	}
	var all []todo.AuditRecord
	for _, h := range logged {
		all = append(all, h...)
	}
	one := write(h3[:3])
	if !strings.Contains(one, `"seed":"`) || strings.Contains(one, `"salt":"`) || !strings.Contains(one, `"form":2`) {
		g.t.Fatalf("an export of the second form shows no seed, or salts:\n%s", one)
	}
	check("of the whole log (seeds, the first encoding, erased versions)", write(all), "verified")
	check("of one todo", one, "verified")
	check("a title edited", strings.Replace(one, `"title":"`, `"title":"x`, 1), "failed")
	seed := h3[1].Seed
	check("a seed replaced", strings.Replace(one, seed, strings.Repeat("0", len(seed)), 1), "failed")
	check("a seed in upper case", strings.Replace(one, seed, strings.ToUpper(seed), 1), "failed")
	check("a seed beside commitments", strings.Replace(one, `"seed":"`+seed, `"commitments":{},"seed":"`+seed, 1), "failed")
	check("its manifest's form removed", strings.Replace(one, `"form":2,`, "", 1), "failed")
	check("its manifest's form unknown", strings.Replace(one, `"form":2,`, `"form":3,`, 1), "failed")
	check("a pending record", write(append(append([]todo.AuditRecord(nil), h2...), h3[3])), "failed")
	// The newest version edited and re-sealed: only the log shows it.
	forged := append([]todo.AuditRecord(nil), h3[:3]...)
	forged[2].Entity = g.edit(forged[2].Entity, "title", "forged")
	g.seal(&forged[2])
	check("a re-sealed record", write(forged), "failed")
	lines := strings.SplitAfter(one, "\n")
	check("a line removed", strings.Join(append(lines[:1:1], lines[2:]...), ""), "failed")
}
