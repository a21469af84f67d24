package transparency

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/tlog"
)

// Known answers for both leaf encodings, written out by hand: the bytes a
// version's leaf is, and the leaf hash the tree holds. They are never
// regenerated: a leaf once logged must keep its bytes (the hashes were
// computed apart, as base64 of SHA-256 of 0x00 and the bytes).
func TestLeafKnownAnswers(t *testing.T) {
	l := Leaf{EntityType: "todo", Owner: "alice", ID: "Work:1", Version: 2,
		Hash: strings.Repeat("ab", 32), PrevHash: strings.Repeat("cd", 32), At: time.Date(2026, 12, 1, 7, 0, 0, 5, time.UTC)}
	for _, c := range []struct{ enc, bytes, hash string }{
		{LeafV1, "todoaudit/leaf/v1\ntype todo\nowner alice\nid Work:1\nversion 2\nhash " + l.Hash + "\nprev " + l.PrevHash +
			"\nat 2026-12-01T07:00:00.000000005Z\n", "suWoD5H6E49uwSjC45OlrBJYWcziAKxFk3PhhdN7ldk="},
		{LeafV2, "todoaudit/leaf/v2\nhash " + l.Hash + "\n", "OpJcKvjGMJH5FoM+oGTrFCYkwPDjpTjOg558pf05SEs="},
	} {
		b := l.EncodeAs(c.enc)
		if string(b) != c.bytes {
			t.Errorf("%s: %q, want %q", c.enc, b, c.bytes)
		}
		if h := tlog.RecordHash(b); h.String() != c.hash {
			t.Errorf("%s: leaf hash %s, want %s", c.enc, h, c.hash)
		}
		if !l.LoggedAs(tlog.RecordHash(b)) {
			t.Errorf("%s: the leaf is not logged as its own bytes", c.enc)
		}
		parsed, err := ParseLeaf(b)
		if err != nil || parsed.Hash != l.Hash || parsed.Names() != (c.enc == LeafV1) {
			t.Errorf("%s: parsed %+v, %v", c.enc, parsed, err)
		}
	}
	if !strings.HasPrefix(string(l.Encode()), LeafV2+"\n") {
		t.Errorf("the integrator writes %q", l.Encode())
	}
}

// A stranger reads the entry bundles of LeafV2 leaves; one holding a leaf
// that names its version, or anything that is not a leaf, is for the log's
// administrators only, and a verifier refused it counts it and goes on.
func TestEntryBundlesForAdminsOnly(t *testing.T) {
	l := Leaf{EntityType: "todo", Owner: "alice", ID: "Work:1", Version: 1, Hash: strings.Repeat("ab", 32), At: time.Unix(1, 0).UTC()}
	bundle := func(leaves ...[]byte) []byte {
		b, err := EncodeBundle(leaves)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	v2, v1 := l.EncodeAs(LeafV2), l.EncodeAs(LeafV1)
	for name, c := range map[string]struct {
		bundle []byte
		admins bool
	}{
		"LeafV2 leaves":          {bundle(v2, v2), false},
		"a LeafV1 leaf among":    {bundle(v2, v1), true},
		"bytes that are no leaf": {bundle(v2, []byte("owner alice")), true},
		"no bundle":              {[]byte{0xff}, true},
	} {
		if got := ForAdminsOnly(c.bundle); got != c.admins {
			t.Errorf("%s: for admins only %v, want %v", name, got, c.admins)
		}
	}

	f, _ := loggedIn(t, LeafV1, "wh", 3)
	_, c, err := f.log().Checkpoint(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	tiles := newTileReader(context.Background(), f.leases)
	stranger := TileFetcher(func(p string) ([]byte, error) {
		tile, err := ParseTilePath(p)
		if err != nil {
			return nil, err
		}
		b, err := tiles.read(tile)
		if err == nil && tile.L == -1 && ForAdminsOnly(b) {
			return nil, ErrWithheld
		}
		return b, err
	})
	if n, withheld, err := VerifyBundles(c, stranger); err != nil || n != 0 || withheld != 3 {
		t.Fatalf("a stranger's check: %d checked, %d withheld, %v", n, withheld, err)
	}
	admin := TileFetcher(func(p string) ([]byte, error) {
		tile, err := ParseTilePath(p)
		if err != nil {
			return nil, err
		}
		return tiles.read(tile)
	})
	if n, withheld, err := VerifyBundles(c, admin); err != nil || n != 3 || withheld != 0 {
		t.Fatalf("an admin's check: %d checked, %d withheld, %v", n, withheld, err)
	}
	failing := TileFetcher(func(string) ([]byte, error) { return nil, errors.New("down") })
	if _, _, err := VerifyBundles(c, failing); err == nil {
		t.Fatal("a fetcher that fails is not a withheld bundle")
	}
}

// The first layout of the leaf index's key set, written out by hand: the
// key of version 3 of todo/alice/Work:1 is the first 20 bytes of SHA-256
// of the entity key, then 3 in 8 bytes big-endian; the value of index 300
// is its unsigned varint.
func TestLeafIndexKnownAnswer(t *testing.T) {
	const entityKey = "todo/alice/Work:1"
	key := leafIndexKey(entityKey, 3)
	// printf 'todo/alice/Work:1' | sha256sum
	const want = "380625a42d53f990b611fc3e658ac4d8e73fe3b8" + "0000000000000003"
	if got := hex.EncodeToString(key); got != want {
		t.Errorf("key %s, want %s", got, want)
	}
	id := indexID(entityKey, 3)
	if k, ok := leafIndexKeyOf(id); !ok || !bytes.Equal(k, key) {
		t.Errorf("key of %s: %x %v", id, k, ok)
	}
	if back, ok := leafIndexID(key); !ok || back != id {
		t.Errorf("id of %x: %s %v, want %s", key, back, ok, id)
	}
	if v := appendLeafIndex(nil, 300); hex.EncodeToString(v) != "ac02" {
		t.Errorf("value of 300: %x, want ac02", v)
	}
	if i, err := decodeLeafIndex([]byte{0xac, 0x02}); err != nil || i != 300 {
		t.Errorf("ac02 decodes to %d, %v", i, err)
	}
	for _, bad := range [][]byte{nil, {0xac}, {0x01, 0x02}} {
		if _, err := decodeLeafIndex(bad); err == nil {
			t.Errorf("%x decodes", bad)
		}
	}
	for _, bad := range []string{"tlog-leaf-ab-v1", "tlog-leaf-" + strings.Repeat("0", 40) + "-vx", "tlog-state"} {
		if _, ok := leafIndexKeyOf(bad); ok {
			t.Errorf("%s has a key", bad)
		}
	}
}
