package transparency

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/mod/sumdb/tlog"
	"golang.org/x/sync/errgroup"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/internal/jsondoc"
	"github.com/todoaudit/todo/store"
)

// Integrator appends the audit records not yet in the log, one leaf per
// version, and publishes a signed, anchored checkpoint of the new tree.
//
// An append commits the new state document (size, root and the appended
// leaves) with If-Match on the one it read: of two integrators at once, one
// commits and the other gets PreconditionFailed and appends nothing. Only
// then are the tiles, entry bundles and index documents of the append
// written, and they are derived from the committed state alone, so every
// integrator that writes them writes the same tiles; the next pass of any
// integrator writes them again before it appends. So an integrator killed
// at any point leaves no gap (the state names every leaf its tiles need)
// and no duplicate (a version whose index document exists is not appended
// again).
type Integrator struct {
	Audit  store.Container
	Leases store.Container
	Keys   *Keys
	// Anchors receive every checkpoint before it is published.
	Anchors Anchors
	Log     *slog.Logger
	// Report, when set, gets nil after each pass that found the log
	// consistent with its newest anchor, and the refusal otherwise.
	Report func(error)
	// Published, when set, hears each checkpoint the integrator publishes,
	// as it signed and stored it: the Log of the same process (Log.Signed)
	// then serves it without checking the signature it has just made.
	Published func(note []byte, c Checkpoint)
	// Margin is DefaultMargin when zero: how much earlier than the last
	// record read a record's _ts may be and still be found.
	Margin time.Duration
	// CommitOrdered is set for a store that stamps _ts as it commits, in
	// commit order and never earlier than the write before, and serves a
	// query with a lower bound on _ts in commit order (the embedded
	// store): a record committed after a pass read is stamped no earlier
	// than the newest record it read, and one committed while it reads is
	// read after those, so the next pass reads from the newest record's
	// second, and Margin does not apply.
	CommitOrdered bool
	// MaxBatch is DefaultMaxBatch when zero: the leaves of one append.
	MaxBatch int
	// Now is the clock, time.Now when nil.
	Now func() time.Time
	// Witnessing, when set, has each checkpoint cosigned by the witnesses
	// of a policy before it is anchored and published.
	Witnessing *Witnessing
	// LeafIndex, when set, is the store's key set (LeafIndexSet) the
	// leaves' indices are kept in, in the commit of their tiles, instead
	// of an index document a version (see Log.LeafIndex).
	LeafIndex KeySet
	// PieceGrace is DefaultPieceGrace when zero: how long after it first
	// sees a checkpoint published in which a tile is full the pieces of
	// that tile are kept (see collect).
	PieceGrace time.Duration

	// leafEncoding is the encoding of the leaves it appends, LeafNewest
	// when empty: tests write the older encodings, to check that the logs
	// earlier builds wrote keep verifying.
	leafEncoding string

	mu sync.Mutex
	// seen holds the audit container's items, by partition key and id,
	// that the next pass may read again (their _ts is past the
	// watermark) and need not decode again: the records known to be
	// logged, and the documents that are not records.
	seen map[string]seenItem
	// edge is what this process kept of the state whose tiles it wrote
	// last.
	edge edge
	// checked is the newest anchor and the state last found consistent
	// with it.
	checked consistency
	// failAfter, in tests, fails the named step of an append.
	failAfter func(step string) error
	// damage is what readers of the log reported damaged; repairedEtag
	// the state the last repair was tried on.
	damage       damage
	repairedEtag string
	// collector is how far this process collected the pieces of full
	// tiles.
	collector collector
}

// DefaultMargin bounds how much earlier than its commit a record's _ts can
// be: the clocks of the store's partitions differ, and a write can be in
// flight while a pass reads.
const DefaultMargin = 3 * time.Second

// DefaultMaxBatch bounds one append, and so the state document.
const DefaultMaxBatch = 1000

// passAppends bounds the appends of one pass, and so the leaves it holds
// in memory while it appends them (under a kilobyte each): a log
// switched on beside a long history catches up over several passes.
const passAppends = 100

// ClockSkewBound is how far ahead of an integrator's clock the time of a
// version logged by a build that kept no NewestAt can be: the first append
// to such a log takes its bound from the clock.
const ClockSkewBound = 24 * time.Hour

// Result says what a pass did.
type Result struct {
	Appended  int   // leaves appended
	Size      int64 // the tree size after the pass
	Published bool  // a new checkpoint was signed and anchored
}

// ErrRefused marks a pass that found the log inconsistent with its newest
// anchored checkpoint and so signed nothing.
var ErrRefused = errors.New("the transparency log is not consistent with its newest anchored checkpoint")

// Run is one pass: it writes the tiles of the latest append if this process
// has not, checks the log against the newest anchor, appends what the audit
// container holds beyond the log, publishes a checkpoint of the result, and
// removes the pieces of tiles full long enough (collect).
func (in *Integrator) Run(ctx context.Context) (Result, error) {
	// Background work: its store calls go at low priority, so that user
	// requests win when the account is busy.
	ctx = store.WithLowPriority(ctx)
	in.mu.Lock()
	defer in.mu.Unlock()
	var res Result
	st, err := loadState(ctx, in.Leases, in.edge.st)
	if err != nil {
		return res, err
	}
	if err := in.mend(ctx, st, in.takeDamage(), func() error { return in.build(ctx, st, nil) }); err != nil {
		return res, err
	}
	if err := in.mend(ctx, st, nil, func() error { return in.checkAnchored(ctx, st) }); errors.Is(err, errMovedOn) {
		in.reset()
		res.Size = st.Size
		return res, nil
	} else if err != nil {
		return res, err
	}
	start := in.now()
	batch, since, err := in.pending(ctx, st, start)
	if err != nil {
		return res, err
	}
	for len(batch) > 0 {
		// At most MaxBatch leaves an append; the watermark of one that
		// leaves some for the next is the time of the first it leaves.
		chunk, watermark := batch, since
		if n := in.maxBatch(); len(batch) > n {
			chunk, watermark = batch[:n], min(since, batch[n].ts)
		}
		next, ext, err := in.append(ctx, st, chunk, watermark)
		if todo.IsKind(err, todo.PreconditionFailed) || todo.IsKind(err, todo.Conflict) {
			// Another integrator appended first; the next pass goes on
			// from its tree.
			in.reset()
			res.Size = st.Size
			return res, nil
		}
		if err != nil {
			return res, err
		}
		res.Appended += len(chunk)
		st = next
		if err := in.build(ctx, st, ext); err != nil {
			return res, err
		}
		batch = batch[len(chunk):]
	}
	res.Size = st.Size
	if res.Published, err = in.publish(ctx, st); err != nil {
		return res, err
	}
	return res, in.collect(ctx)
}

// mend runs step, after repairing the log when a reader reported damage
// (cause); when step finds damage itself, or refuses the log, the log is
// repaired and step run again, once for a state: a log that the repair
// cannot make whole stays refused, and is not read whole again every pass.
func (in *Integrator) mend(ctx context.Context, st *state, cause error, step func() error) error {
	if cause != nil {
		in.repairedEtag = st.etag
		if err := in.repair(ctx, st, cause); err != nil {
			return err
		}
	}
	err := step()
	if (!isDamage(err) && !errors.Is(err, ErrRefused)) || errors.Is(err, errMovedOn) || in.repairedEtag == st.etag {
		return err
	}
	in.repairedEtag = st.etag
	if err := in.repair(ctx, st, err); err != nil {
		return err
	}
	return step()
}

func (in *Integrator) now() time.Time {
	if in.Now != nil {
		return in.Now()
	}
	return time.Now()
}

func (in *Integrator) reset() {
	in.seen, in.edge, in.checked = nil, edge{}, consistency{}
}

func (in *Integrator) fail(step string) error {
	if in.failAfter != nil {
		return in.failAfter(step)
	}
	return nil
}

// seenItem is what a pass learnt of an item of the audit container.
type seenItem struct {
	ts     int64
	record bool // a record, logged already; otherwise not a record
}

// candidate is an audit record to append.
type candidate struct {
	leaf   Leaf
	ts     int64
	entity string // the leaf's EntityKey
	key    string // its index document's id
	item   string // its item's key in seen
}

// storedRecord is the head of an audit record as stored, with its _ts:
// the members a leaf is made of and those that tell a record from the
// other documents of the audit container. Its entity and commitments are
// not read.
type storedRecord struct {
	todo.AuditRecord
	TS int64
}

// skimRecord reads the head of a stored audit item, skimming over the
// rest: the entity and the commitments are most of a record's bytes and
// none of its leaf.
func skimRecord(body []byte) (storedRecord, error) {
	var r storedRecord
	strs := [...]struct {
		name string
		dst  *string
	}{{"id", &r.ID}, {"entityKey", &r.EntityKey}, {"entityId", &r.EntityID}, {"entityType", &r.EntityType},
		{"prevHash", &r.PrevHash}, {"hash", &r.Hash}, {"owner", &r.Owner}}
	var err error
	each := jsondoc.Each(body, func(name, value []byte) bool {
		switch string(name) {
		case "version":
			r.Version, err = jsondoc.Int(value)
		case "_ts":
			r.TS, err = jsondoc.Int(value)
		case "dateCreatedUtc":
			err = r.DateCreatedUTC.UnmarshalJSON(value) // as json.Unmarshal calls it
		default:
			for _, f := range strs {
				if string(name) == f.name {
					*f.dst, err = jsondoc.String(value)
					break
				}
			}
		}
		return err == nil
	})
	return r, cmp.Or(each, err)
}

// pending reads the audit records from the watermark on that are not in
// the log, oldest first; since is the watermark once they are appended.
// They are read once, however many appends they take: reading them again
// for each would make a catch-up quadratic, and each append after the
// first would look up the records it shares a second with, since the log
// may hold them by then.
//
// The query always bounds _ts, from 0 on the first pass: on a store that
// stamps in commit order that makes it read in commit order, so a record
// committed while the pass reads is read after the ones before it, never
// passed over at a key already read (see CommitOrdered).
func (in *Integrator) pending(ctx context.Context, st *state, start time.Time) (batch []candidate, since int64, err error) {
	q := store.Query{PageSize: store.MaxPageSize, Filters: []store.Filter{{Field: "_ts", Op: store.Ge, Value: st.Since}}}
	if in.seen == nil {
		in.seen = map[string]seenItem{}
	}
	newest := st.Since - 1
	byKey := map[string]bool{}
	full := false // the pass holds as many leaves as it may append
	for !full {
		page, err := in.Audit.Query(ctx, q)
		if err != nil {
			return nil, 0, err
		}
		for _, it := range page.Items {
			if len(it.PartitionKey) == 1 && todo.IsActivityKey(it.PartitionKey[0]) {
				continue // an activity entry refers to a record
			}
			item := strings.Join(it.PartitionKey, "\x00") + "\x00" + it.ID
			if s, ok := in.seen[item]; ok {
				if s.record {
					newest = max(newest, s.ts)
				}
				continue
			}
			r, err := skimRecord(it.Body)
			if err != nil || r.EntityType == "" || r.Hash == "" || r.Owner != "" {
				// A dead letter, an activity entry of the first form (a
				// copy), or not an audit record.
				in.seen[item] = seenItem{ts: r.TS}
				continue
			}
			newest = max(newest, r.TS)
			leaf, err := LeafOf(&r.AuditRecord)
			if err != nil {
				in.Log.Warn("audit record not logged: it has no valid leaf", "record", r.ID, "error", err.Error())
				in.seen[item] = seenItem{ts: r.TS}
				continue
			}
			key := indexID(r.EntityKey, r.Version)
			if byKey[key] {
				continue
			}
			if st.mayHold(leaf.At) {
				if _, err := in.index().one(ctx, r.EntityKey, r.Version); err == nil {
					in.seen[item] = seenItem{ts: r.TS, record: true}
					continue
				} else if !todo.IsKind(err, todo.NotFound) {
					return nil, 0, err
				}
			}
			byKey[key] = true
			batch = append(batch, candidate{leaf: leaf, ts: r.TS, entity: r.EntityKey, key: key, item: item})
			if full = len(batch) == passAppends*in.maxBatch(); full {
				break
			}
		}
		if page.Continuation == "" {
			break
		}
		q.Continuation = page.Continuation
	}
	slices.SortFunc(batch, func(a, b candidate) int {
		return cmp.Or(cmp.Compare(a.ts, b.ts), cmp.Compare(a.entity, b.entity), cmp.Compare(a.leaf.Version, b.leaf.Version))
	})
	switch {
	case in.CommitOrdered:
		// Read in commit order: what this pass did not read is no older
		// than what it did.
		since = max(st.Since, newest)
	case full:
		// What this pass did not read may be of any time from the
		// watermark on: the next pass reads from it again, passing over
		// what it has seen.
		since = st.Since
	default:
		since = max(st.Since, min(newest+1, start.Add(-in.margin()).Unix()))
	}
	// Only an append moves the watermark: until one does, the next pass
	// reads from where this one did, and what it read is still of use.
	for k, s := range in.seen {
		if s.ts < st.Since {
			delete(in.seen, k)
		}
	}
	return batch, since, nil
}

func (in *Integrator) margin() time.Duration {
	if in.Margin > 0 {
		return in.Margin
	}
	return DefaultMargin
}

func (in *Integrator) maxBatch() int {
	if in.MaxBatch > 0 {
		return in.MaxBatch
	}
	return DefaultMaxBatch
}

// extension is what an append computed of the state it committed that the
// state's build needs again.
type extension struct {
	hashes tlog.HashReader // the state's stored hashes
	ids    []string        // its leaves' index documents' ids (indexID)
}

// append commits the state that extends st by batch, and returns it with
// what its build needs.
func (in *Integrator) append(ctx context.Context, st *state, batch []candidate, since int64) (*state, *extension, error) {
	next := &state{ID: stateID, PrevSize: st.Size, PrevRoot: st.Root, Size: st.Size + int64(len(batch)), Since: since,
		NewestAt: st.NewestAt}
	if st.Size > 0 && st.NewestAt.IsZero() {
		// The log's leaves from before NewestAt was kept are of times
		// the clocks that wrote them had reached.
		next.NewestAt = in.now().Add(ClockSkewBound)
	}
	ext := &extension{ids: make([]string, len(batch))}
	for i, c := range batch {
		ext.ids[i] = c.key
		next.Leaves = append(next.Leaves, c.leaf.EncodeAs(cmp.Or(in.leafEncoding, LeafNewest)))
		next.IDs = append(next.IDs, c.key)
		if c.leaf.At.After(next.NewestAt) {
			next.NewestAt = c.leaf.At
		}
	}
	hr, root, err := extend(newTileReader(ctx, in.Leases), next, &in.edge)
	if err != nil {
		return nil, nil, err
	}
	ext.hashes = hr
	next.Root = root
	if err := in.fail("hash"); err != nil {
		return nil, nil, err
	}
	b, err := json.Marshal(next)
	if err != nil {
		return nil, nil, err
	}
	var it store.Item
	if st.etag == "" {
		it, err = in.Leases.Create(ctx, store.PartitionKey{stateID}, b)
	} else {
		it, err = in.Leases.Replace(ctx, store.PartitionKey{stateID}, b, &store.WriteOptions{IfMatch: st.etag})
	}
	if err != nil {
		return nil, nil, err
	}
	next.etag = it.ETag
	if in.checked.etag == st.etag {
		// It extends a state consistent with the anchor: so is it.
		in.checked.etag = next.etag
	}
	for _, c := range batch {
		in.seen[c.item] = seenItem{ts: c.ts, record: true}
	}
	return next, ext, in.fail("state")
}

// extend computes the stored hashes of st's leaves on the tree they were
// appended to, and the root they give. When e is the edge of that tree,
// the hashes it holds are not read from tiles (each read checked against
// the tree's root).
func extend(r *tileReader, st *state, e *edge) (tlog.HashReader, tlog.Hash, error) {
	if st.PrevSize+int64(len(st.Leaves)) != st.Size {
		return nil, tlog.Hash{}, fmt.Errorf("log state of size %d holds %d leaves appended to size %d", st.Size, len(st.Leaves), st.PrevSize)
	}
	prev := tlog.Tree{N: st.PrevSize, Hash: st.PrevRoot}
	base := r.hashes(prev)
	if known := e.of(prev); known != nil {
		base = known.reader(base)
	}
	baseCount := tlog.StoredHashCount(st.PrevSize)
	var added []tlog.Hash // the stored hashes from baseCount on
	hr := overlay(base, func(x int64) (tlog.Hash, bool, error) {
		switch {
		case x < baseCount:
			return tlog.Hash{}, false, nil
		case x-baseCount < int64(len(added)):
			return added[x-baseCount], true, nil
		}
		return tlog.Hash{}, false, fmt.Errorf("stored hash %d is beyond the tree", x)
	})
	for i, leaf := range st.Leaves {
		hs, err := tlog.StoredHashes(st.PrevSize+int64(i), leaf, hr)
		if err != nil {
			return nil, tlog.Hash{}, err
		}
		added = append(added, hs...)
	}
	root, err := tlog.TreeHash(st.Size, hr)
	return hr, root, err
}

// build writes the tiles, entry bundles and index documents of st's latest
// append, unless this process has already, and keeps st's edge. ext is
// what the append of st computed, when this process appended it; nil, it
// is computed again from st.
func (in *Integrator) build(ctx context.Context, st *state, ext *extension) error {
	if st.etag == "" || (in.edge.st != nil && st.etag == in.edge.st.etag) {
		return nil
	}
	tr := newTileReader(ctx, in.Leases)
	if ext == nil {
		var err error
		if ext, err = in.extensionOf(tr, st); err != nil {
			return err
		}
	}
	hr := ext.hashes
	var docs []store.Upsert
	add := func(id string, doc []byte) {
		docs = append(docs, store.Upsert{Container: in.Leases.Spec().Name, PartitionKey: store.PartitionKey{id}, Doc: doc})
	}
	var chains map[tileKey]pieces
	if known := in.edge.of(tlog.Tree{N: st.PrevSize, Hash: st.PrevRoot}); known != nil {
		chains = maps.Clone(known.pieces)
	}
	if chains == nil {
		chains = map[tileKey]pieces{}
	}
	// addTile adds the document of t: the whole tile when it is full,
	// else the next piece of its chain. data gives t's hashes or entries
	// from a width on.
	addTile := func(t tlog.Tile, data func(from int) ([]byte, error)) error {
		from := 0
		if t.W < tileWidth {
			from, chains[keyOf(t)] = chains[keyOf(t)].grow(t.W)
		} else {
			delete(chains, keyOf(t))
		}
		b, err := data(from)
		if err != nil {
			return err
		}
		add(tileID(t), tileDoc{ID: tileID(t), From: from, Data: b}.appendJSON(nil))
		return nil
	}
	for _, t := range tlog.NewTiles(TileHeight, st.PrevSize, st.Size) {
		err := addTile(t, func(from int) ([]byte, error) {
			b, err := tlog.ReadTileData(t, hr)
			if err != nil {
				return nil, err
			}
			return b[from*tlog.HashSize:], nil
		})
		if err != nil {
			return err
		}
	}
	last, err := in.addBundles(tr, st, addTile)
	if err != nil {
		return err
	}
	if err := in.writeWithIndex(ctx, docs, ext.ids, st.PrevSize); err != nil {
		return err
	}
	e, err := edgeOf(st, hr, last)
	if err != nil {
		return err
	}
	e.pieces = chains
	in.edge = e
	return nil
}

// extensionOf computes what the build of a committed state needs from the
// state alone: its stored hashes, checked against its root, and its
// leaves' index ids.
func (in *Integrator) extensionOf(tr *tileReader, st *state) (*extension, error) {
	hr, root, err := extend(tr, st, &in.edge)
	if err != nil {
		return nil, err
	}
	if root != st.Root {
		return nil, todo.Errorf(todo.Internal, "the log state's root %s is not the root of its leaves (%s)", st.Root, root)
	}
	if len(st.IDs) == len(st.Leaves) {
		return &extension{hashes: hr, ids: st.IDs}, nil
	}
	ext := &extension{hashes: hr, ids: make([]string, len(st.Leaves))}
	for i, b := range st.Leaves {
		leaf, err := ParseLeaf(b)
		if err != nil {
			return nil, err
		}
		if !leaf.Names() {
			return nil, todo.Errorf(todo.Internal, "the log state's leaf %d names no version, and the state has no index ids", st.PrevSize+int64(i))
		}
		ext.ids[i] = indexID(leaf.EntityKey(), leaf.Version)
	}
	return ext, nil
}

// writeWithIndex writes the documents of a build and the indices of its
// leaves, ids their index documents' ids from index first on: into the
// key set with the documents, in one commit, when there is one; as index
// documents among the others otherwise.
func (in *Integrator) writeWithIndex(ctx context.Context, docs []store.Upsert, ids []string, first int64) error {
	if in.LeafIndex == nil {
		for i, id := range ids {
			doc := indexDoc{ID: id, Index: first + int64(i)}.appendJSON(nil)
			docs = append(docs, store.Upsert{Container: in.Leases.Spec().Name, PartitionKey: store.PartitionKey{id}, Doc: doc})
		}
		return in.write(ctx, docs)
	}
	keys, values := make([][]byte, len(ids)), make([][]byte, len(ids))
	for i, id := range ids {
		key, ok := leafIndexKeyOf(id)
		if !ok {
			return todo.Errorf(todo.Internal, "the log state names %q, not an index document", id)
		}
		keys[i], values[i] = key, appendLeafIndex(nil, first+int64(i))
	}
	if err := in.LeafIndex.Put(ctx, keys, values, docs); err != nil {
		return err
	}
	return in.fail("tile")
}

// index is where the integrator finds the leaves of the log.
func (in *Integrator) index() leafIndex { return leafIndex{leases: in.Leases, keys: in.LeafIndex} }

// write writes the documents of a build. They are independent: the
// embedded store commits them in one transaction, and Cosmos DB, which
// cannot, gets them at once so that their round trips overlap.
func (in *Integrator) write(ctx context.Context, docs []store.Upsert) error {
	if ok, err := store.UpsertAtomically(ctx, in.Leases, docs); ok || err != nil {
		return cmp.Or(err, in.fail("tile"))
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(writesAtOnce)
	for _, d := range docs {
		g.Go(func() error {
			if _, err := in.Leases.Upsert(gctx, d.PartitionKey, d.Doc, nil); err != nil {
				return err
			}
			return in.fail("tile")
		})
	}
	return g.Wait()
}

// writesAtOnce bounds the log documents one build writes concurrently.
const writesAtOnce = 32

// addBundles adds the entry bundles st's leaves fall in, each with the
// entries before them that the previous tree's bundle holds, and returns
// the entries of the last.
func (in *Integrator) addBundles(tr *tileReader, st *state, addTile func(tlog.Tile, func(from int) ([]byte, error)) error) ([][]byte, error) {
	known := in.edge.of(tlog.Tree{N: st.PrevSize, Hash: st.PrevRoot})
	var entries [][]byte
	for n := st.PrevSize / tileWidth; n*tileWidth < st.Size; n++ {
		start := n * tileWidth
		entries = nil
		if start < st.PrevSize && known != nil {
			entries = slices.Clone(known.entries)
		}
		if start < st.PrevSize && entries == nil {
			var err error
			if entries, err = tr.entries(bundleTile(st.PrevSize, n)); err != nil {
				return nil, err
			}
		}
		if int64(len(entries)) != max(st.PrevSize-start, 0) {
			return nil, todo.Errorf(todo.Internal, "entry bundle %d holds %d entries, not %d", n, len(entries), st.PrevSize-start)
		}
		from, to := max(start, st.PrevSize)-st.PrevSize, min(st.Size, start+tileWidth)-st.PrevSize
		entries = append(entries, st.Leaves[from:to]...)
		t := tlog.Tile{H: TileHeight, L: -1, N: n, W: len(entries)}
		if err := addTile(t, func(from int) ([]byte, error) { return EncodeBundle(entries[from:]) }); err != nil {
			return nil, err
		}
	}
	return entries, nil
}

// checkAnchored refuses a log that is not consistent with the newest
// anchored checkpoint: one behind it (a rollback), or with another root at
// its size or a tree it does not extend (a rewrite). A state this process
// found consistent with the same anchor, or committed extending one it
// had, is not checked again: its ETag names it, and the store gives any
// other write another ETag.
func (in *Integrator) checkAnchored(ctx context.Context, st *state) error {
	note, err := in.Anchors.Newest(ctx)
	if err == nil && note != nil && st.etag != "" && st.etag == in.checked.etag && bytes.Equal(note, in.checked.anchor) {
		in.report(nil)
		return nil
	}
	var anchored *Checkpoint
	if err == nil && note != nil {
		var c Checkpoint
		if c, err = OpenCheckpoint(note, in.Keys.Verifier); err != nil {
			err = fmt.Errorf("the newest anchored checkpoint: %w", err)
		} else {
			anchored = &c
			err = consistent(newTileReader(ctx, in.Leases), st.tree(), c)
		}
	}
	if err != nil && anchored != nil && anchored.Size > st.Size {
		// Another integrator may have appended and anchored since st
		// was read: a state read after the anchor is as new as it.
		if now, lerr := loadState(ctx, in.Leases, nil); lerr == nil && now.Size > st.Size {
			return errMovedOn
		}
	}
	if err != nil {
		in.checked = consistency{}
		return in.refuse(st, anchored, err)
	}
	if note != nil {
		in.checked = consistency{anchor: note, etag: st.etag}
	}
	in.report(nil)
	return nil
}

// errMovedOn is a pass's state found older than the anchor because the log
// grew since it was read: the next pass checks the newer state.
var errMovedOn = errors.New("the log state moved on while it was checked")

// consistency is a state document, by ETag, known to be consistent with
// the anchored checkpoint note anchor.
type consistency struct {
	anchor []byte
	etag   string
}

// consistent checks that the tree t, read through r, extends the
// checkpoint c.
func consistent(r *tileReader, t tlog.Tree, c Checkpoint) error {
	return extendsAnchor(r.hashes(t), t, c)
}

// extendsAnchor checks that the tree t, its hashes read through hr,
// extends the checkpoint c.
func extendsAnchor(hr tlog.HashReader, t tlog.Tree, c Checkpoint) error {
	switch {
	case c.Size > t.N:
		return fmt.Errorf("the store's log (size %d) is behind the anchored checkpoint (size %d)", t.N, c.Size)
	case c.Size == t.N:
		if c.Root != t.Hash {
			return fmt.Errorf("the store's log of size %d has root %s, the anchored checkpoint %s", t.N, t.Hash, c.Root)
		}
		return nil
	}
	proof, err := tlog.ProveTree(t.N, c.Size, hr)
	if err == nil {
		err = tlog.CheckTree(proof, t.N, t.Hash, c.Size, c.Root)
	}
	if err != nil {
		return fmt.Errorf("the store's log does not extend the anchored checkpoint: %w", err)
	}
	return nil
}

// refuse logs and reports a log that must not be signed.
func (in *Integrator) refuse(st *state, anchored *Checkpoint, cause error) error {
	stored := Checkpoint{Origin: in.Keys.Signer.Name(), Size: st.Size, Root: st.Root}
	args := []any{"store", stored.String(), "error", cause.Error()}
	if anchored != nil {
		args = append(args, "anchored", anchored.String())
	}
	in.Log.Error("transparency log: signing nothing until an operator acts", args...)
	err := todo.Wrap(todo.Unavailable, errors.Join(ErrRefused, cause), "transparency log: "+cause.Error()+"; signing stopped until an operator acts")
	in.report(err)
	return err
}

func (in *Integrator) report(err error) {
	if in.Report != nil {
		in.Report(err)
	}
}

// sound reports whether the stored checkpoint document is one this
// process anchored, or verifies: one that does not is published again,
// from the anchor of its size when there is one.
func (in *Integrator) sound(d *checkpointDoc) bool {
	if d.Note == string(in.checked.anchor) {
		return true
	}
	c, err := OpenCheckpoint([]byte(d.Note), in.Keys.Verifier)
	if err == nil && c.Size == d.Size {
		return true
	}
	in.Log.Warn("transparency log: the stored checkpoint does not verify; publishing it again", "size", d.Size)
	return false
}

// publish signs a checkpoint of st, anchors it and makes it the latest,
// unless the latest is of st's size already.
func (in *Integrator) publish(ctx context.Context, st *state) (bool, error) {
	var cur checkpointDoc
	etag, err := read(ctx, in.Leases, checkpointID, &cur)
	if err != nil && !todo.IsKind(err, todo.NotFound) {
		return false, err
	}
	// A log serves a checkpoint from its start (C2SP tlog-tiles): the
	// empty tree's, until its first leaves.
	if etag != "" && cur.Size >= st.Size && in.sound(&cur) {
		return false, nil
	}
	if err := in.checkAnchored(ctx, st); err != nil {
		return false, err
	}
	c := Checkpoint{Origin: in.Keys.Signer.Name(), Size: st.Size, Root: st.Root}
	msg, err := c.Sign(in.Keys.Signers()...)
	if err != nil {
		return false, err
	}
	var cosigners []Cosignature
	if in.Witnessing != nil {
		if msg, cosigners, err = in.witness(ctx, st, msg); err != nil {
			return false, err
		}
	}
	existing, err := in.Anchors.Put(ctx, st.Size, msg)
	if errors.Is(err, ErrAnchored) && len(existing) > 0 {
		// Anchored by another integrator, or by this one before a crash.
		a, oerr := OpenCheckpoint(existing, in.Keys.Verifier)
		if oerr != nil || !sameTree(a, c) {
			return false, in.refuse(st, &a, fmt.Errorf("another checkpoint of size %d is anchored already", st.Size))
		}
		msg, err = existing, nil
	}
	if err != nil && !errors.Is(err, ErrAnchored) {
		return false, err
	}
	in.checked = consistency{anchor: msg, etag: st.etag}
	b, err := json.Marshal(checkpointDoc{ID: checkpointID, Size: st.Size, Note: string(msg), Publish: in.Witnessing.publish(), Cosigners: cosigners})
	if err != nil {
		return false, err
	}
	if etag == "" {
		_, err = in.Leases.Create(ctx, store.PartitionKey{checkpointID}, b)
	} else {
		_, err = in.Leases.Replace(ctx, store.PartitionKey{checkpointID}, b, &store.WriteOptions{IfMatch: etag})
	}
	if todo.IsKind(err, todo.PreconditionFailed) || todo.IsKind(err, todo.Conflict) {
		return false, nil // another integrator published meanwhile
	}
	if err == nil && in.Published != nil {
		in.Published(msg, c)
	}
	return err == nil, err
}
