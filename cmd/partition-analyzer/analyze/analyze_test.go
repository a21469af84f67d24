package analyze

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/todoaudit/todo/bolt"
	"github.com/todoaudit/todo/partition"
	"github.com/todoaudit/todo/store"
)

func small() Workload {
	w := DefaultWorkload()
	w.Users, w.Todos = 200, 20_000
	return w
}

func run(t testing.TB, w Workload, o Options) (*Analyzer, *Report) {
	t.Helper()
	a, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Generate(a.Add); err != nil {
		t.Fatal(err)
	}
	return a, a.Finish()
}

func scheme(t testing.TB, r *Report, name string) SchemeReport {
	t.Helper()
	for _, s := range r.Schemes {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no %s in report", name)
	return SchemeReport{}
}

// One dominant user: category and hierarchical show the hot key (and the
// physical partition holding that user is throttled under hierarchical),
// synthetic spreads it.
func TestDominantUser(t *testing.T) {
	w := small()
	w.UserSkew, w.HotUserShare = 0, 0.5
	_, r := run(t, w, DefaultOptions())
	h, c, s := scheme(t, r, partition.Hierarchical), scheme(t, r, partition.Category), scheme(t, r, partition.Synthetic)
	if h.Writes.Hottest.Key[0] != UserID(0) || h.Logical.Largest.Key[0] != UserID(0) {
		t.Errorf("hierarchical hot key %v, largest %v: want the dominant user's", h.Writes.Hottest.Key, h.Logical.Largest.Key)
	}
	if !h.Writes.Throttled {
		t.Errorf("hierarchical: the dominant user's physical partition is not throttled: %+v", h.Writes.Loads)
	}
	if c.Writes.Hottest.Share < 0.25 {
		t.Errorf("category hottest share %.2f, want the most popular category's big share", c.Writes.Hottest.Share)
	}
	if !strings.HasPrefix(s.Writes.Hottest.Key[0], UserID(0)+"-") {
		t.Errorf("synthetic hot key %v, want one of the dominant user's buckets", s.Writes.Hottest.Key)
	}
	// Bucket 0 also takes every create's sequence update, so the spread is
	// less than the bucket count.
	if s.Writes.Hottest.Share > 0.8*h.Writes.Hottest.Share || s.Writes.Hottest.Share > c.Writes.Hottest.Share/2 {
		t.Errorf("synthetic hottest share %.3f is not spread (hierarchical %.3f)", s.Writes.Hottest.Share, h.Writes.Hottest.Share)
	}
	if s.Writes.Throttled {
		t.Errorf("synthetic throttled: %+v", s.Writes.Loads)
	}
	if r.Recommendation.Scheme != partition.Synthetic {
		t.Errorf("recommended %s, want synthetic: %v", r.Recommendation.Scheme, r.Recommendation.Reasons)
	}
}

// Uniform users and categories: no hot key anywhere.
func TestUniformUsers(t *testing.T) {
	w := small()
	w.Users, w.Categories, w.Todos = 50, 4, 40_000
	w.UserSkew, w.CategorySkew = 0, 0
	_, r := run(t, w, DefaultOptions())
	for _, s := range r.Schemes {
		fair := 1 / float64(s.Logical.Count)
		limit := 1.5 * fair
		if s.Name == partition.Synthetic {
			limit = 3 * fair // bucket 0 also takes every create's sequence update
		}
		if got := s.Writes.Hottest.Share; got > limit {
			t.Errorf("%s: hottest share %.4f, fair share %.4f", s.Name, got, fair)
		}
		// Category has only 4 keys for 4 physical partitions: two may share
		// one, which is its real weakness, not a hot key.
		if s.Name != partition.Category && (s.Writes.Throttled || s.Writes.OverLimit) {
			t.Errorf("%s throttled: %+v", s.Name, s.Writes)
		}
	}
	if r.Recommendation.Scheme != partition.Hierarchical {
		t.Errorf("recommended %s, want hierarchical: %v", r.Recommendation.Scheme, r.Recommendation.Reasons)
	}
}

// Every scheme's partitions add up to the input.
func TestSizesSumToInput(t *testing.T) {
	a, r := run(t, small(), DefaultOptions())
	for _, s := range a.schemes {
		var todos, docs, bytes, writes int64
		for _, p := range s.parts {
			todos += p.todos
			docs += p.docs
			bytes += p.bytes
			writes += p.writes
		}
		wantDocs, wantBytes, wantWrites := r.Input.Documents, r.Input.Bytes, r.Input.Writes
		if s.scheme.Name() == partition.Synthetic {
			users := int64(r.Input.Users)
			wantDocs += users // a sequence document each
			wantBytes += users * sequenceBytes
			wantWrites += r.Input.Todos // each create bumps the sequence
		}
		if todos != r.Input.Todos || docs != wantDocs || bytes != wantBytes || writes != wantWrites {
			t.Errorf("%s: todos %d docs %d bytes %d writes %d; want %d %d %d %d", s.scheme.Name(),
				todos, docs, bytes, writes, r.Input.Todos, wantDocs, wantBytes, wantWrites)
		}
	}
	var hist int
	for _, b := range scheme(t, r, partition.Hierarchical).Logical.Histogram {
		hist += b.Count
	}
	if hist != scheme(t, r, partition.Hierarchical).Logical.Count {
		t.Errorf("histogram counts %d partitions of %d", hist, scheme(t, r, partition.Hierarchical).Logical.Count)
	}
}

// The recommendation follows the workload: few users with big data push
// category's reads over budget, a partition near 20 GB rules a scheme out.
func TestRecommendationChanges(t *testing.T) {
	w := small()
	w.UserSkew, w.CategorySkew = 0, 0
	_, base := run(t, w, DefaultOptions())
	w.HotUserShare = 0.6
	_, hot := run(t, w, DefaultOptions())
	if base.Recommendation.Scheme == hot.Recommendation.Scheme {
		t.Errorf("same recommendation %s for uniform and dominant-user workloads", base.Recommendation.Scheme)
	}
	// One user, one category, huge todos: every scheme but synthetic puts
	// it all in one logical partition that outgrows 20 GB.
	w = small()
	w.Users, w.Categories, w.Todos, w.ItemBytes, w.UpdatesPerTodo = 1, 1, 20_000, 1_500_000, 0
	o := DefaultOptions()
	o.Throughput = 5000
	_, big := run(t, w, o)
	if big.Recommendation.Scheme != partition.Synthetic {
		t.Errorf("recommended %s for a 20+ GB single user, want synthetic: %v", big.Recommendation.Scheme, big.Recommendation.Reasons)
	}
	if h := scheme(t, big, partition.Hierarchical); len(h.Problems) == 0 || !strings.Contains(h.Problems[0], "20 GB") {
		t.Errorf("hierarchical problems %v, want the 20 GB limit", h.Problems)
	}
}

// The in-memory sequence simulation assigns the buckets the synthetic
// scheme's real sequence documents in the embedded store do, within one
// todo a bucket: the real counter hands out each block of numbers from a
// random place in it, so a user's todos fill the buckets in turn from a
// random first one.
func TestSyntheticSimulationMatchesScheme(t *testing.T) {
	const buckets = 4
	paths, _ := partition.Paths(partition.Synthetic)
	st, err := bolt.Open(t.TempDir(), []store.ContainerSpec{{Name: "todos", PartitionKeyPaths: paths}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	c, err := st.Container(ctx, "todos")
	if err != nil {
		t.Fatal(err)
	}
	real, err := partition.New(partition.Synthetic, buckets, partition.NewCounter(c))
	if err != nil {
		t.Fatal(err)
	}
	w := small()
	w.Users, w.Todos = 7, 150
	want := map[string]int64{}
	var order []string
	err = w.Each(Start, func(g *GeneratedTodo) error {
		k, err := real.NewKey(ctx, UserID(g.User), CategoryName(g.Category))
		want[k.Property]++
		order = append(order, k.Property)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	o := DefaultOptions()
	o.Schemes, o.Buckets = []string{partition.Synthetic}, buckets
	a, _ := run(t, w, o)
	got := map[string]int64{}
	for _, p := range a.schemes[0].parts {
		if p.todos > 0 {
			got[p.key[0]] = p.todos
		}
	}
	if len(got) != len(want) {
		t.Fatalf("simulated %d buckets, scheme used %d: %v vs %v", len(got), len(want), got, want)
	}
	for k, n := range want {
		if d := got[k] - n; d < -1 || d > 1 {
			t.Errorf("bucket %s: simulated %d todos, scheme %d", k, got[k], n)
		}
	}
}

// A generated workload written as an export reads back to the same
// partitions as the workload generated in memory, under every scheme,
// whether or not the export carries synthetic partition keys.
func TestJSONLRoundTrip(t *testing.T) {
	w := small()
	w.Users, w.Todos = 50, 2000
	direct, dr := run(t, w, DefaultOptions())
	for _, from := range []string{partition.Hierarchical, partition.Synthetic} {
		var buf bytes.Buffer
		if err := w.WriteJSONL(&buf, from, DefaultOptions().Buckets); err != nil {
			t.Fatal(err)
		}
		a, _ := New(DefaultOptions())
		res, err := ReadJSONL(&buf, ReadOptions{Strict: true}, a.Add)
		if err != nil {
			t.Fatal(err)
		}
		r := a.Finish()
		if r.Input.Todos != dr.Input.Todos || r.Input.Writes != dr.Input.Writes || r.Input.Versions != dr.Input.Versions {
			t.Fatalf("from %s: todos/writes/versions %d/%d/%d, generated %d/%d/%d", from,
				r.Input.Todos, r.Input.Writes, r.Input.Versions, dr.Input.Todos, dr.Input.Writes, dr.Input.Versions)
		}
		if res.Malformed != 0 || res.Records != r.Input.Documents {
			t.Fatalf("from %s: %+v", from, res)
		}
		for i, s := range a.schemes {
			d := direct.schemes[i]
			if len(s.parts) != len(d.parts) {
				t.Errorf("from %s, %s: %d partitions, generated %d", from, s.scheme.Name(), len(s.parts), len(d.parts))
				continue
			}
			for k, p := range s.parts {
				q := d.parts[k]
				if q == nil || p.todos != q.todos || p.docs != q.docs || p.writes != q.writes {
					t.Errorf("from %s, %s, %q: %+v vs generated %+v", from, s.scheme.Name(), k, p, q)
					break
				}
				// Sizes are the exported lines' lengths: close to the item size.
				if q.bytes > 0 && (float64(p.bytes) < 0.85*float64(q.bytes) || float64(p.bytes) > 1.15*float64(q.bytes)) {
					t.Errorf("from %s, %s, %q: %d bytes exported, %d generated", from, s.scheme.Name(), k, p.bytes, q.bytes)
					break
				}
			}
		}
	}
}

func TestMalformedLines(t *testing.T) {
	good := `{"id":"Grocery:1","type":"todo","userId":"u1","category":"Grocery","version":2}`
	in := strings.Join([]string{
		good,
		`not json`,
		``,
		`{"id":"x","type":"widget","userId":"u1","category":"c"}`,
		`{"id":"Work:2","type":"todo","userId":"u1","category":"Work"}`,
		`{"id":"Work:2:v1","type":"todoVersion","userId":"u1","category":"Work","todoId":"Work:2"}`,
		`{"type":"todo","userId":"u1","category":"Work","version":1}`,
		`{"id":"big","type":"todo","userId":"u1","category":"Work","version":1,"notes":"` + strings.Repeat("n", 3000) + `"}`,
		good,
	}, "\n")
	a, _ := New(DefaultOptions())
	res, err := ReadJSONL(strings.NewReader(in), ReadOptions{MaxLineBytes: 2000}, a.Add)
	if err != nil {
		t.Fatal(err)
	}
	wantLines := []int64{2, 4, 5, 7, 8}
	if res.Lines != 9 || res.Records != 3 || res.Malformed != int64(len(wantLines)) {
		t.Fatalf("result %+v", res)
	}
	for i, e := range res.Errors {
		if e.Line != wantLines[i] {
			t.Errorf("error %d at line %d (%s), want line %d", i, e.Line, e.Reason, wantLines[i])
		}
	}
	r := a.Finish()
	if r.Input.Todos != 2 || r.Input.Versions != 1 || r.Input.Writes != 4 {
		t.Errorf("input %+v", r.Input)
	}
	_, err = ReadJSONL(strings.NewReader(in), ReadOptions{Strict: true}, func(*Record) {})
	var le LineError
	if !errors.As(err, &le) || le.Line != 2 {
		t.Fatalf("strict: %v, want a LineError at line 2", err)
	}
}

func TestExport(t *testing.T) {
	st, err := bolt.Open(t.TempDir(), []store.ContainerSpec{{Name: "todos", PartitionKeyPaths: []string{"/userId", "/category"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	c, _ := st.Container(ctx, "todos")
	for i := range 2500 {
		doc, _ := json.Marshal(map[string]any{"id": "Grocery:" + strconv.Itoa(i),
			"type": "todo", "userId": UserID(i % 3), "category": "Grocery", "version": 1})
		if _, err := c.Create(ctx, store.PartitionKey{UserID(i % 3), "Grocery"}, doc); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	n, err := Export(ctx, c, &buf)
	if err != nil || n != 2500 {
		t.Fatalf("exported %d, %v", n, err)
	}
	a, _ := New(DefaultOptions())
	res, err := ReadJSONL(&buf, ReadOptions{Strict: true}, a.Add)
	if err != nil || res.Records != 2500 {
		t.Fatalf("read back %+v, %v", res, err)
	}
	if got := scheme(t, a.Finish(), partition.Hierarchical).Logical.Count; got != 3 {
		t.Fatalf("%d hierarchical partitions, want 3", got)
	}
}

// The same seed gives the same report; another seed another one.
func TestReproducible(t *testing.T) {
	report := func(seed uint64) string {
		w := small()
		w.Seed = seed
		_, r := run(t, w, DefaultOptions())
		var b bytes.Buffer
		if err := r.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	first, again, other := report(7), report(7), report(8)
	if first != again {
		t.Fatal("same seed, different reports")
	}
	if first == other {
		t.Fatal("different seeds, same report")
	}
}

func TestRenderings(t *testing.T) {
	_, r := run(t, small(), DefaultOptions())
	var svg, text bytes.Buffer
	if err := r.WriteSVG(&svg); err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(&svg)
	for {
		if _, err := dec.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
	}
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"hierarchical", "category", "synthetic/10", "Recommendation:", "list all of a user", "hottest physical"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text report lacks %q", want)
		}
	}
}

// BenchmarkAnalyze1M analyses 1,000,000 generated todos of 100,000 users
// under all three schemes, streaming: memory is bounded by partitions.
func BenchmarkAnalyze1M(b *testing.B) {
	w := DefaultWorkload()
	w.Users, w.Todos = 100_000, 1_000_000
	for b.Loop() {
		_, r := run(b, w, DefaultOptions())
		if r.Input.Todos != w.Todos {
			b.Fatal(r.Input.Todos)
		}
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	b.ReportMetric(float64(m.HeapSys)/(1<<20), "MB-heap-sys")
}

// The two activity costs, worked out by hand from the query charge: a scan
// loads every document once, answers a page of matches per request and
// at least one request per physical partition; the view reads one month
// partition per request, newest first, loading only what it returns, and
// then each record.
func TestActivityCosts(t *testing.T) {
	// 45 matches of 1,000 B each among 10,000 documents on one physical
	// partition: pages of 20, 20 and 5.
	got := scanCost(45, 45_000, 10_000, 1, 20)
	want := 3*2.5 + 0.05*10_000 + 2*20 + 5
	if got.Requests != 3 || got.Loaded != 10_000 || got.Items != 45 || math.Abs(got.RU-want) > 1e-9 {
		t.Errorf("scan on one partition: %+v, want 3 requests, %.2f RU", got, want)
	}
	// No match on four physical partitions still visits each.
	got = scanCost(0, 0, 10_000, 4, 20)
	if want := 4*2.5 + 0.05*10_000; got.Requests != 4 || math.Abs(got.RU-want) > 1e-9 {
		t.Errorf("empty scan on four partitions: %+v, want 4 requests, %.2f RU", got, want)
	}
	// March holds 5 entries of records of 2,048 B, February 30: a page of
	// 20 takes March's 5 and 15 of February's, and reads their 20 records
	// at 2 RU each; January is not read.
	months := []monthCount{{monthOf(Start), 9, 9 * 2048}, {monthOf(Start) + 1, 30, 30 * 2048}, {monthOf(Start) + 2, 5, 5 * 2048}}
	got = viewCost(months, monthOf(Start), monthOf(Start)+2, 20)
	returned := func(n int64) float64 { return math.Ceil(float64(n*entryBytes) / 1024) }
	want = (2.5 + 0.3 + 0.05*5 + returned(5)) + (2.5 + 0.3 + 0.05*15 + returned(15)) + 20*2
	if got.Requests != 22 || got.Items != 20 || got.Loaded != 20 || math.Abs(got.RU-want) > 1e-9 {
		t.Errorf("view page: %+v, want 22 requests, 20 items, %.2f RU", got, want)
	}
	// A month without entries still costs its request.
	got = viewCost(nil, monthOf(Start), monthOf(Start)+1, 20)
	if want := 2 * (2.5 + 0.3); got.Requests != 2 || got.Items != 0 || math.Abs(got.RU-want) > 1e-9 {
		t.Errorf("empty view: %+v, want 2 requests, %.2f RU", got, want)
	}
}

// A generated workload's report estimates activity pages over its last
// month: the view's page is a small fraction of the scan, which loads
// every audit record; an export, which has no write times, gets none.
func TestActivityReport(t *testing.T) {
	w := small()
	w.Todos = 2_000
	_, r := run(t, w, Options{Schemes: []string{partition.Hierarchical}})
	act := r.Activity
	if act == nil {
		t.Fatal("no activity estimate for a generated workload")
	}
	if !act.Since.Equal(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)) || !act.Until.Equal(time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("range %s to %s, want March 2026 (the span ends on April 1)", act.Since, act.Until)
	}
	if act.Records != r.Input.Writes {
		t.Errorf("%d audit records, want one per write, %d", act.Records, r.Input.Writes)
	}
	if len(act.Queries) != 2 {
		t.Fatalf("queries %+v, want own activity and admin by actor", act.Queries)
	}
	b := act.Queries[0].Busiest
	if b.Records <= int64(act.PageSize) || b.After.Items != int64(act.PageSize) || b.After.Requests != 1+act.PageSize {
		t.Errorf("busiest user %+v: want more records than a page, a full page from one query and a read of each record", b)
	}
	if b.Before.Loaded != act.Records || b.Before.Items != b.Records || b.Before.RU < 20*b.After.RU {
		t.Errorf("busiest user before the view %+v: want every record loaded, every match returned, far above the view's %.1f RU", b.Before, b.After.RU)
	}
	var text bytes.Buffer
	if err := r.WriteText(&text); err != nil || !strings.Contains(text.String(), "Activity pages, 2026-03-01 to 2026-04-01") {
		t.Errorf("text report lacks the activity section (%v):\n%s", err, text.String())
	}
	var export bytes.Buffer
	if err := w.WriteJSONL(&export, partition.Hierarchical, 1); err != nil {
		t.Fatal(err)
	}
	a, _ := New(DefaultOptions())
	if _, err := ReadJSONL(&export, ReadOptions{}, a.Add); err != nil {
		t.Fatal(err)
	}
	if got := a.Finish().Activity; got != nil {
		t.Errorf("an export got an activity estimate %+v; it has no write times", got)
	}
}
