package bolt_test

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/bolt"
	"github.com/todoaudit/todo/store"
)

// openContainer opens a store of one container in dir, closed when the
// test ends.
func openContainer(t testing.TB, dir string, spec store.ContainerSpec, o *bolt.Options) store.Container {
	t.Helper()
	st, err := bolt.Open(dir, []store.ContainerSpec{spec}, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	c, err := st.Container(context.Background(), spec.Name)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// rank is the ORDER BY type rank of a JSON value ("" is undefined).
func rank(v string) int {
	switch {
	case v == "":
		return 0
	case v == "null":
		return 1
	case v == "true" || v == "false":
		return 2
	case v[0] == '"':
		return 4
	case v[0] == '[' || v[0] == '{':
		return 5
	}
	return 3
}

// The range index and the sort order as Cosmos DB does: by type
// (undefined, null, booleans, numbers, strings, then arrays and objects by
// their JSON), then by value (negative numbers and zeros, strings with NUL
// and prefixes, escapes), ties by id; paged in both directions. One
// container keeps the index (it has an indexing policy), the other indexes
// every path and so sorts. Some items lack v, and some of those and of the
// others lack w, the other sorted property: an item without v is found
// from its one key for all it lacks, and one with v but not w is not.
func TestRangeIndexOrdersAsSorting(t *testing.T) {
	spec := store.ContainerSpec{Name: "c", PartitionKeyPaths: []string{"/pk"}}
	sorting := openContainer(t, t.TempDir(), spec, nil)
	spec.Indexing = &store.IndexingPolicy{Paths: []string{"pk", "v", "w"}, Sorted: []string{"w", "v"}}
	indexed := openContainer(t, t.TempDir(), spec, nil)
	values := []string{``, `null`, ``, ``, `true`, `false`, `0`, `-0`, `-1.5`, `1e300`, `-1e300`, `2`, `2.0`, `"a"`, `"a\u0000"`,
		`"a\u0000b"`, `"ab"`, `"\u0061b"`, `""`, `"Z"`, `"é"`, `[1,2]`, `{"a":1}`, `[]`, `3`, `"a"`, `true`, `null`}
	for i, v := range values {
		doc := fmt.Sprintf(`{"id":"d%02d","pk":"p"`, len(values)-i)
		if v != "" {
			doc += `,"v":` + v
		}
		if i%3 == 0 {
			doc += fmt.Sprintf(`,"w":%d`, i)
		}
		doc += "}"
		for _, c := range []store.Container{sorting, indexed} {
			if _, err := c.Create(context.Background(), store.PartitionKey{"p"}, []byte(doc)); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The order Cosmos DB gives, computed here from the values.
	type row struct {
		id string
		v  string
	}
	rows := make([]row, len(values))
	for i, v := range values {
		rows[i] = row{fmt.Sprintf("d%02d", len(values)-i), v}
	}
	slices.SortFunc(rows, func(a, b row) int {
		if d := cmp.Compare(rank(a.v), rank(b.v)); d != 0 {
			return d
		}
		var x, y any
		_, _ = json.Unmarshal([]byte(a.v), &x), json.Unmarshal([]byte(b.v), &y)
		var d int
		switch x := x.(type) {
		case bool:
			d = cmp.Compare(fmt.Sprint(x), fmt.Sprint(y))
		case float64:
			d = cmp.Compare(x, y.(float64))
		case string:
			d = strings.Compare(x, y.(string))
		case nil:
		default:
			d = strings.Compare(a.v, b.v)
		}
		if d != 0 {
			return d
		}
		return strings.Compare(a.id, b.id)
	})
	var asc []string
	for _, r := range rows {
		asc = append(asc, r.id)
	}
	desc := slices.Clone(asc)
	slices.Reverse(desc)
	for _, order := range []struct {
		desc bool
		want string
	}{{false, strings.Join(asc, ",")}, {true, strings.Join(desc, ",")}} {
		for _, size := range []int{1, 3, 100} {
			q := store.Query{PartitionKey: store.PartitionKey{"p"}, PageSize: size, OrderBy: []store.Order{{Field: "v", Desc: order.desc}}}
			if got := bolt.PagedIDs(t, indexed, q); got != order.want {
				t.Fatalf("desc=%v page %d: index order\n%s\nwant\n%s", order.desc, size, got, order.want)
			}
			if got := bolt.PagedIDs(t, sorting, q); got != order.want {
				t.Fatalf("desc=%v page %d: sorted order\n%s\nwant\n%s", order.desc, size, got, order.want)
			}
		}
	}
	// Continuations that are not a position in the index: not base64, an
	// unknown type rank, a number cut short, a string without its end, a
	// position without an id.
	for _, tok := range []string{"%%%", "not a token", "Bw", "AwAB", "BGFiYw", "AQ"} {
		q := store.Query{PartitionKey: store.PartitionKey{"p"}, PageSize: 2, OrderBy: []store.Order{{Field: "v"}}, Continuation: tok}
		if _, err := indexed.Query(context.Background(), q); !todo.IsKind(err, todo.Invalid) {
			t.Errorf("continuation %q: %v, want invalid", tok, err)
		}
	}
}

// A file written without a range index (or one of other properties) gets
// one when it is opened with a policy that sorts a property.
func TestRangeIndexBuiltOnOpen(t *testing.T) {
	dir := t.TempDir()
	open := func(spec store.ContainerSpec) (*bolt.Store, store.Container) {
		st, err := bolt.Open(dir, []store.ContainerSpec{spec}, nil)
		if err != nil {
			t.Fatal(err)
		}
		c, err := st.Container(context.Background(), spec.Name)
		if err != nil {
			t.Fatal(err)
		}
		return st, c
	}
	spec := store.ContainerSpec{Name: "c", PartitionKeyPaths: []string{"/pk"}}
	st, c := open(spec)
	for i, n := range []int{3, 1, 2} {
		if _, err := c.Create(context.Background(), store.PartitionKey{"p"}, fmt.Appendf(nil, `{"id":"d%d","pk":"p","n":%d,"m":%d}`, i, n, -n)); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct{ field, want string }{{"n", "d1,d2,d0"}, {"m", "d0,d2,d1"}} {
		spec.Indexing = &store.IndexingPolicy{Paths: []string{"pk", f.field}, Sorted: []string{f.field}}
		st, c = open(spec)
		q := store.Query{PartitionKey: store.PartitionKey{"p"}, PageSize: 1, OrderBy: []store.Order{{Field: f.field}}}
		if got := bolt.PagedIDs(t, c, q); got != f.want {
			t.Fatalf("ORDER BY %s after reopening with it indexed = %s, want %s", f.field, got, f.want)
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// Reading page k of an ordered partition, or what was written since a
// recent time, does work in proportion to the page (times the depth of the
// B+tree), not to what the container holds: a 50-item page allocates about
// as much in a partition of 5,000 items as in one of 100, where reading
// the partition would allocate 50 times as much.
func TestQueriesReadAboutOnePage(t *testing.T) {
	small, large := historyContainer(t, 100), historyContainer(t, 5000)
	page := func(c store.Container, n int) func() {
		q := store.Query{PartitionKey: store.PartitionKey{"todo/alice/t1"}, OrderBy: []store.Order{{Field: "version", Desc: true}}, PageSize: 50}
		for range n { // the continuation of page n+1
			p, err := c.Query(context.Background(), q)
			if err != nil {
				t.Fatal(err)
			}
			q.Continuation = p.Continuation
		}
		return func() {
			if p, err := c.Query(context.Background(), q); err != nil || len(p.Items) != 50 {
				t.Fatalf("page: %d items, %v", len(p.Items), err)
			}
		}
	}
	a, b := testing.AllocsPerRun(5, page(small, 1)), testing.AllocsPerRun(5, page(large, 60))
	if b > a*2.5 {
		t.Fatalf("ordered page 61 of 5,000 items allocates %.0f times, page 2 of 100 items %.0f", b, a)
	}

	clk := &clock{now: time.Unix(1_700_000_000, 0)}
	since := func(old int) func() {
		spec := store.ContainerSpec{Name: "todos", PartitionKeyPaths: []string{"/userId"}}
		c := openContainer(t, t.TempDir(), spec, &bolt.Options{Now: clk.Now})
		// Batches of 100 in seven partitions.
		write := func(prefix string, n int) {
			for i := 0; i < n; i += store.MaxBatchOps {
				user := fmt.Sprint("u", i/store.MaxBatchOps%7)
				var ops []store.Op
				for j := i; j < min(n, i+store.MaxBatchOps); j++ {
					ops = append(ops, store.Op{Kind: store.BatchCreate, Doc: fmt.Appendf(nil, `{"id":"%s%d","userId":%q,"type":"version"}`, prefix, j, user)})
				}
				if _, err := c.Batch(context.Background(), store.PartitionKey{user}, ops); err != nil {
					t.Fatal(err)
				}
			}
		}
		write("old", old)
		clk.Advance(time.Hour)
		t0 := clk.Now().Unix()
		write("new", 50)
		q := store.Query{PageSize: 100, Filters: []store.Filter{{Field: "type", Op: store.Eq, Value: "version"}, {Field: "_ts", Op: store.Ge, Value: t0}}}
		return func() {
			if p, err := c.Query(context.Background(), q); err != nil || len(p.Items) != 50 || !slices.ContainsFunc(p.Items, func(it store.Item) bool { return it.ID == "new49" }) {
				t.Fatalf("written since: %d items, %v", len(p.Items), err)
			}
		}
	}
	a, b = testing.AllocsPerRun(5, since(100)), testing.AllocsPerRun(5, since(5000))
	if b > a*2.5 {
		t.Fatalf("what was written since an hour ago allocates %.0f times beside 5,000 older items, %.0f beside 100", b, a)
	}
}

// A continuation of an ordered query, whatever its bytes, either pages on
// from a position in the index or is refused as invalid: never another
// error, a panic, or an item from another partition.
func FuzzOrderedContinuation(f *testing.F) {
	spec := store.ContainerSpec{Name: "c", PartitionKeyPaths: []string{"/pk"}, Indexing: &store.IndexingPolicy{Paths: []string{"pk", "v"}, Sorted: []string{"v"}}}
	c := openContainer(f, f.TempDir(), spec, nil)
	for i, v := range []string{`1`, `"x"`, `true`, `null`, `[1]`} {
		for _, pk := range []string{"p", "q"} {
			if _, err := c.Create(context.Background(), store.PartitionKey{pk}, fmt.Appendf(nil, `{"id":"d%d","pk":%q,"v":%s}`, i, pk, v)); err != nil {
				f.Fatal(err)
			}
		}
	}
	q := store.Query{PartitionKey: store.PartitionKey{"p"}, PageSize: 2, OrderBy: []store.Order{{Field: "v"}}}
	p, err := c.Query(context.Background(), q)
	if err != nil {
		f.Fatal(err)
	}
	for _, tok := range []string{p.Continuation, "", "AQ", "BGFiYwABZDE", "A4AAAAAAAAAAZDA"} {
		f.Add(tok)
	}
	f.Fuzz(func(t *testing.T, tok string) {
		q := q
		q.Continuation = tok
		p, err := c.Query(context.Background(), q)
		if err != nil {
			if !todo.IsKind(err, todo.Invalid) {
				t.Fatalf("continuation %q: %v, want a page or invalid", tok, err)
			}
			return
		}
		for _, it := range p.Items {
			if !it.PartitionKey.Equal(store.PartitionKey{"p"}) {
				t.Fatalf("continuation %q: item %s of partition %s", tok, it.ID, it.PartitionKey)
			}
		}
	})
}
