package repo

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/bolt"
	"github.com/todoaudit/todo/store"
)

type thing struct {
	ID string `json:"id"`
	PK string `json:"pk"`
	N  int    `json:"n"`
}

func newRepo(t testing.TB) *Repository[thing] {
	t.Helper()
	st, err := bolt.Open(t.TempDir(), []store.ContainerSpec{{Name: "things", PartitionKeyPaths: []string{"/pk"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	c, err := st.Container(context.Background(), "things")
	if err != nil {
		t.Fatal(err)
	}
	return New[thing](c, func(_ context.Context, id string) (store.PartitionKey, error) {
		return store.PartitionKey{id[:2]}, nil
	})
}

func TestGetResolvesPartition(t *testing.T) {
	r := newRepo(t)
	op, _ := Create(thing{ID: "p1-x", PK: "p1", N: 7})
	if _, err := r.Batch(context.Background(), store.PartitionKey{"p1"}, []store.Op{op}); err != nil {
		t.Fatal(err)
	}
	ctx, m := store.WithMeter(context.Background())
	d, pk, err := r.Get(ctx, "p1-x")
	if cost := m.Cost(); err != nil || d.Value.N != 7 || d.ETag == "" || !pk.Equal(store.PartitionKey{"p1"}) || cost.Scope != store.Point {
		t.Fatalf("Get = %+v %v %+v %v", d, pk, cost, err)
	}
}

// A fan-out over partitions of uneven sizes pages to the last item with no
// duplicates, whatever the page size.
func TestFanoutPaging(t *testing.T) {
	r := newRepo(t)
	ctx := context.Background()
	sizes := []int{0, 3, 7, 0, 1, 5}
	var parts []store.PartitionKey
	total := 0
	for i, n := range sizes {
		pk := fmt.Sprintf("p%d", i)
		parts = append(parts, store.PartitionKey{pk})
		for j := range n {
			op, _ := Create(thing{ID: fmt.Sprintf("%s-%d", pk, j), PK: pk})
			if _, err := r.Batch(ctx, store.PartitionKey{pk}, []store.Op{op}); err != nil {
				t.Fatal(err)
			}
			total++
		}
	}
	for _, size := range []int{1, 2, 3, 4, 16, 100} {
		seen := map[string]bool{}
		spec := Spec{Partitions: parts, PageSize: size}
		for pages := 0; ; pages++ {
			if pages > 100 {
				t.Fatal("paging did not end")
			}
			mctx, m := store.WithMeter(ctx)
			p, err := r.Query(mctx, spec)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Items) > size || m.Cost().Scope != store.Fanout(len(parts)) {
				t.Fatalf("page of %d (size %d), scope %v", len(p.Items), size, m.Cost().Scope)
			}
			for _, d := range p.Items {
				if seen[d.Value.ID] {
					t.Fatalf("page size %d: %s returned twice", size, d.Value.ID)
				}
				seen[d.Value.ID] = true
			}
			if p.Continuation == "" {
				break
			}
			spec.Continuation = p.Continuation
		}
		if len(seen) != total {
			t.Fatalf("page size %d: %d items, want %d", size, len(seen), total)
		}
	}
}

func TestTokenBoundToQuery(t *testing.T) {
	r := newRepo(t)
	ctx := context.Background()
	for i := range 3 {
		op, _ := Create(thing{ID: fmt.Sprint("p1-", i), PK: "p1"})
		if _, err := r.Batch(ctx, store.PartitionKey{"p1"}, []store.Op{op}); err != nil {
			t.Fatal(err)
		}
	}
	p, err := r.Query(ctx, Spec{Partitions: []store.PartitionKey{{"p1"}}, PageSize: 1})
	if err != nil || p.Continuation == "" {
		t.Fatalf("first page: %+v %v", p, err)
	}
	other := Spec{Partitions: []store.PartitionKey{{"p1"}}, PageSize: 1, Continuation: p.Continuation,
		Filters: []store.Filter{{Field: "n", Op: store.Eq, Value: int64(0)}}}
	if _, err := r.Query(ctx, other); !todo.IsKind(err, todo.Invalid) {
		t.Fatalf("token replayed on another query: %v", err)
	}
}

func FuzzDecodeToken(f *testing.F) {
	f.Add(encodeToken(token{Partition: 1, Store: "abc", Query: "q"}))
	f.Add("")
	f.Add("eyJwIjo5OTk5OTl9")
	f.Fuzz(func(t *testing.T, s string) {
		tok, err := decodeToken(s, "q", 3)
		if err != nil {
			if !todo.IsKind(err, todo.Invalid) {
				t.Fatalf("error of kind %v", todo.KindOf(err))
			}
			return
		}
		if tok.Partition < 0 || tok.Partition >= 3 || tok.Query != "q" {
			t.Fatalf("accepted out-of-range token %+v", tok)
		}
	})
}

// A repository of Stored documents hands each as the store holds it, a
// copy of its own: one read and changed leaves the next read as it was
// (the embedded store's point reads are views of its mapped file).
func TestStoredDocuments(t *testing.T) {
	r := newRepo(t)
	ctx := context.Background()
	op, _ := Create(thing{ID: "p1-x", PK: "p1", N: 7})
	if _, err := r.Batch(ctx, store.PartitionKey{"p1"}, []store.Op{op}); err != nil {
		t.Fatal(err)
	}
	stored := New[Stored](r.c, nil)
	for range 2 {
		d, err := stored.GetIn(ctx, store.PartitionKey{"p1"}, "p1-x")
		if err != nil || !bytes.Contains(d.Value, []byte(`"n":7`)) || d.ETag == "" {
			t.Fatalf("GetIn = %s %q %v", d.Value, d.ETag, err)
		}
		clear(d.Value)
	}
	p, err := stored.Query(ctx, Spec{Partitions: []store.PartitionKey{{"p1"}}, PageSize: 10})
	if err != nil || len(p.Items) != 1 || !bytes.Contains(p.Items[0].Value, []byte(`"id":"p1-x"`)) {
		t.Fatalf("Query = %+v %v", p, err)
	}
}
