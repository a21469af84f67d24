package bolt_test

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/bolt/bolttest"
	"github.com/todoaudit/todo/partition"
	"github.com/todoaudit/todo/store"
)

// Point reads served from the read cache never go back in time: once a
// write is acknowledged, every read begun after it sees it or a later
// write, and no reader sees a value older than one it saw before, while
// four readers race one writer over the same item; a delete is seen as
// soon as it is acknowledged.
func TestReadsFollowAcknowledgedWrites(t *testing.T) {
	c := bolttest.Open(t, partition.Hierarchical, nil)
	ctx := context.Background()
	pk := store.PartitionKey{"lease-1"}
	write := func(n int) {
		if _, err := c.Leases.Upsert(ctx, pk, []byte(`{"id":"lease-1","n":`+strconv.Itoa(n)+`}`), nil); err != nil {
			t.Error(err)
		}
	}
	write(0)
	var acked atomic.Int64
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			last := int64(-1)
			for {
				select {
				case <-done:
					return
				default:
				}
				floor := acked.Load()
				it, err := c.Leases.Read(ctx, pk, "lease-1")
				if err != nil {
					t.Error(err)
					return
				}
				var v struct{ N int64 }
				if err := json.Unmarshal(it.Body, &v); err != nil {
					t.Error(err)
					return
				}
				if v.N < floor || v.N < last {
					t.Errorf("read %d after write %d was acknowledged and %d was read", v.N, floor, last)
					return
				}
				last = v.N
			}
		}()
	}
	for n := 1; n <= 300; n++ {
		write(n)
		acked.Store(int64(n))
	}
	close(done)
	wg.Wait()

	if _, err := c.Leases.Read(ctx, pk, "lease-1"); err != nil {
		t.Fatal(err)
	}
	if err := c.Leases.Delete(ctx, pk, "lease-1", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Leases.Read(ctx, pk, "lease-1"); !todo.IsKind(err, todo.NotFound) {
		t.Fatalf("read after the delete: %v, want NotFound", err)
	}
}
