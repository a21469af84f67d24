package bolt

import (
	"bytes"
	"context"
	"fmt"

	bbolt "go.etcd.io/bbolt"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/store"
)

// KeySet is a set of small binary values by binary key, in a bucket of the
// store's file beside its containers: for what a document a key would
// hold many times over in keys, bookkeeping and JSON, such as where each
// version's leaf is in the transparency log. Its writes commit with
// documents of the containers, in one transaction.
type KeySet struct {
	s    *Store
	name []byte
}

// KeySet returns the key set named name; its bucket is made by its first
// write.
func (s *Store) KeySet(name string) *KeySet {
	return &KeySet{s: s, name: []byte("k/" + name)}
}

// Get returns the value of each key, nil for a key the set does not hold,
// read in one transaction.
func (k *KeySet) Get(ctx context.Context, keys [][]byte) ([][]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, todo.Wrap(todo.Unavailable, err, "request cancelled")
	}
	out := make([][]byte, len(keys))
	store.Charge(ctx, store.Cost{Scope: store.Point, Requests: 1, Charge: float64(len(keys))})
	err := k.s.db.View(func(tx *bbolt.Tx) error {
		b := tx.Bucket(k.name)
		if b == nil {
			return nil
		}
		for i, key := range keys {
			if v := b.Get(key); v != nil {
				out[i] = append([]byte(nil), v...)
			}
		}
		return nil
	})
	return out, err
}

// Put sets keys[i] to values[i] and writes ups (as store.UpsertAtomically
// does) in one transaction: all or nothing.
func (k *KeySet) Put(ctx context.Context, keys, values [][]byte, ups []store.Upsert) error {
	if len(keys) != len(values) {
		return fmt.Errorf("key set %s: %d keys for %d values", k.name, len(keys), len(values))
	}
	cost := store.Cost{Scope: store.CrossPartition, Requests: 1}
	defer func() { store.Charge(ctx, cost) }()
	if err := ctx.Err(); err != nil {
		return todo.Wrap(todo.Unavailable, err, "request cancelled")
	}
	writes, charge, err := k.s.prepareUpserts(ctx, ups)
	cost.Charge += charge + float64(len(keys))
	if err != nil {
		return err
	}
	return k.s.commit.do(func(tx *bbolt.Tx) error {
		if err := writeUpserts(tx, writes); err != nil {
			return err
		}
		b, err := tx.CreateBucketIfNotExists(k.name)
		if err != nil {
			return fmt.Errorf("%w: %v", errDirty, err)
		}
		for i, key := range keys {
			if err := b.Put(key, values[i]); err != nil {
				return fmt.Errorf("%w: %v", errDirty, err)
			}
		}
		return nil
	})
}

// Each calls fn with every key and value of the set, in key order, until
// fn returns false; the slices are fn's only while it runs.
func (k *KeySet) Each(ctx context.Context, fn func(key, value []byte) bool) error {
	if err := ctx.Err(); err != nil {
		return todo.Wrap(todo.Unavailable, err, "request cancelled")
	}
	return k.s.db.View(func(tx *bbolt.Tx) error {
		b := tx.Bucket(k.name)
		if b == nil {
			return nil
		}
		c := b.Cursor()
		for key, v := c.First(); key != nil && fn(key, v); key, v = c.Next() {
		}
		return nil
	})
}

// Range calls fn with every key from from up to, not including, to and its
// value, in key order, until fn returns false: one walk of a cursor in one
// transaction, for keys that neighbour one another (the versions of one
// entity, say). The slices are fn's only while it runs.
func (k *KeySet) Range(ctx context.Context, from, to []byte, fn func(key, value []byte) bool) error {
	if err := ctx.Err(); err != nil {
		return todo.Wrap(todo.Unavailable, err, "request cancelled")
	}
	store.Charge(ctx, store.Cost{Scope: store.Partition, Requests: 1, Charge: 1})
	return k.s.db.View(func(tx *bbolt.Tx) error {
		b := tx.Bucket(k.name)
		if b == nil {
			return nil
		}
		c := b.Cursor()
		for key, v := c.Seek(from); key != nil && bytes.Compare(key, to) < 0 && fn(key, v); key, v = c.Next() {
		}
		return nil
	})
}
