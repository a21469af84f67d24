package transparency

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/store"
)

// A chain grows by pieces that end at the new width, each no larger than
// the one before it, within maxPieces; an entry is rewritten a few times
// while its tile fills one leaf at a time, not once a width.
func TestPiecesGrow(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		p := pieces{0}
		w, rewritten := 0, 0
		for w < tileWidth-1 {
			step := 1
			if round > 0 {
				step = 1 + r.IntN(40)
			}
			w = min(w+step, tileWidth-1)
			from, next := p.grow(w)
			k := slices.Index(p, from)
			if k < 0 || from >= w || !slices.Equal(next, append(slices.Clone(p[:k+1]), w)) {
				t.Fatalf("%v grown to %d: from %d, %v", p, w, from, next)
			}
			if len(next) > maxPieces {
				t.Fatalf("%v grown to %d: %d pieces", p, w, len(next))
			}
			for i := 2; i < len(next); i++ {
				if next[i]-next[i-1] >= next[i-1]-next[i-2] {
					t.Fatalf("%v: piece %d is no smaller than the one before", next, i)
				}
			}
			rewritten += w - from
			p = next
		}
		if round == 0 && rewritten > 9*w {
			t.Fatalf("one leaf at a time: %d entries written for %d", rewritten, w)
		}
	}
	for _, p := range []pieces{nil, {0, 9}} {
		if from, next := p.grow(7); from != 0 || !slices.Equal(next, pieces{0, 7}) {
			t.Fatalf("%v grows to %d, %v; want a whole document", p, from, next)
		}
	}
}

// Appends of a few leaves each, with a new integrator (which knows no
// chain) midway, leave every tile and entry bundle of every checkpointed
// tree served as the tree gives it, while the documents stored hold a
// small multiple of the log's bytes, not a copy of each partial tile a
// width.
func TestEveryWidthServed(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(3, 4))
	in := f.integrator()
	var recs []todo.AuditRecord
	var sizes []int64
	for i := 0; len(recs) < 600; i++ {
		if i == 70 {
			in = f.integrator()
		}
		batch := chain(t, "alice", fmt.Sprintf("w%d", i), 1+r.IntN(4))
		put(t, f.audit, batch)
		recs = append(recs, batch...)
		res := run(t, in)
		if res.Appended != len(batch) {
			t.Fatalf("pass %d: %+v", i, res)
		}
		sizes = append(sizes, res.Size)
	}
	l := f.log()
	leaves := make([][]byte, len(recs))
	for _, rec := range recs {
		p, err := l.Prove(ctx, rec.EntityKey, rec.Version)
		if err != nil {
			t.Fatal(err)
		}
		leaves[p.Index] = p.Leaf
	}
	var stored memHashes
	for i, leaf := range leaves {
		hs, err := tlog.StoredHashes(int64(i), leaf, stored)
		if err != nil {
			t.Fatal(err)
		}
		stored = append(stored, hs...)
	}
	served := 0
	for _, n := range sizes {
		for _, tile := range append(tlog.NewTiles(TileHeight, 0, n), bundles(n)...) {
			got, _, err := l.Tile(ctx, TilePath(tile))
			if err != nil {
				t.Fatalf("size %d: %s: %v", n, TilePath(tile), err)
			}
			want, err := tileData(tile, stored, leaves)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("size %d: %s is not the tree's", n, TilePath(tile))
			}
			served++
		}
	}
	logBytes, docBytes, continued := 0, 0, 0
	for _, tile := range append(tlog.NewTiles(TileHeight, 0, int64(len(leaves))), bundles(int64(len(leaves)))...) {
		b, _ := tileData(tile, stored, leaves)
		logBytes += len(b)
	}
	for _, d := range tileDocs(t, f.leases) {
		docBytes += len(d.Data)
		if d.From > 0 {
			continued++
		}
	}
	if continued == 0 || docBytes > 8*logBytes {
		t.Fatalf("%d passes stored %d bytes of tiles (%d documents continued) for a log of %d", len(sizes), docBytes, continued, logBytes)
	}
	t.Logf("%d tiles served at %d sizes; %d bytes stored for %d bytes of tiles", served, len(sizes), docBytes, logBytes)
}

// A partial tile whose documents the log no longer holds is read from the
// start of its full tile; a chain that cannot be read whole, or that
// names a width it does not continue, is not served.
func TestPartialTileReadFromFullTile(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	in := f.integrator()
	for i := range 10 {
		put(t, f.audit, chain(t, "alice", fmt.Sprintf("f%d", i), 30))
		run(t, in)
	}
	l := f.log()
	full, _, err := l.Tile(ctx, "tile/entries/000")
	if err != nil {
		t.Fatal(err)
	}
	fullHashes, _, err := l.Tile(ctx, "tile/0/000")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range tileDocs(t, f.leases) {
		if strings.Contains(d.ID, "_000.p_") {
			if err := f.leases.Delete(ctx, store.PartitionKey{d.ID}, d.ID, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	b, _, err := l.Tile(ctx, "tile/entries/000.p/90")
	if want, _ := prefix(tlog.Tile{H: TileHeight, L: -1, W: 90}, full); err != nil || !bytes.Equal(b, want) {
		t.Fatalf("a bundle of 90 from the full one: %v", err)
	}
	if b, _, err := l.Tile(ctx, "tile/0/000.p/90"); err != nil || !bytes.Equal(b, fullHashes[:90*tlog.HashSize]) {
		t.Fatalf("a tile of 90 from the full one: %v", err)
	}

	last := tlog.Tile{H: TileHeight, L: -1, N: 1, W: 300 - tileWidth}
	var d tileDoc
	if _, err := read(ctx, f.leases, tileID(last), &d); err != nil {
		t.Fatal(err)
	}
	d.From = last.W
	if err := upsert(ctx, f.leases, d.ID, d); err != nil {
		t.Fatal(err)
	}
	if _, _, err := l.Tile(ctx, TilePath(last)); !todo.IsKind(err, todo.Internal) {
		t.Fatalf("a document continuing its own width: %v, want Internal", err)
	}
	d.From = 3
	if err := upsert(ctx, f.leases, d.ID, d); err != nil {
		t.Fatal(err)
	}
	if _, _, err := l.Tile(ctx, TilePath(last)); !todo.IsKind(err, todo.NotFound) {
		t.Fatalf("a document continuing a width the log does not hold: %v, want NotFound", err)
	}

	hashes := tlog.Tile{H: TileHeight, L: 0, N: 1, W: 300 - tileWidth}
	var h tileDoc
	if _, err := read(ctx, f.leases, tileID(hashes), &h); err != nil {
		t.Fatal(err)
	}
	h.Data = append(h.Data, make([]byte, tlog.HashSize)...)
	if err := upsert(ctx, f.leases, h.ID, h); err != nil {
		t.Fatal(err)
	}
	if _, _, err := l.Tile(ctx, TilePath(hashes)); !todo.IsKind(err, todo.Internal) {
		t.Fatalf("a tile holding a hash more than its width: %v, want Internal", err)
	}
}

// memHashes is a tree's stored hashes in memory.
type memHashes []tlog.Hash

func (m memHashes) ReadHashes(indexes []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(indexes))
	for i, x := range indexes {
		if x >= int64(len(m)) {
			return nil, fmt.Errorf("no stored hash %d", x)
		}
		out[i] = m[x]
	}
	return out, nil
}

// bundles lists the entry bundles of a tree of n leaves.
func bundles(n int64) []tlog.Tile {
	var out []tlog.Tile
	for start := int64(0); start < n; start += tileWidth {
		out = append(out, tlog.Tile{H: TileHeight, L: -1, N: start / tileWidth, W: int(min(n-start, tileWidth))})
	}
	return out
}

// tileData is what tile t of the tree holds, from its stored hashes and
// leaves.
func tileData(t tlog.Tile, stored memHashes, leaves [][]byte) ([]byte, error) {
	if t.L < 0 {
		start := t.N * tileWidth
		return EncodeBundle(leaves[start : start+int64(t.W)])
	}
	return tlog.ReadTileData(t, stored)
}

// tileDocs are the tile and bundle documents a log's store holds.
func tileDocs(t *testing.T, leases store.Container) []tileDoc {
	t.Helper()
	var out []tileDoc
	q := store.Query{PageSize: store.MaxPageSize, Filters: store.IDPrefix("tlog-tile-")}
	for {
		page, err := leases.Query(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page.Items {
			var d tileDoc
			if err := decode(it, it.ID, &d); err != nil {
				t.Fatal(err)
			}
			out = append(out, d)
		}
		if page.Continuation == "" {
			return out
		}
		q.Continuation = page.Continuation
	}
}
