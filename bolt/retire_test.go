package bolt

import (
	"context"
	"testing"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/store"
)

// A retired item is gone for every read, query and the change feed, with
// its range-index entries and its feed entry, while a create of its id
// fails until its reservation ends. A retirement of an item that changed
// since does nothing.
func TestRetire(t *testing.T) {
	ctx := context.Background()
	clk := &testClock{now: time.Unix(1_700_000_000, 0)}
	spec := store.ContainerSpec{Name: "todos", PartitionKeyPaths: []string{"/pk"},
		Indexing: &store.IndexingPolicy{Paths: []string{"title"}, Sorted: []string{"title"}}}
	s, err := Open(t.TempDir(), []store.ContainerSpec{spec}, &Options{Now: clk.Now, SweepInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sc, _ := s.Container(ctx, "todos")
	c := sc.(*container)
	pk := store.PartitionKey{"p"}
	put := func(id, title string) store.Item {
		t.Helper()
		it, err := c.Upsert(ctx, pk, []byte(`{"id":"`+id+`","pk":"p","title":"`+title+`"}`), nil)
		if err != nil {
			t.Fatal(err)
		}
		return it
	}
	a := put("a", "x")
	put("b", "y")
	retire := func(id, etag string) {
		t.Helper()
		ups := []store.Upsert{{Container: "todos", PartitionKey: pk, Doc: []byte(`{"id":"c","pk":"p","title":"z"}`)},
			store.Retire("todos", pk, id, etag, clk.Now().Add(time.Minute))}
		if ok, err := store.UpsertAtomically(ctx, c, ups); !ok || err != nil {
			t.Fatalf("UpsertAtomically = %v, %v", ok, err)
		}
	}

	put("a", "x2") // a changes after it was read
	retire("a", a.ETag)
	if _, err := c.Read(ctx, pk, "a"); err != nil {
		t.Fatalf("a retirement at a stale ETag took the item: %v", err)
	}
	a, _ = c.Read(ctx, pk, "a")
	retire("a", a.ETag)
	retire("b", `"0"`) // no such version: nothing happens

	if _, err := c.Read(ctx, pk, "a"); !todo.IsKind(err, todo.NotFound) {
		t.Fatalf("read of a retired item: %v, want NotFound", err)
	}
	ids := func(items []store.Item) (out []string) {
		for _, it := range items {
			out = append(out, it.ID)
		}
		return out
	}
	for _, q := range []store.Query{{PartitionKey: pk, PageSize: 10}, {PartitionKey: pk, PageSize: 10, OrderBy: []store.Order{{Field: "title"}}}} {
		page, err := c.Query(ctx, q)
		if err != nil || len(page.Items) != 2 || page.Items[0].ID == "a" || page.Items[1].ID == "a" {
			t.Fatalf("query %+v after the retirement: %v, %v; want b and c", q, ids(page.Items), err)
		}
	}
	feed, err := c.ChangeFeed(ctx, "", 100)
	if err != nil || len(feed.Items) != 2 {
		t.Fatalf("change feed after the retirement: %v, %v; want b and c", ids(feed.Items), err)
	}
	if _, err := c.Replace(ctx, pk, []byte(`{"id":"a","pk":"p","title":"w"}`), nil); !todo.IsKind(err, todo.NotFound) {
		t.Fatalf("replace of a retired item: %v, want NotFound", err)
	}
	if _, err := c.Create(ctx, pk, []byte(`{"id":"a","pk":"p","title":"w"}`)); !todo.IsKind(err, todo.Conflict) {
		t.Fatalf("create of a retired id while it is reserved: %v, want Conflict", err)
	}
	if n := orderKeys(t, c); n != 2 {
		t.Fatalf("%d range-index entries after the retirement, want those of b and c", n)
	}
	if items, feed := counts(t, c); items != 2 || feed != 2 {
		t.Fatalf("%d items and %d feed entries, want those of b and c", items, feed)
	}

	clk.add(time.Minute)
	if _, err := c.Create(ctx, pk, []byte(`{"id":"a","pk":"p","title":"w"}`)); err != nil {
		t.Fatalf("create of a retired id once its reservation ended: %v", err)
	}
}

// orderKeys counts the entries of c's range index.
func orderKeys(t *testing.T, c *container) int {
	t.Helper()
	n := 0
	err := c.s.db.View(func(tx *bbolt.Tx) error {
		n = tx.Bucket(c.name).Bucket(bucketOrder).Stats().KeyN
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
