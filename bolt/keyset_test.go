package bolt_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/bolt/bolttest"
	"github.com/todoaudit/todo/partition"
	"github.com/todoaudit/todo/store"
)

// A key set's values commit with the documents written beside them: all of
// them, or, when a document is refused, none. A key it lacks reads nil,
// and Each walks it in key order.
func TestKeySet(t *testing.T) {
	c := bolttest.Open(t, partition.Hierarchical, nil)
	ctx := context.Background()
	ks := c.Store.KeySet("test")
	if got, err := ks.Get(ctx, [][]byte{{1}}); err != nil || got[0] != nil {
		t.Fatalf("a set never written: %v, %v", got, err)
	}
	doc := store.Upsert{Container: "leases", PartitionKey: store.PartitionKey{"d"}, Doc: []byte(`{"id":"d"}`)}
	bad := store.Upsert{Container: "leases", PartitionKey: store.PartitionKey{"e"}, Doc: []byte(`{"id":"f"}`)}
	if err := ks.Put(ctx, [][]byte{{2}}, [][]byte{{20}}, []store.Upsert{doc, bad}); !todo.IsKind(err, todo.Invalid) {
		t.Fatalf("a put with a refused document: %v, want Invalid", err)
	}
	if got, err := ks.Get(ctx, [][]byte{{2}}); err != nil || got[0] != nil {
		t.Fatalf("a refused put set its key: %v, %v", got, err)
	}
	if err := ks.Put(ctx, [][]byte{{2}, {1}}, [][]byte{{20}, {10}}, []store.Upsert{doc}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Leases.Read(ctx, store.PartitionKey{"d"}, "d"); err != nil {
		t.Fatalf("the put's document: %v", err)
	}
	got, err := ks.Get(ctx, [][]byte{{1}, {3}, {2}})
	if err != nil || !bytes.Equal(got[0], []byte{10}) || got[1] != nil || !bytes.Equal(got[2], []byte{20}) {
		t.Fatalf("get: %v, %v", got, err)
	}
	var walked []byte
	if err := ks.Each(ctx, func(k, v []byte) bool { walked = append(walked, k[0], v[0]); return true }); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(walked, []byte{1, 10, 2, 20}) {
		t.Fatalf("walked %v", walked)
	}
	if err := ks.Put(ctx, [][]byte{{1}}, nil, nil); err == nil {
		t.Fatal("a put of a key without a value")
	}
}

// A key set's range walks the keys from its start up to, not including,
// its end, in key order.
func TestKeySetRange(t *testing.T) {
	c := bolttest.Open(t, partition.Hierarchical, nil)
	ctx := context.Background()
	ks := c.Store.KeySet("test")
	if err := ks.Range(ctx, []byte{1}, []byte{9}, func(_, _ []byte) bool { t.Fatal("a set never written has a key"); return false }); err != nil {
		t.Fatal(err)
	}
	keys := [][]byte{{1}, {2, 0}, {2, 1}, {3}, {4}}
	if err := ks.Put(ctx, keys, keys, nil); err != nil {
		t.Fatal(err)
	}
	var walked []byte
	err := ks.Range(ctx, []byte{2}, []byte{4}, func(k, v []byte) bool {
		if !bytes.Equal(k, v) {
			t.Fatalf("key %v has value %v", k, v)
		}
		walked = append(append(walked, k...), '|')
		return true
	})
	if err != nil || !bytes.Equal(walked, []byte{2, 0, '|', 2, 1, '|', 3, '|'}) {
		t.Fatalf("range [2, 4): %v, %v", walked, err)
	}
}
