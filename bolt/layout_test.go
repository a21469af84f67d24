package bolt

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/todoaudit/todo/store"
)

// PagedIDs pages through q's answer and returns the ids in order; the
// tests outside the package use it too.
func PagedIDs(t testing.TB, c store.Container, q store.Query) string {
	t.Helper()
	var out []string
	for {
		p, err := c.Query(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range p.Items {
			out = append(out, it.ID)
		}
		if p.Continuation == "" {
			return strings.Join(out, ",")
		}
		q.Continuation = p.Continuation
	}
}

// orderedIDs pages through partition pk in ORDER BY n, two items a page.
func orderedIDs(t *testing.T, c store.Container, pk string, desc bool) string {
	t.Helper()
	return PagedIDs(t, c, store.Query{PartitionKey: store.PartitionKey{pk}, PageSize: 2, OrderBy: []store.Order{{Field: "n", Desc: desc}}})
}

// openIndexed opens a store in dir of one container sorting n.
func openIndexed(t *testing.T, dir string) (*Store, *container) {
	t.Helper()
	spec := store.ContainerSpec{Name: "c", PartitionKeyPaths: []string{"/pk"},
		Indexing: &store.IndexingPolicy{Paths: []string{"pk", "n"}, Sorted: []string{"n"}}}
	s, err := Open(dir, []store.ContainerSpec{spec}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.Container(context.Background(), "c")
	if err != nil {
		t.Fatal(err)
	}
	return s, c.(*container)
}

// orderValues counts the range-index entries with and without a value.
func orderValues(t *testing.T, c *container) (empty, keyed int) {
	t.Helper()
	err := c.s.db.View(func(tx *bbolt.Tx) error {
		return tx.Bucket(c.name).Bucket(bucketOrder).ForEach(func(_, v []byte) error {
			if len(v) == 0 {
				empty++
			} else {
				keyed++
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return empty, keyed
}

// Range-index entries hold no copy of the item key, and a file whose
// entries do (as files written before did) answers the same queries, in
// both directions and across pages, also once some of its items have been
// rewritten in the new form.
func TestRangeIndexReadsBothLayouts(t *testing.T) {
	dir := t.TempDir()
	s, c := openIndexed(t, dir)
	ctx := context.Background()
	for i, n := range []int{5, 3, 9, 1, 7} {
		for _, pk := range []string{"p", "q\x00r"} {
			quoted, _ := json.Marshal(pk) // a string always encodes
			if _, err := c.Create(ctx, store.PartitionKey{pk}, fmt.Appendf(nil, `{"id":"d%d","pk":%s,"n":%d}`, i, quoted, n)); err != nil {
				t.Fatal(err)
			}
		}
	}
	const asc, desc = "d3,d1,d0,d4,d2", "d2,d4,d0,d1,d3"
	check := func(when string) {
		t.Helper()
		for _, pk := range []string{"p", "q\x00r"} {
			if got := orderedIDs(t, c, pk, false); got != asc {
				t.Errorf("%s, partition %q: ascending %s, want %s", when, pk, got, asc)
			}
			if got := orderedIDs(t, c, pk, true); got != desc {
				t.Errorf("%s, partition %q: descending %s, want %s", when, pk, got, desc)
			}
		}
	}
	check("new layout")
	if empty, keyed := orderValues(t, c); empty != 10 || keyed != 0 {
		t.Fatalf("%d entries without a value, %d with one; want 10 and 0", empty, keyed)
	}

	// The layout of files written before: each entry's value is the item key.
	err := s.db.Update(func(tx *bbolt.Tx) error {
		order := tx.Bucket(c.name).Bucket(bucketOrder)
		type entry struct{ k, v []byte }
		var old []entry
		err := order.ForEach(func(k, _ []byte) error {
			for _, pk := range []store.PartitionKey{{"p"}, {"q\x00r"}} {
				if prefix := orderPrefix("n", pk); bytes.HasPrefix(k, prefix) {
					id, ok := positionID(k[len(prefix):])
					if !ok {
						return fmt.Errorf("malformed key %q", k)
					}
					old = append(old, entry{bytes.Clone(k), itemKey(pk, string(id))})
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, e := range old {
			if err := order.Put(e.k, e.v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, c = openIndexed(t, dir)
	defer s.Close()
	if empty, keyed := orderValues(t, c); empty != 0 || keyed != 10 {
		t.Fatalf("old layout: %d entries without a value, %d with one; want 0 and 10", empty, keyed)
	}
	check("old layout")
	if _, err := c.Upsert(ctx, store.PartitionKey{"p"}, []byte(`{"id":"d0","pk":"p","n":5}`), nil); err != nil {
		t.Fatal(err)
	}
	if empty, keyed := orderValues(t, c); empty != 1 || keyed != 9 {
		t.Fatalf("one item rewritten: %d entries without a value, %d with one; want 1 and 9", empty, keyed)
	}
	check("both layouts")
}

// feedIDs reads the whole change feed from the start.
func feedIDs(t *testing.T, c store.Container) []string {
	t.Helper()
	var out []string
	cont := ""
	for {
		b, err := c.ChangeFeed(context.Background(), cont, 100)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range b.Items {
			out = append(out, it.ID)
		}
		if len(b.Items) == 0 {
			return out
		}
		cont = b.Continuation
	}
}

// Compacting a file whose pages split in random key order, and lost half
// their items, makes it smaller and keeps every item, the range index, the
// change feed and its sequence; it refuses a file a store has open.
func TestCompact(t *testing.T) {
	dir := t.TempDir()
	s, sc := openIndexed(t, dir)
	ctx := context.Background()
	for i := range 1000 {
		id := fmt.Sprintf("%08x", uint32(i)*2654435761) // spread over the key space
		doc := fmt.Appendf(nil, `{"id":%q,"pk":"p%d","n":%d,"pad":%q}`, id, i%7, i%50, strings.Repeat("x", 200))
		if _, err := sc.Create(ctx, store.PartitionKey{fmt.Sprintf("p%d", i%7)}, doc); err != nil {
			t.Fatal(err)
		}
		if i%2 == 1 {
			if err := sc.Delete(ctx, store.PartitionKey{fmt.Sprintf("p%d", i%7)}, id, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	ordered, feed, used := orderedIDs(t, sc, "p3", true), feedIDs(t, sc), dataSize(t, s)
	if _, _, err := Compact(dir); err == nil {
		t.Fatal("Compact of a file a store holds succeeded")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Compact(dir); err != nil {
		t.Fatal(err)
	}
	s, sc = openIndexed(t, dir)
	defer s.Close()
	if compacted := dataSize(t, s); compacted > used*3/4 {
		t.Errorf("compacted %d B of pages into %d B", used, compacted)
	}
	if got := orderedIDs(t, sc, "p3", true); got != ordered {
		t.Errorf("ORDER BY n DESC after compacting: %s, want %s", got, ordered)
	}
	if got := feedIDs(t, sc); !slices.Equal(got, feed) {
		t.Errorf("change feed after compacting: %d items, want %d", len(got), len(feed))
	}
	it, err := sc.Upsert(ctx, store.PartitionKey{"p0"}, []byte(`{"id":"new","pk":"p0","n":1}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := feedIDs(t, sc); len(got) != len(feed)+1 || got[len(got)-1] != "new" {
		t.Errorf("a write after compacting is not last in the feed (its sequence went back?): etag %s, feed ends %v", it.ETag, got[len(got)-3:])
	}
}

// dataSize is how much of the file holds pages.
func dataSize(t *testing.T, s *Store) int64 {
	t.Helper()
	var n int64
	if err := s.db.View(func(tx *bbolt.Tx) error { n = tx.Size(); return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

// A query bounded below on _ts only (what readers of recent changes ask)
// reads _ts from the stored body, without decoding each document, and
// selects what decoding would: >= and > on integers and fractions.
func TestWrittenSinceWithoutDecoding(t *testing.T) {
	clk := &testClock{now: time.Unix(1_700_000_000, 0)}
	spec := store.ContainerSpec{Name: "c", PartitionKeyPaths: []string{"/pk"}}
	s, err := Open(t.TempDir(), []store.ContainerSpec{spec}, &Options{Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	c, _ := s.Container(ctx, "c")
	for i := range 3 {
		if _, err := c.Create(ctx, store.PartitionKey{"p"}, fmt.Appendf(nil, `{"id":"d%d","pk":"p"}`, i)); err != nil {
			t.Fatal(err)
		}
		clk.add(time.Second)
	}
	t0 := clk.now.Unix() - 3
	for _, tc := range []struct {
		filters []store.Filter
		want    string
	}{
		{[]store.Filter{{Field: "_ts", Op: store.Ge, Value: t0 + 1}}, "d1,d2"},
		{[]store.Filter{{Field: "_ts", Op: store.Gt, Value: t0 + 1}}, "d2"},
		{[]store.Filter{{Field: "_ts", Op: store.Ge, Value: float64(t0) + 0.5}}, "d1,d2"},
		{[]store.Filter{{Field: "_ts", Op: store.Ge, Value: t0}, {Field: "_ts", Op: store.Gt, Value: t0}}, "d1,d2"},
		{[]store.Filter{{Field: "_ts", Op: store.Ge, Value: t0 + 3}}, ""},
	} {
		p, err := c.Query(ctx, store.Query{PageSize: 10, Filters: tc.filters})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, it := range p.Items {
			got = append(got, it.ID)
		}
		if strings.Join(got, ",") != tc.want {
			t.Errorf("%v: %v, want %s", tc.filters, got, tc.want)
		}
	}
	for body, want := range map[string]int64{`{"_etag":"\"00000001\"","_ts":5,"id":"a"}`: 5, `{"_etag":"x","_ts":12,"id":"a"}`: 12,
		`{"id":"a","_ts":5}`: -1, `{"_etag":"x","id":"a","_ts":5,"b":1}`: -1, `{"_etag":"x","_ts":5}`: -1, `{"_etag":"x","_ts":x,"id":"a"}`: -1} {
		ts, ok := bodyWrittenAt([]byte(body))
		if ok != (want >= 0) || ok && ts != want {
			t.Errorf("bodyWrittenAt(%s) = %d, %v; want %d", body, ts, ok, want)
		}
	}
}
