package bolt_test

import (
	"context"
	"testing"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/bolt/bolttest"
	"github.com/todoaudit/todo/partition"
	"github.com/todoaudit/todo/store"
)

// Upserts into several partitions of two containers land in one
// transaction: all of them, or, when one document is refused, none.
func TestUpsertAtomically(t *testing.T) {
	c := bolttest.Open(t, partition.Hierarchical, nil)
	ctx := context.Background()
	record := func(key string) store.Upsert {
		return store.Upsert{Container: "audit", PartitionKey: store.PartitionKey{key},
			Doc: []byte(`{"id":"r1","entityKey":"` + key + `"}`)}
	}
	checkpoint, err := store.CheckpointUpsert("leases", "pump-todos", "42")
	if err != nil {
		t.Fatal(err)
	}
	bad := store.Upsert{Container: "audit", PartitionKey: store.PartitionKey{"todo/alice/c"}, Doc: []byte(`{"id":"r1","entityKey":"todo/bob/c"}`)}
	if ok, err := store.UpsertAtomically(ctx, c.Audit, []store.Upsert{record("todo/alice/a"), bad, checkpoint}); !ok || !todo.IsKind(err, todo.Invalid) {
		t.Fatalf("a transaction with a refused document = %v, %v; want Invalid", ok, err)
	}
	if _, err := c.Audit.Read(ctx, store.PartitionKey{"todo/alice/a"}, "r1"); !todo.IsKind(err, todo.NotFound) {
		t.Fatalf("a refused transaction wrote its first document: %v", err)
	}
	if ok, err := store.UpsertAtomically(ctx, c.Audit, []store.Upsert{record("todo/alice/a"), record("todo/alice/b"), checkpoint}); !ok || err != nil {
		t.Fatalf("UpsertAtomically = %v, %v", ok, err)
	}
	for _, key := range []string{"todo/alice/a", "todo/alice/b"} {
		if _, err := c.Audit.Read(ctx, store.PartitionKey{key}, "r1"); err != nil {
			t.Fatalf("record under %s: %v", key, err)
		}
	}
	if cont, err := store.LoadCheckpoint(ctx, c.Leases, "pump-todos"); err != nil || cont != "42" {
		t.Fatalf("checkpoint = %q, %v", cont, err)
	}
}
