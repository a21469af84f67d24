package bolt

import (
	"bytes"
	"context"
	"sync/atomic"

	bbolt "go.etcd.io/bbolt"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/ru"
	"github.com/todoaudit/todo/store"
)

// container is one container of the store, a bucket of its own. Its
// point reads are here; its writes in write.go, its queries in query.go,
// its change feed in changefeed.go and the purge of expired items in
// expiry.go.
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
