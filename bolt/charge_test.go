package bolt_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/todoaudit/todo/bolt"
	"github.com/todoaudit/todo/ru"
	"github.com/todoaudit/todo/store"
)

// The embedded store's query charge (X-Request-Charge) follows the index:
// an equality filter on an indexed property loads only its matches, a filter
// on an unindexed one scans the partition, and ORDER BY on an indexed
// property loads only the page.
func TestQueryChargeFollowsIndex(t *testing.T) {
	spec := store.ContainerSpec{Name: "c", PartitionKeyPaths: []string{"/pk"},
		Indexing: &store.IndexingPolicy{Paths: []string{"pk", "user", "n"}}}
	s, err := bolt.Open(t.TempDir(), []store.ContainerSpec{spec}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	c, err := s.Container(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		// Ten of u1's documents among 100; each about 100 bytes.
		user := fmt.Sprint("u", i%10)
		doc := fmt.Sprintf(`{"id":"i%03d","pk":"p","user":%q,"title":"t%03d","n":%d,"pad":"0123456789012345678901234"}`, i, user, i, i)
		if _, err := c.Create(ctx, store.PartitionKey{"p"}, []byte(doc)); err != nil {
			t.Fatal(err)
		}
	}
	charge := func(q store.Query) (float64, store.Page) {
		t.Helper()
		mctx, m := store.WithMeter(ctx)
		p, err := c.Query(mctx, q)
		if err != nil {
			t.Fatal(err)
		}
		return m.Cost().Charge, p
	}
	returned := func(p store.Page) int64 {
		var n int64
		for _, it := range p.Items {
			n += int64(len(it.Body))
		}
		return n
	}
	key := store.PartitionKey{"p"}
	for _, tc := range []struct {
		name   string
		q      store.Query
		items  int
		lookup int
		loaded int64
	}{
		{"indexed equality loads its matches", store.Query{PartitionKey: key, PageSize: 100,
			Filters: []store.Filter{{Field: "user", Op: store.Eq, Value: "u1"}}}, 10, 1, 10},
		{"unindexed equality scans the partition", store.Query{PartitionKey: key, PageSize: 100,
			Filters: []store.Filter{{Field: "title", Op: store.Eq, Value: "t001"}}}, 1, 0, 100},
		{"indexed and residual filters load the index's matches", store.Query{PartitionKey: key, PageSize: 100,
			Filters: []store.Filter{{Field: "user", Op: store.Eq, Value: "u1"}, {Field: "title", Op: store.Ne, Value: "t001"}}}, 9, 1, 10},
		{"ORDER BY an indexed property loads the page", store.Query{PartitionKey: key, PageSize: 5,
			OrderBy: []store.Order{{Field: "n", Desc: true}}}, 5, 0, 5},
	} {
		got, p := charge(tc.q)
		if len(p.Items) != tc.items {
			t.Fatalf("%s: %d items, want %d", tc.name, len(p.Items), tc.items)
		}
		want := ru.Query(ru.QueryWork{Partitions: 1, Lookups: tc.lookup, Loaded: tc.loaded, ReturnedBytes: returned(p)})
		// By hand: 2.5 per partition + 0.1 per lookup + 0.05 per document
		// loaded + 1 per KB returned.
		byHand := 2.5 + 0.1*float64(tc.lookup) + 0.05*float64(tc.loaded) + math.Ceil(float64(returned(p))/1024)
		if math.Abs(got-want) > 1e-9 || math.Abs(want-byHand) > 1e-9 {
			t.Errorf("%s: charge %v, model %v, by hand %v", tc.name, got, want, byHand)
		}
	}
}
