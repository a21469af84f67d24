package bolt_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/todoaudit/todo/store"
)

// historyContainer holds n audit-like records of one entity, written in
// batches, in a container that indexes version as the audit container does.
func historyContainer(tb testing.TB, n int) store.Container {
	tb.Helper()
	spec := store.ContainerSpec{Name: "audit", PartitionKeyPaths: []string{"/entityKey"},
		Indexing: &store.IndexingPolicy{Paths: []string{"entityKey", "version"}, Sorted: []string{"version"}}}
	c := openContainer(tb, tb.TempDir(), spec, nil)
	pk := store.PartitionKey{"todo/alice/t1"}
	for i := 0; i < n; i += store.MaxBatchOps {
		var ops []store.Op
		for v := i + 1; v <= min(n, i+store.MaxBatchOps); v++ {
			doc := fmt.Appendf(nil, `{"id":"t1:v%d","entityKey":"todo/alice/t1","version":%d,"operation":"update","entity":{"title":"paint the fence, coat %d"}}`, v, v, v)
			ops = append(ops, store.Op{Kind: store.BatchCreate, Doc: doc})
		}
		if _, err := c.Batch(context.Background(), pk, ops); err != nil {
			tb.Fatal(err)
		}
	}
	return c
}

// pageThrough reads every page of the entity's history in version order
// and returns the number of items.
func pageThrough(tb testing.TB, c store.Container, pageSize int) int {
	q := store.Query{PartitionKey: store.PartitionKey{"todo/alice/t1"}, OrderBy: []store.Order{{Field: "version"}}, PageSize: pageSize}
	n := 0
	for {
		p, err := c.Query(context.Background(), q)
		if err != nil {
			tb.Fatal(err)
		}
		n += len(p.Items)
		if p.Continuation == "" {
			return n
		}
		q.Continuation = p.Continuation
	}
}

// BenchmarkHistoryPaging pages through a 5,000-version history 50 at a
// time: one op is the whole walk of 100 pages.
func BenchmarkHistoryPaging(b *testing.B) {
	c := historyContainer(b, 5000)
	b.ResetTimer()
	for b.Loop() {
		if n := pageThrough(b, c, 50); n != 5000 {
			b.Fatalf("paged through %d versions", n)
		}
	}
}
