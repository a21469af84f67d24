package bolt

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/internal/jsondoc"
	"github.com/todoaudit/todo/ru"
	"github.com/todoaudit/todo/store"
)

type container struct {
	s    *Store
	spec store.ContainerSpec
	name []byte
	// relay, when set, adds its writes to each batch's transaction.
	relay atomic.Pointer[relay]
}

// relay holds a store.Relay, which an atomic.Pointer cannot hold itself.
type relay struct{ store.Relay }

var _ store.Container = (*container)(nil)

func (c *container) Spec() store.ContainerSpec { return c.spec }

// Read is a point read.
func (c *container) Read(ctx context.Context, pk store.PartitionKey, id string) (store.Item, error) {
	var item store.Item
	err := c.view(ctx, pk, id, func(it store.Item) error {
		item = it
		item.Body = bytes.Clone(it.Body)
		return nil
	})
	return item, err
}

// View is a point read that hands d the body in the memory map, valid only
// while the read transaction lasts, so that a caller decoding it copies it
// once.
func (c *container) View(ctx context.Context, pk store.PartitionKey, id string, d store.Decoder) error {
	return c.view(ctx, pk, id, d.Decode)
}

func (c *container) view(ctx context.Context, pk store.PartitionKey, id string, f func(store.Item) error) error {
	cost := store.Cost{Scope: store.Point, Requests: 1, Charge: 1}
	defer func() { store.Charge(ctx, cost) }()
	if err := ctx.Err(); err != nil {
		return todo.Wrap(todo.Unavailable, err, "request cancelled")
	}
	if err := c.spec.CheckKey(pk); err != nil {
		return err
	}
	var buf [256]byte
	item := itemKey(pk, id)
	key := cacheKey(buf[:0], c.name, item)
	serve := func(r record) error {
		if r.expired(c.s.now()) {
			return notFound(id)
		}
		cost.Charge = ru.Read(int64(len(r.body)))
		return f(store.Item{ID: id, PartitionKey: pk, ETag: etagOf(r.lsn), Body: r.body})
	}
	if r, ok := c.s.reads.get(key); ok {
		return serve(r)
	}
	gen := c.s.reads.generation()
	return c.s.db.View(func(tx *bbolt.Tx) error {
		v := tx.Bucket(c.name).Bucket(bucketItems).Get(item)
		if v == nil {
			return notFound(id)
		}
		r := decodeRecord(v)
		c.s.reads.fill(key, gen, r)
		return serve(r)
	})
}

func notFound(id string) error { return todo.Errorf(todo.NotFound, "item %q not found", id) }

// prepared is a write checked and encoded outside the commit lock.
type prepared struct {
	kind    store.OpKind
	id      string
	key     []byte
	body    []byte // JSON without system properties
	ttl     *int64
	ifMatch string
	order   []indexEntry // its range-index entries
	// reserved, when set, makes a create whose document a relay carried
	// on (see relayed) take its id until then without storing anything.
	reserved time.Time
}

// prepare validates doc as Cosmos DB would (store.CheckDocument) and
// encodes it for the commit.
func (c *container) prepare(pk store.PartitionKey, op store.Op) (prepared, error) {
	p := prepared{kind: op.Kind, id: op.ID, ifMatch: op.IfMatch}
	if op.Kind == store.BatchDelete || op.Kind == store.BatchRead {
		if err := todo.ValidateID(op.ID); err != nil {
			return p, err
		}
		p.key = itemKey(pk, op.ID)
		return p, nil
	}
	d, err := c.spec.CheckDocument(pk, op.Doc)
	if err != nil {
		return p, err
	}
	p.id = d.ID
	if d.TTL != nil && c.spec.DefaultTTL != nil {
		ttl, err := jsondoc.Int(d.TTL)
		if err != nil || ttl == 0 || ttl < -1 {
			return p, todo.Errorf(todo.Invalid, "ttl must be a positive number of seconds or -1")
		}
		p.ttl = &ttl
	}
	// Cosmos DB owns the system properties: drop any the caller sent. When
	// there are none (the usual case) the document is kept as sent.
	body := bytes.TrimSpace(op.Doc)
	if d.System {
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(op.Doc, &fields); err != nil {
			return p, todo.Errorf(todo.Invalid, "document is not a JSON object")
		}
		for _, name := range store.SystemProperties {
			delete(fields, name)
		}
		b, err := json.Marshal(fields)
		if err != nil {
			return p, todo.Wrap(todo.Invalid, err, "document cannot be encoded")
		}
		body = b
	}
	p.body = body
	p.key = itemKey(pk, p.id)
	p.order = c.orderEntries(p.key, d.Sorted)
	return p, nil
}

// expiry returns the unix second an item written at ts expires, 0 = never.
func (c *container) expiry(ts int64, itemTTL *int64) int64 {
	if c.spec.DefaultTTL == nil {
		return 0
	}
	ttl := int64(*c.spec.DefaultTTL)
	if itemTTL != nil {
		ttl = *itemTTL
	}
	if ttl <= 0 {
		return 0
	}
	return ts + ttl
}

func (c *container) Create(ctx context.Context, pk store.PartitionKey, doc []byte) (store.Item, error) {
	return c.single(ctx, pk, store.Op{Kind: store.BatchCreate, Doc: doc})
}

func (c *container) Upsert(ctx context.Context, pk store.PartitionKey, doc []byte, o *store.WriteOptions) (store.Item, error) {
	return c.single(ctx, pk, store.Op{Kind: store.BatchUpsert, Doc: doc, IfMatch: ifMatch(o)})
}

func (c *container) Replace(ctx context.Context, pk store.PartitionKey, doc []byte, o *store.WriteOptions) (store.Item, error) {
	return c.single(ctx, pk, store.Op{Kind: store.BatchReplace, Doc: doc, IfMatch: ifMatch(o)})
}

func (c *container) Delete(ctx context.Context, pk store.PartitionKey, id string, o *store.WriteOptions) error {
	_, err := c.single(ctx, pk, store.Op{Kind: store.BatchDelete, ID: id, IfMatch: ifMatch(o)})
	return err
}

func ifMatch(o *store.WriteOptions) string {
	if o == nil {
		return ""
	}
	return o.IfMatch
}

// single is a write of one item: a batch of one, charged as a point
// operation.
func (c *container) single(ctx context.Context, pk store.PartitionKey, op store.Op) (store.Item, error) {
	res, preps, cost, err := c.batch(ctx, pk, []store.Op{op})
	cost.Scope = store.Point
	store.Charge(ctx, cost)
	var be *store.BatchError
	if errors.As(err, &be) {
		err = be.Err
	}
	if err != nil {
		return store.Item{}, err
	}
	return store.Item{ID: preps[0].id, PartitionKey: pk, ETag: res[0].ETag, Body: res[0].Body}, nil
}

// Batch runs ops atomically in one logical partition: every condition is
// checked against the partition as the earlier operations leave it before
// anything is written, and everything is written in one transaction.
func (c *container) Batch(ctx context.Context, pk store.PartitionKey, ops []store.Op) ([]store.OpResult, error) {
	res, _, cost, err := c.batch(ctx, pk, ops)
	store.Charge(ctx, cost)
	return res, err
}

// batch runs a batch and says what it cost, with the operations as
// prepared (their ids read from their documents).
func (c *container) batch(ctx context.Context, pk store.PartitionKey, ops []store.Op) ([]store.OpResult, []prepared, store.Cost, error) {
	cost := store.Cost{Scope: store.Partition, Requests: 1}
	if err := ctx.Err(); err != nil {
		return nil, nil, cost, todo.Wrap(todo.Unavailable, err, "request cancelled")
	}
	if err := c.spec.CheckKey(pk); err != nil {
		return nil, nil, cost, err
	}
	if len(ops) == 0 || len(ops) > store.MaxBatchOps {
		return nil, nil, cost, todo.Errorf(todo.Invalid, "a batch holds 1 to %d operations", store.MaxBatchOps)
	}
	size := 0
	for _, op := range ops {
		size += len(op.Doc)
	}
	if size > store.MaxBatchBytes {
		return nil, nil, cost, todo.Errorf(todo.TooLarge, "a batch holds at most %d bytes of documents", store.MaxBatchBytes)
	}
	preps := make([]prepared, len(ops))
	for i, op := range ops {
		p, err := c.prepare(pk, op)
		if err != nil {
			return nil, nil, cost, &store.BatchError{Index: i, Err: err}
		}
		preps[i] = p
		cost.Charge += ru.Write(int64(len(p.body)))
	}
	results := make([]store.OpResult, len(ops))
	relayed := c.relayed(ctx, pk, ops, preps)
	err := c.s.commit.do(func(tx *bbolt.Tx) error {
		if err := c.apply(tx, preps, results); err != nil {
			return err
		}
		return relayed.write(tx, c, preps, results)
	})
	return results, preps, cost, err
}

// writeBuckets are the container's buckets in a write transaction; feed
// is nil when no one follows the container. The feed's keys are sequence
// numbers, so its entries are appended in key order: its pages are filled
// before they split, not left half empty.
func (c *container) writeBuckets(tx *bbolt.Tx) (cb, items, feed, order *bbolt.Bucket) {
	cb = tx.Bucket(c.name)
	items, feed, order = cb.Bucket(bucketItems), cb.Bucket(bucketFeed), cb.Bucket(bucketOrder)
	if feed != nil {
		feed.FillPercent = 1
	}
	return cb, items, feed, order
}

// keepFeed gives the container bucket cb the change feed its spec asks
// for: none when no one follows the container (an earlier build's is
// dropped), else an entry at the LSN of every item, built from the items
// when the feed is new.
func (c *container) keepFeed(cb *bbolt.Bucket) error {
	if c.spec.Unfollowed {
		if cb.Bucket(bucketFeed) == nil {
			return nil
		}
		return cb.DeleteBucket(bucketFeed)
	}
	if cb.Bucket(bucketFeed) != nil {
		return nil
	}
	feed, err := cb.CreateBucket(bucketFeed)
	if err != nil {
		return err
	}
	return cb.Bucket(bucketItems).ForEach(func(k, v []byte) error {
		return feed.Put(lsnKey(decodeRecord(v).lsn), k)
	})
}

// unfeed deletes the change-feed entry at lsn, if the container keeps a
// feed.
func unfeed(feed *bbolt.Bucket, lsn uint64) error {
	if feed == nil {
		return nil
	}
	return feed.Delete(lsnKey(lsn))
}

type state struct {
	rec    record
	exists bool
}

// batchKeys is what apply knows of the keys of a batch's operations:
// stored[i] is the record at preps[i].key before the batch, when
// written[i] is -1; otherwise written[i] is the last earlier operation
// that writes the key. Each key is read once.
type batchKeys struct {
	preps   []prepared
	get     getter
	stored  [][]byte
	written []int
	now     time.Time
}

func readBatchKeys(items *bbolt.Bucket, preps []prepared, now time.Time) *batchKeys {
	k := &batchKeys{preps: preps, get: getterOf(items), stored: make([][]byte, len(preps)), written: make([]int, len(preps)), now: now}
	for i, p := range preps {
		k.written[i] = -1
		for j := i - 1; j >= 0; j-- {
			if preps[j].kind != store.BatchRead && bytes.Equal(preps[j].key, p.key) {
				k.written[i] = j
				break
			}
		}
		if k.written[i] < 0 {
			k.stored[i] = k.get.get(p.key)
		}
	}
	return k
}

// current is what operation i finds at its key: the stored record, or
// what an earlier operation of the batch left.
func (k *batchKeys) current(i int) state {
	if j := k.written[i]; j >= 0 {
		return state{exists: k.preps[j].kind != store.BatchDelete}
	}
	if k.stored[i] == nil {
		return state{}
	}
	r := decodeRecord(k.stored[i])
	if r.expired(k.now) {
		return state{}
	}
	return state{rec: r, exists: true}
}

// before is the value at operation i's key as the operation writes it:
// read again when an earlier operation of the batch wrote it.
func (k *batchKeys) before(i int) []byte {
	if k.written[i] >= 0 {
		return k.get.get(k.preps[i].key)
	}
	return k.stored[i]
}

// apply checks and writes preps in tx. Each key is read once: what an
// operation finds is the stored record, read for the checks and used again
// for the write, unless an earlier operation of the batch wrote the key.
func (c *container) apply(tx *bbolt.Tx, preps []prepared, results []store.OpResult) error {
	cb, items, feed, order := c.writeBuckets(tx)
	now := c.s.now()
	keys := readBatchKeys(items, preps, now)
	// Check every operation before changing anything.
	for i := range preps {
		if err := c.check(keys, i, &results[i]); err != nil {
			return &store.BatchError{Index: i, Err: err}
		}
	}
	// Apply. Failures from here on leave the transaction half-written.
	w := opWriter{c: c, cb: cb, items: items, feed: feed, order: order, now: now, ts: c.s.stamp(now)}
	for i, p := range preps {
		if p.kind == store.BatchRead {
			continue
		}
		if err := w.write(&p, keys.before(i), &results[i]); err != nil {
			return fmt.Errorf("%w: %v", errDirty, err)
		}
	}
	return nil
}

// check refuses operation i of a batch for what it finds at its key, or
// sets its result.
func (c *container) check(keys *batchKeys, i int, result *store.OpResult) error {
	p, st := &keys.preps[i], keys.current(i)
	switch {
	case p.kind == store.BatchCreate && st.exists:
		return todo.Errorf(todo.Conflict, "item %q already exists", p.id)
	case p.kind == store.BatchCreate && c.s.reserved.holds(c.name, p.key, keys.now):
		return todo.Errorf(todo.Conflict, "item %q was retired a moment ago: its id is still taken", p.id)
	case p.kind != store.BatchCreate && p.kind != store.BatchUpsert && !st.exists:
		return notFound(p.id)
	case p.ifMatch != "" && !st.exists:
		return todo.Errorf(todo.PreconditionFailed, "item %q does not exist", p.id)
	case p.ifMatch != "" && p.ifMatch != etagOf(st.rec.lsn):
		return todo.Errorf(todo.PreconditionFailed, "item %q has changed (ETag mismatch)", p.id)
	}
	switch p.kind {
	case store.BatchDelete:
		result.StatusCode = http.StatusNoContent
	case store.BatchRead:
		*result = store.OpResult{StatusCode: http.StatusOK, ETag: etagOf(st.rec.lsn), Body: bytes.Clone(st.rec.body)}
	default:
		result.StatusCode = http.StatusOK
		if !st.exists {
			result.StatusCode = http.StatusCreated
		}
	}
	return nil
}

// opWriter writes the checked operations of one batch.
type opWriter struct {
	c                      *container
	cb, items, feed, order *bbolt.Bucket
	now                    time.Time
	ts                     int64
	cached                 [256]byte // each written key's cache key, in turn
}

// write writes one operation over v, the value at its key before it (nil
// for none), and sets its result's ETag and body.
func (w *opWriter) write(p *prepared, v []byte, result *store.OpResult) error {
	var was []indexEntry // the range-index entries of the stored item
	if v != nil {
		old := decodeRecord(v)
		if err := unfeed(w.feed, old.lsn); err != nil {
			return err
		}
		var err error
		if was, err = w.c.storedOrderEntries(p.key, old); err != nil {
			return err
		}
	}
	w.c.s.reads.written(cacheKey(w.cached[:0], w.c.name, p.key))
	if !p.reserved.IsZero() {
		// A relayed create: its id is taken, its document never
		// stored; an expired item the create replaces goes.
		w.c.s.reserved.reserve(w.c.name, p.key, p.reserved, w.now)
	}
	if p.kind == store.BatchDelete || (!p.reserved.IsZero() && v != nil) {
		if err := updateIndex(w.order, was, nil); err != nil {
			return err
		}
		return w.items.Delete(p.key)
	}
	if !p.reserved.IsZero() {
		return nil
	}
	lsn, err := w.cb.NextSequence()
	if err != nil {
		return err
	}
	etag := etagOf(lsn)
	// The stored body is the document with the system properties
	// first, built once: the answer's body is the stored value's.
	value := recordValue(lsn, w.c.expiry(w.ts, p.ttl), len(p.body)+48)
	value = append(value, `{"_etag":`...)
	value = appendJSONETag(value, etag)
	value = append(value, `,"_ts":`...)
	value = strconv.AppendInt(value, w.ts, 10)
	value = append(value, ',')
	value = append(value, p.body[1:]...)
	body := value[recordHeader:len(value):len(value)]
	if err := w.items.Put(p.key, value); err != nil {
		return err
	}
	if w.feed != nil {
		if err := w.feed.Put(lsnKey(lsn), p.key); err != nil {
			return err
		}
	}
	if err := updateIndex(w.order, was, p.order); err != nil {
		return err
	}
	result.ETag = etag
	result.Body = body
	return nil
}

// Query evaluates q over the key range of its partition key.
func (c *container) Query(ctx context.Context, q store.Query) (store.Page, error) {
	var page store.Page
	cost := store.Cost{Scope: store.ScopeOf(q.PartitionKey, len(c.spec.PartitionKeyPaths)), Requests: 1}
	defer func() { store.Charge(ctx, cost) }()
	if err := ctx.Err(); err != nil {
		return page, todo.Wrap(todo.Unavailable, err, "request cancelled")
	}
	if err := q.Check(c.spec); err != nil {
		return page, err
	}
	prefix := pkPrefix(q.PartitionKey)
	f := splitFilters(c.spec.Indexing, q)
	var loaded, returned int
	var err error
	switch {
	case walksRangeIndex(q.OrderBy) && c.spec.Indexing.SortsIn(q.OrderBy[0].Field, q.PartitionKey[0]):
		page.Items, page.Continuation, loaded, err = c.queryIndexed(q, f)
	case len(q.OrderBy) > 0:
		page.Items, page.Continuation, loaded, err = c.queryOrdered(q, f, prefix)
	default:
		if since, ok := writtenSince(q.Filters); ok && !c.spec.Unfollowed {
			page.Items, page.Continuation, loaded, err = c.queryByCommit(q, f, prefix, since)
		} else {
			page.Items, page.Continuation, loaded, err = c.queryByKey(q, f, prefix)
		}
	}
	for _, it := range page.Items {
		returned += len(it.Body)
	}
	// One physical partition: the embedded store is one machine.
	cost.Charge = ru.Query(ru.QueryWork{Partitions: 1, Lookups: len(f.indexed), Loaded: int64(loaded), ReturnedBytes: int64(returned)})
	return page, err
}

// walksRangeIndex reports whether a walk of one property's range index
// gives order: ORDER BY that property alone, or then by id in the same
// direction (the index breaks ties by id).
func walksRangeIndex(order []store.Order) bool {
	return len(order) == 1 || len(order) == 2 && slices.Equal(order, store.TieBroken(order[0]))
}

// filters are a query's filters split as the index answers them, the
// position it starts after, and the properties of a document they and
// the query's order read.
type filters struct {
	all, indexed, rest []store.Filter
	after              *store.Seek
	names              []string
}

func splitFilters(p *store.IndexingPolicy, q store.Query) filters {
	f := filters{all: q.Filters, after: q.After}
	f.indexed, f.rest = p.Split(q.Filters)
	add := func(name string) {
		if !slices.Contains(f.names, name) {
			f.names = append(f.names, name)
		}
	}
	for _, x := range q.Filters {
		add(x.Field)
	}
	for _, o := range q.OrderBy {
		add(o.Field)
	}
	if q.After != nil {
		add("id")
		add(q.After.Order.Field)
	}
	return f
}

// members reads the top-level properties of a stored document that the
// filters name, as raw JSON that aliases body: a skim, not a decode of
// every property. Stored documents were checked as JSON when written.
func (f filters) members(body []byte) (map[string]json.RawMessage, error) {
	fields := make(map[string]json.RawMessage, len(f.names))
	err := jsondoc.Each(body, func(name, value []byte) bool {
		for _, n := range f.names {
			if string(name) == n {
				fields[n] = value
				break
			}
		}
		return true
	})
	if err != nil {
		return nil, todo.Wrap(todo.Internal, err, "stored document is not JSON")
	}
	return fields, nil
}

// load applies the filters to one stored document as Cosmos DB does: a
// document the index does not find for the indexed filters is never loaded;
// a loaded one (counted in loaded) must pass the rest too.
func (f filters) load(body []byte, loaded *int) (fields map[string]json.RawMessage, ok bool, err error) {
	if len(f.all) == 0 && f.after == nil {
		*loaded++
		return nil, true, nil
	}
	if ts, ok := f.writtenOnly(body); ok {
		if !writtenPasses(ts, f.indexed) {
			return nil, false, nil
		}
		*loaded++
		return nil, writtenPasses(ts, f.rest), nil
	}
	if fields, err = f.members(body); err != nil {
		return nil, false, err
	}
	if !matchFields(fields, f.indexed) {
		return fields, false, nil
	}
	*loaded++
	return fields, matchFields(fields, f.rest) && f.follows(fields), nil
}

// writtenOnly returns a document's _ts, read where apply writes it, when
// every filter is a lower bound on _ts by a number (what readers of recent
// changes ask, served by queryByCommit) and there is no position: load
// then needs no decoding of the document into its properties.
func (f filters) writtenOnly(body []byte) (int64, bool) {
	if f.after != nil {
		return 0, false
	}
	for _, x := range f.all {
		if _, ok := lowerBound(x); !ok {
			return 0, false
		}
	}
	ts, ok := bodyWrittenAt(body)
	return ts, ok
}

// lowerBound is a filter's bound when it is _ts >= or > a number.
func lowerBound(x store.Filter) (float64, bool) {
	if x.Field != "_ts" || (x.Op != store.Ge && x.Op != store.Gt) {
		return 0, false
	}
	switch v := x.Value.(type) {
	case int64:
		return float64(v), true
	case float64:
		return v, true
	}
	return 0, false
}

// writtenPasses reports whether a document written at ts passes filters,
// each a lowerBound.
func writtenPasses(ts int64, filters []store.Filter) bool {
	for _, x := range filters {
		v, _ := lowerBound(x)
		if t := float64(ts); t < v || x.Op == store.Gt && t == v {
			return false
		}
	}
	return true
}

// follows reports whether a document comes after the query's position,
// if it has one.
func (f filters) follows(fields map[string]json.RawMessage) bool {
	if f.after == nil {
		return true
	}
	var id string
	_ = json.Unmarshal(fields["id"], &id)
	return f.after.Follows(fields[f.after.Order.Field], id)
}

func badContinuation() error {
	return todo.Errorf(todo.Invalid, "malformed continuation token")
}

// queryByKey pages in key order; the continuation is the last key returned.
func (c *container) queryByKey(q store.Query, f filters, prefix []byte) ([]store.Item, string, int, error) {
	var start []byte
	if q.Continuation != "" {
		k, err := base64.RawURLEncoding.DecodeString(q.Continuation)
		if err != nil || !bytes.HasPrefix(k, prefix) {
			return nil, "", 0, badContinuation()
		}
		start = k
	}
	pg := c.newPage(q, f)
	var next string
	err := c.s.db.View(func(tx *bbolt.Tx) error {
		pg.now = c.s.now()
		cur := tx.Bucket(c.name).Bucket(bucketItems).Cursor()
		k, v := cur.Seek(prefix)
		if start != nil {
			k, v = cur.Seek(start)
			if bytes.Equal(k, start) {
				k, v = cur.Next()
			}
		}
		for ; k != nil && bytes.HasPrefix(k, prefix) && !pg.more; k, v = cur.Next() {
			if _, err := pg.offer(k, v); err != nil {
				return err
			}
		}
		if pg.more {
			next = base64.RawURLEncoding.EncodeToString(keyOf(pg.items[len(pg.items)-1]))
		}
		return nil
	})
	return pg.items, next, pg.loaded, err
}

// page collects one page of a query's matches as a walk over the stored
// items meets them.
type page struct {
	f      filters
	size   int
	paths  int
	now    time.Time
	items  []store.Item
	bytes  int // of the items' bodies
	loaded int
	// more is set when the walk met a match beyond the page: the page
	// has a continuation, and the walk can stop.
	more bool
}

func (c *container) newPage(q store.Query, f filters) *page {
	return &page{f: f, size: q.PageSize, paths: len(c.spec.PartitionKeyPaths)}
}

// offer considers the item stored under key with the record v, and
// reports whether it joined the page: not when it has expired or does not
// match, nor once the page is full (then more is set).
func (p *page) offer(key, v []byte) (bool, error) {
	r := decodeRecord(v)
	if r.expired(p.now) {
		return false, nil
	}
	_, ok, err := p.f.load(r.body, &p.loaded)
	if err != nil || !ok {
		return false, err
	}
	if len(p.items) == p.size || p.bytes >= store.MaxPageBytes {
		p.more = true
		return false, nil
	}
	pk, id := splitItemKey(key, p.paths)
	p.items = append(p.items, store.Item{ID: id, PartitionKey: pk, ETag: etagOf(r.lsn), Body: bytes.Clone(r.body)})
	p.bytes += len(r.body)
	return true, nil
}

func keyOf(it store.Item) []byte { return itemKey(it.PartitionKey, it.ID) }

// orderedCursor is the continuation of a sorted query: the encoded sort
// values (appendValue) and id of the last item returned.
type orderedCursor struct {
	Values [][]byte `json:"v"`
	ID     string   `json:"id"`
}

// queryOrdered sorts one partition's matches by the ORDER BY fields, then
// id (reversed when the last field is DESC, as a walk of the range index
// backwards gives them), comparing values as the range index does. It
// serves ORDER BY on several properties, or on one the range index does
// not keep. Cosmos DB walks the ORDER BY
// index, so when the index answers every filter only the page's documents
// are loaded.
func (c *container) queryOrdered(q store.Query, f filters, prefix []byte) ([]store.Item, string, int, error) {
	var after *orderedCursor
	if q.Continuation != "" {
		raw, err := base64.RawURLEncoding.DecodeString(q.Continuation)
		after = &orderedCursor{}
		if err != nil || json.Unmarshal(raw, after) != nil || len(after.Values) != len(q.OrderBy) {
			return nil, "", 0, badContinuation()
		}
	}
	type row struct {
		item store.Item // its Body is the store's, valid within the transaction
		keys [][]byte
	}
	var out []store.Item
	next := ""
	loaded := 0
	err := c.s.db.View(func(tx *bbolt.Tx) error {
		var rows []row
		now := c.s.now()
		cur := tx.Bucket(c.name).Bucket(bucketItems).Cursor()
		for k, v := cur.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = cur.Next() {
			r := decodeRecord(v)
			if r.expired(now) {
				continue
			}
			fields, ok, err := f.load(r.body, &loaded)
			if !ok { // never ok with an error
				if err != nil {
					return err
				}
				continue
			}
			if fields == nil {
				if fields, err = f.members(r.body); err != nil {
					return err
				}
			}
			keys := make([][]byte, len(q.OrderBy))
			for i, o := range q.OrderBy {
				keys[i] = appendValue(nil, fields[o.Field])
			}
			pk, id := splitItemKey(k, len(c.spec.PartitionKeyPaths))
			rows = append(rows, row{store.Item{ID: id, PartitionKey: pk, ETag: etagOf(r.lsn), Body: r.body}, keys})
		}
		less := func(ak [][]byte, aid string, bk [][]byte, bid string) int {
			for i, o := range q.OrderBy {
				if d := bytes.Compare(ak[i], bk[i]); d != 0 {
					if o.Desc {
						return -d
					}
					return d
				}
			}
			if q.OrderBy[len(q.OrderBy)-1].Desc {
				return strings.Compare(bid, aid)
			}
			return strings.Compare(aid, bid)
		}
		sortRows(rows, func(a, b row) int { return less(a.keys, a.item.ID, b.keys, b.item.ID) })
		start := 0
		if after != nil {
			for start < len(rows) && less(rows[start].keys, rows[start].item.ID, after.Values, after.ID) <= 0 {
				start++
			}
		}
		// The page ends at PageSize items or once they reach MaxPageBytes;
		// only its items are copied out of the transaction.
		size, end := 0, start
		for end < len(rows) && end-start < q.PageSize && (end == start || size < store.MaxPageBytes) {
			it := rows[end].item
			it.Body = bytes.Clone(it.Body)
			out = append(out, it)
			size += len(it.Body)
			end++
		}
		if end < len(rows) {
			last := rows[end-1]
			b, _ := json.Marshal(orderedCursor{Values: last.keys, ID: last.item.ID})
			next = base64.RawURLEncoding.EncodeToString(b)
		}
		return nil
	})
	if err != nil {
		return nil, "", loaded, err
	}
	if len(f.rest) == 0 {
		loaded = len(out)
	}
	return out, next, loaded, nil
}

// ChangeFeed reads the feed bucket in LSN order after the continuation.
func (c *container) ChangeFeed(ctx context.Context, continuation string, max int) (store.ChangeBatch, error) {
	batch := store.ChangeBatch{Continuation: continuation}
	cost := store.Cost{Scope: store.CrossPartition, Requests: 1}
	defer func() { store.Charge(ctx, cost) }()
	if err := ctx.Err(); err != nil {
		return batch, todo.Wrap(todo.Unavailable, err, "request cancelled")
	}
	if c.spec.Unfollowed {
		return batch, todo.Errorf(todo.Invalid, "container %s keeps no change feed: its spec says no one follows it", c.spec.Name)
	}
	var after uint64
	if continuation != "" {
		n, err := strconv.ParseUint(continuation, 10, 64)
		if err != nil {
			return batch, todo.Errorf(todo.Invalid, "malformed change feed continuation")
		}
		after = n
	}
	if max <= 0 {
		max = 100
	}
	returned := 0
	err := c.s.db.View(func(tx *bbolt.Tx) error {
		now := c.s.now()
		cb := tx.Bucket(c.name)
		items := getterOf(cb.Bucket(bucketItems))
		cur := cb.Bucket(bucketFeed).Cursor()
		for k, key := cur.Seek(lsnKey(after + 1)); k != nil && len(batch.Items) < max && returned < store.MaxPageBytes; k, key = cur.Next() {
			lsn := binaryLSN(k)
			batch.Continuation = strconv.FormatUint(lsn, 10)
			v := items.get(key)
			if v == nil {
				continue
			}
			r := decodeRecord(v)
			if r.expired(now) {
				continue
			}
			pk, id := splitItemKey(key, len(c.spec.PartitionKeyPaths))
			body := make([]byte, 0, len(r.body)+24)
			body = append(body, r.body[:len(r.body)-1]...)
			body = append(body, `,"_lsn":`...)
			body = strconv.AppendUint(body, lsn, 10)
			body = append(body, '}')
			batch.Items = append(batch.Items, store.Item{ID: id, PartitionKey: pk, ETag: etagOf(r.lsn), Body: body})
			returned += len(body)
		}
		return nil
	})
	cost.Charge = ru.ChangeFeed(int64(returned))
	return batch, err
}

// purgeChunk bounds the items one step of a purge examines, and so the
// write transaction its deletions take: writers wait for one short step,
// never for a scan of the whole container.
const purgeChunk = 512

// purgeExpired deletes expired items and their feed entries in steps: a
// read transaction finds up to purgeChunk expired items after the previous
// step's last key, then one short write transaction deletes those that are
// still expired (a write in between may have renewed one). It stops at the
// first failure and returns it, or between steps once stop is closed.
func (c *container) purgeExpired(stop <-chan struct{}) error {
	if c.spec.DefaultTTL == nil {
		return nil
	}
	var after []byte
	for {
		select {
		case <-stop:
			return nil
		default:
		}
		dead, next, err := c.expiredAfter(after)
		if err != nil {
			return fmt.Errorf("embedded store: purging %s: %w", c.spec.Name, err)
		}
		if len(dead) > 0 {
			if err := c.s.commit.do(func(tx *bbolt.Tx) error { return c.deleteExpired(tx, dead) }); err != nil {
				return fmt.Errorf("embedded store: purging %s: %w", c.spec.Name, err)
			}
		}
		if next == nil {
			return nil
		}
		after = next
	}
}

// expiredAfter examines up to purgeChunk items after the key after (from
// the first when nil) and returns the keys of the expired ones, and the
// key to continue after (nil at the end).
func (c *container) expiredAfter(after []byte) (dead [][]byte, next []byte, err error) {
	err = c.s.db.View(func(tx *bbolt.Tx) error {
		now := c.s.now()
		cur := tx.Bucket(c.name).Bucket(bucketItems).Cursor()
		var last []byte
		k, v := cur.First()
		if after != nil {
			if k, v = cur.Seek(after); k != nil && bytes.Equal(k, after) {
				k, v = cur.Next()
			}
		}
		for n := 0; k != nil; k, v = cur.Next() {
			if n == purgeChunk {
				next = bytes.Clone(last)
				return nil
			}
			n, last = n+1, k
			if decodeRecord(v).expired(now) {
				dead = append(dead, bytes.Clone(k))
			}
		}
		return nil
	})
	return dead, next, err
}

// deleteExpired deletes the items of keys that are still expired, with
// their feed entries.
func (c *container) deleteExpired(tx *bbolt.Tx, keys [][]byte) error {
	now := c.s.now()
	_, items, feed, order := c.writeBuckets(tx)
	get := getterOf(items)
	for _, k := range keys {
		v := get.get(k)
		if v == nil {
			continue
		}
		r := decodeRecord(v)
		if !r.expired(now) {
			continue
		}
		if err := unfeed(feed, r.lsn); err != nil {
			return fmt.Errorf("%w: %v", errDirty, err)
		}
		if err := c.unindex(order, k, r); err != nil {
			return fmt.Errorf("%w: %v", errDirty, err)
		}
		c.s.reads.written(cacheKey(nil, c.name, k))
		if err := items.Delete(k); err != nil {
			return fmt.Errorf("%w: %v", errDirty, err)
		}
	}
	return nil
}
