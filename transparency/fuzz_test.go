package transparency

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/tlog"
)

// A tile path parses only in its one C2SP spelling, and prints back as it
// was.
func FuzzParseTilePath(f *testing.F) {
	for _, s := range []string{"tile/0/000", "tile/1/x001/234.p/5", "tile/entries/000.p/17", "tile/8/0/000", "tile/0/1", "tile/entries/x1/000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		tile, err := ParseTilePath(p)
		if err != nil {
			return
		}
		if got := TilePath(tile); got != p {
			t.Fatalf("%q parses as %+v, which prints as %q", p, tile, got)
		}
	})
}

// A leaf parses only in its canonical encoding: what parses encodes back
// to the same bytes.
func FuzzParseLeaf(f *testing.F) {
	l := Leaf{EntityType: "todo", Owner: "alice", ID: "Work:1", Version: 2, Hash: string(bytes.Repeat([]byte("a"), 64)),
		At: time.Date(2026, 12, 1, 0, 0, 0, 5, time.UTC)}
	f.Add(l.EncodeAs(LeafV1))
	f.Add(l.EncodeAs(LeafV2))
	l.PrevHash = l.Hash
	f.Add(l.EncodeAs(LeafV1))
	f.Add([]byte(LeafV1 + "\n"))
	f.Add([]byte(LeafV2 + "\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		leaf, err := ParseLeaf(b)
		if err != nil {
			return
		}
		enc := LeafV2
		if leaf.Names() {
			enc = LeafV1
		}
		if !bytes.Equal(leaf.EncodeAs(enc), b) {
			t.Fatalf("%q parses but encodes as %q", b, leaf.EncodeAs(enc))
		}
	})
}

// Entry bundles: what parses encodes back to the same bytes.
func FuzzParseBundle(f *testing.F) {
	b, _ := EncodeBundle([][]byte{[]byte("a"), {}, []byte("leaf")})
	f.Add(b)
	f.Add([]byte{0, 5, 'x'})
	f.Fuzz(func(t *testing.T, b []byte) {
		entries, err := ParseBundle(b)
		if err != nil {
			return
		}
		again, err := EncodeBundle(entries)
		if err != nil || !bytes.Equal(again, b) {
			t.Fatalf("%x parses as %q, which encodes as %x (%v)", b, entries, again, err)
		}
	})
}

// The first w entries of a bundle's bytes are a prefix of them that parses
// as w entries, or an error when they hold fewer.
func FuzzBundlePrefix(f *testing.F) {
	b, _ := EncodeBundle([][]byte{[]byte("a"), {}, []byte("leaf")})
	f.Add(b, uint8(2))
	f.Add([]byte{0, 5, 'x'}, uint8(1))
	f.Fuzz(func(t *testing.T, b []byte, w uint8) {
		got, err := prefix(tlog.Tile{H: TileHeight, L: -1, W: int(w)}, b)
		entries, perr := ParseBundle(b)
		if perr == nil && len(entries) >= int(w) && err != nil {
			t.Fatalf("%x holds %d entries, but its first %d do not read: %v", b, len(entries), w, err)
		}
		if err != nil {
			return
		}
		if !bytes.HasPrefix(b, got) {
			t.Fatalf("%x: %x is not its prefix", b, got)
		}
		if entries, err := ParseBundle(got); err != nil || len(entries) != int(w) {
			t.Fatalf("%x: its first %d entries %x parse as %d (%v)", b, w, got, len(entries), err)
		}
	})
}

// A checkpoint note opens only when signed by the log's key; a body that
// parses gives back the tree it names.
func FuzzOpenCheckpoint(f *testing.F) {
	good, _ := Checkpoint{Origin: testKeys.Signer.Name(), Size: 3, Root: emptyRoot}.Sign(testKeys.Signer)
	f.Add(good)
	f.Add([]byte("todo.test/log\n3\nAAAA\n\n— todo.test/log AAAA\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := OpenCheckpoint(b, testKeys.Verifier)
		if err != nil {
			return
		}
		if c.Origin != testKeys.Signer.Name() || c.Size < 0 {
			t.Fatalf("%q opens as %+v", b, c)
		}
		if _, err := ParseCheckpoint(c.body()); err != nil {
			t.Fatal(err)
		}
	})
}

// Proof bundles and consistency answers: what parses never panics the
// verifier, and only verifies with a proof the tree gives.
func FuzzProofBundle(f *testing.F) {
	cp, _ := Checkpoint{Origin: testKeys.Signer.Name(), Size: 1, Root: tlog.RecordHash([]byte("x"))}.Sign(testKeys.Signer)
	f.Add([]byte(`{"checkpoint":` + quote(cp) + `,"index":0,"leaf":"eA==","proof":[]}`))
	f.Add([]byte(`{"from":1,"to":2,"proof":["47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if p, err := ParseProofBundle(b); err == nil {
			_, _, _ = p.Verify(testKeys.Verifier)
		}
		if p, err := ParseConsistencyProof(b); err == nil {
			_, _, _ = VerifyConsistency(cp, cp, p.Proof, testKeys.Verifier)
		}
	})
}

func quote(b []byte) string {
	q, _ := json.Marshal(string(b))
	return string(q)
}

// Skimming a stored audit item reads the head that encoding/json reads
// of the same members, whatever else the item holds.
func FuzzSkimRecord(f *testing.F) {
	f.Add([]byte(`{"_ts":1,"id":"Work:1:v2","entityKey":"todo/alice/Work:1","entityId":"Work:1","entityType":"todo","version":2,` +
		`"entity":{"title":"x\"}"},"dateCreatedUtc":"2026-12-01T00:00:00Z","prevHash":"ab","hash":"cd","commitments":{"title":{"salt":"00","digest":"11"}}}`))
	f.Add([]byte(`{"id":"activity-1","owner":"alice","entity":null,"hash":""}`))
	f.Add([]byte(`{"id":1}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := skimRecord(b)
		var members map[string]json.RawMessage
		if json.Unmarshal(b, &members) != nil || members == nil {
			return
		}
		var want storedRecord
		for name, dst := range map[string]any{"id": &want.ID, "entityKey": &want.EntityKey, "entityId": &want.EntityID,
			"entityType": &want.EntityType, "version": &want.Version, "dateCreatedUtc": &want.DateCreatedUTC,
			"prevHash": &want.PrevHash, "hash": &want.Hash, "owner": &want.Owner, "_ts": &want.TS} {
			if v, ok := members[name]; ok && json.Unmarshal(v, dst) != nil {
				if err == nil {
					t.Fatalf("%s: skimmed although %s does not decode", b, name)
				}
				return
			}
		}
		if err != nil {
			t.Fatalf("%s decodes but does not skim: %v", b, err)
		}
		a, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		if string(a) != string(w) {
			t.Fatalf("%s: skimmed %s, decoded %s", b, a, w)
		}
	})
}

// A tile document decodes as encoding/json decodes it, value and failure.
func FuzzDecodeTileDoc(f *testing.F) {
	for _, d := range []tileDoc{{ID: "tlog-tile-tile_0_000", Data: bytes.Repeat([]byte{0, 0xff, 'a'}, 40)}, {ID: "x", From: 3, Data: []byte("piece")}} {
		f.Add(d.appendJSON(nil))
	}
	f.Add([]byte(`{"id":"a\u0062","data":"AA\/A","from":null}`))
	f.Add([]byte(`{"data":"not base64","id":1}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return // stored documents were checked as JSON when written
		}
		var want tileDoc
		werr := json.Unmarshal(b, &want)
		got, err := decodeTileDoc(b)
		if (err != nil) != (werr != nil) {
			t.Fatalf("%q: decodeTileDoc error %v, encoding/json %v", b, err, werr)
		}
		if err == nil && (got.ID != want.ID || got.From != want.From || !bytes.Equal(got.Data, want.Data)) {
			t.Fatalf("%q: decodeTileDoc %+v, encoding/json %+v", b, got, want)
		}
	})
}

// An index document's id has a key in the leaf index only as indexID
// spells it, and that key gives the id back; a value of the leaf index
// decodes only as appendLeafIndex writes it.
func FuzzLeafIndex(f *testing.F) {
	f.Add("tlog-leaf-380625a42d53f990b611fc3e658ac4d8e73fe3b8-v3", []byte{0xac, 0x02})
	f.Add("tlog-leaf-380625A42D53F990B611FC3E658AC4D8E73FE3B8-v03", []byte{0x80, 0x00})
	f.Fuzz(func(t *testing.T, id string, value []byte) {
		if key, ok := leafIndexKeyOf(id); ok {
			if back, ok := leafIndexID(key); !ok || back != id {
				t.Fatalf("%q has the key %x, which gives %q", id, key, back)
			}
		}
		if i, err := decodeLeafIndex(value); err == nil && !bytes.Equal(appendLeafIndex(nil, i), value) {
			t.Fatalf("%x decodes to %d, which encodes otherwise", value, i)
		}
	})
}
