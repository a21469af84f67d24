package cosmos

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	azruntime "github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/store"
)

func wantKind(t *testing.T, err error, k todo.Kind) {
	t.Helper()
	if got := todo.KindOf(err); err == nil || got != k {
		t.Fatalf("error = %v (kind %v), want kind %v", err, got, k)
	}
}

func TestRender(t *testing.T) {
	cases := []struct {
		name   string
		spec   store.ContainerSpec
		q      store.Query
		sql    string
		params string
		key    bool // the request carries the full key
		scope  store.Scope
	}{
		{"full key", treeSpec, store.Query{PartitionKey: store.PartitionKey{"t1", "u1"}, PageSize: 5},
			"SELECT * FROM c WHERE c.tenant = @pk0 AND c.user = @pk1", "@pk0=t1 @pk1=u1", true, store.Partition},
		{"prefix", treeSpec, store.Query{PartitionKey: store.PartitionKey{"t1"}, PageSize: 5},
			"SELECT * FROM c WHERE c.tenant = @pk0", "@pk0=t1", false, store.Prefix},
		{"cross-partition filters", treeSpec, store.Query{PageSize: 5, Filters: []store.Filter{
			{Field: "user", Op: store.Eq, Value: "u1"}, {Field: "n", Op: store.Ge, Value: int64(3)},
			{Field: "done", Op: store.Ne, Value: true}, {Field: "x", Op: store.Lt, Value: 1.5},
			{Field: "notes", Op: store.IsDefined}, {Field: "due", Op: store.NotDefined},
			{Field: "a", Op: store.Le, Value: "z"}, {Field: "b", Op: store.Gt, Value: "y"}}},
			"SELECT * FROM c WHERE c.user = @p0 AND c.n >= @p1 AND c.done != @p2 AND c.x < @p3 AND IS_DEFINED(c.notes) AND NOT IS_DEFINED(c.due) AND c.a <= @p6 AND c.b > @p7",
			"@p0=u1 @p1=3 @p2=true @p3=1.5 @p6=z @p7=y", false, store.CrossPartition},
		{"order within a partition, keywords quoted", composite, store.Query{PartitionKey: store.PartitionKey{"p1"}, PageSize: 5,
			Filters: []store.Filter{{Field: "value", Op: store.Eq, Value: "v"}},
			OrderBy: []store.Order{{Field: "order", Desc: true}, {Field: "n"}}},
			`SELECT * FROM c WHERE c.pk = @pk0 AND c["value"] = @p0 ORDER BY c["order"] DESC, c.n ASC`, "@pk0=p1 @p0=v", true, store.Partition},
		{"text and array filters", treeSpec, store.Query{PageSize: 5, Filters: []store.Filter{
			{Field: "title", Op: store.ContainsFold, Value: "MiLk"}, {Field: "tags", Op: store.ArrayContains, Value: "x"}}},
			"SELECT * FROM c WHERE CONTAINS(c.title, @p0, true) AND ARRAY_CONTAINS(c.tags, @p1)", "@p0=MiLk @p1=x", false, store.CrossPartition},
		{"after a position, tie-broken order", composite, store.Query{PartitionKey: store.PartitionKey{"p1"}, PageSize: 5,
			OrderBy: store.TieBroken(store.Order{Field: "n"}), After: &store.Seek{Order: store.Order{Field: "n"}, Value: json.RawMessage(`"b"`), ID: "i1"}},
			"SELECT * FROM c WHERE c.pk = @pk0 AND (c.n > @after OR (c.n = @after AND c.id > @afterId)) ORDER BY c.n ASC, c.id ASC", "@pk0=p1 @afterId=i1 @after=b", true, store.Partition},
		{"after a position, descending", composite, store.Query{PartitionKey: store.PartitionKey{"p1"}, PageSize: 5,
			OrderBy: store.TieBroken(store.Order{Field: "n", Desc: true}), After: &store.Seek{Order: store.Order{Field: "n", Desc: true}, Value: json.RawMessage(`2`), ID: "i1"}},
			"SELECT * FROM c WHERE c.pk = @pk0 AND (c.n < @after OR (c.n = @after AND c.id < @afterId) OR NOT IS_DEFINED(c.n)) ORDER BY c.n DESC, c.id DESC", "@pk0=p1 @afterId=i1 @after=2", true, store.Partition},
		{"after an undefined value", treeSpec, store.Query{PageSize: 5, After: &store.Seek{Order: store.Order{Field: "due"}, ID: "i1"}},
			"SELECT * FROM c WHERE (IS_DEFINED(c.due) OR c.id > @afterId)", "@afterId=i1", false, store.CrossPartition},
		{"after an undefined value, descending", treeSpec, store.Query{PageSize: 5, After: &store.Seek{Order: store.Order{Field: "due", Desc: true}, ID: "i1"}},
			"SELECT * FROM c WHERE (NOT IS_DEFINED(c.due) AND c.id < @afterId)", "@afterId=i1", false, store.CrossPartition},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := render(tc.spec, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			var ps []string
			for _, p := range r.Params {
				ps = append(ps, fmt.Sprintf("%s=%v", p.Name, p.Value))
			}
			if r.SQL != tc.sql || strings.Join(ps, " ") != tc.params || r.Scope != tc.scope {
				t.Fatalf("render = %q %v %v\nwant     %q %s %v", r.SQL, ps, r.Scope, tc.sql, tc.params, tc.scope)
			}
			want := azcosmos.NewPartitionKey()
			if tc.key {
				want = partitionKey(tc.q.PartitionKey)
			}
			if !reflect.DeepEqual(r.Key, want) {
				t.Fatalf("request key %+v, want full key %v", r.Key, tc.key)
			}
		})
	}
	refused := []store.Query{
		{PageSize: 5, OrderBy: []store.Order{{Field: "n"}}},
		{PartitionKey: store.PartitionKey{"t1", "u1"}, PageSize: 5, OrderBy: store.TieBroken(store.Order{Field: "n"})},
		{PageSize: 5, Filters: []store.Filter{{Field: "title", Op: store.ContainsFold, Value: int64(1)}}},
		{PageSize: 5, After: &store.Seek{Order: store.Order{Field: "n"}, Value: json.RawMessage(`{"a":1}`), ID: "i1"}},
		{PageSize: 5, After: &store.Seek{Order: store.Order{Field: "n"}, Value: json.RawMessage(`"a"`)}},
		{PartitionKey: store.PartitionKey{"t1"}, PageSize: 5, OrderBy: []store.Order{{Field: "n"}}},
		{PartitionKey: store.PartitionKey{"t1", "u1"}, PageSize: 5, Filters: []store.Filter{{Field: "n) OR 1=1 --", Op: store.Eq, Value: "x"}}},
		{PartitionKey: store.PartitionKey{"t1", "u1"}, PageSize: 0},
	}
	for _, q := range refused {
		_, err := render(treeSpec, q)
		wantKind(t, err, todo.Invalid)
	}
}

// FuzzRender checks that whatever a specification holds, the SQL is made
// of validated identifiers and parameter names only.
func FuzzRender(f *testing.F) {
	f.Add("n", "x", 1, "order", true)
	f.Add("value", "'; DROP c --", 3, "n) OR (1=1", false)
	f.Fuzz(func(t *testing.T, field, value string, op int, order string, full bool) {
		q := store.Query{PageSize: 10, Filters: []store.Filter{{Field: field, Op: store.CompareOp(op), Value: value}}}
		if full {
			q.PartitionKey = store.PartitionKey{value, value}
			q.OrderBy = []store.Order{{Field: order}}
		}
		r, err := render(treeSpec, q)
		if err != nil {
			return
		}
		if !sqlShape.MatchString(r.SQL) {
			t.Fatalf("render(%+v) = %q", q, r.SQL)
		}
		for _, p := range r.Params {
			if p.Value != value {
				t.Fatalf("parameter %s = %v, want the value", p.Name, p.Value)
			}
		}
	})
}

// composite is a container whose composite indexes serve ORDER BY order
// DESC, n ASC and n, id.
var composite = store.ContainerSpec{Name: "flat", PartitionKeyPaths: []string{"/pk"}, Indexing: &store.IndexingPolicy{
	Paths:     []string{"pk", "value", "order", "n"},
	Composite: [][]store.Order{{{Field: "order", Desc: true}, {Field: "n"}}, store.TieBroken(store.Order{Field: "n"})}}}

var sqlShape = regexp.MustCompile(`^SELECT \* FROM c WHERE ` +
	`(c\.tenant = @pk0 AND c\.user = @pk1 AND )?` +
	`((c\.[A-Za-z_][A-Za-z0-9_]*|c\["[A-Za-z_][A-Za-z0-9_]*"\]) (=|!=|<|<=|>|>=) @p0|(NOT )?IS_DEFINED\((c\.[A-Za-z_][A-Za-z0-9_]*|c\["[A-Za-z_][A-Za-z0-9_]*"\])\)` +
	`|CONTAINS\((c\.[A-Za-z_][A-Za-z0-9_]*|c\["[A-Za-z_][A-Za-z0-9_]*"\]), @p0, true\)|ARRAY_CONTAINS\((c\.[A-Za-z_][A-Za-z0-9_]*|c\["[A-Za-z_][A-Za-z0-9_]*"\]), @p0\))` +
	`( ORDER BY (c\.[A-Za-z_][A-Za-z0-9_]*|c\["[A-Za-z_][A-Za-z0-9_]*"\]) ASC)?$`)

func responseError(status int, headers ...string) error {
	r, _ := http.NewRequest(http.MethodGet, "https://x.documents.azure.com/dbs/d/colls/c/docs/a", nil)
	return azruntime.NewResponseError(response(r, status, `{"code":"X","message":"secret server detail"}`, headers...))
}

func TestMapError(t *testing.T) {
	cases := []struct {
		err   error
		kind  todo.Kind
		retry time.Duration
	}{
		{responseError(404), todo.NotFound, 0},
		{responseError(404, "x-ms-substatus", "1003"), todo.Internal, 0},
		{responseError(409), todo.Conflict, 0},
		{responseError(412), todo.PreconditionFailed, 0},
		{responseError(413), todo.TooLarge, 0},
		{responseError(400), todo.Invalid, 0},
		{responseError(429, "x-ms-retry-after-ms", "1500"), todo.Throttled, 1500 * time.Millisecond},
		{responseError(408), todo.Unavailable, 0},
		{responseError(449), todo.Unavailable, 0},
		{responseError(503, "x-ms-retry-after-ms", "20"), todo.Unavailable, 20 * time.Millisecond},
		{responseError(500), todo.Internal, 0},
		{responseError(401), todo.Internal, 0},
		{fmt.Errorf("op: %w", context.DeadlineExceeded), todo.Unavailable, 0},
		{context.Canceled, todo.Unavailable, 0},
		{errors.New("boom"), todo.Internal, 0},
	}
	for _, tc := range cases {
		err := mapError(tc.err, `item "a"`)
		if todo.KindOf(err) != tc.kind || todo.RetryAfter(err) != tc.retry {
			t.Errorf("mapError(%v) = %v (kind %v, retry %v), want %v, %v", tc.err, err, todo.KindOf(err), todo.RetryAfter(err), tc.kind, tc.retry)
		}
		if strings.Contains(todo.Message(err), "secret") {
			t.Errorf("the server's message leaked: %q", todo.Message(err))
		}
		if !errors.Is(err, tc.err) {
			t.Errorf("mapError(%v) lost its cause", tc.err)
		}
	}
	if mapError(nil, "x") != nil {
		t.Error("mapError(nil) != nil")
	}
}

// TestBatchFailure covers what the server cannot: Cosmos DB answers a failed
// batch with 207, the failing operation's status and 424 for the others.
func TestBatchFailure(t *testing.T) {
	cases := []struct {
		statuses []int
		index    int
		kind     todo.Kind
	}{
		{[]int{424, 409}, 1, todo.Conflict},
		{[]int{412, 424, 424}, 0, todo.PreconditionFailed},
		{[]int{424, 424, 404}, 2, todo.NotFound},
		{[]int{201, 413}, 1, todo.TooLarge},
		{[]int{424, 429}, 1, todo.Throttled},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprint(tc.statuses), func(t *testing.T) {
			f := newFake(t, "db")
			var sent []map[string]any
			f.docs = func(r *http.Request, body []byte) *http.Response {
				if err := json.Unmarshal(body, &sent); err != nil {
					t.Errorf("batch body %s: %v", body, err)
				}
				res := make([]string, len(tc.statuses))
				for i, s := range tc.statuses {
					res[i] = fmt.Sprintf(`{"statusCode":%d,"requestCharge":0}`, s)
				}
				return response(r, http.StatusMultiStatus, "["+strings.Join(res, ",")+"]", "x-ms-retry-after-ms", "7")
			}
			s, rec := openFake(t, f, flatSpec)
			c, _ := s.Container(t.Context(), "flat")
			ops := []store.Op{
				{Kind: store.BatchReplace, Doc: doc("id", `q"uote`, "pk", "p1"), IfMatch: `"e1"`},
				{Kind: store.BatchDelete, ID: "gone", IfMatch: `"e2"`},
				{Kind: store.BatchRead, ID: "r"},
			}[:len(tc.statuses)]
			n := rec.count()
			ctx, m := store.WithMeter(t.Context())
			_, err := c.Batch(ctx, store.PartitionKey{"p1"}, ops)
			cost := m.Cost()
			var be *store.BatchError
			if !errors.As(err, &be) || be.Index != tc.index || todo.KindOf(err) != tc.kind {
				t.Fatalf("Batch = %v, want a %v at operation %d", err, tc.kind, tc.index)
			}
			if tc.kind == todo.Throttled && todo.RetryAfter(err) != 7*time.Millisecond {
				t.Fatalf("retry after = %v", todo.RetryAfter(err))
			}
			if got := rec.count() - n; got != 1 || cost.Requests != 1 || cost.Scope != store.Partition {
				t.Fatalf("%d requests, cost %+v; want one", got, cost)
			}
			if sent[0]["id"] != `q"uote` || sent[0]["ifMatch"] != `"e1"` || sent[0]["operationType"] != "Replace" {
				t.Fatalf("first operation sent as %v", sent[0])
			}
			if h := rec.since(n)[0].Header.Get("x-ms-documentdb-partitionkey"); h != `["p1"]` {
				t.Fatalf("partition key header %q", h)
			}
		})
	}
}

// TestTooLarge: documents over 2 MB are refused before any request, and a
// 413 from Cosmos DB (a batch over its request limit, say) is TooLarge too.
func TestTooLarge(t *testing.T) {
	f := newFake(t, "db")
	f.docs = func(r *http.Request, _ []byte) *http.Response {
		return response(r, http.StatusRequestEntityTooLarge, `{"code":"RequestEntityTooLarge","message":"Request size is too large"}`)
	}
	s, rec := openFake(t, f, flatSpec)
	c, _ := s.Container(t.Context(), "flat")
	n := rec.count()
	big := `{"id":"big","pk":"p1","blob":"` + strings.Repeat("x", todo.MaxDocumentBytes) + `"}`
	_, err := c.Create(t.Context(), store.PartitionKey{"p1"}, []byte(big))
	wantKind(t, err, todo.TooLarge)
	if rec.count() != n {
		t.Fatalf("an oversized document was sent")
	}
	_, err = c.Upsert(t.Context(), store.PartitionKey{"p1"}, doc("id", "a", "pk", "p1"), nil)
	wantKind(t, err, todo.TooLarge)
	_, err = c.Batch(t.Context(), store.PartitionKey{"p1"}, []store.Op{{Kind: store.BatchCreate, Doc: doc("id", "a", "pk", "p1")}})
	wantKind(t, err, todo.TooLarge)
}

// TestValidationBeforeRequests: bad ids, keys and documents never reach
// Cosmos DB.
func TestValidationBeforeRequests(t *testing.T) {
	f := newFake(t, "db")
	f.docs = genericDocs
	s, rec := openFake(t, f, flatSpec, treeSpec)
	flat, _ := s.Container(t.Context(), "flat")
	tree, _ := s.Container(t.Context(), "tree")
	ctx := t.Context()
	n := rec.count()
	p1 := store.PartitionKey{"p1"}
	_, err := flat.Read(ctx, p1, "a/b")
	wantKind(t, err, todo.Invalid)
	_, err = flat.Read(ctx, store.PartitionKey{"p1", "x"}, "a")
	wantKind(t, err, todo.Invalid)
	_, err = tree.Read(ctx, store.PartitionKey{"t1"}, "a")
	wantKind(t, err, todo.Invalid)
	err = flat.Delete(ctx, p1, " a", nil)
	wantKind(t, err, todo.Invalid)
	_, err = flat.Create(ctx, p1, []byte(`{"id":"a","pk":"p2"}`))
	wantKind(t, err, todo.Invalid)
	_, err = flat.Replace(ctx, p1, []byte(`{"id":"a?","pk":"p1"}`), nil)
	wantKind(t, err, todo.Invalid)
	_, err = flat.Batch(ctx, p1, []store.Op{{Kind: store.BatchCreate, Doc: doc("id", "a", "pk", "p1")}, {Kind: store.BatchDelete, ID: "#"}})
	var be *store.BatchError
	if !errors.As(err, &be) || be.Index != 1 || todo.KindOf(err) != todo.Invalid {
		t.Fatalf("batch with a bad id = %v", err)
	}
	_, err = flat.Batch(ctx, p1, nil)
	wantKind(t, err, todo.Invalid)
	_, err = flat.ChangeFeed(ctx, "not a token", 10)
	wantKind(t, err, todo.Invalid)
	if got := rec.since(n); len(got) != 0 {
		t.Fatalf("invalid calls made requests: %v", got)
	}
}

// TestHierarchicalKeyHeader: a hierarchical item is addressed by its full
// key, every component in the partition key header (the server looks at
// the first one only).
func TestHierarchicalKeyHeader(t *testing.T) {
	f := newFake(t, "db")
	f.docs = func(r *http.Request, body []byte) *http.Response {
		return response(r, 200, `{"id":"x","tenant":"t1","user":"u2","_etag":"\"e\""}`, "etag", `"e"`)
	}
	s, rec := openFake(t, f, treeSpec)
	c, _ := s.Container(t.Context(), "tree")
	n := rec.count()
	ctx, m := store.WithMeter(t.Context())
	it, err := c.Read(ctx, store.PartitionKey{"t1", "u2"}, "x")
	cost := m.Cost()
	if err != nil {
		t.Fatal(err)
	}
	req := rec.since(n)[0]
	if req.Method != http.MethodGet || !strings.HasSuffix(req.Path, "/colls/tree/docs/x") || req.Header.Get("x-ms-documentdb-partitionkey") != `["t1","u2"]` {
		t.Fatalf("point read sent %s with key %q", req, req.Header.Get("x-ms-documentdb-partitionkey"))
	}
	if it.ETag != `"e"` || cost.Scope != store.Point || cost.Requests != 1 {
		t.Fatalf("item %+v, cost %+v", it, cost)
	}
	n = rec.count()
	if _, err := c.Upsert(t.Context(), store.PartitionKey{"t1", "u2"}, doc("id", "x", "tenant", "t1", "user", "u2"), &store.WriteOptions{IfMatch: `"e"`}); err != nil {
		t.Fatal(err)
	}
	req = rec.since(n)[0]
	if req.Header.Get("x-ms-documentdb-partitionkey") != `["t1","u2"]` || req.Header.Get("If-Match") != `"e"` || req.Header.Get("x-ms-documentdb-is-upsert") != "true" {
		t.Fatalf("upsert headers %v", req.Header)
	}
}

// TestQueryRequests: how each scope goes on the wire. A prefix sends no
// partition key header and states the prefix in WHERE; a full key does
// both; continuations pass through untouched both ways.
func TestQueryRequests(t *testing.T) {
	f := newFake(t, "db")
	f.docs = func(r *http.Request, body []byte) *http.Response {
		return response(r, 200, `{"Documents":[{"id":"a","tenant":"t1","user":"u1","_etag":"\"e\""},{"id":"b","tenant":"t1","user":"u2","_etag":"\"f\""}],"_count":2}`,
			"x-ms-continuation", `{"token":"+RID:~abc#RT:1","range":{"min":"","max":"FF"}}`)
	}
	s, rec := openFake(t, f, treeSpec)
	c, _ := s.Container(t.Context(), "tree")

	n := rec.count()
	ctx, m := store.WithMeter(t.Context())
	p, err := c.Query(ctx, store.Query{PartitionKey: store.PartitionKey{"t1"}, PageSize: 7, Continuation: "opaque-token"})
	cost := m.Cost()
	if err != nil {
		t.Fatal(err)
	}
	req := rec.since(n)[0]
	var body struct {
		Query      string `json:"query"`
		Parameters []struct {
			Name  string `json:"name"`
			Value any    `json:"value"`
		} `json:"parameters"`
	}
	_ = json.Unmarshal(req.Body, &body)
	switch {
	case req.Header.Get("x-ms-documentdb-partitionkey") != "":
		t.Errorf("prefix query sent partition key %q", req.Header.Get("x-ms-documentdb-partitionkey"))
	case body.Query != "SELECT * FROM c WHERE c.tenant = @pk0" || len(body.Parameters) != 1 || body.Parameters[0].Value != "t1":
		t.Errorf("prefix query sent %+v", body)
	case req.Header.Get("x-ms-documentdb-query-enablecrosspartition") != "true":
		t.Errorf("prefix query is not cross-partition")
	case req.Header.Get("x-ms-max-item-count") != "7" || req.Header.Get("x-ms-continuation") != "opaque-token":
		t.Errorf("page size %q, continuation %q", req.Header.Get("x-ms-max-item-count"), req.Header.Get("x-ms-continuation"))
	}
	if len(p.Items) != 2 || p.Items[1].ID != "b" || !p.Items[1].PartitionKey.Equal(store.PartitionKey{"t1", "u2"}) || p.Items[1].ETag != `"f"` {
		t.Errorf("items %+v", p.Items)
	}
	if p.Continuation != `{"token":"+RID:~abc#RT:1","range":{"min":"","max":"FF"}}` || cost.Scope != store.Prefix || cost.Requests != 1 {
		t.Errorf("continuation %q, cost %+v", p.Continuation, cost)
	}

	n = rec.count()
	if _, err := c.Query(t.Context(), store.Query{PartitionKey: store.PartitionKey{"t1", "u1"}, PageSize: 3, OrderBy: []store.Order{{Field: "n"}}}); err != nil {
		t.Fatal(err)
	}
	req = rec.since(n)[0]
	_ = json.Unmarshal(req.Body, &body)
	if req.Header.Get("x-ms-documentdb-partitionkey") != `["t1","u1"]` || body.Query != "SELECT * FROM c WHERE c.tenant = @pk0 AND c.user = @pk1 ORDER BY c.n ASC" {
		t.Errorf("full-key query sent key %q, %q", req.Header.Get("x-ms-documentdb-partitionkey"), body.Query)
	}
}

// TestQueryBadContinuation: Cosmos DB answers a malformed continuation with
// 400, which the API reports as a bad request.
func TestQueryBadContinuation(t *testing.T) {
	f := newFake(t, "db")
	f.docs = func(r *http.Request, _ []byte) *http.Response {
		return response(r, 400, `{"code":"BadRequest","message":"Invalid Continuation Token"}`)
	}
	s, _ := openFake(t, f, flatSpec)
	c, _ := s.Container(t.Context(), "flat")
	_, err := c.Query(t.Context(), store.Query{PartitionKey: store.PartitionKey{"p1"}, PageSize: 5, Continuation: "%%%"})
	wantKind(t, err, todo.Invalid)
}

// TestChangeFeedIncremental covers the path the server cannot: the
// continuation goes back as If-None-Match, new changes come back in the
// service's order with the next continuation, 304 means nothing new.
func TestChangeFeedIncremental(t *testing.T) {
	f := newFake(t, "db")
	var seen []string
	f.docs = func(r *http.Request, _ []byte) *http.Response {
		if !strings.EqualFold(r.Header.Get("A-IM"), "Incremental feed") || r.Header.Get("x-ms-documentdb-partitionkeyrangeid") != "0" {
			t.Errorf("change feed request headers %v", r.Header)
		}
		inm := r.Header.Get("If-None-Match")
		seen = append(seen, inm+"/"+r.Header.Get("x-ms-max-item-count"))
		switch inm {
		case "":
			return response(r, 200, `{"_rid":"rid-tree","Documents":[{"id":"a","tenant":"t1","user":"u1","_lsn":1},{"id":"b","tenant":"t1","user":"u1","_lsn":2}],"_count":2}`, "etag", `"2"`)
		case `"2"`:
			return response(r, 200, `{"_rid":"rid-tree","Documents":[{"id":"c","tenant":"t2","user":"u1","_lsn":5},{"id":"a","tenant":"t1","user":"u1","n":4,"_lsn":6}],"_count":2}`, "etag", `"6"`)
		default:
			return response(r, 304, "", "etag", inm)
		}
	}
	s, rec := openFake(t, f, treeSpec)
	c, _ := s.Container(t.Context(), "tree")
	first, err := c.ChangeFeed(t.Context(), "", 50)
	if err != nil {
		t.Fatal(err)
	}
	if ids := fmt.Sprint(idsOf(first.Items)); ids != "[a b]" || first.Continuation == "" {
		t.Fatalf("first read %s, continuation %q", ids, first.Continuation)
	}
	n := rec.count()
	ctx, m := store.WithMeter(t.Context())
	next, err := c.ChangeFeed(ctx, first.Continuation, 50)
	if err != nil {
		t.Fatal(err)
	}
	if ids := fmt.Sprint(idsOf(next.Items)); ids != "[c a]" || !next.Items[1].PartitionKey.Equal(store.PartitionKey{"t1", "u1"}) {
		t.Fatalf("incremental read %s", ids)
	}
	if cost := m.Cost(); cost.Requests != 1 || rec.count()-n != 1 || cost.Scope != store.CrossPartition {
		t.Fatalf("incremental read made %d requests (cost %+v)", rec.count()-n, cost)
	}
	last, err := c.ChangeFeed(t.Context(), next.Continuation, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(last.Items) != 0 || last.Continuation != next.Continuation {
		t.Fatalf("read with nothing new: %d items, continuation %q, want %q", len(last.Items), last.Continuation, next.Continuation)
	}
	if got := strings.Join(seen, " "); got != `/50 "2"/50 "6"/100` {
		t.Fatalf("If-None-Match/max-item-count sent: %s", got)
	}
	for _, r := range rec.since(n) {
		if isMetadata(r) {
			t.Fatalf("metadata request %s", r)
		}
	}
}

func idsOf(items []store.Item) []string {
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.ID
	}
	return ids
}

// TestThrottled: a 429 is retried as the SDK does, honouring
// x-ms-retry-after-ms, and surfaces as Throttled with the hint when the
// retries run out; every attempt is counted.
func TestThrottled(t *testing.T) {
	f := newFake(t, "db")
	throttle := 10
	f.docs = func(r *http.Request, _ []byte) *http.Response {
		if throttle > 0 {
			throttle--
			return response(r, 429, `{"code":"TooManyRequests"}`, "x-ms-retry-after-ms", "3", "x-ms-request-charge", "0.5")
		}
		return response(r, 200, `{"id":"a","pk":"p1"}`, "etag", `"e"`)
	}
	s, rec := openFake(t, f, flatSpec)
	c, _ := s.Container(t.Context(), "flat")
	n := rec.count()
	ctx, m := store.WithMeter(t.Context())
	_, err := c.Read(ctx, store.PartitionKey{"p1"}, "a")
	cost := m.Cost()
	wantKind(t, err, todo.Throttled)
	if todo.RetryAfter(err) != 3*time.Millisecond {
		t.Fatalf("retry after %v", todo.RetryAfter(err))
	}
	if got := rec.count() - n; got != 3 || cost.Requests != 3 || cost.Charge != 1.5 {
		t.Fatalf("%d attempts, cost %+v; want 3 (MaxRetries 2)", got, cost)
	}
	f.mu.Lock()
	throttle = 1
	f.mu.Unlock()
	ctx, m = store.WithMeter(t.Context())
	_, err = c.Read(ctx, store.PartitionKey{"p1"}, "a")
	if cost := m.Cost(); err != nil || cost.Requests != 2 {
		t.Fatalf("read after one 429: %v, cost %+v", err, cost)
	}
}

// TestUnavailable: 503 on a write is not retried across regions by the SDK
// and surfaces as Unavailable.
func TestUnavailable(t *testing.T) {
	f := newFake(t, "db")
	f.docs = func(r *http.Request, _ []byte) *http.Response {
		return response(r, 503, `{"code":"ServiceUnavailable"}`)
	}
	s, _ := openFake(t, f, flatSpec)
	c, _ := s.Container(t.Context(), "flat")
	_, err := c.Create(t.Context(), store.PartitionKey{"p1"}, doc("id", "a", "pk", "p1"))
	wantKind(t, err, todo.Unavailable)
}

// TestOpenCreatesMissing: with a key, the database and missing containers
// are created from their specs, then every container is read once.
func TestOpenCreatesMissing(t *testing.T) {
	f := newFake(t, "todoapp")
	f.addContainer("leases", "/id")
	rec := &recorder{next: f}
	ttl := -1
	specs := []store.ContainerSpec{
		{Name: "todos", PartitionKeyPaths: []string{"/userId", "/category"}, DefaultTTL: &ttl},
		{Name: "audit", PartitionKeyPaths: []string{"/entityKey"}},
		{Name: "leases", PartitionKeyPaths: []string{"/id"}},
	}
	s, err := Open(t.Context(), Config{Endpoint: fakeEndpoint(t), Key: emulatorKey, Database: "todoapp", Containers: specs, ClientOptions: fastRetries(rec)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	created := map[string]map[string]any{}
	var reads []string
	for _, r := range rec.since(0) {
		switch {
		case r.Method == http.MethodPost && strings.HasSuffix(r.Path, "/colls"):
			var props map[string]any
			_ = json.Unmarshal(r.Body, &props)
			created[props["id"].(string)] = props
		case isMetadata(r):
			reads = append(reads, r.Path)
		}
	}
	want := `{"defaultTtl":-1,"id":"todos","partitionKey":{"kind":"MultiHash","paths":["/userId","/category"],"version":2}}`
	if got, _ := json.Marshal(pick(created["todos"], "id", "partitionKey", "defaultTtl")); string(got) != want {
		t.Errorf("todos created as %s\nwant %s", got, want)
	}
	want = `{"id":"audit","partitionKey":{"kind":"Hash","paths":["/entityKey"],"version":2}}`
	if got, _ := json.Marshal(pick(created["audit"], "id", "partitionKey", "defaultTtl")); string(got) != want {
		t.Errorf("audit created as %s\nwant %s", got, want)
	}
	if len(reads) != 3 {
		t.Errorf("container reads %v, want one per container", reads)
	}
}

func pick(m map[string]any, keys ...string) map[string]any {
	out := map[string]any{}
	for _, k := range keys {
		if v, ok := m[k]; ok {
			out[k] = v
		}
	}
	return out
}

// fakeToken is a credential that never goes to Microsoft Entra ID.
type fakeToken struct{}

func (fakeToken) GetToken(context.Context, policy.TokenRequestOptions) (azcore.AccessToken, error) {
	return azcore.AccessToken{Token: "token", ExpiresOn: time.Now().Add(time.Hour)}, nil
}

// TestOpenEntraVerifies: with Entra ID nothing is created; Open fails fast
// and names what is missing or different.
func TestOpenEntraVerifies(t *testing.T) {
	specs := []store.ContainerSpec{
		{Name: "todos", PartitionKeyPaths: []string{"/userId", "/category"}},
		{Name: "audit", PartitionKeyPaths: []string{"/entityKey"}},
		{Name: "leases", PartitionKeyPaths: []string{"/id"}},
	}
	open := func(f *fakeCosmos) (*recorder, error) {
		rec := &recorder{next: f}
		s, err := Open(t.Context(), Config{Endpoint: fakeEndpoint(t), Database: "todoapp", Containers: specs, ClientOptions: fastRetries(rec), credential: fakeToken{}})
		if err == nil {
			_ = s.Close()
		}
		for _, r := range rec.since(0) {
			if r.Method != http.MethodGet {
				t.Errorf("Entra ID start-up sent %s", r)
			}
			if !strings.HasPrefix(r.Header.Get("Authorization"), "type=aad") {
				t.Errorf("%s authorised with %q", r, r.Header.Get("Authorization"))
			}
		}
		return rec, err
	}

	_, err := open(newFake(t, "todoapp"))
	if err == nil || !strings.Contains(err.Error(), "database todoapp does not exist") {
		t.Errorf("no database: %v", err)
	}

	f := newFake(t, "todoapp")
	f.addContainer("todos", "/userId")
	f.addContainer("leases", "/id")
	_, err = open(f)
	if err == nil || !strings.Contains(err.Error(), "container todos has partition key /userId, want /userId,/category") ||
		!strings.Contains(err.Error(), "container audit does not exist") || strings.Contains(err.Error(), "leases") ||
		!errors.Is(err, store.ErrPartitionKeyChanged) || !store.IsPermanent(err) {
		t.Errorf("wrong containers: %v", err)
	}

	// The todo container needs time to live on, or version documents
	// never expire.
	ttl := -1
	specs[0].DefaultTTL = &ttl
	f = newFake(t, "todoapp")
	for _, s := range specs {
		f.addContainer(s.Name, s.PartitionKeyPaths...)
	}
	f.containers["todos"] = strings.Replace(f.containers["todos"], `"defaultTtl":-1,`, "", 1)
	if _, err = open(f); err == nil || !strings.Contains(err.Error(), "container todos has time to live off") {
		t.Errorf("todo container without TTL: %v", err)
	}

	f = newFake(t, "todoapp")
	for _, s := range specs {
		f.addContainer(s.Name, s.PartitionKeyPaths...)
	}
	f.docs = genericDocs
	rec, err := open(f)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(rec.since(0)); n != 4 {
		t.Errorf("start-up made %d requests (%v), want the account and one read per container", n, rec.since(0))
	}
}

func TestOpenConfigErrors(t *testing.T) {
	for _, cfg := range []Config{
		{Database: "d"},
		{Endpoint: "https://x.documents.azure.com:443/"},
		{Endpoint: "https://x.documents.azure.com:443/", Database: "d", Credential: "password"},
		{Endpoint: "https://x.documents.azure.com:443/", Database: "d", Key: "not base64!"},
		{Endpoint: "https://x.documents.azure.com:443/", Database: "d", Containers: []store.ContainerSpec{{Name: "c", PartitionKeyPaths: []string{"/a/b"}}}},
		{Endpoint: "https://x.documents.azure.com:443/", Database: "d", Containers: []store.ContainerSpec{{Name: "c"}}},
	} {
		if _, err := Open(t.Context(), cfg); err == nil {
			t.Errorf("Open(%+v) succeeded", cfg)
		} else if cfg.Key != "" && strings.Contains(err.Error(), cfg.Key) {
			t.Errorf("the key leaked: %v", err)
		}
	}
}

// A policy rendered for Cosmos DB reads back the same: included
// properties, array elements and composite indexes.
func TestIndexingPolicyRoundTrip(t *testing.T) {
	want := &store.IndexingPolicy{Paths: []string{"type", "title"}, Arrays: []string{"tags"},
		Composite: [][]store.Order{store.TieBroken(store.Order{Field: "title"}), {{Field: "a", Desc: true}, {Field: "b"}}}}
	ip := indexingPolicy(want)
	if paths := fmt.Sprint(ip.IncludedPaths); paths != "[{/type/?} {/title/?} {/tags/[]/?}]" {
		t.Fatalf("included paths %s", paths)
	}
	if got := indexingOf(ip); !reflect.DeepEqual(got, want) {
		t.Fatalf("read back %+v, want %+v", got, want)
	}
}
