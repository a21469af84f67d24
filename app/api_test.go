package app_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
)

func TestAPI(t *testing.T) {
	forEachScheme(t, nil, func(t *testing.T, s *server, scheme string) {
		// Create: 201, Location, ETag, cost headers.
		r := want(t, s.do("POST", "/api/todos", map[string]any{"category": "Grocery", "title": "milk", "tags": []string{"dairy"}}), 201)
		td := r.json(t)
		id := td["id"].(string)
		if r.header.Get("Location") != "/api/todos/"+id || r.header.Get("ETag") == "" || td["version"] != 1.0 || td["userId"] != "alice" {
			t.Fatalf("create: headers %v body %s", r.header, r.body)
		}
		if r.header.Get("X-Request-Charge") == "" || r.header.Get("X-Query-Scope") == "" {
			t.Fatalf("create: no cost headers: %v", r.header)
		}
		etag := r.header.Get("ETag")

		// Get: one point read; If-None-Match gives 304.
		g := want(t, s.do("GET", "/api/todos/"+id, nil), 200)
		if g.header.Get("ETag") != etag || g.header.Get("X-Query-Scope") != "point" || g.json(t)["title"] != "milk" {
			t.Fatalf("get: %v %s", g.header, g.body)
		}
		want(t, s.do("GET", "/api/todos/"+id, nil, "If-None-Match: "+etag), 304)
		want(t, s.do("GET", "/api/todos/"+id, nil, `If-None-Match: "other"`), 200)

		// Update with the current ETag, then a stale one.
		u := want(t, s.do("PUT", "/api/todos/"+id, map[string]any{"category": "Grocery", "title": "oat milk", "isCompleted": true}, "If-Match: "+etag), 200)
		if u.json(t)["version"] != 2.0 || u.header.Get("ETag") == etag {
			t.Fatalf("update: %s", u.body)
		}
		p := want(t, s.do("PUT", "/api/todos/"+id, map[string]any{"category": "Grocery", "title": "x"}, "If-Match: "+etag), 412)
		if ct := p.header.Get("Content-Type"); ct != "application/problem+json" {
			t.Fatalf("412 content type %q", ct)
		}
		if got := want(t, s.do("GET", "/api/todos/"+id, nil), 200).json(t); got["title"] != "oat milk" {
			t.Fatalf("a failed conditional update changed the todo: %v", got)
		}

		// Changing the category: a conflict pointing to move where the
		// scheme keys on it, an update where it does not.
		c := s.do("PUT", "/api/todos/"+id, map[string]any{"category": "Household", "title": "oat milk"})
		if scheme == "synthetic" {
			want(t, c, 200)
			want(t, s.do("PUT", "/api/todos/"+id, map[string]any{"category": "Grocery", "title": "oat milk", "isCompleted": true}), 200)
		} else if want(t, c, 409); !strings.Contains(string(c.body), "/move") {
			t.Fatalf("409 does not point to move: %s", c.body)
		}

		// PUT to a new id creates it.
		newID := "Grocery:0b5f2a0e-0c7e-4c52-9b8e-6f9d2b7c1a11"
		if scheme == "synthetic" {
			newID = "2:0b5f2a0e-0c7e-4c52-9b8e-6f9d2b7c1a11"
		}
		cr := want(t, s.do("PUT", "/api/todos/"+newID, map[string]any{"category": "Grocery", "title": "eggs"}), 201)
		if cr.header.Get("Location") != "/api/todos/"+newID {
			t.Fatalf("PUT create Location %q", cr.header.Get("Location"))
		}

		// List, by category and completion, paged to the last item.
		for i := range 7 {
			s.create("Household", fmt.Sprint("chore ", i))
		}
		all := s.listAll("/api/todos?pageSize=3")
		if len(all) != 9 {
			t.Fatalf("list all: %d items, want 9", len(all))
		}
		l := want(t, s.do("GET", "/api/todos?category=Grocery", nil), 200)
		wantScope := map[string]string{"hierarchical": "partition", "category": "partition", "synthetic": "fanout(4)"}[scheme]
		if got := l.header.Get("X-Query-Scope"); got != wantScope {
			t.Fatalf("category list scope %q, want %q", got, wantScope)
		}
		if n := len(l.json(t)["items"].([]any)); n != 2 {
			t.Fatalf("Grocery list: %d items, want 2", n)
		}
		allScope := map[string]string{"hierarchical": "prefix", "category": "cross-partition", "synthetic": "fanout(4)"}[scheme]
		if got := want(t, s.do("GET", "/api/todos", nil), 200).header.Get("X-Query-Scope"); got != allScope {
			t.Fatalf("list-all scope %q, want %q", got, allScope)
		}
		if done := s.listAll("/api/todos?isCompleted=true"); len(done) != 1 || done[0]["id"] != id {
			t.Fatalf("completed: %v", done)
		}
		if got := len(s.listAll("/api/todos?category=Household&pageSize=2")); got != 7 {
			t.Fatalf("Household paged: %d, want 7", got)
		}

		// The admin report spans users.
		s.as("bob").create("Grocery", "bread")
		if got := len(s.listAll("/api/manage/todos?pageSize=4")); got != 10 {
			t.Fatalf("admin report: %d items, want 10", got)
		}
		if got := want(t, s.do("GET", "/api/manage/todos", nil), 200).header.Get("X-Query-Scope"); got != "cross-partition" {
			t.Fatalf("admin scope %q", got)
		}

		// Delete: stale If-Match refused, then 204, then 404.
		want(t, s.do("DELETE", "/api/todos/"+id, nil, "If-Match: "+etag), 412)
		want(t, s.do("DELETE", "/api/todos/"+id, nil), 204)
		want(t, s.do("GET", "/api/todos/"+id, nil), 404)
		want(t, s.do("DELETE", "/api/todos/"+id, nil), 404)

		// The live partition view puts alice's busiest partition first.
		hot := want(t, s.do("GET", "/api/manage/partitions?container=todos&top=3", nil), 200).json(t)
		parts := hot["partitions"].([]any)
		if len(parts) == 0 || parts[0].(map[string]any)["requests"].(float64) < 5 {
			t.Fatalf("partition view: %v", hot)
		}

		// Health.
		if h := want(t, s.do("GET", "/api/health", nil), 200).json(t); h["status"] != "ok" || h["scheme"] != scheme {
			t.Fatalf("health: %v", h)
		}
		want(t, s.do("GET", "/", nil), 200)
	})
}

// One user can never read, list, change, roll back, move or see the
// history of another user's todos: 404, as if absent.
func TestIsolation(t *testing.T) {
	forEachScheme(t, nil, func(t *testing.T, s *server, scheme string) {
		alice, bob := s.as("alice"), s.as("bob")
		td := alice.create("Grocery", "alice's milk")
		id := td["id"].(string)
		if _, complete := alice.history(id); !complete {
			t.Fatal("alice's history incomplete")
		}
		body := map[string]any{"category": "Grocery", "title": "bob was here"}
		want(t, bob.do("GET", "/api/todos/"+id, nil), 404)
		want(t, bob.do("PUT", "/api/todos/"+id, body, `If-Match: *`), 412)
		want(t, bob.do("DELETE", "/api/todos/"+id, nil), 404)
		want(t, bob.do("GET", "/api/todos/"+id+"/history", nil), 404)
		want(t, bob.do("POST", "/api/todos/"+id+"/rollback", map[string]any{"version": 1}), 404)
		mv := bob.do("POST", "/api/todos/"+id+"/move", map[string]any{"category": "Household"})
		if scheme == "synthetic" {
			want(t, mv, 409)
		} else {
			want(t, mv, 404)
		}
		for _, path := range []string{"/api/todos", "/api/todos?category=Grocery"} {
			if items := bob.listAll(path); len(items) != 0 {
				t.Fatalf("bob lists %v", items)
			}
		}
		// A PUT by bob to alice's id creates bob's own todo, except where
		// users share partitions and the id is taken; alice's is untouched.
		if scheme == "category" {
			want(t, bob.do("PUT", "/api/todos/"+id, body), 409)
		} else {
			want(t, bob.do("PUT", "/api/todos/"+id, body), 201)
		}
		if got := want(t, alice.do("GET", "/api/todos/"+id, nil), 200).json(t); got["title"] != "alice's milk" || got["version"] != 1.0 {
			t.Fatalf("alice's todo changed: %v", got)
		}
		if scheme != "category" {
			if got := want(t, bob.do("GET", "/api/todos/"+id, nil), 200).json(t); got["userId"] != "bob" {
				t.Fatalf("bob's todo: %v", got)
			}
		}
		h, _ := alice.history(id)
		for _, rec := range h {
			if rec["actor"] != "alice" {
				t.Fatalf("alice's history holds %v", rec)
			}
		}
	})
}

func TestQueryEscaping(t *testing.T) {
	s := startApp(t, nil)
	s.create("a b&c=d", "odd category")
	items := s.listAll("/api/todos?category=" + url.QueryEscape("a b&c=d"))
	if len(items) != 1 {
		t.Fatalf("escaped category: %v", items)
	}
}
