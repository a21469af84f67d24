package bolt

import (
	"bytes"
	"fmt"

	bbolt "go.etcd.io/bbolt"
)

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
