// Package storetest is the conformance suite every store.Store runs: the
// embedded bbolt store always, the Cosmos DB adapter against a
// Cosmos-protocol server. It pins down the Cosmos DB semantics the product
// relies on, so a store that passes can back the API.
package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/store"
)

// Harness adapts a store implementation to the suite.
type Harness struct {
	// Open opens the store rooted at dir with the given containers
	// (creating them). Durable stores are opened again on the same dir to
	// test restarts.
	Open func(t testing.TB, dir string, specs []store.ContainerSpec) store.Store
	// Advance moves the store's clock forward, for TTL cases; nil skips
	// them.
	Advance func(d time.Duration)
	// Durable says data survives Close and Open on the same dir, which
	// enables the restart and kill -9 cases.
	Durable bool
	// Skip names cases the store cannot pass, with the reason; a skipped
	// semantic must be covered by a test of its own elsewhere.
	Skip map[string]string
}

var ttlOn = -1

// Container layouts used by the cases.
var (
	flat = store.ContainerSpec{Name: "flat", PartitionKeyPaths: []string{"/pk"}, DefaultTTL: &ttlOn}
	tree = store.ContainerSpec{Name: "tree", PartitionKeyPaths: []string{"/tenant", "/user"},
		Indexing: &store.IndexingPolicy{Paths: []string{"tenant", "user", "n"}, Sorted: []string{"n"},
			Composite: [][]store.Order{store.TieBroken(store.Order{Field: "n"}), store.TieBroken(store.Order{Field: "n", Desc: true}),
				{{Field: "user"}, {Field: "n"}}}}}
)

type suite struct {
	h   Harness
	ctx context.Context
}

// Run runs every case against the harness.
func Run(t *testing.T, h Harness) {
	s := &suite{h: h, ctx: context.Background()}
	cases := []struct {
		name string
		fn   func(t *testing.T, c store.Container, t2 store.Container)
	}{
		{"CreateRead", s.createRead},
		{"ReadMissing", s.readMissing},
		{"CreateConflict", s.createConflict},
		{"SameIDOtherPartition", s.sameIDOtherPartition},
		{"HierarchicalIdentity", s.hierarchicalIdentity},
		{"UpsertReplaceDelete", s.upsertReplaceDelete},
		{"ETagChangesEveryWrite", s.etagChanges},
		{"IfMatch", s.ifMatch},
		{"InvalidDocuments", s.invalidDocuments},
		{"TooLarge", s.tooLarge},
		{"PartitionKeyMismatch", s.pkMismatch},
		{"EmptyPartitionKeyComponent", s.emptyKeyComponent},
		{"Batch", s.batch},
		{"BatchAtomic", s.batchAtomic},
		{"BatchLimit", s.batchLimit},
		{"TTL", s.ttl},
		{"QueryPartition", s.queryPartition},
		{"QueryPrefix", s.queryPrefix},
		{"QueryCrossPartition", s.queryCross},
		{"QueryFilters", s.queryFilters},
		{"QueryOrderWithinPartition", s.queryOrder},
		{"QueryArrayFilters", s.queryArray},
		{"QueryTextIgnoringCase", s.queryTextFold},
		{"QueryOrderTieBrokenAfterPosition", s.querySeekOrdered},
		{"QueryAfterPositionAcrossPartitions", s.querySeekUnordered},
		{"QueryOrderNeedsComposite", s.queryOrderNeedsComposite},
		{"QueryOrderReverseComposite", s.queryOrderReverseComposite},
		{"QueryOrderAcrossPartitionsRefused", s.queryOrderRefused},
		{"QueryOrderNeedsIndex", s.queryOrderNeedsIndex},
		{"QueryOrderFollowsWrites", s.queryOrderFollowsWrites},
		{"QueryCommitTimeLowerBound", s.queryCommitTime},
		{"QueryPagingToLastItem", s.queryPaging},
		{"QueryBadContinuation", s.queryBadContinuation},
		{"ChangeFeedAll", s.feedAll},
		{"ChangeFeedCoalesces", s.feedCoalesces},
		{"ChangeFeedNoDeletes", s.feedNoDeletes},
		{"ChangeFeedPartitionOrder", s.feedOrder},
		{"Costs", s.costs},
		{"ViewAsRead", s.viewAsRead},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s.skip(t, tc.name)
			st := h.Open(t, t.TempDir(), []store.ContainerSpec{flat, tree})
			t.Cleanup(func() { _ = st.Close() })
			tc.fn(t, s.container(t, st, flat.Name), s.container(t, st, tree.Name))
		})
	}
	t.Run("RestartKeepsDataAndFeed", func(t *testing.T) { s.skip(t, "RestartKeepsDataAndFeed"); s.restart(t) })
	t.Run("KillNine", func(t *testing.T) { s.skip(t, "KillNine"); s.killNine(t) })
	t.Run("ConcurrentWriters", func(t *testing.T) { s.skip(t, "ConcurrentWriters"); s.concurrent(t) })
}

func (s *suite) skip(t *testing.T, name string) {
	if why, ok := s.h.Skip[name]; ok {
		t.Skip(why)
	}
}

func (s *suite) container(t testing.TB, st store.Store, name string) store.Container {
	t.Helper()
	c, err := st.Container(s.ctx, name)
	if err != nil {
		t.Fatalf("Container(%s): %v", name, err)
	}
	return c
}

// doc builds a JSON document from key/value pairs.
func doc(kv ...any) []byte {
	m := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	b, _ := json.Marshal(m)
	return b
}

func pk(parts ...string) store.PartitionKey { return store.PartitionKey(parts) }

func field(t testing.TB, body []byte, name string) any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("body %s: %v", body, err)
	}
	return m[name]
}

func wantKind(t testing.TB, err error, k todo.Kind) {
	t.Helper()
	if got := todo.KindOf(err); err == nil || got != k {
		t.Fatalf("error = %v (kind %v), want kind %v", err, got, k)
	}
}

func must[T any](t testing.TB) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func (s *suite) createRead(t *testing.T, c, _ store.Container) {
	created := must[store.Item](t)(c.Create(s.ctx, pk("p1"), doc("id", "a", "pk", "p1", "n", 1)))
	if created.ETag == "" {
		t.Fatal("Create returned no ETag")
	}
	ctx, m := store.WithMeter(s.ctx)
	got, err := c.Read(ctx, pk("p1"), "a")
	cost := m.Cost()
	if err != nil {
		t.Fatal(err)
	}
	if got.ETag != created.ETag || got.ID != "a" {
		t.Fatalf("Read = %+v, want id a and ETag %s", got, created.ETag)
	}
	if field(t, got.Body, "n") != 1.0 || field(t, got.Body, "_etag") != created.ETag || field(t, got.Body, "_ts") == nil {
		t.Fatalf("body %s lacks its fields or system properties", got.Body)
	}
	if cost.Scope != store.Point || cost.Charge <= 0 {
		t.Fatalf("Read cost = %+v, want a point read with a charge", cost)
	}
}

func (s *suite) readMissing(t *testing.T, c, _ store.Container) {
	_, err := c.Read(s.ctx, pk("p1"), "nope")
	wantKind(t, err, todo.NotFound)
	must[store.Item](t)(c.Create(s.ctx, pk("p1"), doc("id", "a", "pk", "p1")))
	_, err = c.Read(s.ctx, pk("p2"), "a")
	wantKind(t, err, todo.NotFound)
}

func (s *suite) createConflict(t *testing.T, c, _ store.Container) {
	must[store.Item](t)(c.Create(s.ctx, pk("p1"), doc("id", "a", "pk", "p1")))
	_, err := c.Create(s.ctx, pk("p1"), doc("id", "a", "pk", "p1", "n", 2))
	wantKind(t, err, todo.Conflict)
}

func (s *suite) sameIDOtherPartition(t *testing.T, c, _ store.Container) {
	must[store.Item](t)(c.Create(s.ctx, pk("p1"), doc("id", "a", "pk", "p1", "n", 1)))
	must[store.Item](t)(c.Create(s.ctx, pk("p2"), doc("id", "a", "pk", "p2", "n", 2)))
	got := must[store.Item](t)(c.Read(s.ctx, pk("p2"), "a"))
	if field(t, got.Body, "n") != 2.0 {
		t.Fatalf("read p2/a = %s", got.Body)
	}
}

func (s *suite) hierarchicalIdentity(t *testing.T, _, h store.Container) {
	must[store.Item](t)(h.Create(s.ctx, pk("t1", "u1"), doc("id", "x", "tenant", "t1", "user", "u1", "n", 1)))
	must[store.Item](t)(h.Create(s.ctx, pk("t1", "u2"), doc("id", "x", "tenant", "t1", "user", "u2", "n", 2)))
	got := must[store.Item](t)(h.Read(s.ctx, pk("t1", "u2"), "x"))
	if field(t, got.Body, "n") != 2.0 {
		t.Fatalf("read [t1,u2]/x = %s", got.Body)
	}
	_, err := h.Read(s.ctx, pk("t1", "u3"), "x")
	wantKind(t, err, todo.NotFound)
}

func (s *suite) upsertReplaceDelete(t *testing.T, c, _ store.Container) {
	must[store.Item](t)(c.Upsert(s.ctx, pk("p1"), doc("id", "a", "pk", "p1", "n", 1), nil))
	must[store.Item](t)(c.Upsert(s.ctx, pk("p1"), doc("id", "a", "pk", "p1", "n", 2), nil))
	if got := must[store.Item](t)(c.Read(s.ctx, pk("p1"), "a")); field(t, got.Body, "n") != 2.0 {
		t.Fatalf("after upsert: %s", got.Body)
	}
	must[store.Item](t)(c.Replace(s.ctx, pk("p1"), doc("id", "a", "pk", "p1", "n", 3), nil))
	if got := must[store.Item](t)(c.Read(s.ctx, pk("p1"), "a")); field(t, got.Body, "n") != 3.0 {
		t.Fatalf("after replace: %s", got.Body)
	}
	_, err := c.Replace(s.ctx, pk("p1"), doc("id", "b", "pk", "p1"), nil)
	wantKind(t, err, todo.NotFound)
	if err := c.Delete(s.ctx, pk("p1"), "a", nil); err != nil {
		t.Fatal(err)
	}
	_, err = c.Read(s.ctx, pk("p1"), "a")
	wantKind(t, err, todo.NotFound)
	err = c.Delete(s.ctx, pk("p1"), "a", nil)
	wantKind(t, err, todo.NotFound)
}

func (s *suite) etagChanges(t *testing.T, c, _ store.Container) {
	seen := map[string]bool{}
	for i := range 5 {
		it := must[store.Item](t)(c.Upsert(s.ctx, pk("p1"), doc("id", "a", "pk", "p1", "n", i), nil))
		if seen[it.ETag] {
			t.Fatalf("write %d reused ETag %s", i, it.ETag)
		}
		seen[it.ETag] = true
	}
}

func (s *suite) ifMatch(t *testing.T, c, _ store.Container) {
	first := must[store.Item](t)(c.Create(s.ctx, pk("p1"), doc("id", "a", "pk", "p1", "n", 1)))
	second := must[store.Item](t)(c.Replace(s.ctx, pk("p1"), doc("id", "a", "pk", "p1", "n", 2), &store.WriteOptions{IfMatch: first.ETag}))
	stale := &store.WriteOptions{IfMatch: first.ETag}
	_, err := c.Replace(s.ctx, pk("p1"), doc("id", "a", "pk", "p1", "n", 3), stale)
	wantKind(t, err, todo.PreconditionFailed)
	_, err = c.Upsert(s.ctx, pk("p1"), doc("id", "a", "pk", "p1", "n", 3), stale)
	wantKind(t, err, todo.PreconditionFailed)
	err = c.Delete(s.ctx, pk("p1"), "a", stale)
	wantKind(t, err, todo.PreconditionFailed)
	if got := must[store.Item](t)(c.Read(s.ctx, pk("p1"), "a")); field(t, got.Body, "n") != 2.0 {
		t.Fatalf("a failed conditional write changed the item: %s", got.Body)
	}
	if err := c.Delete(s.ctx, pk("p1"), "a", &store.WriteOptions{IfMatch: second.ETag}); err != nil {
		t.Fatal(err)
	}
}

func (s *suite) invalidDocuments(t *testing.T, c, _ store.Container) {
	for _, body := range []string{`[1]`, `{"pk":"p1"}`, `{"id":7,"pk":"p1"}`, `{"id":"a/b","pk":"p1"}`, `{"id":"a#b","pk":"p1"}`, `{"id":"a?b","pk":"p1"}`, `{"id":"a\\b","pk":"p1"}`, `{"id":" a","pk":"p1"}`} {
		_, err := c.Create(s.ctx, pk("p1"), []byte(body))
		wantKind(t, err, todo.Invalid)
	}
}

func (s *suite) tooLarge(t *testing.T, c, _ store.Container) {
	big := strings.Repeat("x", todo.MaxDocumentBytes)
	_, err := c.Create(s.ctx, pk("p1"), doc("id", "big", "pk", "p1", "blob", big))
	wantKind(t, err, todo.TooLarge)
	_, err = c.Read(s.ctx, pk("p1"), "big")
	wantKind(t, err, todo.NotFound)
}

func (s *suite) pkMismatch(t *testing.T, c, _ store.Container) {
	_, err := c.Create(s.ctx, pk("p1"), doc("id", "a", "pk", "p2"))
	wantKind(t, err, todo.Invalid)
}

// emptyKeyComponent: Cosmos DB refuses a partition key value that is an
// empty string, so every store refuses it in reads, writes, deletes and
// batches alike, and stores nothing.
func (s *suite) emptyKeyComponent(t *testing.T, c, h store.Container) {
	_, err := c.Create(s.ctx, pk(""), doc("id", "a", "pk", ""))
	wantKind(t, err, todo.Invalid)
	_, err = c.Upsert(s.ctx, pk(""), doc("id", "a", "pk", ""), nil)
	wantKind(t, err, todo.Invalid)
	_, err = h.Create(s.ctx, pk("t1", ""), doc("id", "a", "tenant", "t1", "user", ""))
	wantKind(t, err, todo.Invalid)
	_, err = c.Batch(s.ctx, pk(""), []store.Op{{Kind: store.BatchCreate, Doc: doc("id", "b", "pk", "")}})
	wantKind(t, err, todo.Invalid)
	_, err = c.Read(s.ctx, pk(""), "a")
	wantKind(t, err, todo.Invalid)
	_, err = h.Read(s.ctx, pk("", "u1"), "a")
	wantKind(t, err, todo.Invalid)
	err = c.Delete(s.ctx, pk(""), "a", nil)
	wantKind(t, err, todo.Invalid)
	if items := s.all(t, c, store.Query{PageSize: 10}); len(items) != 0 {
		t.Fatalf("refused writes stored %d items", len(items))
	}
}

func (s *suite) batch(t *testing.T, c, _ store.Container) {
	old := must[store.Item](t)(c.Create(s.ctx, pk("p1"), doc("id", "old", "pk", "p1")))
	must[store.Item](t)(c.Create(s.ctx, pk("p1"), doc("id", "gone", "pk", "p1")))
	ctx, m := store.WithMeter(s.ctx)
	res, err := c.Batch(ctx, pk("p1"), []store.Op{
		{Kind: store.BatchCreate, Doc: doc("id", "a", "pk", "p1")},
		{Kind: store.BatchUpsert, Doc: doc("id", "b", "pk", "p1")},
		{Kind: store.BatchReplace, Doc: doc("id", "old", "pk", "p1", "n", 2), IfMatch: old.ETag},
		{Kind: store.BatchDelete, ID: "gone"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 4 || res[0].StatusCode != 201 || res[2].StatusCode != 200 || res[3].StatusCode != 204 || res[0].ETag == "" {
		t.Fatalf("batch results = %+v", res)
	}
	if cost := m.Cost(); cost.Requests != 1 || cost.Charge <= 0 || cost.Scope != store.Partition {
		t.Fatalf("batch cost = %+v, want one request with a charge", cost)
	}
	for _, id := range []string{"a", "b", "old"} {
		must[store.Item](t)(c.Read(s.ctx, pk("p1"), id))
	}
	_, err = c.Read(s.ctx, pk("p1"), "gone")
	wantKind(t, err, todo.NotFound)
}

func (s *suite) batchAtomic(t *testing.T, c, _ store.Container) {
	must[store.Item](t)(c.Create(s.ctx, pk("p1"), doc("id", "dup", "pk", "p1")))
	_, err := c.Batch(s.ctx, pk("p1"), []store.Op{
		{Kind: store.BatchCreate, Doc: doc("id", "new", "pk", "p1")},
		{Kind: store.BatchCreate, Doc: doc("id", "dup", "pk", "p1")},
	})
	var be *store.BatchError
	if !errors.As(err, &be) || be.Index != 1 || todo.KindOf(err) != todo.Conflict {
		t.Fatalf("batch error = %v, want a conflict at operation 1", err)
	}
	_, err = c.Read(s.ctx, pk("p1"), "new")
	wantKind(t, err, todo.NotFound)
	_, err = c.Batch(s.ctx, pk("p1"), []store.Op{
		{Kind: store.BatchUpsert, Doc: doc("id", "dup", "pk", "p1", "n", 9)},
		{Kind: store.BatchReplace, Doc: doc("id", "dup", "pk", "p1", "n", 10), IfMatch: `"stale"`},
	})
	wantKind(t, err, todo.PreconditionFailed)
	if got := must[store.Item](t)(c.Read(s.ctx, pk("p1"), "dup")); field(t, got.Body, "n") != nil {
		t.Fatalf("failed batch left a change: %s", got.Body)
	}
}

func (s *suite) batchLimit(t *testing.T, c, _ store.Container) {
	ops := make([]store.Op, store.MaxBatchOps+1)
	for i := range ops {
		ops[i] = store.Op{Kind: store.BatchCreate, Doc: doc("id", fmt.Sprint("i", i), "pk", "p1")}
	}
	_, err := c.Batch(s.ctx, pk("p1"), ops)
	wantKind(t, err, todo.Invalid)
	if _, err := c.Batch(s.ctx, pk("p1"), ops[:store.MaxBatchOps]); err != nil {
		t.Fatalf("a batch of %d: %v", store.MaxBatchOps, err)
	}
	half := strings.Repeat("x", store.MaxBatchBytes/2)
	_, err = c.Batch(s.ctx, pk("p2"), []store.Op{
		{Kind: store.BatchCreate, Doc: doc("id", "big1", "pk", "p2", "blob", half)},
		{Kind: store.BatchCreate, Doc: doc("id", "big2", "pk", "p2", "blob", half)},
	})
	wantKind(t, err, todo.TooLarge)
}

func (s *suite) ttl(t *testing.T, c, _ store.Container) {
	if s.h.Advance == nil {
		t.Skip("the store's clock cannot be moved")
	}
	must[store.Item](t)(c.Create(s.ctx, pk("p1"), doc("id", "short", "pk", "p1", "ttl", 10)))
	must[store.Item](t)(c.Create(s.ctx, pk("p1"), doc("id", "forever", "pk", "p1")))
	must[store.Item](t)(c.Create(s.ctx, pk("p1"), doc("id", "never", "pk", "p1", "ttl", -1)))
	must[store.Item](t)(c.Read(s.ctx, pk("p1"), "short"))
	s.h.Advance(11 * time.Second)
	_, err := c.Read(s.ctx, pk("p1"), "short")
	wantKind(t, err, todo.NotFound)
	must[store.Item](t)(c.Read(s.ctx, pk("p1"), "forever"))
	page := s.query(t, c, store.Query{PartitionKey: pk("p1"), PageSize: 10})
	if ids := idsOf(page.Items); strings.Join(ids, ",") != "forever,never" {
		t.Fatalf("query after expiry = %v", ids)
	}
	feed, err := c.ChangeFeed(s.ctx, "", 100)
	if err != nil {
		t.Fatal(err)
	}
	if ids := idsOf(feed.Items); strings.Join(ids, ",") != "forever,never" {
		t.Fatalf("change feed after expiry = %v, want expiries absent", ids)
	}
	// An expired id is free again.
	must[store.Item](t)(c.Create(s.ctx, pk("p1"), doc("id", "short", "pk", "p1")))
}

func idsOf(items []store.Item) []string {
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.ID
	}
	return ids
}

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

func (s *suite) feedAll(t *testing.T, c, _ store.Container) {
	for i := range 5 {
		must[store.Item](t)(c.Create(s.ctx, pk(fmt.Sprint("p", i%2)), doc("id", fmt.Sprint("i", i), "pk", fmt.Sprint("p", i%2))))
	}
	got := s.drainFeed(t, c, "")
	if len(got.items) != 5 {
		t.Fatalf("feed returned %d items, want 5", len(got.items))
	}
	if field(t, got.items[0].Body, "_lsn") == nil {
		t.Fatalf("feed item %s has no _lsn", got.items[0].Body)
	}
	again := s.drainFeed(t, c, got.cont)
	if len(again.items) != 0 {
		t.Fatalf("feed after its continuation returned %d items", len(again.items))
	}
	must[store.Item](t)(c.Create(s.ctx, pk("p0"), doc("id", "late", "pk", "p0")))
	if late := s.drainFeed(t, c, got.cont); len(late.items) != 1 || late.items[0].ID != "late" {
		t.Fatalf("incremental feed = %v, want [late]", idsOf(late.items))
	}
}

type drained struct {
	items []store.Item
	cont  string
}

func (s *suite) drainFeed(t testing.TB, c store.Container, cont string) drained {
	t.Helper()
	var out []store.Item
	for range 1000 {
		b, err := c.ChangeFeed(s.ctx, cont, 3)
		if err != nil {
			t.Fatal(err)
		}
		cont = b.Continuation
		if len(b.Items) == 0 {
			return drained{out, cont}
		}
		out = append(out, b.Items...)
	}
	t.Fatal("feed did not end")
	return drained{}
}

func (s *suite) feedCoalesces(t *testing.T, c, _ store.Container) {
	start := s.drainFeed(t, c, "").cont
	for i := range 4 {
		must[store.Item](t)(c.Upsert(s.ctx, pk("p1"), doc("id", "a", "pk", "p1", "n", i), nil))
	}
	got := s.drainFeed(t, c, start)
	if len(got.items) != 1 || field(t, got.items[0].Body, "n") != 3.0 {
		t.Fatalf("feed after 4 writes of one item = %d items, want 1 at n=3", len(got.items))
	}
}

func (s *suite) feedNoDeletes(t *testing.T, c, _ store.Container) {
	start := s.drainFeed(t, c, "").cont
	must[store.Item](t)(c.Create(s.ctx, pk("p1"), doc("id", "a", "pk", "p1")))
	must[store.Item](t)(c.Create(s.ctx, pk("p1"), doc("id", "b", "pk", "p1")))
	if err := c.Delete(s.ctx, pk("p1"), "a", nil); err != nil {
		t.Fatal(err)
	}
	got := s.drainFeed(t, c, start)
	if ids := strings.Join(idsOf(got.items), ","); ids != "b" {
		t.Fatalf("feed = %s, want only b (deletes never appear)", ids)
	}
}

func (s *suite) feedOrder(t *testing.T, c, _ store.Container) {
	start := s.drainFeed(t, c, "").cont
	for i := range 10 {
		p := fmt.Sprint("p", i%3)
		must[store.Item](t)(c.Create(s.ctx, pk(p), doc("id", fmt.Sprintf("i%d", i), "pk", p, "seq", i)))
	}
	last := map[string]float64{}
	for _, it := range s.drainFeed(t, c, start).items {
		p, seq := it.PartitionKey.String(), field(t, it.Body, "seq").(float64)
		if prev, ok := last[p]; ok && seq < prev {
			t.Fatalf("partition %s: seq %v after %v", p, seq, prev)
		}
		last[p] = seq
	}
}

func (s *suite) costs(t *testing.T, c, _ store.Container) {
	ctx, create := store.WithMeter(s.ctx)
	_, err := c.Create(ctx, pk("p1"), doc("id", "a", "pk", "p1"))
	if cost := create.Cost(); err != nil || cost.Charge <= 0 || cost.Requests != 1 || cost.Scope != store.Point {
		t.Fatalf("create cost = %+v, %v", cost, err)
	}
	ctx, del := store.WithMeter(s.ctx)
	err = c.Delete(ctx, pk("p1"), "a", nil)
	if cost := del.Cost(); err != nil || cost.Charge <= 0 || cost.Scope != store.Point {
		t.Fatalf("delete cost = %+v, %v", cost, err)
	}
	if _, cost := s.queryCost(t, c, store.Query{PartitionKey: pk("p1"), PageSize: 1}); cost.Charge <= 0 || cost.Requests != 1 {
		t.Fatalf("query cost = %+v", cost)
	}
	// A meter inside another is charged to both: what a decorator that
	// measures single calls relies on.
	outer, request := store.WithMeter(s.ctx)
	inner, call := store.WithMeter(outer)
	if _, err := c.Read(inner, pk("p1"), "a"); !todo.IsKind(err, todo.NotFound) {
		t.Fatalf("read of a deleted item: %v", err)
	}
	if call.Cost() != request.Cost() || call.Cost().Requests != 1 || call.Cost().Scope != store.Point {
		t.Fatalf("nested meters = %+v and %+v, want the same point read", call.Cost(), request.Cost())
	}
	// The change feed is charged as a cross-partition read.
	ctx, feed := store.WithMeter(s.ctx)
	if _, err := c.ChangeFeed(ctx, "", 10); err != nil || feed.Cost().Scope != store.CrossPartition || feed.Cost().Requests < 1 {
		t.Fatalf("change feed cost = %+v, %v", feed.Cost(), err)
	}
}

func (s *suite) restart(t *testing.T) {
	if !s.h.Durable {
		t.Skip("the store does not persist across Open")
	}
	dir := t.TempDir()
	st := s.h.Open(t, dir, []store.ContainerSpec{flat})
	c := s.container(t, st, flat.Name)
	must[store.Item](t)(c.Create(s.ctx, pk("p1"), doc("id", "a", "pk", "p1")))
	cont := s.drainFeed(t, c, "").cont
	must[store.Item](t)(c.Create(s.ctx, pk("p1"), doc("id", "b", "pk", "p1")))
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st = s.h.Open(t, dir, []store.ContainerSpec{flat})
	defer st.Close()
	c = s.container(t, st, flat.Name)
	must[store.Item](t)(c.Read(s.ctx, pk("p1"), "a"))
	if got := s.drainFeed(t, c, cont); strings.Join(idsOf(got.items), ",") != "b" {
		t.Fatalf("feed after restart from a saved continuation = %v, want [b]", idsOf(got.items))
	}
}

func sorted(ids []string) []string {
	out := append([]string(nil), ids...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// concurrent runs writers in parallel (run the suite with -race) and checks
// every acknowledged write is readable.
func (s *suite) concurrent(t *testing.T) {
	st := s.h.Open(t, t.TempDir(), []store.ContainerSpec{flat})
	defer st.Close()
	c := s.container(t, st, flat.Name)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for w := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				p := fmt.Sprint("p", w%4)
				id := fmt.Sprintf("w%d-%d", w, i)
				if _, err := c.Batch(s.ctx, pk(p), []store.Op{
					{Kind: store.BatchCreate, Doc: doc("id", id, "pk", p)},
					{Kind: store.BatchCreate, Doc: doc("id", id+"-v", "pk", p)},
				}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if got := len(s.all(t, c, store.Query{PageSize: 100})); got != 16*20*2 {
		t.Fatalf("%d items after concurrent writes, want %d", got, 16*20*2)
	}
}

const childEnv = "STORETEST_KILL_CHILD_DIR"

// killNine starts a child process (this test binary, running this very
// test) that writes batches in a loop and reports each acknowledged one,
// kills it with SIGKILL, reopens the store and checks that every
// acknowledged write is there, whole.
func (s *suite) killNine(t *testing.T) {
	if !s.h.Durable {
		t.Skip("the store does not persist across Open")
	}
	if dir := os.Getenv(childEnv); dir != "" {
		s.killChild(t, dir)
		return
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.v")
	cmd.Env = append(os.Environ(), childEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	acked := map[int]bool{}
	buf := make([]byte, 0, 4096)
	deadline := time.Now().Add(20 * time.Second)
	for len(acked) < 300 && time.Now().Before(deadline) {
		chunk := make([]byte, 4096)
		n, err := out.Read(chunk)
		buf = append(buf, chunk[:n]...)
		for {
			i := strings.IndexByte(string(buf), '\n')
			if i < 0 {
				break
			}
			line := string(buf[:i])
			buf = buf[i+1:]
			if v, ok := strings.CutPrefix(line, "ACK "); ok {
				n, _ := strconv.Atoi(v)
				acked[n] = true
			}
		}
		if err != nil {
			break
		}
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	if len(acked) < 50 {
		t.Fatalf("the child acknowledged only %d writes before the deadline", len(acked))
	}
	st := s.h.Open(t, dir, []store.ContainerSpec{flat})
	defer st.Close()
	c := s.container(t, st, flat.Name)
	for n := range acked {
		id := fmt.Sprint("k", n)
		for _, suffix := range []string{"", "-v"} {
			it, err := c.Read(s.ctx, pk("p1"), id+suffix)
			if err != nil {
				t.Fatalf("acknowledged write %s%s lost after kill -9: %v", id, suffix, err)
			}
			if field(t, it.Body, "n") != float64(n) {
				t.Fatalf("write %s%s torn: %s", id, suffix, it.Body)
			}
		}
	}
	// Every batch is all or nothing, acknowledged or not.
	for _, it := range s.all(t, c, store.Query{PartitionKey: pk("p1"), PageSize: 500}) {
		if strings.HasSuffix(it.ID, "-v") {
			continue
		}
		if _, err := c.Read(s.ctx, pk("p1"), it.ID+"-v"); err != nil {
			t.Fatalf("half a batch survived: %s without %s-v", it.ID, it.ID)
		}
	}
	t.Logf("%d acknowledged batches survived kill -9", len(acked))
}

func (s *suite) killChild(t *testing.T, dir string) {
	st := s.h.Open(t, dir, []store.ContainerSpec{flat})
	c := s.container(t, st, flat.Name)
	var mu sync.Mutex
	next := 0
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				n := next
				next++
				mu.Unlock()
				id := fmt.Sprint("k", n)
				if _, err := c.Batch(s.ctx, pk("p1"), []store.Op{
					{Kind: store.BatchCreate, Doc: doc("id", id, "pk", "p1", "n", n)},
					{Kind: store.BatchCreate, Doc: doc("id", id+"-v", "pk", "p1", "n", n)},
				}); err != nil {
					fmt.Println("ERR", err)
					return
				}
				mu.Lock()
				fmt.Printf("ACK %d\n", n)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}

// decoded keeps what a store.View decoded, its body copied out.
type decoded struct {
	items []store.Item
	err   error
}

func (d *decoded) Decode(it store.Item) error {
	it.Body = append([]byte(nil), it.Body...)
	d.items = append(d.items, it)
	return d.err
}

// store.View gives what Read gives, at the same charge, whether the store
// lends its bodies or not; its decoder's error comes back as is.
func (s *suite) viewAsRead(t *testing.T, c, _ store.Container) {
	must[store.Item](t)(c.Create(s.ctx, pk("p1"), doc("id", "a", "pk", "p1", "n", 1)))
	rctx, rm := store.WithMeter(s.ctx)
	read := must[store.Item](t)(c.Read(rctx, pk("p1"), "a"))
	var d decoded
	vctx, vm := store.WithMeter(s.ctx)
	if err := store.View(vctx, c, pk("p1"), "a", &d); err != nil {
		t.Fatal(err)
	}
	if len(d.items) != 1 || fmt.Sprint(d.items[0]) != fmt.Sprint(read) {
		t.Fatalf("View decoded %+v, Read gave %+v", d.items, read)
	}
	if vm.Cost() != rm.Cost() {
		t.Fatalf("View cost %+v, Read %+v", vm.Cost(), rm.Cost())
	}
	wantKind(t, store.View(s.ctx, c, pk("p1"), "missing", &d), todo.NotFound)
	if len(d.items) != 1 {
		t.Fatal("View called the decoder for a missing item")
	}
	d.err = errors.New("decoder failed")
	if err := store.View(s.ctx, c, pk("p1"), "a", &d); !errors.Is(err, d.err) {
		t.Fatalf("View returned %v, want the decoder's error", err)
	}
}
