package transparency

import (
	"context"
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
