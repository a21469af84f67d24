package bolt

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/todoaudit/todo/store"
)

// A batch that writes one item more than once leaves what its last
// operation wrote: the body, one change-feed entry and the range-index
// entries of that body only, the ones before it replaced within the batch.
func TestBatchWritesOneItemTwice(t *testing.T) {
	s, c := openIndexed(t, t.TempDir())
	defer s.Close()
	ctx := context.Background()
	pk := store.PartitionKey{"p"}
	if _, err := c.Create(ctx, pk, []byte(`{"id":"a","pk":"p","n":1}`)); err != nil {
		t.Fatal(err)
	}
	res, err := c.Batch(ctx, pk, []store.Op{
		{Kind: store.BatchUpsert, Doc: []byte(`{"id":"a","pk":"p","n":2}`)},
		{Kind: store.BatchReplace, Doc: []byte(`{"id":"a","pk":"p","n":3}`)},
		{Kind: store.BatchCreate, Doc: []byte(`{"id":"b","pk":"p","n":4}`)},
		{Kind: store.BatchDelete, ID: "b"},
		{Kind: store.BatchCreate, Doc: []byte(`{"id":"c","pk":"p"}`)},
		{Kind: store.BatchUpsert, Doc: []byte(`{"id":"c","pk":"p","n":0}`)},
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{200, 200, 201, 204, 201, 200} {
		if res[i].StatusCode != want {
			t.Fatalf("operation %d: %d, want %d (%+v)", i, res[i].StatusCode, want, res)
		}
	}
	if got := orderedIDs(t, c, "p", false); got != "c,a" {
		t.Fatalf("ORDER BY n: %s, want c,a", got)
	}
	if missing, valued := orderEntries(t, c); missing != 0 || valued != 2 {
		t.Fatalf("range index: %d entries of missing properties and %d of values, want 0 and 2", missing, valued)
	}
	it, err := c.Read(ctx, pk, "a")
	var a struct{ N int }
	if err != nil || json.Unmarshal(it.Body, &a) != nil || a.N != 3 {
		t.Fatalf("a: %s, %v", it.Body, err)
	}
	if _, err := c.Read(ctx, pk, "b"); err == nil {
		t.Fatal("b was created and deleted in one batch, yet it reads")
	}
	feed, err := c.ChangeFeed(ctx, "", 100)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, it := range feed.Items {
		ids = append(ids, it.ID)
	}
	if len(ids) != 2 || ids[0] != "a" || ids[1] != "c" {
		t.Fatalf("change feed: %v, want [a c]", ids)
	}
}
