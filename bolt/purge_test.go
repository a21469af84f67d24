package bolt

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/todoaudit/todo/store"
)

type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *testClock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// counts returns how many items and feed entries the container holds.
func counts(t *testing.T, c *container) (items, feed int) {
	t.Helper()
	err := c.s.db.View(func(tx *bbolt.Tx) error {
		b := tx.Bucket(c.name)
		items = b.Bucket(bucketItems).Stats().KeyN
		feed = b.Bucket(bucketFeed).Stats().KeyN
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return items, feed
}

// The purge removes every expired item and its feed entry over several
// steps, keeps the rest, spares an item renewed after the scan found it,
// and reports a failure instead of dropping it.
func TestPurgeExpiredInSteps(t *testing.T) {
	clk := &testClock{now: time.Unix(1_700_000_000, 0)}
	ttl := -1
	spec := store.ContainerSpec{Name: "todos", PartitionKeyPaths: []string{"/pk"}, DefaultTTL: &ttl}
	s, err := Open(t.TempDir(), []store.ContainerSpec{spec}, &Options{Now: clk.Now, SweepInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			_ = s.Close()
		}
	}()
	sc, _ := s.Container(context.Background(), "todos")
	c := sc.(*container)
	const short, forever = 3*purgeChunk + 7, 100
	ops := map[string][]store.Op{}
	for i := range short + forever {
		ttlField := `,"ttl":10`
		if i >= short {
			ttlField = ""
		}
		pk := fmt.Sprint("p", i%7)
		doc := fmt.Sprintf(`{"id":"i%05d","pk":%q%s}`, i, pk, ttlField)
		ops[pk] = append(ops[pk], store.Op{Kind: store.BatchCreate, Doc: []byte(doc)})
	}
	for pk, all := range ops {
		for len(all) > 0 {
			n := min(len(all), store.MaxBatchOps)
			if _, err := c.Batch(context.Background(), store.PartitionKey{pk}, all[:n]); err != nil {
				t.Fatal(err)
			}
			all = all[n:]
		}
	}
	clk.add(time.Minute)

	// A scan finds an item expired; it is renewed before the deletion.
	dead, _, err := c.expiredAfter(nil)
	if err != nil || len(dead) == 0 {
		t.Fatalf("first step found %d expired items: %v", len(dead), err)
	}
	pk, id := splitItemKey(dead[0], 1)
	if _, err := c.Upsert(context.Background(), pk, []byte(fmt.Sprintf(`{"id":%q,"pk":%q}`, id, pk[0])), nil); err != nil {
		t.Fatal(err)
	}

	if err := c.purgeExpired(nil); err != nil {
		t.Fatal(err)
	}
	items, feed := counts(t, c)
	if items != forever+1 || feed != forever+1 {
		t.Fatalf("after the purge: %d items, %d feed entries; want %d of each", items, feed, forever+1)
	}
	if _, err := c.Read(context.Background(), pk, id); err != nil {
		t.Fatalf("the renewed item was purged: %v", err)
	}

	closed = true
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.purgeExpired(nil); err == nil {
		t.Fatal("a purge of a closed store reported no error")
	}
}
