package bolt

import (
	"context"
	"fmt"

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
	type write struct {
		c    *container
		prep prepared
	}
	writes := make([]write, len(ups))
	for i, u := range ups {
		sc, err := c.s.Container(ctx, u.Container)
		if err != nil {
			return true, err
		}
		target := sc.(*container)
		if err := target.spec.CheckKey(u.PartitionKey); err != nil {
			return true, err
		}
		p, err := target.prepare(u.PartitionKey, store.Op{Kind: store.BatchUpsert, Doc: u.Doc})
		if err != nil {
			return true, err
		}
		writes[i] = write{target, p}
		cost.Charge += ru.Write(int64(len(p.body)))
	}
	results := make([]store.OpResult, 1)
	return true, c.s.commit.do(func(tx *bbolt.Tx) error {
		for _, w := range writes {
			// An unconditional upsert fails only mid-write: the group
			// must then be rolled back, this write's earlier ones with it.
			if err := w.c.apply(tx, []prepared{w.prep}, results); err != nil {
				return fmt.Errorf("%w: %v", errDirty, err)
			}
		}
		return nil
	})
}
