package transparency

import (
	"context"
	"encoding/json"
	"time"

	"golang.org/x/mod/sumdb/tlog"
	"golang.org/x/sync/errgroup"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/store"
)

// The pieces of a partial tile (see pieces) serve the checkpoints whose
// tree ends inside that tile. Once the tile is full in the published
// checkpoint, a reader of the latest checkpoint asks for the full tile
// only, and a reader of an older one still asking for a partial width is
// served the start of the full tile (tileReader.read): the pieces are then
// bytes nobody needs, about a sixth of the log's on the embedded store.
//
// So after each pass the integrator removes the pieces of the tiles that
// are full in a checkpoint it saw published at least PieceGrace before, a
// few tiles a pass, as Tessera's garbage collector removes partial tiles
// and bundles once the published checkpoint covers their full version.
// The grace leaves the pieces a checkpoint's readers were served in place
// while they read; after it they read the same bytes from the full tile.
//
// Removal is safe at any point it stops: a tile's pieces are removed only
// after its full document is found, and any of them missing reads as the
// full tile's start, so a collector killed halfway, or one whose removals
// Cosmos DB took one by one, leaves nothing a reader needs missing. How far
// it has gone is written after the removals (collectedID): a collector
// that stops before that does them again, finding fewer.

// DefaultPieceGrace is how long after a checkpoint in which a tile is full
// was first seen published its pieces are kept.
const DefaultPieceGrace = 20 * time.Second

// collectedID is the leases document that says how far the pieces are
// gone: those of every tile that is full in the tree of size Size.
const collectedID = "tlog-pieces-collected"

type collectedDoc struct {
	ID   string `json:"id"`
	Size int64  `json:"size"`
}

// tilesPerCollection bounds the level-0 tiles one pass collects the
// pieces of, with their entry bundles and the tiles above them that they
// fill: a log of an earlier build, which kept every piece, is collected
// over many passes.
const tilesPerCollection = 8

// collector is what an integrator knows of the collection of pieces.
type collector struct {
	// seen are the sizes of the checkpoints this process saw published,
	// ascending, each with when it first saw it.
	seen []seenCheckpoint
	// done is the collectedID document's size, once read.
	done int64
	read bool
}

type seenCheckpoint struct {
	size int64
	at   time.Time
}

// sawPublished records that a checkpoint of size is published at now, and
// returns the size of the newest checkpoint seen at least grace before.
func (c *collector) sawPublished(size int64, now time.Time, grace time.Duration) int64 {
	if n := len(c.seen); n == 0 || c.seen[n-1].size < size {
		c.seen = append(c.seen, seenCheckpoint{size: size, at: now})
	}
	ripe := -1
	for i, s := range c.seen {
		if !s.at.After(now.Add(-grace)) {
			ripe = i
		}
	}
	if ripe < 0 {
		return 0
	}
	c.seen = c.seen[ripe:] // the older ones are covered by it
	return c.seen[0].size
}

// collect removes the pieces of the tiles full in the newest checkpoint
// published at least PieceGrace ago, up to tilesPerCollection of them.
func (in *Integrator) collect(ctx context.Context) error {
	var cur checkpointDoc
	if _, err := read(ctx, in.Leases, checkpointID, &cur); todo.IsKind(err, todo.NotFound) {
		return nil
	} else if err != nil {
		return err
	}
	grace := in.PieceGrace
	if grace == 0 {
		grace = DefaultPieceGrace
	}
	ripe := in.collector.sawPublished(cur.Size, in.now(), grace)
	if !in.collector.read {
		var d collectedDoc
		if _, err := read(ctx, in.Leases, collectedID, &d); err != nil && !todo.IsKind(err, todo.NotFound) {
			return err
		}
		in.collector.done, in.collector.read = d.Size, true
	}
	from := in.collector.done / tileWidth * tileWidth
	to := min(ripe, from+tilesPerCollection*tileWidth) / tileWidth * tileWidth
	if to <= from {
		return nil
	}
	var gone []store.Upsert
	for _, t := range fullTiles(from, to) {
		ups, err := in.pieces(ctx, t)
		if err != nil {
			return err
		}
		gone = append(gone, ups...)
	}
	if err := in.remove(ctx, gone); err != nil {
		return err
	}
	if err := in.fail("collect"); err != nil {
		return err
	}
	b, err := json.Marshal(collectedDoc{ID: collectedID, Size: to})
	if err == nil {
		_, err = in.Leases.Upsert(ctx, store.PartitionKey{collectedID}, b, nil)
	}
	if err == nil {
		in.collector.done = to
	}
	return err
}

// fullTiles are the tiles, hash tiles of every level and entry bundles,
// that are full in the tree of size to and not in the tree of size from:
// each at its full width.
func fullTiles(from, to int64) []tlog.Tile {
	var out []tlog.Tile
	for n := from / tileWidth; n < to/tileWidth; n++ {
		out = append(out, tlog.Tile{H: TileHeight, L: -1, N: n, W: tileWidth})
	}
	for l := 0; to>>(TileHeight*(l+1)) > 0; l++ {
		shift := TileHeight * (l + 1)
		for n := from >> shift; n < to>>shift; n++ {
			out = append(out, tlog.Tile{H: TileHeight, L: l, N: n, W: tileWidth})
		}
	}
	return out
}

// pieces returns the removals of the documents of full tile t's partial
// widths, none unless its full document is there.
func (in *Integrator) pieces(ctx context.Context, t tlog.Tile) ([]store.Upsert, error) {
	if _, err := in.Leases.Read(ctx, store.PartitionKey{tileID(t)}, tileID(t)); todo.IsKind(err, todo.NotFound) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	var out []store.Upsert
	for w := 1; w < tileWidth; w++ {
		p := t
		p.W = w
		id := tileID(p)
		it, err := in.Leases.Read(ctx, store.PartitionKey{id}, id)
		if todo.IsKind(err, todo.NotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, store.Retire(in.Leases.Spec().Name, store.PartitionKey{id}, id, it.ETag, time.Time{}))
	}
	return out, nil
}

// remove removes the documents named by retirements gone: in one commit
// where the store can, otherwise one request each, at once. A document
// found gone or changed is left as it is.
func (in *Integrator) remove(ctx context.Context, gone []store.Upsert) error {
	if len(gone) == 0 {
		return nil
	}
	if ok, err := store.UpsertAtomically(ctx, in.Leases, gone); ok || err != nil {
		return err
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(writesAtOnce)
	for _, u := range gone {
		g.Go(func() error {
			err := in.Leases.Delete(gctx, u.PartitionKey, u.Retire.ID, &store.WriteOptions{IfMatch: u.Retire.ETag})
			if todo.IsKind(err, todo.NotFound) || todo.IsKind(err, todo.PreconditionFailed) {
				return nil
			}
			return err
		})
	}
	return g.Wait()
}
