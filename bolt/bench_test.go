package bolt_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/todoaudit/todo/partition"
	"github.com/todoaudit/todo/store"
)

// benchContainer is the todo container as the handler creates it.
func benchContainer(b *testing.B) store.Container {
	b.Helper()
	spec := store.ContainerSpec{Name: "todos", PartitionKeyPaths: []string{"/userId", "/category"}, Indexing: partition.TodoIndexing}
	c := openContainer(b, b.TempDir(), spec, nil)
	return c
}

func todoDoc(id string) []byte {
	return fmt.Appendf(nil, `{"id":%q,"type":"todo","userId":"alice","category":"Grocery","title":"Get more milk","isCompleted":false,"version":1}`, id)
}

// BenchmarkPointRead is a point read of a 200-byte todo, from all cores.
func BenchmarkPointRead(b *testing.B) {
	c := benchContainer(b)
	pk := store.PartitionKey{"alice", "Grocery"}
	for i := range 1000 {
		if _, err := c.Create(context.Background(), pk, todoDoc(fmt.Sprint("t", i))); err != nil {
			b.Fatal(err)
		}
	}
	var n atomic.Int64
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := c.Read(context.Background(), pk, fmt.Sprint("t", n.Add(1)%1000)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkBatchWrite is the outbox write (todo plus version document) as
// one fsynced batch, from 32 concurrent writers sharing commits.
func BenchmarkBatchWrite(b *testing.B) {
	c := benchContainer(b)
	var n atomic.Int64
	b.SetParallelism(16) // 16 × GOMAXPROCS(2) = 32 writers
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			id := fmt.Sprint("w", n.Add(1))
			ops := []store.Op{
				{Kind: store.BatchCreate, Doc: todoDoc(id)},
				{Kind: store.BatchCreate, Doc: todoDoc(id + ":v1")},
			}
			if _, err := c.Batch(context.Background(), store.PartitionKey{"alice", "Grocery"}, ops); err != nil {
				b.Fatal(err)
			}
		}
	})
}
