package bolt

import (
	"context"
	"testing"

	bbolt "go.etcd.io/bbolt"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/store"
)

// A container no one follows keeps no change feed: its ChangeFeed is
// refused, a query of what was written since a time still answers, and a
// file opened with the spec changed either way drops its feed or builds
// it from the items.
func TestUnfollowedContainerKeepsNoFeed(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	spec := store.ContainerSpec{Name: "leases", PartitionKeyPaths: []string{"/id"}}
	open := func(unfollowed bool) (*Store, *container) {
		spec.Unfollowed = unfollowed
		return openOne(t, dir, spec)
	}
	feedEntries := func(s *Store) int {
		t.Helper()
		n := -1
		_ = s.db.View(func(tx *bbolt.Tx) error {
			if f := tx.Bucket(containerBucket("leases")).Bucket(bucketFeed); f != nil {
				n = f.Stats().KeyN
			}
			return nil
		})
		return n
	}
	put := func(c *container, id string) {
		t.Helper()
		if _, err := c.Upsert(ctx, store.PartitionKey{id}, []byte(`{"id":"`+id+`"}`), nil); err != nil {
			t.Fatal(err)
		}
	}

	s, c := open(false)
	put(c, "a")
	put(c, "b")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s, c = open(true)
	if n := feedEntries(s); n != -1 {
		t.Fatalf("an unfollowed container kept a feed of %d entries", n)
	}
	put(c, "c")
	put(c, "a")
	if _, err := c.ChangeFeed(ctx, "", 10); !todo.IsKind(err, todo.Invalid) {
		t.Fatalf("ChangeFeed of an unfollowed container: %v, want Invalid", err)
	}
	page, err := c.Query(ctx, store.Query{PageSize: 10, Filters: []store.Filter{{Field: "_ts", Op: store.Ge, Value: int64(0)}}})
	if err != nil || len(page.Items) != 3 {
		t.Fatalf("written since 0 in an unfollowed container: %d items, %v; want 3", len(page.Items), err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s, c = open(false)
	defer s.Close()
	if n := feedEntries(s); n != 3 {
		t.Fatalf("a feed built from the items holds %d entries, want 3", n)
	}
	batch, err := c.ChangeFeed(ctx, "", 10)
	if err != nil || len(batch.Items) != 3 || batch.Items[2].ID != "a" {
		t.Fatalf("change feed built from the items: %v, %v; want b, c, a in the order they were written", batch.Items, err)
	}
}

// openOne opens the store in dir with the one container spec describes.
func openOne(t *testing.T, dir string, spec store.ContainerSpec) (*Store, *container) {
	t.Helper()
	s, err := Open(dir, []store.ContainerSpec{spec}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.Container(context.Background(), spec.Name)
	if err != nil {
		t.Fatal(err)
	}
	return s, c.(*container)
}
