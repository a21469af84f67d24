package bolt

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/internal/jsondoc"
	"github.com/todoaudit/todo/ru"
	"github.com/todoaudit/todo/store"
)

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
