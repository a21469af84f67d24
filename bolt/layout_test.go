package bolt

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
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

// orderEntries counts the range-index entries of c: those that name the
// items lacking sorted properties, and the others.
func orderEntries(t *testing.T, c *container) (missing, valued int) {
	t.Helper()
	err := c.s.db.View(func(tx *bbolt.Tx) error {
		return tx.Bucket(c.name).Bucket(bucketOrder).ForEach(func(k, v []byte) error {
			for _, pk := range []store.PartitionKey{{"p"}, {"q\x00r"}} {
				switch {
				case bytes.HasPrefix(k, missingPrefix(pk)):
					missing++
					return nil
				case bytes.HasPrefix(k, orderPrefix("n", pk)) && len(v) == 0:
					valued++
					return nil
				}
			}
			return fmt.Errorf("range index key %q (value %q) is not of this layout", k, v)
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return missing, valued
}

// An item has one range-index key for each sorted property it has and one
// for all it lacks. A file whose range index is of an earlier layout (the
// property's name first; an entry for a missing property too; the item
// key as the value in the first files) has it rebuilt when it is opened,
// and answers the same queries, in both directions and across pages.
func TestRangeIndexRebuiltFromEarlierLayouts(t *testing.T) {
	dir := t.TempDir()
	s, c := openIndexed(t, dir)
	ctx := context.Background()
	for i, n := range []string{"5", "3", "", "9", "1", "", "7"} {
		for _, pk := range []string{"p", "q\x00r"} {
			quoted, _ := json.Marshal(pk) // a string always encodes
			doc := fmt.Sprintf(`{"id":"d%d","pk":%s`, i, quoted)
			if n != "" {
				doc += `,"n":` + n
			}
			if _, err := c.Create(ctx, store.PartitionKey{pk}, []byte(doc+"}")); err != nil {
				t.Fatal(err)
			}
		}
	}
	const asc, desc = "d2,d5,d4,d1,d0,d6,d3", "d3,d6,d0,d1,d4,d5,d2"
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
	check("written")
	if missing, valued := orderEntries(t, c); missing != 4 || valued != 10 {
		t.Fatalf("%d entries for missing properties, %d for values; want 4 and 10", missing, valued)
	}

	for _, keyed := range []bool{false, true} {
		// The earlier layout: the name, the partition key, the value (the
		// undefined one's too) and the id.
		err := s.db.Update(func(tx *bbolt.Tx) error {
			cb := tx.Bucket(c.name)
			if err := cb.DeleteBucket(bucketOrder); err != nil {
				return err
			}
			order, err := cb.CreateBucket(bucketOrder)
			if err != nil {
				return err
			}
			if err := cb.Delete(orderLayoutKey); err != nil {
				return err
			}
			return cb.Bucket(bucketItems).ForEach(func(k, v []byte) error {
				pk, id := splitItemKey(k, 1)
				vals, err := c.spec.SortedValues(decodeRecord(v).body)
				if err != nil {
					return err
				}
				value := noValue
				if keyed {
					value = k
				}
				return order.Put(append(appendValue(append(appendComponent(nil, "n"), pkPrefix(pk)...), vals[0]), id...), value)
			})
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		s, c = openIndexed(t, dir)
		if missing, valued := orderEntries(t, c); missing != 4 || valued != 10 {
			t.Fatalf("earlier layout (item keys as values: %v) reopened: %d entries for missing properties, %d for values; want 4 and 10",
				keyed, missing, valued)
		}
		check("rebuilt")
		err = s.db.View(func(tx *bbolt.Tx) error {
			if got := tx.Bucket(c.name).Get(orderLayoutKey); !bytes.Equal(got, orderLayout) {
				return fmt.Errorf("layout %q after the rebuild, want %q: every open would rebuild it", got, orderLayout)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
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

// A stored document's _etag is its ETag as a JSON string, for every width
// of the sequence number behind it.
func TestETagInTheDocument(t *testing.T) {
	for _, lsn := range []uint64{0, 1, 0xabc, 1<<63 + 5, math.MaxUint64} {
		etag := etagOf(lsn)
		var got string
		if err := json.Unmarshal(appendJSONETag(nil, etag), &got); err != nil || got != etag {
			t.Errorf("lsn %d: %q decodes to %q, %v; want %q", lsn, appendJSONETag(nil, etag), got, err, etag)
		}
	}
}
