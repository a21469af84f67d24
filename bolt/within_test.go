package bolt

import (
	"context"
	"fmt"
	"testing"

	"github.com/todoaudit/todo/store"
)

// A sorted index narrowed to some partitions keeps entries there only (a
// document elsewhere has no entry for it, not even as lacking it), ORDER
// BY answers alike in every partition, and a file whose narrowing changes
// is re-indexed when opened.
func TestRangeIndexNarrowedToPartitions(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	spec := store.ContainerSpec{Name: "c", PartitionKeyPaths: []string{"/pk"}, Indexing: &store.IndexingPolicy{
		Paths: []string{"pk", "v", "w"}, Sorted: []string{"v", "w"}, SortedWithin: map[string][]string{"v": {"a/"}}}}
	s, c := openOne(t, dir, spec)
	for _, d := range []struct{ pk, id, fields string }{
		{"a/1", "d1", `"v":3,"w":1`}, {"a/1", "d2", `"v":1`}, {"a/1", "d3", `"v":2,"w":0`},
		{"b/1", "e1", `"v":2,"w":5`}, {"b/1", "e2", `"v":1,"w":4`},
	} {
		if _, err := c.Create(ctx, store.PartitionKey{d.pk}, fmt.Appendf(nil, `{"id":%q,"pk":%q,%s}`, d.id, d.pk, d.fields)); err != nil {
			t.Fatal(err)
		}
	}
	check := func() {
		t.Helper()
		for _, q := range []struct{ pk, field, want string }{
			{"a/1", "v", "d2,d3,d1"}, {"b/1", "v", "e2,e1"}, {"a/1", "w", "d2,d3,d1"}, {"b/1", "w", "e2,e1"},
		} {
			got := PagedIDs(t, c, store.Query{PartitionKey: store.PartitionKey{q.pk}, PageSize: 1, OrderBy: []store.Order{{Field: q.field}}})
			if got != q.want {
				t.Errorf("ORDER BY %s in %s = %s, want %s", q.field, q.pk, got, q.want)
			}
		}
	}
	check()
	// a/1: three of v, two of w and d2's lacking w; b/1: two of w.
	if n := orderKeys(t, c); n != 8 {
		t.Fatalf("%d range-index entries, want 8", n)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	spec.Indexing.SortedWithin = nil
	s, c = openOne(t, dir, spec)
	defer s.Close()
	check()
	if n := orderKeys(t, c); n != 10 {
		t.Fatalf("%d range-index entries once v is sorted everywhere, want 10", n)
	}
}
