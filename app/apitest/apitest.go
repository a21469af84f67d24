// Package apitest is the HTTP API suite's client and the cases every store
// runs through the real router: the embedded store under every partition
// scheme (app tests) and the Cosmos DB adapter against a Cosmos-protocol
// server (cosmos tests).
package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/todoaudit/todo/app"
	"github.com/todoaudit/todo/config"
	"github.com/todoaudit/todo/httpapi"
)

// Written returns req with a hook that closes the channel once req is
// written to its connection: the server then has it, or has it queued,
// so that a test can act on a request in flight without sleeping.
func Written(req *http.Request) (*http.Request, <-chan struct{}) {
	wrote := make(chan struct{})
	var once sync.Once
	trace := &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) { once.Do(func() { close(wrote) }) }}
	return req.WithContext(httptrace.WithClientTrace(req.Context(), trace)), wrote
}

// Client calls a running handler as one user (dev mode's X-User-Id).
type Client struct {
	T    testing.TB
	Base string // http://host:port
	User string // sent as X-User-Id when not empty
	// Header is sent with every request.
	Header map[string]string
}

// As returns a client of the same server acting as another user.
func (c *Client) As(user string) *Client {
	d := *c
	d.User = user
	return &d
}

// noRedirects answers a redirect as it is, so that a test sees what the
// server sent rather than what a client made of it.
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// Response is a received answer.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body as an object.
func (r Response) JSON(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("body %q: %v", r.Body, err)
	}
	return m
}

// Do sends a request; body may be nil, a string (sent raw) or any value
// (sent as JSON). Extra headers come as "Name: value" strings.
func (c *Client) Do(method, path string, body any, headers ...string) Response {
	c.T.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		enc, err := json.Marshal(b)
		if err != nil {
			c.T.Fatal(err)
		}
		rd = bytes.NewReader(enc)
	}
	req, err := http.NewRequest(method, c.Base+path, rd)
	if err != nil {
		// A path net/url refuses (a malformed percent-escape) is sent as
		// it is, as an attacker would.
		p, q, _ := strings.Cut(path, "?")
		if req, err = http.NewRequest(method, c.Base+"/", rd); err != nil {
			c.T.Fatal(err)
		}
		req.URL.Opaque, req.URL.RawQuery = p, q
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.User != "" {
		req.Header.Set("X-User-Id", c.User)
	}
	for k, v := range c.Header {
		req.Header.Set(k, v)
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ":")
		req.Header.Set(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	resp, err := noRedirects.Do(req)
	if err != nil {
		c.T.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		c.T.Fatal(err)
	}
	return Response{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// Want fails unless r has the given status.
func Want(t testing.TB, r Response, status int) Response {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d; body %s", r.Status, status, r.Body)
	}
	return r
}

// Create makes a todo and returns its JSON.
func (c *Client) Create(category, title string) map[string]any {
	c.T.Helper()
	return Want(c.T, c.Do("POST", "/api/todos", map[string]any{"category": category, "title": title}), 201).JSON(c.T)
}

// ListAll pages through a list URL and returns every item.
func (c *Client) ListAll(path string) []map[string]any {
	c.T.Helper()
	var out []map[string]any
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	next := ""
	for range 1000 {
		p := path
		if next != "" {
			p += sep + "continuation=" + next
		}
		page := Want(c.T, c.Do("GET", p, nil), 200).JSON(c.T)
		for _, it := range page["items"].([]any) {
			out = append(out, it.(map[string]any))
		}
		n, _ := page["continuation"].(string)
		if n == "" {
			return out
		}
		next = n
	}
	c.T.Fatal("paging did not end")
	return nil
}

// CRUD is the core of the API suite: create, get (and 304), a conditional
// update and a stale one (412), paged lists by category, delete and 404.
// Every store passes it under every scheme it supports.
func CRUD(t *testing.T, c *Client, scheme string) {
	r := Want(t, c.Do("POST", "/api/todos", map[string]any{"category": "Grocery", "title": "milk", "tags": []string{"dairy"}}), 201)
	td := r.JSON(t)
	id := td["id"].(string)
	if r.Header.Get("Location") != "/api/todos/"+id || r.Header.Get("ETag") == "" || td["version"] != 1.0 || td["userId"] != c.User {
		t.Fatalf("create: headers %v body %s", r.Header, r.Body)
	}
	if r.Header.Get("X-Request-Charge") == "" || r.Header.Get("X-Query-Scope") == "" {
		t.Fatalf("create: no cost headers: %v", r.Header)
	}
	etag := r.Header.Get("ETag")

	g := Want(t, c.Do("GET", "/api/todos/"+id, nil), 200)
	if g.Header.Get("ETag") != etag || g.Header.Get("X-Query-Scope") != "point" || g.JSON(t)["title"] != "milk" {
		t.Fatalf("get: %v %s", g.Header, g.Body)
	}
	Want(t, c.Do("GET", "/api/todos/"+id, nil, "If-None-Match: "+etag), 304)

	u := Want(t, c.Do("PUT", "/api/todos/"+id, map[string]any{"category": "Grocery", "title": "oat milk", "isCompleted": true}, "If-Match: "+etag), 200)
	if u.JSON(t)["version"] != 2.0 || u.Header.Get("ETag") == etag {
		t.Fatalf("update: %s", u.Body)
	}
	p := Want(t, c.Do("PUT", "/api/todos/"+id, map[string]any{"category": "Grocery", "title": "x"}, "If-Match: "+etag), 412)
	if ct := p.Header.Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("412 content type %q", ct)
	}
	if got := Want(t, c.Do("GET", "/api/todos/"+id, nil), 200).JSON(t); got["title"] != "oat milk" {
		t.Fatalf("a failed conditional update changed the todo: %v", got)
	}

	for i := range 5 {
		c.Create("Household", "chore "+string(rune('a'+i)))
	}
	if got := len(c.ListAll("/api/todos?category=Household&pageSize=2")); got != 5 {
		t.Fatalf("Household paged: %d, want 5", got)
	}
	scope := Want(t, c.Do("GET", "/api/todos?category=Household", nil), 200).Header.Get("X-Query-Scope")
	if want := map[string]string{"hierarchical": "partition", "category": "partition", "synthetic": "fanout("}[scheme]; !strings.HasPrefix(scope, want) {
		t.Fatalf("%s: one category's scope %q, want %s", scheme, scope, want)
	}
	if got := len(c.ListAll("/api/todos?pageSize=4")); got != 6 {
		t.Fatalf("list all: %d, want 6", got)
	}
	if done := c.ListAll("/api/todos?isCompleted=true"); len(done) != 1 || done[0]["id"] != id {
		t.Fatalf("completed: %v", done)
	}
	if others := c.As(c.User + "-other").ListAll("/api/todos"); len(others) != 0 {
		t.Fatalf("another user lists %v", others)
	}

	Want(t, c.Do("DELETE", "/api/todos/"+id, nil, "If-Match: "+etag), 412)
	Want(t, c.Do("DELETE", "/api/todos/"+id, nil), 204)
	Want(t, c.Do("GET", "/api/todos/"+id, nil), 404)
	Want(t, c.Do("DELETE", "/api/todos/"+id, nil), 404)

	// A due date alone is midnight UTC, as the list filters read it; any
	// other form is refused in the API's words, not the time parser's.
	due := Want(t, c.Do("POST", "/api/todos", map[string]any{"category": "Grocery", "title": "due", "dueDate": "2026-12-10"}), 201).JSON(t)
	if due["dueDate"] != "2026-12-10T00:00:00Z" {
		t.Fatalf("a date-only dueDate is stored as %v", due["dueDate"])
	}
	Want(t, c.Do("DELETE", "/api/todos/"+due["id"].(string), nil), 204)
	for _, due := range []any{"10/12/2026", 5, true, map[string]any{}} {
		bad := Want(t, c.Do("POST", "/api/todos", map[string]any{"category": "Grocery", "title": "due", "dueDate": due}), 400)
		if !bytes.Contains(bad.Body, []byte("dueDate must be")) || bytes.Contains(bad.Body, []byte("2006")) || bytes.Contains(bad.Body, []byte("UnmarshalJSON")) {
			t.Fatalf("a dueDate of %v is refused with %s", due, bad.Body)
		}
	}
}

// Start runs the whole handler in-process on a free loopback port, with
// settings on top of the defaults (logs off), and stops it when the test
// ends.
func Start(t testing.TB, settings map[string]string, o *app.Options) *app.App {
	t.Helper()
	return StartLogged(t, settings, o, slog.New(slog.NewTextHandler(io.Discard, nil)))
}

// StartLogged is Start with the handler's logs going to log.
func StartLogged(t testing.TB, settings map[string]string, o *app.Options, log *slog.Logger) *app.App {
	t.Helper()
	// The data directory holds the log's signing key and anchors under
	// every store.
	kv := map[string]string{"LISTEN_ADDR": "127.0.0.1:0", "LOG_LEVEL": "error", "DATA_DIR": t.TempDir()}
	maps.Copy(kv, settings)
	cfg, err := config.Load(func(k string) (string, bool) { v, ok := kv[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	a, err := app.Start(cfg, log, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := a.Close(ctx); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	if err := a.Wait(); err != nil {
		t.Fatal(err)
	}
	return a
}

// Gone covers ids whose todo is gone. A deleted id comes back only with
// If-None-Match: * (which never overwrites) or a rollback; an id whose todo
// was moved away refuses unconditional PUT, PATCH, DELETE, rollback and a
// retried move with 409 and its new id in Location, and the todo stays
// listed once.
func Gone(t *testing.T, c *Client, scheme string) {
	body := map[string]any{"category": "Grocery", "title": "gone " + c.User}
	id := Want(t, c.Do("POST", "/api/todos", body), 201).JSON(t)["id"].(string)
	Want(t, c.Do("PUT", "/api/todos/"+id, body, "If-None-Match: *"), 412)
	Want(t, c.Do("DELETE", "/api/todos/"+id, nil), 204)
	if r := Want(t, c.Do("PUT", "/api/todos/"+id, body), 409); !strings.Contains(string(r.Body), "If-None-Match") {
		t.Fatalf("re-creating a deleted id: %s", r.Body)
	}
	if v := Want(t, c.Do("PUT", "/api/todos/"+id, body, "If-None-Match: *"), 201).JSON(t)["version"]; v != 3.0 {
		t.Fatalf("re-created todo is version %v, want 3", v)
	}
	if scheme == "synthetic" {
		return
	}
	mv := Want(t, c.Do("POST", "/api/todos/"+id+"/move", map[string]any{"category": "Household"}), 201)
	newID := mv.JSON(t)["id"].(string)
	for _, rq := range []struct {
		method, path string
		body         any
		headers      []string
	}{
		{"PUT", "/api/todos/" + id, body, nil},
		{"PATCH", "/api/todos/" + id, `{"title":"patched"}`, []string{"Content-Type: application/merge-patch+json"}},
		{"DELETE", "/api/todos/" + id, nil, nil},
		{"POST", "/api/todos/" + id + "/rollback", map[string]any{"version": 1}, nil},
		{"POST", "/api/todos/" + id + "/move", map[string]any{"category": "Household"}, nil}, // the move, retried
		{"POST", "/api/todos/" + id + "/move", map[string]any{"category": "Work"}, nil},
	} {
		r := Want(t, c.Do(rq.method, rq.path, rq.body, rq.headers...), 409)
		if r.Header.Get("Location") != "/api/todos/"+newID || r.Header.Get("Content-Type") != "application/problem+json" {
			t.Fatalf("%s %s on a moved id: %v %s", rq.method, rq.path, r.Header, r.Body)
		}
	}
	var ids []any
	for _, it := range c.ListAll("/api/todos") {
		if it["title"] == body["title"] {
			ids = append(ids, it["id"])
		}
	}
	if len(ids) != 1 || ids[0] != newID {
		t.Fatalf("after refused writes to the old id, listed %v, want only %s", ids, newID)
	}
}

// Proof checks what the hash chain gives a caller: history items link each
// version to the one before, histories verify (a moved todo's across both
// ids), and asOf reads a todo as it was. settle must bring the audit
// history up to date with the writes.
func Proof(t *testing.T, c *Client, scheme string, settle func()) {
	id := c.Create("Grocery", "proof v1")["id"].(string)
	time.Sleep(3 * time.Millisecond) // versions are stamped to the millisecond
	between := time.Now()
	time.Sleep(3 * time.Millisecond)
	Want(t, c.Do("PUT", "/api/todos/"+id, map[string]any{"category": "Grocery", "title": "proof v2"}), 200)
	versions, newID := 2.0, ""
	if scheme != "synthetic" {
		newID = Want(t, c.Do("POST", "/api/todos/"+id+"/move", map[string]any{"category": "Household"}), 201).JSON(t)["id"].(string)
		versions = 3
	}
	settle()

	var h struct {
		Items []struct{ PrevHash, Hash string }
	}
	if err := json.Unmarshal(Want(t, c.Do("GET", "/api/todos/"+id+"/history", nil), 200).Body, &h); err != nil {
		t.Fatal(err)
	}
	if len(h.Items) != int(versions) || h.Items[0].PrevHash != "" || len(h.Items[0].Hash) != 64 || h.Items[1].PrevHash != h.Items[0].Hash {
		t.Fatalf("history links: %+v", h.Items)
	}
	if v := Want(t, c.Do("GET", "/api/todos/"+id+"/history/verify", nil), 200).JSON(t); v["verified"] != true || v["versions"] != versions {
		t.Fatalf("verify %s: %v", id, v)
	}
	if newID != "" {
		if v := Want(t, c.Do("GET", "/api/todos/"+newID+"/history/verify", nil), 200).JSON(t); v["verified"] != true || v["versions"] != 1.0 {
			t.Fatalf("verify the moved todo %s: %v", newID, v)
		}
	}
	r := Want(t, c.Do("GET", "/api/todos/"+id+"?asOf="+between.UTC().Format(time.RFC3339Nano), nil), 200)
	if got := r.JSON(t)["title"]; got != "proof v1" || r.Header.Get("X-Query-Scope") == "" {
		t.Fatalf("asOf between the versions: %v %s", r.Header, r.Body)
	}
}

// AsOfUnaudited reads todos as they were before the audit has recorded
// them: right after a create, after an update, and after a delete, with no
// wait for the audit (which may lag, or be off).
func AsOfUnaudited(t *testing.T, c *Client) {
	asOf := func(id string, at time.Time) Response {
		return c.Do("GET", "/api/todos/"+id+"?asOf="+at.UTC().Format(time.RFC3339Nano), nil)
	}
	before := time.Now().Add(-time.Second)
	id := c.Create("Grocery", "as of v1")["id"].(string)
	if got := Want(t, asOf(id, time.Now()), 200).JSON(t); got["title"] != "as of v1" || got["version"] != 1.0 {
		t.Fatalf("asOf right after the create: %v", got)
	}
	Want(t, asOf(id, before), 404)
	// Versions are stamped to the millisecond: between is a time after
	// version 1's stamp and before version 2's.
	time.Sleep(3 * time.Millisecond)
	between := time.Now()
	time.Sleep(3 * time.Millisecond)
	Want(t, c.Do("PUT", "/api/todos/"+id, map[string]any{"category": "Grocery", "title": "as of v2"}), 200)
	if got := Want(t, asOf(id, time.Now()), 200).JSON(t); got["title"] != "as of v2" {
		t.Fatalf("asOf right after the update: %v", got)
	}
	if got := Want(t, asOf(id, between), 200).JSON(t); got["title"] != "as of v1" {
		t.Fatalf("asOf between the versions: %v", got)
	}
	Want(t, c.Do("DELETE", "/api/todos/"+id, nil), 204)
	Want(t, asOf(id, time.Now()), 404)
	if got := Want(t, asOf(id, between), 200).JSON(t); got["title"] != "as of v1" {
		t.Fatalf("asOf before the delete: %v", got)
	}
}

// Edge covers what the router answers before any handler: CORS for
// origin (configured as the only CORS_ALLOWED_ORIGINS) and a refused one,
// OPTIONS and 405 with the path's Allow on every path of the route table,
// unknown and repeated query parameters refused with 400 on every route,
// and unclean paths redirected with 308 for writes too; none of it stores
// anything.
func Edge(t *testing.T, c *Client, origin string) {
	td := c.Create("Grocery", "edge")
	id := td["id"].(string)
	before := Want(t, c.Do("GET", "/api/todos/"+id, nil), 200)
	listed := len(c.ListAll("/api/todos"))

	checkCORS(t, c, origin, id)
	checkAllow(t, c, id)
	checkQueryRefused(t, c, id)
	checkUncleanPaths(t, c, id)

	after := Want(t, c.Do("GET", "/api/todos/"+id, nil), 200)
	if after.Header.Get("ETag") != before.Header.Get("ETag") || len(c.ListAll("/api/todos")) != listed {
		t.Fatalf("refused requests changed what is stored: %s, %d todos listed, %d before", after.Body, len(c.ListAll("/api/todos")), listed)
	}
}

// checkCORS checks that an allowed origin reads the answer and the
// headers it needs and a refused one gets no CORS headers, both varying
// on Origin, and the same for a preflight.
func checkCORS(t *testing.T, c *Client, origin, id string) {
	ok := Want(t, c.Do("GET", "/api/todos/"+id, nil, "Origin: "+origin), 200)
	exposed := strings.ToLower(ok.Header.Get("Access-Control-Expose-Headers"))
	if ok.Header.Get("Access-Control-Allow-Origin") != origin || !slices.Contains(ok.Header.Values("Vary"), "Origin") {
		t.Fatalf("allowed origin: %v", ok.Header)
	}
	for _, h := range []string{"etag", "location", "x-request-charge", "x-query-scope", "retry-after"} {
		if !strings.Contains(exposed, h) {
			t.Errorf("Access-Control-Expose-Headers %q lacks %s", exposed, h)
		}
	}
	refused := Want(t, c.Do("GET", "/api/todos/"+id, nil, "Origin: https://elsewhere.example"), 200)
	if refused.Header.Get("Access-Control-Allow-Origin") != "" || !slices.Contains(refused.Header.Values("Vary"), "Origin") {
		t.Fatalf("refused origin: %v", refused.Header)
	}
	// A preflight of a conditional PUT: the allowed origin gets its method
	// and headers, a refused one nothing; both get the path's Allow.
	preflight := func(from string) Response {
		return Want(t, c.Do("OPTIONS", "/api/todos/"+id, nil, "Origin: "+from,
			"Access-Control-Request-Method: PUT", "Access-Control-Request-Headers: content-type,if-match"), 204)
	}
	pf := preflight(origin)
	if pf.Header.Get("Access-Control-Allow-Origin") != origin || !strings.Contains(pf.Header.Get("Access-Control-Allow-Methods"), "PUT") ||
		!strings.Contains(strings.ToLower(pf.Header.Get("Access-Control-Allow-Headers")), "if-match") || !strings.Contains(pf.Header.Get("Allow"), "PUT") {
		t.Fatalf("preflight: %v", pf.Header)
	}
	if rf := preflight("https://elsewhere.example"); rf.Header.Get("Access-Control-Allow-Origin") != "" || rf.Header.Get("Access-Control-Allow-Methods") != "" {
		t.Fatalf("refused preflight: %v", rf.Header)
	}
}

// checkAllow checks OPTIONS and 405 on every path, with the methods the
// route table gives it.
func checkAllow(t *testing.T, c *Client, id string) {
	allow := map[string][]string{}
	var paths []string
	for _, rt := range httpapi.Routes {
		if allow[rt.Path] == nil {
			paths = append(paths, rt.Path)
		}
		allow[rt.Path] = append(allow[rt.Path], rt.Methods()...)
	}
	for _, tpl := range paths {
		p := strings.ReplaceAll(tpl, "{id}", url.PathEscape(id))
		want := strings.Join(append(allow[tpl], "OPTIONS"), ", ")
		if o := Want(t, c.Do("OPTIONS", p, nil), 204); o.Header.Get("Allow") != want || len(o.Body) != 0 {
			t.Errorf("OPTIONS %s: Allow %q, want %q", tpl, o.Header.Get("Allow"), want)
		}
		for _, m := range []string{"GET", "POST", "PUT", "DELETE", "PATCH"} {
			if slices.Contains(allow[tpl], m) {
				continue
			}
			r := c.Do(m, p, map[string]any{"category": "Grocery", "title": "not allowed"})
			if r.Status != http.StatusMethodNotAllowed || r.Header.Get("Allow") != want || r.Header.Get("Content-Type") != "application/problem+json" {
				t.Errorf("%s %s: %d Allow %q, want 405 with %q", m, tpl, r.Status, r.Header.Get("Allow"), want)
			}
			break
		}
	}
}

// checkQueryRefused checks that every route refuses a parameter it does
// not take, and one it takes given twice, before it reads the body or
// the store.
func checkQueryRefused(t *testing.T, c *Client, id string) {
	bodies := map[string]any{
		"POST /api/todos":               map[string]any{"category": "Grocery", "title": "edge query"},
		"PUT /api/todos/{id}":           map[string]any{"category": "Grocery", "title": "edge query"},
		"POST /api/todos/{id}/move":     map[string]any{"category": "Household"},
		"POST /api/todos/{id}/rollback": map[string]any{"version": 1},
	}
	for _, rt := range httpapi.Routes {
		p := strings.ReplaceAll(rt.Path, "{id}", url.PathEscape(id))
		queries := []string{"bogus=1", "code=a&code=b"}
		for _, q := range rt.Query {
			if !q.Repeatable {
				queries = append(queries, q.Name+"=1&"+q.Name+"=2")
			}
		}
		for _, q := range queries {
			if r := c.Do(rt.Method, p+"?"+q, bodies[rt.Method+" "+rt.Path]); r.Status != http.StatusBadRequest {
				t.Errorf("%s %s?%s: %d, want 400: %s", rt.Method, rt.Path, q, r.Status, r.Body)
			}
		}
	}
}

// checkUncleanPaths checks that unclean paths get 308 to the clean one,
// query kept, for writes too.
func checkUncleanPaths(t *testing.T, c *Client, id string) {
	for _, rq := range []struct {
		method, path, clean string
		body                any
	}{
		{"POST", "//api//todos", "/api/todos", map[string]any{"category": "Grocery", "title": "unclean"}},
		{"PUT", "/api/todos/./" + id + "?x=1", "/api/todos/" + id + "?x=1", map[string]any{"category": "Grocery", "title": "unclean"}},
		{"DELETE", "/api/todos/x/../" + id, "/api/todos/" + id, nil},
		{"GET", "/api//todos", "/api/todos", nil},
	} {
		r := c.Do(rq.method, rq.path, rq.body)
		if r.Status != http.StatusPermanentRedirect || r.Header.Get("Location") != rq.clean {
			t.Errorf("%s %s: %d Location %q, want 308 to %s", rq.method, rq.path, r.Status, r.Header.Get("Location"), rq.clean)
		}
	}
}
