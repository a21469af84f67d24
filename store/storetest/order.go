package storetest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/store"
)

func (s *suite) queryOrder(t *testing.T, c, _ store.Container) {
	for i, n := range []int{5, 1, 4, 2, 3} {
		must[store.Item](t)(c.Create(s.ctx, pk("p1"), doc("id", fmt.Sprint("i", i), "pk", "p1", "n", n)))
	}
	q := store.Query{PartitionKey: pk("p1"), PageSize: 2, OrderBy: []store.Order{{Field: "n"}}}
	var ns []string
	for _, it := range s.all(t, c, q) {
		ns = append(ns, fmt.Sprint(field(t, it.Body, "n")))
	}
	if got := strings.Join(ns, ","); got != "1,2,3,4,5" {
		t.Fatalf("ORDER BY n = %s", got)
	}
	q.OrderBy[0].Desc = true
	ns = nil
	for _, it := range s.all(t, c, q) {
		ns = append(ns, fmt.Sprint(field(t, it.Body, "n")))
	}
	if got := strings.Join(ns, ","); got != "5,4,3,2,1" {
		t.Fatalf("ORDER BY n DESC = %s", got)
	}
}

// seekData puts items with repeated values of n, and some without n, in
// one partition of h and returns their ids in ORDER BY n, id.
func (s *suite) seekData(t *testing.T, h store.Container, tenant, user string) []string {
	var want []string
	for _, d := range []struct {
		id string
		n  any
	}{{"a", nil}, {"b", 2}, {"c", 1}, {"d", nil}, {"e", 2}, {"f", 3}, {"g", 1}, {"h", 2}} {
		kv := []any{"id", user + d.id, "tenant", tenant, "user", user}
		if d.n != nil {
			kv = append(kv, "n", d.n)
		}
		must[store.Item](t)(h.Create(s.ctx, pk(tenant, user), doc(kv...)))
	}
	for _, id := range []string{"a", "d", "c", "g", "b", "e", "h", "f"} {
		want = append(want, user+id)
	}
	return want
}

// seekAll pages through q by position: each page's query starts after
// the last item of the one before, as a merge of several queries does.
func (s *suite) seekAll(t *testing.T, c store.Container, q store.Query, o store.Order) []string {
	t.Helper()
	var ids []string
	for range 100 {
		p := s.query(t, c, q)
		if len(p.Items) == 0 {
			return ids
		}
		if len(p.Items) > q.PageSize {
			t.Fatalf("page of %d items, page size %d", len(p.Items), q.PageSize)
		}
		ids = append(ids, idsOf(p.Items)...)
		last := p.Items[len(p.Items)-1]
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(last.Body, &fields); err != nil {
			t.Fatal(err)
		}
		q.After = &store.Seek{Order: o, Value: fields[o.Field], ID: last.ID}
	}
	t.Fatal("paging did not end")
	return nil
}

// querySeekOrdered: ORDER BY a property then id (a composite index), in
// both directions, paged by position; items without the property come
// first in ascending order.
func (s *suite) querySeekOrdered(t *testing.T, _, h store.Container) {
	want := s.seekData(t, h, "t1", "u1")
	for _, desc := range []bool{false, true} {
		o := store.Order{Field: "n", Desc: desc}
		exp := slices.Clone(want)
		if desc {
			slices.Reverse(exp)
		}
		for _, size := range []int{1, 2, 3, 8} {
			got := s.seekAll(t, h, store.Query{PartitionKey: pk("t1", "u1"), PageSize: size, OrderBy: store.TieBroken(o)}, o)
			if !slices.Equal(got, exp) {
				t.Fatalf("ORDER BY n, id (desc %v) by position, pages of %d = %v, want %v", desc, size, got, exp)
			}
		}
	}
}

// querySeekUnordered: a position filters a query without ORDER BY too,
// across partitions: exactly the items after it remain.
func (s *suite) querySeekUnordered(t *testing.T, _, h store.Container) {
	want := append(s.seekData(t, h, "t1", "u1"), s.seekData(t, h, "t2", "u2")...)
	o := store.Order{Field: "n"}
	slices.SortFunc(want, func(a, b string) int {
		return o.Compare(seekValue(a), a, seekValue(b), b)
	})
	for i, at := range want {
		for _, desc := range []bool{false, true} {
			o := store.Order{Field: "n", Desc: desc}
			exp := slices.Clone(want[i+1:])
			if desc {
				exp = slices.Clone(want[:i])
			}
			got := idsOf(s.all(t, h, store.Query{PageSize: 3, After: &store.Seek{Order: o, Value: seekValue(at), ID: at}}))
			if !slices.Equal(sorted(got), sorted(exp)) {
				t.Fatalf("after (%s, %s) desc %v = %v, want %v", seekValue(at), at, desc, sorted(got), sorted(exp))
			}
		}
	}
}

// seekValue is n of the seekData item id, as JSON (nil: undefined).
func seekValue(id string) json.RawMessage {
	n := map[byte]string{'b': "2", 'c': "1", 'e': "2", 'f': "3", 'g': "1", 'h': "2"}[id[len(id)-1]]
	if n == "" {
		return nil
	}
	return json.RawMessage(n)
}

// queryOrderNeedsComposite: ORDER BY several properties needs a composite
// index listing them in that order (or all reversed), as in Cosmos DB.
func (s *suite) queryOrderNeedsComposite(t *testing.T, _, h store.Container) {
	key := pk("t1", "u1")
	for _, order := range [][]store.Order{{{Field: "id"}, {Field: "n"}}, {{Field: "n"}, {Field: "id", Desc: true}}} {
		_, err := h.Query(s.ctx, store.Query{PartitionKey: key, PageSize: 10, OrderBy: order})
		wantKind(t, err, todo.Invalid)
	}
}

// queryOrderReverseComposite: a composite index serves the reverse of
// every direction too.
func (s *suite) queryOrderReverseComposite(t *testing.T, _, h store.Container) {
	key := pk("t1", "u1")
	for i := range 3 {
		must[store.Item](t)(h.Create(s.ctx, key, doc("id", fmt.Sprint("i", i), "tenant", "t1", "user", "u1", "n", i)))
	}
	p := s.query(t, h, store.Query{PartitionKey: key, PageSize: 10, OrderBy: []store.Order{{Field: "user", Desc: true}, {Field: "n", Desc: true}}})
	if got := strings.Join(idsOf(p.Items), ","); got != "i2,i1,i0" {
		t.Fatalf("ORDER BY user DESC, n DESC = %s, want i2,i1,i0", got)
	}
}

func (s *suite) queryOrderRefused(t *testing.T, _, h store.Container) {
	for _, key := range []store.PartitionKey{nil, pk("t1")} {
		_, err := h.Query(s.ctx, store.Query{PartitionKey: key, PageSize: 10, OrderBy: []store.Order{{Field: "id"}}})
		wantKind(t, err, todo.Invalid)
	}
}

// queryOrderNeedsIndex: ORDER BY a property the indexing policy excludes is
// refused, as Cosmos DB refuses it; a filter on one still works.
func (s *suite) queryOrderNeedsIndex(t *testing.T, _, h store.Container) {
	key := pk("t1", "u1")
	for i := range 3 {
		must[store.Item](t)(h.Create(s.ctx, key, doc("id", fmt.Sprint("i", i), "tenant", "t1", "user", "u1", "n", 3-i, "s", fmt.Sprint("v", i))))
	}
	var ids []string
	for _, it := range s.all(t, h, store.Query{PartitionKey: key, PageSize: 10, OrderBy: []store.Order{{Field: "n"}}}) {
		ids = append(ids, it.ID)
	}
	if got := strings.Join(ids, ","); got != "i2,i1,i0" {
		t.Fatalf("ORDER BY the indexed n = %s", got)
	}
	_, err := h.Query(s.ctx, store.Query{PartitionKey: key, PageSize: 10, OrderBy: []store.Order{{Field: "s"}}})
	wantKind(t, err, todo.Invalid)
	p := s.query(t, h, store.Query{PartitionKey: key, PageSize: 10, Filters: []store.Filter{{Field: "s", Op: store.Eq, Value: "v1"}}})
	if len(p.Items) != 1 || p.Items[0].ID != "i1" {
		t.Fatalf("filter on the unindexed s: %d items", len(p.Items))
	}
}

// queryOrderFollowsWrites: ORDER BY an indexed property, paged, sees every
// replace, upsert and delete that changed the property, in both
// directions.
func (s *suite) queryOrderFollowsWrites(t *testing.T, _, h store.Container) {
	key := pk("t1", "u1")
	for i, n := range []float64{7, -2.5, 10, 0, 3, 42} {
		must[store.Item](t)(h.Create(s.ctx, key, doc("id", fmt.Sprint("i", i), "tenant", "t1", "user", "u1", "n", n)))
	}
	// Another partition's items never show.
	must[store.Item](t)(h.Create(s.ctx, pk("t1", "u2"), doc("id", "other", "tenant", "t1", "user", "u2", "n", 1)))
	must[store.Item](t)(h.Replace(s.ctx, key, doc("id", "i2", "tenant", "t1", "user", "u1", "n", -9), nil))
	must[store.Item](t)(h.Upsert(s.ctx, key, doc("id", "i0", "tenant", "t1", "user", "u1", "n", 5.5), nil))
	if err := h.Delete(s.ctx, key, "i5", nil); err != nil {
		t.Fatal(err)
	}
	q := store.Query{PartitionKey: key, PageSize: 2, OrderBy: []store.Order{{Field: "n"}}}
	if got := strings.Join(idsOf(s.all(t, h, q)), ","); got != "i2,i1,i3,i4,i0" {
		t.Fatalf("ORDER BY n after writes = %s, want i2,i1,i3,i4,i0", got)
	}
	q.OrderBy[0].Desc = true
	if got := strings.Join(idsOf(s.all(t, h, q)), ","); got != "i0,i4,i3,i1,i2" {
		t.Fatalf("ORDER BY n DESC after writes = %s, want i0,i4,i3,i1,i2", got)
	}
}
