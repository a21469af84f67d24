package storetest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/store"
)

func (s *suite) query(t testing.TB, c store.Container, q store.Query) store.Page {
	t.Helper()
	p, _ := s.queryCost(t, c, q)
	return p
}

// queryCost runs q and says what it was charged.
func (s *suite) queryCost(t testing.TB, c store.Container, q store.Query) (store.Page, store.Cost) {
	t.Helper()
	ctx, m := store.WithMeter(s.ctx)
	p, err := c.Query(ctx, q)
	if err != nil {
		t.Fatalf("Query(%+v): %v", q, err)
	}
	return p, m.Cost()
}

// all pages through q and returns every item, checking each page's size.
func (s *suite) all(t testing.TB, c store.Container, q store.Query) []store.Item {
	t.Helper()
	var out []store.Item
	for range 1000 {
		p := s.query(t, c, q)
		if len(p.Items) > q.PageSize {
			t.Fatalf("page of %d items, page size %d", len(p.Items), q.PageSize)
		}
		out = append(out, p.Items...)
		if p.Continuation == "" {
			return out
		}
		q.Continuation = p.Continuation
	}
	t.Fatal("paging did not end")
	return nil
}

func (s *suite) seedTree(t testing.TB, h store.Container) {
	for _, d := range []struct{ tenant, user, id string }{
		{"t1", "u1", "a"}, {"t1", "u1", "b"}, {"t1", "u2", "c"}, {"t2", "u1", "d"}, {"t10", "u1", "e"},
	} {
		must[store.Item](t)(h.Create(s.ctx, pk(d.tenant, d.user), doc("id", d.id, "tenant", d.tenant, "user", d.user)))
	}
}

func (s *suite) queryPartition(t *testing.T, _, h store.Container) {
	s.seedTree(t, h)
	p, cost := s.queryCost(t, h, store.Query{PartitionKey: pk("t1", "u1"), PageSize: 10})
	if ids := strings.Join(idsOf(p.Items), ","); ids != "a,b" {
		t.Fatalf("full-key query = %s, want a,b", ids)
	}
	if cost.Scope != store.Partition {
		t.Fatalf("scope = %v, want partition", cost.Scope)
	}
}

func (s *suite) queryPrefix(t *testing.T, _, h store.Container) {
	s.seedTree(t, h)
	p, cost := s.queryCost(t, h, store.Query{PartitionKey: pk("t1"), PageSize: 10})
	if ids := strings.Join(sorted(idsOf(p.Items)), ","); ids != "a,b,c" {
		t.Fatalf("prefix query = %s, want a,b,c (not t10's e)", ids)
	}
	if cost.Scope != store.Prefix {
		t.Fatalf("scope = %v, want prefix", cost.Scope)
	}
}

func (s *suite) queryCross(t *testing.T, _, h store.Container) {
	s.seedTree(t, h)
	items := s.all(t, h, store.Query{PageSize: 2, Filters: []store.Filter{{Field: "user", Op: store.Eq, Value: "u1"}}})
	if ids := strings.Join(sorted(idsOf(items)), ","); ids != "a,b,d,e" {
		t.Fatalf("cross-partition query = %s", ids)
	}
	if _, cost := s.queryCost(t, h, store.Query{PageSize: 2}); cost.Scope != store.CrossPartition {
		t.Fatalf("scope = %v, want cross-partition", cost.Scope)
	}
}

func (s *suite) queryFilters(t *testing.T, c, _ store.Container) {
	for i := range 6 {
		d := doc("id", fmt.Sprint("i", i), "pk", "p1", "n", i, "even", i%2 == 0, "s", fmt.Sprint("v", i))
		if i == 5 {
			d = doc("id", "i5", "pk", "p1", "n", "five")
		}
		must[store.Item](t)(c.Create(s.ctx, pk("p1"), d))
	}
	cases := []filterCase{
		{[]store.Filter{{Field: "n", Op: store.Eq, Value: int64(2)}}, "i2"},
		{[]store.Filter{{Field: "n", Op: store.Ge, Value: int64(3)}}, "i3,i4"},
		{[]store.Filter{{Field: "n", Op: store.Lt, Value: 1.5}}, "i0,i1"},
		{[]store.Filter{{Field: "n", Op: store.Ne, Value: int64(0)}, {Field: "n", Op: store.Le, Value: int64(2)}}, "i1,i2"},
		{[]store.Filter{{Field: "even", Op: store.Eq, Value: true}}, "i0,i2,i4"},
		{[]store.Filter{{Field: "s", Op: store.Gt, Value: "v2"}}, "i3,i4"},
		{[]store.Filter{{Field: "s", Op: store.NotDefined}}, "i5"},
		{[]store.Filter{{Field: "even", Op: store.IsDefined}, {Field: "n", Op: store.Eq, Value: "five"}}, ""},
	}
	s.wantFiltered(t, c, cases)
	_, err := c.Query(s.ctx, store.Query{PartitionKey: pk("p1"), PageSize: 10, Filters: []store.Filter{{Field: "n; DROP", Op: store.Eq, Value: "x"}}})
	wantKind(t, err, todo.Invalid)
}

// filterCase is a query's filters and the ids it must find, sorted and
// joined by commas.
type filterCase struct {
	f    []store.Filter
	want string
}

// wantFiltered runs each case in partition p1 of c.
func (s *suite) wantFiltered(t *testing.T, c store.Container, cases []filterCase) {
	t.Helper()
	for _, tc := range cases {
		p := s.query(t, c, store.Query{PartitionKey: pk("p1"), PageSize: 100, Filters: tc.f})
		if got := strings.Join(sorted(idsOf(p.Items)), ","); got != tc.want {
			t.Errorf("filters %+v = %q, want %q", tc.f, got, tc.want)
		}
	}
}

// queryArray: ARRAY_CONTAINS on an array property, combined with
// itself and other filters; a value of another type never matches.
func (s *suite) queryArray(t *testing.T, c, _ store.Container) {
	for _, d := range [][]any{
		{"id", "a", "title", "buy milk", "tags", []string{"home", "urgent"}},
		{"id", "b", "title", "the milkman", "tags", []string{"work"}},
		{"id", "c", "title", "water plants", "tags", []string{"urgent"}},
		{"id", "d", "title", 7, "tags", "urgent"},
		{"id", "e"},
	} {
		must[store.Item](t)(c.Create(s.ctx, pk("p1"), doc(append(d, "pk", "p1")...)))
	}
	cases := []filterCase{
		{[]store.Filter{{Field: "tags", Op: store.ArrayContains, Value: "urgent"}}, "a,c"},
		{[]store.Filter{{Field: "tags", Op: store.ArrayContains, Value: "urgent"}, {Field: "tags", Op: store.ArrayContains, Value: "home"}}, "a"},
		{[]store.Filter{{Field: "tags", Op: store.ArrayContains, Value: "urgent"}, {Field: "title", Op: store.Eq, Value: "buy milk"}}, "a"},
		{[]store.Filter{{Field: "tags", Op: store.ArrayContains, Value: "urg"}}, ""},
	}
	s.wantFiltered(t, c, cases)
}

// queryTextFold: CONTAINS(…, true) finds a text in a string property,
// ignoring case, alone and with ARRAY_CONTAINS; a value of another type
// never matches.
func (s *suite) queryTextFold(t *testing.T, c, _ store.Container) {
	for i, d := range [][]any{
		{"title", "Buy MILK", "tags", []string{"urgent"}}, {"title", "milkman"}, {"title", "Mílk"}, {"title", "bread", "tags", []string{"urgent"}}, {"title", 7}, {},
	} {
		must[store.Item](t)(c.Create(s.ctx, pk("p1"), doc(append(d, "id", fmt.Sprint("i", i), "pk", "p1")...)))
	}
	cases := []filterCase{
		{[]store.Filter{{Field: "title", Op: store.ContainsFold, Value: "mILk"}}, "i0,i1"},
		{[]store.Filter{{Field: "title", Op: store.ContainsFold, Value: "READ"}}, "i3"},
		{[]store.Filter{{Field: "title", Op: store.ContainsFold, Value: "milk"}, {Field: "tags", Op: store.ArrayContains, Value: "urgent"}}, "i0"},
		{[]store.Filter{{Field: "title", Op: store.ContainsFold, Value: "7"}}, ""},
	}
	s.wantFiltered(t, c, cases)
}

// queryCommitTime: a lower bound on _ts, the time of an item's last write
// in whole seconds, selects what was written since, in every partition,
// paged, and nothing else.
func (s *suite) queryCommitTime(t *testing.T, c, _ store.Container) {
	for i := range 4 {
		must[store.Item](t)(c.Create(s.ctx, pk(fmt.Sprint("p", i)), doc("id", fmt.Sprint("old", i), "pk", fmt.Sprint("p", i))))
	}
	// _ts has whole seconds: the next writes must fall in a later one.
	if s.h.Advance != nil {
		s.h.Advance(2 * time.Second)
	} else {
		time.Sleep(2 * time.Second)
	}
	var since int64
	var want []string
	for i := range 5 {
		it := must[store.Item](t)(c.Create(s.ctx, pk(fmt.Sprint("p", i%3)), doc("id", fmt.Sprint("new", i), "pk", fmt.Sprint("p", i%3))))
		if since == 0 {
			since = int64(field(t, it.Body, "_ts").(float64))
		}
		want = append(want, fmt.Sprint("new", i))
	}
	// Rewriting an old item makes it new.
	must[store.Item](t)(c.Upsert(s.ctx, pk("p3"), doc("id", "old3", "pk", "p3", "n", 1), nil))
	want = append(want, "old3")
	q := store.Query{PageSize: 2, Filters: []store.Filter{{Field: "_ts", Op: store.Ge, Value: since}}}
	if got := strings.Join(sorted(idsOf(s.all(t, c, q))), ","); got != strings.Join(sorted(want), ",") {
		t.Fatalf("_ts >= %d = %s, want %s", since, got, strings.Join(sorted(want), ","))
	}
	q.Filters = append(q.Filters, store.Filter{Field: "pk", Op: store.Eq, Value: "p1"})
	q.PartitionKey = pk("p1")
	if got := strings.Join(sorted(idsOf(s.all(t, c, q))), ","); got != "new1,new4" {
		t.Fatalf("_ts >= %d in p1 = %s, want new1,new4", since, got)
	}
	q = store.Query{PageSize: 10, Filters: []store.Filter{{Field: "_ts", Op: store.Gt, Value: since + 3600}}}
	if p := s.query(t, c, q); len(p.Items) != 0 || p.Continuation != "" {
		t.Fatalf("_ts in the future = %v", idsOf(p.Items))
	}
}

func (s *suite) queryPaging(t *testing.T, c, _ store.Container) {
	const n = 23
	for i := range n {
		must[store.Item](t)(c.Create(s.ctx, pk("p1"), doc("id", fmt.Sprintf("i%02d", i), "pk", "p1")))
		must[store.Item](t)(c.Create(s.ctx, pk("p2"), doc("id", fmt.Sprintf("j%02d", i), "pk", "p2")))
	}
	for _, q := range []store.Query{{PartitionKey: pk("p1"), PageSize: 5}, {PageSize: 7}} {
		items := s.all(t, c, q)
		want := n
		if q.PartitionKey == nil {
			want = 2 * n
		}
		seen := map[string]bool{}
		for _, it := range items {
			key := it.PartitionKey.String() + it.ID
			if seen[key] {
				t.Fatalf("paging returned %s twice", key)
			}
			seen[key] = true
		}
		if len(seen) != want {
			t.Fatalf("paging %+v returned %d items, want %d", q, len(seen), want)
		}
	}
	// A continuation works in a later, separate call.
	first := s.query(t, c, store.Query{PartitionKey: pk("p1"), PageSize: 20})
	rest := s.query(t, c, store.Query{PartitionKey: pk("p1"), PageSize: 20, Continuation: first.Continuation})
	if len(first.Items) != 20 || len(rest.Items) != 3 || rest.Continuation != "" {
		t.Fatalf("pages of %d and %d items (next %q)", len(first.Items), len(rest.Items), rest.Continuation)
	}
}

func (s *suite) queryBadContinuation(t *testing.T, c, _ store.Container) {
	must[store.Item](t)(c.Create(s.ctx, pk("p1"), doc("id", "a", "pk", "p1")))
	for _, tok := range []string{"%%%", "not a token", "eyJ4Ijp9"} {
		_, err := c.Query(s.ctx, store.Query{PartitionKey: pk("p1"), PageSize: 5, Continuation: tok})
		wantKind(t, err, todo.Invalid)
	}
}
