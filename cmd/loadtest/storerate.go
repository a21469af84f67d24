package main

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/todoaudit/todo/bolt"
	"github.com/todoaudit/todo/partition"
	"github.com/todoaudit/todo/store"
)

// storeBatchRate is the embedded store's own rate of the write every
// update makes, a two-document batch (a todo and its version document),
// fsynced, from writers concurrent writers for d: the ceiling an update
// rate is compared with.
func storeBatchRate(dir string, writers int, d time.Duration) (float64, error) {
	specs, err := partition.Containers(partition.Hierarchical, partition.DefaultContainerNames)
	if err != nil {
		return 0, err
	}
	st, err := bolt.Open(dir, specs, nil)
	if err != nil {
		return 0, err
	}
	defer st.Close()
	ctx := context.Background()
	todos, err := st.Container(ctx, specs[0].Name)
	if err != nil {
		return 0, err
	}
	doc := func(id string) []byte {
		return fmt.Appendf(nil, `{"id":%q,"type":"todo","userId":"alice","category":"Grocery","title":"Get more milk","isCompleted":false,"version":1}`, id)
	}
	var n, done atomic.Int64
	var failed atomic.Value
	stop := time.Now().Add(d)
	start := time.Now()
	var wg sync.WaitGroup
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(stop) {
				id := "Grocery:w" + strconv.FormatInt(n.Add(1), 10)
				ops := []store.Op{{Kind: store.BatchUpsert, Doc: doc(id)}, {Kind: store.BatchUpsert, Doc: doc(id + ":v1")}}
				if _, err := todos.Batch(ctx, store.PartitionKey{"alice", "Grocery"}, ops); err != nil {
					failed.Store(err)
					return
				}
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	if err, ok := failed.Load().(error); ok {
		return 0, err
	}
	return float64(done.Load()) / time.Since(start).Seconds(), nil
}
