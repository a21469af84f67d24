package store_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/partition"
	"github.com/todoaudit/todo/store"
)

// BenchmarkCheckDocument is the check every write of an update makes of
// each of its two documents, the todo and its version document, on the
// todo container as the handler creates it.
func BenchmarkCheckDocument(b *testing.B) {
	specs, err := partition.Containers(partition.Hierarchical, partition.DefaultContainerNames)
	if err != nil {
		b.Fatal(err)
	}
	t := todo.Todo{ID: "Grocery:41500e6e-6c5e-4a8e-9d55-0d6f0d9b2f0a", Type: todo.TypeTodo, UserID: "alice",
		Fields:  todo.Fields{Category: "Grocery", Title: "Get more milk", Tags: []string{"dairy"}},
		Version: 3, CreatedAt: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC), UpdatedAt: time.Date(2026, 12, 1, 9, 5, 0, 0, time.UTC),
		LastOperation: todo.OpUpdate, UpdatedBy: "alice"}
	v := todo.VersionOf(t)
	docs := make([][]byte, 2)
	for i, x := range []any{t, v} {
		if docs[i], err = json.Marshal(x); err != nil {
			b.Fatal(err)
		}
	}
	pk := store.PartitionKey{"alice", "Grocery"}
	b.ReportAllocs()
	for b.Loop() {
		for _, doc := range docs {
			if err := check(specs[0], pk, doc); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func check(spec store.ContainerSpec, pk store.PartitionKey, doc []byte) error {
	_, err := spec.CheckDocument(pk, doc)
	return err
}
