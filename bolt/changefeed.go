package bolt

import (
	"context"
	"strconv"

	bbolt "go.etcd.io/bbolt"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/ru"
	"github.com/todoaudit/todo/store"
)

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
