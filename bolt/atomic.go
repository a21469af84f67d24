package bolt

import (
	"context"
	"fmt"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/ru"
	"github.com/todoaudit/todo/store"
)

// UpsertAtomically writes ups, into any containers of this store, in one
// bbolt transaction: every document is checked first, and a failure while
// writing rolls the whole transaction back.
func (c *container) UpsertAtomically(ctx context.Context, ups []store.Upsert) (bool, error) {
	cost := store.Cost{Scope: store.CrossPartition, Requests: 1}
	defer func() { store.Charge(ctx, cost) }()
	if err := ctx.Err(); err != nil {
		return true, todo.Wrap(todo.Unavailable, err, "request cancelled")
	}
	writes, charge, err := c.s.prepareUpserts(ctx, ups)
	cost.Charge += charge
	if err != nil {
		return true, err
	}
	return true, c.s.commit.do(func(tx *bbolt.Tx) error { return writeUpserts(tx, writes) })
}

// upsert is one write of an atomic group, checked and encoded outside the
// commit lock.
type upsert struct {
	c      *container
	prep   prepared
	retire *store.Retirement
}

// prepareUpserts checks and encodes ups, and says what writing them
// costs.
func (s *Store) prepareUpserts(ctx context.Context, ups []store.Upsert) ([]upsert, float64, error) {
	writes := make([]upsert, len(ups))
	charge := 0.0
	for i, u := range ups {
		sc, err := s.Container(ctx, u.Container)
		if err != nil {
			return nil, charge, err
		}
		target := sc.(*container)
		if err := target.spec.CheckKey(u.PartitionKey); err != nil {
			return nil, charge, err
		}
		if r := u.Retire; r != nil {
			if err := todo.ValidateID(r.ID); err != nil {
				return nil, charge, err
			}
			writes[i] = upsert{c: target, prep: prepared{id: r.ID, key: itemKey(u.PartitionKey, r.ID)}, retire: r}
			charge += ru.Write(0)
			continue
		}
		p, err := target.prepare(u.PartitionKey, store.Op{Kind: store.BatchUpsert, Doc: u.Doc})
		if err != nil {
			return nil, charge, err
		}
		writes[i] = upsert{c: target, prep: p}
		charge += ru.Write(int64(len(p.body)))
	}
	return writes, charge, nil
}

// writeUpserts writes an atomic group's upserts in tx. An unconditional
// upsert fails only mid-write, and so does a retirement: the transaction
// must then be rolled back, the group's earlier writes with it.
func writeUpserts(tx *bbolt.Tx, writes []upsert) error {
	results := make([]store.OpResult, 1)
	for _, w := range writes {
		var err error
		if w.retire != nil {
			err = w.c.retire(tx, w.prep.key, w.retire.ETag, w.retire.Reserved)
		} else {
			err = w.c.apply(tx, []prepared{w.prep}, results)
		}
		if err != nil {
			return fmt.Errorf("%w: %v", errDirty, err)
		}
	}
	return nil
}

// retire deletes the item at key, if it has not expired and is at etag,
// with its change-feed entry and range-index entries, and reserves its key
// until reserved.
func (c *container) retire(tx *bbolt.Tx, key []byte, etag string, reserved time.Time) error {
	_, items, feed, order := c.writeBuckets(tx)
	v := items.Get(key)
	if v == nil {
		return nil
	}
	now := c.s.now()
	r := decodeRecord(v)
	if r.expired(now) || etagOf(r.lsn) != etag {
		return nil
	}
	if err := unfeed(feed, r.lsn); err != nil {
		return err
	}
	if err := c.unindex(order, key, r); err != nil {
		return err
	}
	var ck [256]byte
	c.s.reads.written(cacheKey(ck[:0], c.name, key))
	c.s.reserved.reserve(c.name, key, reserved, now)
	return items.Delete(key)
}
