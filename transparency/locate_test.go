package transparency

import (
	"context"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/todoaudit/todo"
)

// Locate finds each logged version's leaf, and no leaf for a version not
// appended; VerifyLeaves accepts those leaves at those indexes from the
// tiles and refuses another leaf, an index beyond the tree, and a tampered
// tile.
func TestLocateAndVerifyLeaves(t *testing.T) {
	f := newFixture(t)
	recs := chain(t, "alice", "loc", 300) // across a tile boundary
	put(t, f.audit, recs)
	run(t, f.integrator())
	ctx := context.Background()
	l := f.log()
	refs := []VersionRef{{EntityKey: recs[0].EntityKey, Version: 301}}
	for _, r := range recs {
		refs = append(refs, VersionRef{EntityKey: r.EntityKey, Version: r.Version})
	}
	idx, err := l.Locate(ctx, refs)
	if err != nil || idx[0] != -1 {
		t.Fatalf("Locate: %v %v", idx[:1], err)
	}
	_, c, err := l.Checkpoint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	leaves := make([]LeafAt, len(recs))
	for i := range recs {
		leaf, err := LeafOf(&recs[i])
		if err != nil {
			t.Fatal(err)
		}
		leaves[len(recs)-1-i] = LeafAt{Index: idx[i+1], Leaf: leaf}
	}
	tiles := newTileReader(ctx, f.leases)
	if err := VerifyLeaves(c, tiles, leaves); err != nil {
		t.Fatal(err)
	}
	tampered := TileFetcher(func(p string) ([]byte, error) {
		t, err := ParseTilePath(p)
		if err != nil {
			return nil, err
		}
		b, err := tiles.read(t)
		if p == "tile/0/001.p/44" {
			b = append([]byte(nil), b...)
			b[0] ^= 1
		}
		return b, err
	})
	for name, x := range map[string]struct {
		edit  func(ls []LeafAt)
		tiles tlog.TileReader
		want  string
	}{
		"another leaf":     {func(ls []LeafAt) { ls[7].Leaf.Hash = strings.Repeat("0", 64) }, tiles, "another version's"},
		"beyond the tree":  {func(ls []LeafAt) { ls[0].Index = 300 }, tiles, "outside the checkpoint's tree"},
		"a negative index": {func(ls []LeafAt) { ls[3].Index = -1 }, tiles, "outside the checkpoint's tree"},
		"a tile tampered":  {func([]LeafAt) {}, tampered, "do not give the checkpoint's tree"},
	} {
		ls := append([]LeafAt(nil), leaves...)
		x.edit(ls)
		if err := VerifyLeaves(c, x.tiles, ls); err == nil || !strings.Contains(err.Error(), x.want) {
			t.Errorf("%s: %v, want %q", name, err, x.want)
		}
	}
}

// countingTiles counts the tiles a reader is asked for.
type countingTiles struct {
	tlog.TileReader
	asked map[tlog.Tile]int
}

func (c *countingTiles) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	for _, t := range tiles {
		c.asked[t]++
	}
	return c.TileReader.ReadTiles(tiles)
}

// treeLeaves reads the leaf hashes of a whole history in one pass: every
// tile it needs is asked for once, not once a leaf, and the hashes are the
// history's leaves.
func TestTreeLeavesReadsEachTileOnce(t *testing.T) {
	f, recs := logged(t, "pass", 300) // across a tile boundary
	ctx := context.Background()
	_, c, err := f.log().Checkpoint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tiles := &countingTiles{TileReader: newTileReader(ctx, f.leases), asked: map[tlog.Tile]int{}}
	idx := make([]int64, len(recs))
	for i := range idx {
		idx[i] = int64(i)
	}
	hs, err := treeLeaves(tlog.TileHashReader(c.Tree(), tiles), idx)
	if err != nil {
		t.Fatal(err)
	}
	for tile, n := range tiles.asked {
		if n != 1 {
			t.Errorf("tile %s asked for %d times", TilePath(tile), n)
		}
	}
	if len(tiles.asked) > 4 {
		t.Errorf("%d tiles asked for, for two level-0 tiles: %v", len(tiles.asked), tiles.asked)
	}
	for i := range recs {
		leaf, err := LeafOf(&recs[i])
		if err != nil {
			t.Fatal(err)
		}
		if !leaf.LoggedAs(hs[i]) {
			t.Fatalf("leaf %d is not version %d's", i, recs[i].Version)
		}
	}
}

// rangeCounting counts a key set's reads.
type rangeCounting struct {
	KeySet
	ranges, gets int
}

func (r *rangeCounting) Range(ctx context.Context, from, to []byte, fn func(key, value []byte) bool) error {
	r.ranges++
	return r.KeySet.Range(ctx, from, to, fn)
}

func (r *rangeCounting) Get(ctx context.Context, keys [][]byte) ([][]byte, error) {
	r.gets++
	return r.KeySet.Get(ctx, keys)
}

// Locate reads a page of one todo's versions by one range over the key
// set, and finds what reading them key by key finds, the versions not
// logged and another todo's few versions included.
func TestLocateByRange(t *testing.T) {
	f := newFixture(t)
	recs := chain(t, "alice", "range", 40)
	few := chain(t, "alice", "few", 3)
	put(t, f.audit, append(append([]todo.AuditRecord(nil), recs[:30]...), few...))
	run(t, f.integrator())
	ctx := context.Background()
	var refs []VersionRef
	for _, r := range append(append([]todo.AuditRecord(nil), recs...), few...) {
		refs = append(refs, VersionRef{EntityKey: r.EntityKey, Version: r.Version})
	}
	counting := &rangeCounting{KeySet: f.leafIndex}
	l := f.log()
	l.LeafIndex = counting
	got, err := l.Locate(ctx, refs)
	if err != nil {
		t.Fatal(err)
	}
	if counting.ranges != 1 || counting.gets != 1 {
		t.Fatalf("%d range reads and %d key reads, want one of each (one todo's 40 versions, another's 3)", counting.ranges, counting.gets)
	}
	for i, r := range refs {
		one, err := l.Locate(ctx, []VersionRef{r})
		if err != nil {
			t.Fatal(err)
		}
		if got[i] != one[0] || (got[i] < 0) != (i >= 30 && i < 40) {
			t.Fatalf("version %d of %s: %d by range, %d alone", r.Version, r.EntityKey, got[i], one[0])
		}
	}
}
