package transparency

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/store"
)

// collectionFixture is a log of 600 leaves appended in passes that leave
// trees of the sizes returned, every partial tile of them kept in pieces,
// with an integrator whose clock is now.
func collectionFixture(t *testing.T, now *atomic.Int64) (*fixture, *Integrator, []todo.AuditRecord, []int64) {
	t.Helper()
	now.Store(time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC).Unix())
	f := newFixture(t)
	in := f.integrator()
	in.Now = func() time.Time { return time.Unix(now.Load(), 0) }
	recs := chain(t, "alice", "gc", 600)
	var sizes []int64
	prev := 0
	for _, n := range []int{100, 250, 251, 300, 520, 600} {
		put(t, f.audit, recs[prev:n])
		if res := run(t, in); res.Size != int64(n) {
			t.Fatalf("pass to %d: %+v", n, res)
		}
		sizes, prev = append(sizes, int64(n)), n
	}
	return f, in, recs, sizes
}

// servedTiles are the bytes the log serves for every tile and entry bundle
// of the trees of the given sizes, by path.
func servedTiles(t *testing.T, f *fixture, sizes []int64) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, n := range sizes {
		for _, tile := range append(tlog.NewTiles(TileHeight, 0, n), bundles(n)...) {
			b, _, err := f.log().Tile(context.Background(), TilePath(tile))
			if err != nil {
				t.Fatalf("size %d: %s: %v", n, TilePath(tile), err)
			}
			out[TilePath(tile)] = string(b)
		}
	}
	return out
}

// pieceIDs are the ids of the stored documents of the partial widths of
// the tiles whose document ids begin with each prefix.
func pieceIDs(t *testing.T, f *fixture, prefixes ...string) []string {
	t.Helper()
	var out []string
	for _, d := range tileDocs(t, f.leases) {
		for _, p := range prefixes {
			if strings.HasPrefix(d.ID, p+".p_") {
				out = append(out, d.ID)
			}
		}
	}
	return out
}

func collected(t *testing.T, f *fixture) int64 {
	t.Helper()
	var d collectedDoc
	if _, err := read(context.Background(), f.leases, collectedID, &d); err != nil && !todo.IsKind(err, todo.NotFound) {
		t.Fatal(err)
	}
	return d.Size
}

// The pieces of a tile full in a published checkpoint stay through the
// grace, and a reader of an older checkpoint is served them; after it they
// are gone, the same reader is served the same bytes from the full tile,
// and the pieces of tiles still partial stay.
func TestPiecesCollectedAfterGrace(t *testing.T) {
	var now atomic.Int64
	f, in, recs, sizes := collectionFixture(t, &now)
	full := []string{"tlog-tile-tile_0_000", "tlog-tile-tile_0_001", "tlog-tile-tile_entries_000", "tlog-tile-tile_entries_001"}
	partial := []string{"tlog-tile-tile_0_002", "tlog-tile-tile_entries_002", "tlog-tile-tile_1_000"}
	before := servedTiles(t, f, sizes)
	partialPieces := pieceIDs(t, f, partial...)
	kept := pieceIDs(t, f, full...)
	if !slices.Contains(kept, "tlog-tile-tile_0_000.p_250") || !slices.Contains(kept, "tlog-tile-tile_entries_000.p_251") {
		t.Fatalf("pieces of the full tiles: %v", kept)
	}
	now.Add(int64(DefaultPieceGrace/time.Second) - 1)
	run(t, in)
	if still := pieceIDs(t, f, full...); !slices.Equal(still, kept) || collected(t, f) != 0 {
		t.Fatalf("within the grace: pieces %v, collected to %d", still, collected(t, f))
	}
	now.Add(2)
	run(t, in)
	if left := pieceIDs(t, f, full...); len(left) != 0 || collected(t, f) != 512 {
		t.Fatalf("after the grace: pieces %v left, collected to %d", left, collected(t, f))
	}
	if left := pieceIDs(t, f, partial...); len(left) == 0 || !slices.Equal(left, partialPieces) {
		t.Fatalf("the pieces of partial tiles: %v, were %v", left, partialPieces)
	}
	if after := servedTiles(t, f, sizes); !maps.Equal(after, before) {
		t.Fatal("a tile of an older checkpoint is served otherwise once its pieces are gone")
	}
	checkLog(t, f, recs)
}

var errKilled = errors.New("killed")

// A collection stopped at any point leaves every tile of every checkpoint
// served as before: pieces removed one by one (as on Cosmos DB) and not
// all, or all removed and how far not written. The next process, after its
// own grace, goes on and says how far it went.
func TestPieceCollectionStoppedHalfway(t *testing.T) {
	var now atomic.Int64
	f, in, recs, sizes := collectionFixture(t, &now)
	ctx := context.Background()
	before := servedTiles(t, f, sizes)
	for i, id := range pieceIDs(t, f, "tlog-tile-tile_0_000", "tlog-tile-tile_entries_000") {
		if i%2 == 0 {
			if err := f.leases.Delete(ctx, store.PartitionKey{id}, id, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	if after := servedTiles(t, f, sizes); !maps.Equal(after, before) {
		t.Fatal("a tile is served otherwise with some of its pieces removed")
	}
	now.Add(int64(DefaultPieceGrace/time.Second) + 1)
	in.failAfter = func(step string) error {
		if step == "collect" {
			return errKilled
		}
		return nil
	}
	if _, err := in.Run(ctx); !errors.Is(err, errKilled) {
		t.Fatalf("a pass killed after its removals: %v", err)
	}
	if left := pieceIDs(t, f, "tlog-tile-tile_0_000", "tlog-tile-tile_0_001", "tlog-tile-tile_entries_000", "tlog-tile-tile_entries_001"); len(left) != 0 || collected(t, f) != 0 {
		t.Fatalf("killed after its removals: pieces %v, collected to %d", left, collected(t, f))
	}
	if after := servedTiles(t, f, sizes); !maps.Equal(after, before) {
		t.Fatal("a tile is served otherwise after a killed collection")
	}
	next := f.integrator()
	next.Now = in.Now
	run(t, next)
	if collected(t, f) != 0 {
		t.Fatal("a new process collected within its grace")
	}
	now.Add(int64(DefaultPieceGrace/time.Second) + 1)
	run(t, next)
	if collected(t, f) != 512 {
		t.Fatalf("collected to %d, want 512", collected(t, f))
	}
	checkLog(t, f, recs)
}

// The tiles a collection from one size to another covers: the entry
// bundles and hash tiles of every level that fill between them.
func TestFullTiles(t *testing.T) {
	got := fullTiles(65280, 65536+512)
	var paths []string
	for _, tile := range got {
		paths = append(paths, TilePath(tile))
	}
	want := []string{"tile/entries/255", "tile/entries/256", "tile/entries/257", "tile/0/255", "tile/0/256", "tile/0/257", "tile/1/000"}
	if !slices.Equal(paths, want) {
		t.Fatalf("full tiles %v, want %v", paths, want)
	}
}
