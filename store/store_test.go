package store_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/store"
)

func TestPartitionKey(t *testing.T) {
	pk := store.PartitionKey{"alice", "Grocery"}
	if !pk.Equal(store.PartitionKey{"alice", "Grocery"}) || pk.Equal(store.PartitionKey{"alice"}) ||
		!pk.HasPrefix(store.PartitionKey{"alice"}) || !pk.HasPrefix(nil) || pk.HasPrefix(store.PartitionKey{"bob"}) {
		t.Fatal("Equal or HasPrefix is wrong")
	}
	for _, tc := range []struct {
		pk    store.PartitionKey
		scope store.Scope
		name  string
	}{
		{nil, store.CrossPartition, "cross-partition"},
		{store.PartitionKey{"alice"}, store.Prefix, "prefix"},
		{pk, store.Partition, "partition"},
	} {
		if got := store.ScopeOf(tc.pk, 2); got != tc.scope || got.String() != tc.name {
			t.Errorf("ScopeOf(%v) = %v", tc.pk, got)
		}
	}
	if got := store.Fanout(8).String(); got != "fanout(8)" {
		t.Errorf("fan-out scope %q", got)
	}
}

// Costs add up and the scope becomes the widest.
func TestCostAdd(t *testing.T) {
	var c store.Cost
	c.Add(store.Cost{Scope: store.Point, Charge: 1, Requests: 1})
	c.Add(store.Cost{Scope: store.Partition, Charge: 12, Requests: 1})
	c.Add(store.Cost{Scope: store.Point, Charge: 1, Requests: 1})
	if c != (store.Cost{Scope: store.Partition, Charge: 14, Requests: 3}) || !c.Touched() {
		t.Fatalf("cost %+v", c)
	}
	if (store.Cost{Requests: 1}).Touched() {
		t.Fatal("a cost without a scope touched no data")
	}
}

// Concurrent charges all arrive (run with -race), in the inner meter and
// the one around it; a context without a meter charges nothing.
func TestMeterConcurrentAndNested(t *testing.T) {
	outerCtx, outer := store.WithMeter(context.Background())
	innerCtx, inner := store.WithMeter(outerCtx)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				store.Charge(innerCtx, store.Cost{Scope: store.Point, Charge: 0.5, Requests: 1})
			}
		})
	}
	wg.Wait()
	store.Charge(outerCtx, store.Cost{Scope: store.Partition, Charge: 6, Requests: 1})
	store.Charge(context.Background(), store.Cost{Charge: 1000, Requests: 1})
	if got := inner.Cost(); got != (store.Cost{Scope: store.Point, Charge: 400, Requests: 800}) {
		t.Fatalf("inner meter %+v", got)
	}
	if got := outer.Cost(); got != (store.Cost{Scope: store.Partition, Charge: 406, Requests: 801}) {
		t.Fatalf("outer meter %+v", got)
	}
}

// Both stores check keys and documents with these, so they refuse the same
// input the same way.
func TestChecks(t *testing.T) {
	spec := store.ContainerSpec{Name: "todos", PartitionKeyPaths: []string{"/userId", "/category"},
		Indexing: &store.IndexingPolicy{Paths: []string{"n", "title"}, Sorted: []string{"n", "title"}}}
	for _, pk := range []store.PartitionKey{{"alice"}, {"alice", ""}, {"", "Grocery"}, {"a", "b", "c"}} {
		if err := spec.CheckKey(pk); !todo.IsKind(err, todo.Invalid) {
			t.Errorf("CheckKey(%v) = %v", pk, err)
		}
	}
	pk := store.PartitionKey{"alice", "Grocery"}
	d, err := spec.CheckDocument(pk, []byte(`{"id":"Grocery:x","userId":"alice","notes":"{\"id\":1}","category":"Grocery","n":1,"ttl":5}`))
	if err != nil || d.ID != "Grocery:x" || len(d.Sorted) != 2 || string(d.Sorted[0]) != "1" || d.Sorted[1] != nil ||
		string(d.TTL) != "5" || d.System {
		t.Fatalf("CheckDocument = %+v %v", d, err)
	}
	if d, err := spec.CheckDocument(pk, []byte(`{"id":"a","userId":"alice","category":"Grocery","_etag":"x"}`)); err != nil || !d.System {
		t.Fatalf("CheckDocument of a document with a system property = %+v %v", d, err)
	}
	for doc, kind := range map[string]todo.Kind{
		`[1]`:  todo.Invalid,
		`null`: todo.Invalid,
		`{"id":"a","userId":"alice","category":"Grocery","x":tru}`:                                                   todo.Invalid,
		`{"userId":"alice","category":"Grocery"}`:                                                                    todo.Invalid,
		`{"id":7,"userId":"alice","category":"Grocery"}`:                                                             todo.Invalid,
		`{"id":"a/b","userId":"alice","category":"Grocery"}`:                                                         todo.Invalid,
		`{"id":"a","userId":"bob","category":"Grocery"}`:                                                             todo.Invalid,
		`{"id":"a","userId":"alice"}`:                                                                                todo.Invalid,
		`{"id":"a","userId":"alice","category":"Grocery","x":"` + string(make([]byte, todo.MaxDocumentBytes)) + `"}`: todo.TooLarge,
	} {
		if _, err := spec.CheckDocument(pk, []byte(doc)); !todo.IsKind(err, kind) {
			t.Errorf("CheckDocument(%.60s) = %v, want %v", doc, err, kind)
		}
	}
}

// A request opens one meter; every store call made with its context
// charges it, however deep in the call chain.
func ExampleWithMeter() {
	ctx, m := store.WithMeter(context.Background())
	// What a store does for a point read and a write:
	store.Charge(ctx, store.Cost{Scope: store.Point, Charge: 1, Requests: 1})
	store.Charge(ctx, store.Cost{Scope: store.Partition, Charge: 12, Requests: 1})
	c := m.Cost()
	fmt.Println(c.Scope, c.Charge, c.Requests)
	// Output: partition 13 2
}

// The low-priority mark reaches every context derived from the marked one,
// a meter's included, and no other.
func TestLowPriority(t *testing.T) {
	bg := t.Context()
	low := store.WithLowPriority(bg)
	metered, _ := store.WithMeter(low)
	cancelled, cancel := context.WithCancel(metered)
	defer cancel()
	for name, ctx := range map[string]context.Context{"marked": low, "metered child": metered, "cancellable child": cancelled} {
		if !store.IsLowPriority(ctx) {
			t.Errorf("%s: not low priority", name)
		}
	}
	userMeter, _ := store.WithMeter(bg)
	for name, ctx := range map[string]context.Context{"unmarked": bg, "unmarked meter": userMeter} {
		if store.IsLowPriority(ctx) {
			t.Errorf("%s: low priority", name)
		}
	}
}

// IDPrefix's range holds exactly the ids that start with the prefix.
func TestIDPrefix(t *testing.T) {
	f := store.IDPrefix("hold-")
	in := func(id string) bool {
		return id >= f[0].Value.(string) && id < f[1].Value.(string)
	}
	for id, want := range map[string]bool{"hold-": true, "hold-abc": true, "hold-\xff": true, "hold": false, "hold.": false, "holc-z": false, "erasure-1": false} {
		if in(id) != want {
			t.Errorf("%q in the range of hold-: %v, want %v", id, in(id), want)
		}
	}
	if f[0].Field != "id" || f[0].Op != store.Ge || f[1].Field != "id" || f[1].Op != store.Lt {
		t.Fatalf("filters %+v", f)
	}
}
