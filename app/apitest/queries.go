package apitest

import (
	"cmp"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/todoaudit/todo"
)

// queryData creates the todos Queries lists: across three categories, with
// and without due dates (some shared, so that ties are broken by id),
// tags and completion, titles in mixed case; and a few of another user's.
func queryData(t *testing.T, c *Client) {
	tags := [][]string{nil, {"home"}, {"work", "urgent"}, {"home", "urgent"}, {"work"}}
	dues := []string{"", "2026-12-24T18:00:00Z", "2026-12-01T09:00:00+01:00", "2027-01-15T00:00:00Z", "2026-12-24T18:00:00Z", "2026-11-30T23:59:59.600Z"}
	titles := []string{"Buy MILK", "call mum", "Milk the goat", "file taxes", "Water plants", "pay the milkman"}
	for i := range 18 {
		body := map[string]any{"category": []string{"Grocery", "Work", "Home"}[i%3], "title": titles[i%len(titles)] + " " + strconv.Itoa(i),
			"isCompleted": i%4 == 0}
		if tg := tags[i%len(tags)]; tg != nil {
			body["tags"] = tg
		}
		if d := dues[i%len(dues)]; d != "" {
			body["dueDate"] = d
		}
		Want(t, c.Do("POST", "/api/todos", body), 201)
	}
	other := c.As(c.User + "-q")
	for i := range 3 {
		Want(t, other.Do("POST", "/api/todos", map[string]any{"category": "Grocery", "title": "other milk " + strconv.Itoa(i), "tags": []string{"home"}}), 201)
	}
}

// listQuery is one list query: its parameters and the brute-force filter
// and order that must give the same answer.
type listQuery struct {
	params url.Values
}

func (q listQuery) matches(td map[string]any) bool {
	p := q.params
	if v := p.Get("category"); v != "" && td["category"] != v {
		return false
	}
	if v := p.Get("isCompleted"); v != "" && fmt.Sprint(td["isCompleted"]) != v {
		return false
	}
	have, _ := td["tags"].([]any)
	// The Functions host joins repeated values with commas: a comma
	// separates tags.
	for _, tag := range strings.Split(strings.Join(p["tag"], ","), ",") {
		if tag != "" && !slices.Contains(have, any(tag)) {
			return false
		}
	}
	due, hasDue := td["dueDate"].(string)
	if v := p.Get("dueBefore"); v != "" && (!hasDue || !timeOf(due).Before(timeOf(v))) {
		return false
	}
	if v := p.Get("dueAfter"); v != "" && (!hasDue || !timeOf(due).After(timeOf(v))) {
		return false
	}
	if v := p.Get("q"); v != "" && !strings.Contains(strings.ToLower(td["title"].(string)), strings.ToLower(v)) {
		return false
	}
	return true
}

// timeOf is the time an RFC 3339 text or a date (midnight UTC) gives,
// and the zero time for anything else, which the test never sends.
func timeOf(s string) time.Time {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t
	}
	t, _ := time.Parse(time.DateOnly, s)
	return t
}

// sortedAsTimes are the names of the todo's time properties, which a
// sort compares as times.
var sortedAsTimes = func() []string {
	var names []string
	for _, p := range todo.Properties() {
		if p.Type == reflect.TypeFor[time.Time]() || p.Type == reflect.TypeFor[*time.Time]() {
			names = append(names, p.Name)
		}
	}
	return names
}()

// compare orders two todos as sort and order ask: by the property (a
// missing one first), a time as the time and anything else by its JSON
// text, then id; reversed for desc.
func (q listQuery) compare(a, b map[string]any) int {
	f := q.params.Get("sort")
	av, aok := a[f].(string)
	bv, bok := b[f].(string)
	d := cmp.Compare(boolRank(aok), boolRank(bok))
	switch {
	case d != 0:
	case slices.Contains(sortedAsTimes, f):
		d = timeOf(av).Compare(timeOf(bv))
	default:
		d = cmp.Compare(av, bv)
	}
	if d == 0 {
		d = cmp.Compare(a["id"].(string), b["id"].(string))
	}
	if q.params.Get("order") == "desc" {
		return -d
	}
	return d
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// want is what the query must list out of all.
func (q listQuery) want(all []map[string]any) []string {
	var keep []map[string]any
	for _, td := range all {
		if q.matches(td) {
			keep = append(keep, td)
		}
	}
	if q.params.Get("sort") != "" {
		slices.SortStableFunc(keep, q.compare)
	}
	ids := make([]string, len(keep))
	for i, td := range keep {
		ids[i] = td["id"].(string)
	}
	return ids
}

func idsOf(items []map[string]any) []string {
	ids := make([]string, len(items))
	for i, td := range items {
		ids[i] = td["id"].(string)
	}
	return ids
}

// Queries covers the list filters and sorts on ListTodos and, as an
// admin, AdminTodos: every filter and sort, alone and combined with
// category, isCompleted and each other, both directions, checked against a
// brute-force filter of everything listed unfiltered, at several page sizes
// (every one for sorts by dueDate and title alone); pages stay stable
// while todos are written between them.
func Queries(t *testing.T, c *Client, scheme string) {
	queryData(t, c)
	var queries []url.Values
	for _, sort := range []string{"", "dueDate", "createdAt", "updatedAt", "title"} {
		for _, order := range []string{"", "asc", "desc"} {
			if sort == "" && order != "" || sort != "" && order == "" && sort != "title" {
				continue // the default order is asc: once is enough
			}
			for _, filter := range []string{"", "tag=urgent", "tag=home&tag=urgent", "tag=work,urgent", "dueBefore=2026-12-24T18:00:00Z",
				"dueAfter=2026-12-01", "dueAfter=2026-11-30T00:00:00Z&dueBefore=2027-01-01", "q=milk", "q=MiLk&category=Grocery",
				"category=Work", "isCompleted=true", "isCompleted=false&tag=home", "category=Home&q=e&tag=urgent&dueAfter=2026-01-01"} {
				v, err := url.ParseQuery(filter)
				if err != nil {
					t.Fatal(err)
				}
				if sort != "" {
					v.Set("sort", sort)
				}
				if order != "" {
					v.Set("order", order)
				}
				queries = append(queries, v)
			}
		}
	}
	for _, base := range []string{"/api/todos", "/api/manage/todos"} {
		all := c.ListAll(base + "?pageSize=100")
		if len(all) < 18 {
			t.Fatalf("%s: %d todos listed, want at least 18", base, len(all))
		}
		for _, v := range queries {
			lq := listQuery{params: v}
			want := lq.want(all)
			// Every page size for sort and order alone by dueDate (some
			// undefined) and title; the timestamps walk the same code.
			sizes := []int{3, 100}
			switch sort := v.Get("sort"); {
			case len(v) != len(v["sort"])+len(v["order"]):
			case sort == "createdAt" || sort == "updatedAt":
				sizes = []int{1, 2, 3, 100}
			case sort != "":
				sizes = nil
				for n := 1; n <= len(want)+1; n++ {
					sizes = append(sizes, n)
				}
			}
			for _, size := range sizes {
				path := base + "?" + v.Encode() + "&pageSize=" + strconv.Itoa(size)
				got := idsOf(c.ListAll(path))
				if v.Get("sort") == "" {
					slices.Sort(got)
					want = slices.Sorted(slices.Values(want))
				}
				if !slices.Equal(got, want) {
					t.Fatalf("%s %s: got %d %v\nwant %d %v", scheme, path, len(got), got, len(want), want)
				}
			}
		}
	}
	r := Want(t, c.Do("GET", "/api/todos?sort=title&tag=home", nil), 200)
	if r.Header.Get("X-Request-Charge") == "" || r.Header.Get("X-Query-Scope") == "" {
		t.Fatalf("a sorted list has no cost headers: %v", r.Header)
	}
	stableAcrossWrites(t, c)
}

// stableAcrossWrites pages a sorted list while todos are created before
// and after its position: no todo listed at the start is skipped or
// repeated.
func stableAcrossWrites(t *testing.T, c *Client) {
	path := "/api/todos?sort=title&order=desc&pageSize=4"
	before := idsOf(c.ListAll(path))
	page := Want(t, c.Do("GET", path, nil), 200).JSON(t)
	seen := idsOf(asTodos(page["items"]))
	c.Create("Grocery", "zzz first in descending order")
	c.Create("Grocery", "aaa last in descending order")
	for next, _ := page["continuation"].(string); next != ""; next, _ = page["continuation"].(string) {
		page = Want(t, c.Do("GET", path+"&continuation="+next, nil), 200).JSON(t)
		seen = append(seen, idsOf(asTodos(page["items"]))...)
	}
	var old []string
	for _, id := range seen {
		if slices.Contains(before, id) {
			old = append(old, id)
		}
	}
	if !slices.Equal(old, before) || len(seen) != len(before)+1 {
		t.Fatalf("paging while writing listed %v, want %v and the one todo after the position", seen, before)
	}
	other := Want(t, c.Do("GET", "/api/todos?sort=title&pageSize=4", nil), 200).JSON(t)["continuation"].(string)
	Want(t, c.Do("GET", "/api/todos?sort=dueDate&pageSize=4&continuation="+other, nil), 400)
}

func asTodos(v any) []map[string]any {
	var out []map[string]any
	for _, it := range v.([]any) {
		out = append(out, it.(map[string]any))
	}
	return out
}
