package httpapi

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestRouterMatch(t *testing.T) {
	rr := newRouter([]Route{
		{Function: "TodoHistory", Method: "GET", Path: "/api/todos/{id}/history"},
		{Function: "UpsertTodo", Method: "PUT", Path: "/api/todos/{id}"},
		{Function: "GetTodo", Method: "GET", Path: "/api/todos/{id}"},
		{Function: "UpsertTodo", Method: "POST", Path: "/api/todos"},
		{Function: "ListTodos", Method: "GET", Path: "/api/todos"},
		{Function: "MoveTodo", Method: "POST", Path: "/api/todos/{id}/move"},
	})
	for _, tc := range []struct {
		method, path string
		function     string // "" for a path's other methods
		id           string
		wantOK       bool
		allow        string
	}{
		{"GET", "/api/todos/Grocery:x/history", "TodoHistory", "Grocery:x", true, ""},
		{"HEAD", "/api/todos/Grocery:x/history", "TodoHistory", "Grocery:x", true, ""},
		{"GET", "/api/todos/a%2Fb/history", "TodoHistory", "a%2Fb", true, ""},
		{"PUT", "/api/todos/x", "UpsertTodo", "x", true, ""},
		{"POST", "/api/todos", "UpsertTodo", "", true, ""},
		{"PATCH", "/api/todos/x", "", "x", true, "PUT, GET, HEAD, OPTIONS"},
		{"OPTIONS", "/api/todos", "", "", true, "POST, GET, HEAD, OPTIONS"},
		{"DELETE", "/api/todos/x/move", "", "x", true, "POST, OPTIONS"},
		{"GET", "/api/todos//history", "", "", false, ""},
		{"GET", "/api/todos/x/history/", "", "", false, ""},
		{"GET", "/api/todos/", "", "", false, ""},
		{"GET", "/api/todosx", "", "", false, ""},
		{"GET", "/api", "", "", false, ""},
	} {
		r := httptest.NewRequest(tc.method, tc.path, nil)
		e, id, ok := rr.match(r, r.URL.EscapedPath())
		fn := ""
		if e.rt != nil {
			fn = e.rt.Function
		}
		if ok != tc.wantOK || id != tc.id || fn != tc.function || strings.Join(e.allow, "") != tc.allow {
			t.Errorf("%s %s = %q %q %v allow %q; want %q %q %v allow %q", tc.method, tc.path, fn, id, ok, e.allow, tc.function, tc.id, tc.wantOK, tc.allow)
		}
	}
}

// Every route in the table has a handler, the router sends its own
// template to it, and no two routes share a method and template.
func TestRouteTable(t *testing.T) {
	rr := newRouter(Routes)
	seen := map[string]bool{}
	for i, rt := range Routes {
		if rt.serve == nil || rt.Function == "" {
			t.Errorf("%s %s has no handler or function", rt.Method, rt.Path)
		}
		if e, _, ok := rr.match(httptest.NewRequest(rt.Method, rt.Path, nil), rt.Path); !ok || e.rt != &Routes[i] {
			t.Errorf("%s %s is not routed to its own route", rt.Method, rt.Path)
		}
		key := rt.Method + " " + rt.Path
		if seen[key] {
			t.Errorf("%s twice", key)
		}
		seen[key] = true
	}
}

// A path with . or .. elements or repeated slashes is redirected to its
// clean form, query included, with 308 so that a write stays a write.
func TestUncleanPathRedirects(t *testing.T) {
	for _, method := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete} {
		w := httptest.NewRecorder()
		New(Config{}).ServeHTTP(w, httptest.NewRequest(method, "/api//todos/./x/../y?pageSize=2", nil))
		if w.Code != http.StatusPermanentRedirect || w.Header().Get("Location") != "/api/todos/y?pageSize=2" {
			t.Fatalf("%s: %d Location %q", method, w.Code, w.Header().Get("Location"))
		}
	}
}

func TestCheckQuery(t *testing.T) {
	rt := &Route{Query: []Param{{Name: "pageSize"}, {Name: "tag", Repeatable: true}}}
	for _, tc := range []struct {
		query string
		ok    bool
	}{
		{"pageSize=2", true},
		{"pageSize=2&code=key", true},
		{"tag=a&tag=b", true},
		{"pageSize=2&pageSize=3", false},
		{"code=a&code=b", false},
		{"owner=bob", false},
		{"PageSize=2", false},
		{"pageSize=%zz", false},
	} {
		if err := rt.checkQuery(tc.query); (err == nil) != tc.ok {
			t.Errorf("%q: %v, want ok %v", tc.query, err, tc.ok)
		}
	}
}

// BenchmarkRouterMatch is the router alone on a point read's path: what
// mux costs before any handler runs.
func BenchmarkRouterMatch(b *testing.B) {
	rr := newRouter(Routes)
	r := httptest.NewRequest(http.MethodGet, "/api/todos/Grocery:41500e6e-4e08-495b-9d09-824f03961f4a", nil)
	p := r.URL.EscapedPath()
	b.ReportAllocs()
	for b.Loop() {
		if e, _, ok := rr.match(r, p); !ok || e.rt == nil {
			b.Fatal("no route")
		}
	}
}

// A template whose variable is not a whole {id} segment is refused when
// the router is built, not matched wrongly later.
func TestRouterRefusesOtherVariables(t *testing.T) {
	for _, path := range []string{"/api/todos/{id:[0-9]+}", "/api/todos/x{id}", "/api/{name}"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", path)
				}
			}()
			newRouter([]Route{{Function: "F", Method: http.MethodGet, Path: path}})
		}()
	}
}
