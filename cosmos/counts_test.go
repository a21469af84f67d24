package cosmos

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/store"
)

// checkCounts runs every kind of call on the flat and tree containers of s
// and checks, on the wire (rec) and in the reported cost, that each is one
// HTTP request and that no container metadata is read after warm-up. The
// change feed's warm-up is its first read (ReadFeedRanges, once).
func checkCounts(t *testing.T, s *Store, rec *recorder) {
	t.Helper()
	ctx := t.Context()
	flat, err := s.Container(ctx, "flat")
	if err != nil {
		t.Fatal(err)
	}
	tree, err := s.Container(ctx, "tree")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := flat.ChangeFeed(ctx, "", 10); err != nil {
		t.Fatal(err)
	}
	start := rec.count()
	p1 := store.PartitionKey{"p1"}
	step := func(name string, fn func(ctx context.Context) error) {
		t.Helper()
		n := rec.count()
		mctx, m := store.WithMeter(ctx)
		err := fn(mctx)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		cost := m.Cost()
		if got := rec.count() - n; got != 1 || cost.Requests != 1 {
			t.Errorf("%s: %d requests on the wire (%v), cost says %d; want 1", name, got, rec.since(n), cost.Requests)
		}
		if cost.Charge <= 0 {
			t.Errorf("%s: charge %v, want > 0", name, cost.Charge)
		}
	}
	step("create", func(ctx context.Context) error {
		_, err := flat.Create(ctx, p1, doc("id", "a", "pk", "p1"))
		return err
	})
	step("point read", func(ctx context.Context) error { _, err := flat.Read(ctx, p1, "a"); return err })
	step("upsert", func(ctx context.Context) error {
		_, err := flat.Upsert(ctx, p1, doc("id", "a", "pk", "p1", "n", "2"), nil)
		return err
	})
	step("replace", func(ctx context.Context) error {
		_, err := flat.Replace(ctx, p1, doc("id", "a", "pk", "p1", "n", "3"), nil)
		return err
	})
	step("batch", func(ctx context.Context) error {
		_, err := flat.Batch(ctx, p1, []store.Op{
			{Kind: store.BatchCreate, Doc: doc("id", "b", "pk", "p1")},
			{Kind: store.BatchUpsert, Doc: doc("id", "b-v1", "pk", "p1")},
		})
		return err
	})
	page := func(c store.Container, q store.Query) func(context.Context) error {
		return func(ctx context.Context) error { _, err := c.Query(ctx, q); return err }
	}
	step("single-partition query page", page(flat, store.Query{PartitionKey: p1, PageSize: 10}))
	step("prefix query page", page(tree, store.Query{PartitionKey: store.PartitionKey{"t1"}, PageSize: 10}))
	step("cross-partition query page", page(flat, store.Query{PageSize: 10}))
	step("change feed", func(ctx context.Context) error { _, err := flat.ChangeFeed(ctx, "", 10); return err })
	step("delete", func(ctx context.Context) error { return flat.Delete(ctx, p1, "a", nil) })
	for _, r := range rec.since(start) {
		if isMetadata(r) {
			t.Errorf("container metadata read after warm-up: %s", r)
		}
	}
}

// genericDocs answers document requests on a fake account the way Cosmos DB
// would for the calls checkCounts makes.
func genericDocs(r *http.Request, body []byte) *http.Response {
	switch {
	case r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/docs/"):
		return response(r, 200, `{"id":"a","pk":"p1","_etag":"\"e1\""}`, "etag", `"e1"`)
	case r.Method == http.MethodGet && r.Header.Get("A-IM") != "":
		if r.Header.Get("If-None-Match") != "" {
			return response(r, 304, "", "etag", `"9"`)
		}
		return response(r, 200, `{"_rid":"rid-flat","Documents":[{"id":"a","pk":"p1","_etag":"\"e1\""}],"_count":1}`, "etag", `"9"`)
	case r.Header.Get("x-ms-cosmos-is-batch-request") != "":
		n := strings.Count(string(body), `"operationType"`)
		res := make([]string, n)
		for i := range res {
			res[i] = `{"statusCode":201,"requestCharge":1,"eTag":"\"e2\""}`
		}
		return response(r, 200, "["+strings.Join(res, ",")+"]")
	case r.Header.Get("x-ms-documentdb-isquery") != "":
		return response(r, 200, `{"Documents":[{"id":"a","pk":"p1","_etag":"\"e1\""}],"_count":1}`)
	case r.Method == http.MethodDelete:
		return response(r, 204, "")
	case r.Method == http.MethodPost || r.Method == http.MethodPut:
		return response(r, 200, string(body), "etag", `"e3"`)
	}
	return nil
}

func TestCounts(t *testing.T) {
	f := newFake(t, "db")
	f.docs = genericDocs
	s, rec := openFake(t, f, flatSpec, treeSpec)
	checkCounts(t, s, rec)
	if got := fmt.Sprint(rec.since(0)[:1]); !strings.Contains(got, "GET /") {
		t.Errorf("first request %s, want the account read", got)
	}
}

// checkPing checks the health probe on s, whose probe container is tree:
// once no answer is fresh it is one data-plane point read (a miss is
// healthy), never a database or container metadata request, and while an
// answer is fresh, its own or another call's, it sends nothing.
func checkPing(t *testing.T, s *Store, rec *recorder) {
	t.Helper()
	ctx := t.Context()
	probe := func(want int) []recorded {
		t.Helper()
		n := rec.count()
		if err := s.Ping(ctx); err != nil {
			t.Fatalf("Ping: %v", err)
		}
		got := rec.since(n)
		if len(got) != want {
			t.Fatalf("Ping sent %d requests (%v), want %d", len(got), got, want)
		}
		return got
	}
	s.answered.Store(0)
	for _, r := range probe(1) {
		if r.Method != http.MethodGet || !strings.HasSuffix(r.Path, "/colls/tree/docs/"+probeID) || isMetadata(r) {
			t.Errorf("Ping sent %s, want a point read of %s in tree", r, probeID)
		}
	}
	probe(0)
	s.answered.Store(0)
	flat, err := s.Container(ctx, "flat")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := flat.Read(ctx, store.PartitionKey{"p1"}, "missing"); !todo.IsKind(err, todo.NotFound) {
		t.Fatalf("read of a missing document: %v", err)
	}
	probe(0)
}

func TestPingCounts(t *testing.T) {
	f := newFake(t, "db")
	var failing atomic.Bool
	f.docs = func(r *http.Request, _ []byte) *http.Response {
		if failing.Load() {
			return response(r, http.StatusServiceUnavailable, `{"code":"ServiceUnavailable","message":"down"}`)
		}
		return response(r, http.StatusNotFound, `{"code":"NotFound","message":"Entity with the specified id does not exist in the system."}`)
	}
	rec := &recorder{next: f}
	for _, spec := range []store.ContainerSpec{flatSpec, treeSpec} {
		f.addContainer(spec.Name, spec.PartitionKeyPaths...)
	}
	s, err := Open(t.Context(), Config{Endpoint: fakeEndpoint(t), Key: emulatorKey, Database: f.database,
		Containers: []store.ContainerSpec{flatSpec, treeSpec}, ProbeContainer: "tree", ClientOptions: fastRetries(rec)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	checkPing(t, s, rec)

	// A failed request makes the next Ping ask for itself, and it reports
	// what it got.
	failing.Store(true)
	flat, _ := s.Container(t.Context(), "flat")
	if _, err := flat.Read(t.Context(), store.PartitionKey{"p1"}, "a"); err == nil {
		t.Fatal("read while the account fails: no error")
	}
	n := rec.count()
	if err := s.Ping(t.Context()); !todo.IsKind(err, todo.Unavailable) {
		t.Errorf("Ping while the account fails = %v, want Unavailable", err)
	}
	if rec.count() == n {
		t.Error("Ping after a failed request sent nothing")
	}
}
