package httpapi

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestRouteMatch(t *testing.T) {
	item := Route{Path: "/api/todos/{id}/history"}
	list := Route{Path: "/api/todos"}
	for _, tc := range []struct {
		rt     *Route
		path   string
		id     string
		wantOK bool
	}{
		{&item, "/api/todos/Grocery:x/history", "Grocery:x", true},
		{&item, "/api/todos/a%2Fb/history", "a%2Fb", true},
		{&item, "/api/todos//history", "", false},
		{&item, "/api/todos/x/history/", "", false},
		{&item, "/api/todos/x", "", false},
		{&list, "/api/todos", "", true},
		{&list, "/api/todos/", "", false},
		{&list, "/api/todosx", "", false},
		{&list, "/api", "", false},
	} {
		id, ok := tc.rt.match(tc.path)
		if ok != tc.wantOK || id != tc.id {
			t.Errorf("%s on %s = %q %v; want %q %v", tc.rt.Path, tc.path, id, ok, tc.id, tc.wantOK)
		}
	}
}

// Every route in the table has a handler and a template the router can
// match, and no two routes share a method and template.
func TestRouteTable(t *testing.T) {
	seen := map[string]bool{}
	for _, rt := range Routes {
		if rt.serve == nil || rt.Function == "" {
			t.Errorf("%s %s has no handler or function", rt.Method, rt.Path)
		}
		if _, ok := rt.match(rt.Path); !ok {
			t.Errorf("%s does not match its own template", rt.Path)
		}
		key := rt.Method + " " + rt.Path
		if seen[key] {
			t.Errorf("%s twice", key)
		}
		seen[key] = true
	}
}

// A path with . or .. elements or repeated slashes is redirected to its
// clean form, query included.
func TestUncleanPathRedirects(t *testing.T) {
	w := httptest.NewRecorder()
	New(Config{}).ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/api//todos/./x/../y?pageSize=2", nil))
	if w.Code != http.StatusMovedPermanently || w.Header().Get("Location") != "/api/todos/y?pageSize=2" {
		t.Fatalf("%d Location %q", w.Code, w.Header().Get("Location"))
	}
}
