package app_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/todoaudit/todo/app/apitest"
	"github.com/todoaudit/todo/internal/race"
)

func TestAPI(t *testing.T) {
	forEachScheme(t, map[string]string{"ADMIN_USERS": "alice"}, func(t *testing.T, s *server, scheme string) {
		apitest.CRUD(t, s.Client, scheme)
		// What CRUD left: alice has 5 Household todos.
		id := s.Create("Grocery", "oat milk")["id"].(string)

		// Changing the category: a conflict pointing to move where the
		// scheme keys on it, an update where it does not.
		c := s.Do("PUT", "/api/todos/"+id, map[string]any{"category": "Household", "title": "oat milk"})
		if scheme == "synthetic" {
			want(t, c, 200)
			want(t, s.Do("PUT", "/api/todos/"+id, map[string]any{"category": "Grocery", "title": "oat milk"}), 200)
		} else if want(t, c, 409); !strings.Contains(string(c.Body), "/move") {
			t.Fatalf("409 does not point to move: %s", c.Body)
		}

		// PUT to a new id creates it.
		newID := "Grocery:0b5f2a0e-0c7e-4c52-9b8e-6f9d2b7c1a11"
		if scheme == "synthetic" {
			newID = "2:0b5f2a0e-0c7e-4c52-9b8e-6f9d2b7c1a11"
		}
		cr := want(t, s.Do("PUT", "/api/todos/"+newID, map[string]any{"category": "Grocery", "title": "eggs"}), 201)
		if cr.Header.Get("Location") != "/api/todos/"+newID {
			t.Fatalf("PUT create Location %q", cr.Header.Get("Location"))
		}

		// Lists run at the cheapest scope the scheme allows.
		l := want(t, s.Do("GET", "/api/todos?category=Grocery", nil), 200)
		wantScope := map[string]string{"hierarchical": "partition", "category": "partition", "synthetic": "fanout(4)"}[scheme]
		if got := l.Header.Get("X-Query-Scope"); got != wantScope {
			t.Fatalf("category list scope %q, want %q", got, wantScope)
		}
		if n := len(l.JSON(t)["items"].([]any)); n != 2 {
			t.Fatalf("Grocery list: %d items, want 2", n)
		}
		allScope := map[string]string{"hierarchical": "prefix", "category": "cross-partition", "synthetic": "fanout(4)"}[scheme]
		if got := want(t, s.Do("GET", "/api/todos", nil), 200).Header.Get("X-Query-Scope"); got != allScope {
			t.Fatalf("list-all scope %q, want %q", got, allScope)
		}
		if got := len(s.ListAll("/api/todos?pageSize=3")); got != 7 {
			t.Fatalf("list all: %d items, want 7", got)
		}

		// The admin report spans users.
		s.As("bob").Create("Grocery", "bread")
		if got := len(s.ListAll("/api/manage/todos?pageSize=4")); got != 8 {
			t.Fatalf("admin report: %d items, want 8", got)
		}
		if got := want(t, s.Do("GET", "/api/manage/todos", nil), 200).Header.Get("X-Query-Scope"); got != "cross-partition" {
			t.Fatalf("admin scope %q", got)
		}
		// An id is unique in its partition only: where users' todos live
		// apart, two users may each have a todo of one id, with one
		// title and no due date. The sorted report pages past neither.
		if scheme != "category" {
			shared := s.As("bob").Create("Errands", "same")["id"].(string)
			want(t, s.As("carol").Do("PUT", "/api/todos/"+shared, map[string]any{"category": "Errands", "title": "same"}), 201)
			for _, sort := range []string{"title", "dueDate", "title&order=desc", "dueDate&order=desc"} {
				items := s.ListAll("/api/manage/todos?category=Errands&pageSize=1&sort=" + sort)
				owners := map[any]bool{}
				for _, it := range items {
					owners[it["userId"]] = true
				}
				if len(items) != 2 || len(owners) != 2 {
					t.Fatalf("admin report sorted by %s, a page at a time: %d todos, of %v; want bob's and carol's", sort, len(items), owners)
				}
			}
		}

		// The live partition view puts the busiest partitions first.
		hot := want(t, s.Do("GET", "/api/manage/partitions?container=todos&top=3", nil), 200).JSON(t)
		parts := hot["partitions"].([]any)
		if len(parts) == 0 || parts[0].(map[string]any)["requests"].(float64) < 5 {
			t.Fatalf("partition view: %v", hot)
		}

		// Health.
		h := want(t, s.Do("GET", "/api/health", nil), 200).JSON(t)
		if audit, _ := h["audit"].(map[string]any); h["status"] != "ok" || h["scheme"] != scheme ||
			audit["state"] != "running" || audit["lagSeconds"] == nil {
			t.Fatalf("health: %v", h)
		}
		want(t, s.Do("GET", "/", nil), 200)
	})
}

// One user can never read, list, change, roll back, move or see the
// history of another user's todos: 404, as if absent.
func TestIsolation(t *testing.T) {
	forEachScheme(t, nil, func(t *testing.T, s *server, scheme string) {
		alice, bob := s.As("alice"), s.As("bob")
		td := alice.Create("Grocery", "alice's milk")
		id := td["id"].(string)
		if _, complete := alice.history(id); !complete {
			t.Fatal("alice's history incomplete")
		}
		body := map[string]any{"category": "Grocery", "title": "bob was here"}
		want(t, bob.Do("GET", "/api/todos/"+id, nil), 404)
		want(t, bob.Do("PUT", "/api/todos/"+id, body, `If-Match: *`), 412)
		want(t, bob.Do("DELETE", "/api/todos/"+id, nil), 404)
		want(t, bob.Do("GET", "/api/todos/"+id+"/history", nil), 404)
		want(t, bob.Do("GET", "/api/todos/"+id+"/history/verify", nil), 404)
		want(t, bob.Do("GET", "/api/todos/"+id+"?asOf=2100-01-01T00:00:00Z", nil), 404)
		want(t, bob.Do("POST", "/api/todos/"+id+"/rollback", map[string]any{"version": 1}), 404)
		mv := bob.Do("POST", "/api/todos/"+id+"/move", map[string]any{"category": "Household"})
		if scheme == "synthetic" {
			want(t, mv, 409)
		} else {
			want(t, mv, 404)
		}
		for _, path := range []string{"/api/todos", "/api/todos?category=Grocery"} {
			if items := bob.ListAll(path); len(items) != 0 {
				t.Fatalf("bob lists %v", items)
			}
		}
		// A PUT by bob to alice's id creates bob's own todo, except where
		// users share partitions and the id is taken; alice's is untouched.
		if scheme == "category" {
			want(t, bob.Do("PUT", "/api/todos/"+id, body), 409)
		} else {
			want(t, bob.Do("PUT", "/api/todos/"+id, body), 201)
		}
		if got := want(t, alice.Do("GET", "/api/todos/"+id, nil), 200).JSON(t); got["title"] != "alice's milk" || got["version"] != 1.0 {
			t.Fatalf("alice's todo changed: %v", got)
		}
		if scheme != "category" {
			if got := want(t, bob.Do("GET", "/api/todos/"+id, nil), 200).JSON(t); got["userId"] != "bob" {
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

// Every character a category may hold works in ids, paths and query
// strings, escaped as net/url escapes them.
func TestQueryEscaping(t *testing.T) {
	s := startApp(t, nil)
	for _, c := range []string{"Home Office", "Café-Bar_2.0~x", "日本語", "हिन्दी"} {
		td := s.Create(c, "odd category")
		want(t, s.Do("GET", "/api/todos/"+url.PathEscape(td["id"].(string)), nil), 200)
		items := s.ListAll("/api/todos?category=" + url.QueryEscape(c))
		if len(items) != 1 || items[0]["category"] != c {
			t.Fatalf("category %q: %v", c, items)
		}
	}
}

// HEAD answers wherever GET does, with GET's status and headers and no body.
func TestHead(t *testing.T) {
	s := startApp(t, nil)
	id := s.Create("Grocery", "milk")["id"].(string)
	s.history(id)
	for _, p := range []string{"/", "/api/health", "/api/todos", "/api/todos/" + id, "/api/todos/" + id + "/history",
		"/api/manage/todos", "/api/manage/partitions", "/api/openapi.json", "/api/todos/Grocery:41500e6e-4e08-495b-9d09-824f03961f4a"} {
		get, head := s.Do("GET", p, nil), s.Do("HEAD", p, nil)
		if head.Status != get.Status || len(head.Body) != 0 {
			t.Errorf("HEAD %s: %d with %d bytes, GET gave %d", p, head.Status, len(head.Body), get.Status)
		}
		for _, h := range []string{"Content-Type", "ETag", "X-Query-Scope"} {
			if head.Header.Get(h) != get.Header.Get(h) {
				t.Errorf("HEAD %s: %s %q, GET gave %q", p, h, head.Header.Get(h), get.Header.Get(h))
			}
		}
	}
}

// Deleted and moved ids do not come back by accident, under every scheme.
func TestGoneIDs(t *testing.T) {
	forEachScheme(t, nil, func(t *testing.T, s *server, scheme string) {
		apitest.Gone(t, s.Client, scheme)
	})
}

// asOf answers from everything retained: right after a write, before the
// pump has audited it, and with the audit switched off.
func TestAsOfBeforeTheAudit(t *testing.T) {
	for _, pump := range []string{"on", "off"} {
		t.Run("pump "+pump, func(t *testing.T) {
			forEachScheme(t, map[string]string{"AUDIT_PUMP": pump}, func(t *testing.T, s *server, _ string) {
				apitest.AsOfUnaudited(t, s.Client)
			})
		})
	}
}

// The edge of the API (CORS, OPTIONS, 405, query parameters, unclean
// paths) is the same under every scheme.
func TestEdge(t *testing.T) {
	const origin = "http://127.0.0.1:5173"
	forEachScheme(t, map[string]string{"CORS_ALLOWED_ORIGINS": origin, "ADMIN_USERS": "alice"}, func(t *testing.T, s *server, _ string) {
		apitest.Edge(t, s.Client, origin)
	})
}

func TestPatch(t *testing.T) {
	forEachScheme(t, nil, func(t *testing.T, s *server, scheme string) {
		apitest.Patch(t, s.Client, scheme, func() {
			if err := s.app.DrainAudit(t.Context()); err != nil {
				t.Fatal(err)
			}
		})
	})
}

func TestQueries(t *testing.T) {
	race.Heavy(t) // thousands of sequential list requests
	forEachScheme(t, map[string]string{"ADMIN_USERS": "alice"}, func(t *testing.T, s *server, scheme string) {
		apitest.Queries(t, s.Client, scheme)
	})
}

func TestIdempotency(t *testing.T) {
	forEachScheme(t, nil, func(t *testing.T, s *server, scheme string) {
		apitest.Idempotency(t, s.Client, scheme)
	})
}
