package cosmos

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

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
