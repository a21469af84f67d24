package app_test

import (
	"context"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/todoaudit/todo/app/apitest"
)

// 100 rapid updates of one todo: the change feed coalesces them, the
// outbox does not, so history holds all 101 versions in order.
func TestRapidUpdatesCompleteHistory(t *testing.T) {
	forEachScheme(t, nil, func(t *testing.T, s *server, scheme string) {
		id := s.Create("Grocery", "v1")["id"].(string)
		for i := 2; i <= 101; i++ {
			want(t, s.Do("PUT", "/api/todos/"+id, map[string]any{"category": "Grocery", "title": fmt.Sprint("v", i)}), 200)
		}
		h, complete := s.history(id)
		if len(h) != 101 || !complete {
			t.Fatalf("history: %d versions, complete %v; want 101, true", len(h), complete)
		}
		for i, rec := range h {
			if rec["version"] != float64(i+1) {
				t.Fatalf("history[%d] is version %v", i, rec["version"])
			}
			if title := rec["entity"].(map[string]any)["title"]; title != fmt.Sprint("v", i+1) {
				t.Fatalf("version %d holds title %v", i+1, title)
			}
		}
		if h[0]["operation"] != "create" || h[100]["operation"] != "update" {
			t.Fatalf("operations %v … %v", h[0]["operation"], h[100]["operation"])
		}
	})
}

// Delete and rollback are versions too; rollback restores a deleted todo.
func TestDeleteAndRollback(t *testing.T) {
	forEachScheme(t, nil, func(t *testing.T, s *server, scheme string) {
		id := s.Create("Grocery", "first")["id"].(string)
		want(t, s.Do("PUT", "/api/todos/"+id, map[string]any{"category": "Grocery", "title": "second"}), 200)
		// Roll back to version 1 with If-Match: version 3 holds version 1's content.
		etag := want(t, s.Do("GET", "/api/todos/"+id, nil), 200).Header.Get("ETag")
		want(t, s.Do("POST", "/api/todos/"+id+"/rollback", map[string]any{"version": 1}, `If-Match: "0000000000000001"`), 412)
		rb := want(t, s.Do("POST", "/api/todos/"+id+"/rollback", map[string]any{"version": 1}, "If-Match: "+etag), 200).JSON(t)
		if rb["title"] != "first" || rb["version"] != 3.0 {
			t.Fatalf("rollback: %v", rb)
		}
		want(t, s.Do("DELETE", "/api/todos/"+id, nil), 204)
		// Rolling back a deleted todo re-creates it as version 5.
		rb = want(t, s.Do("POST", "/api/todos/"+id+"/rollback", map[string]any{"version": 2}), 200).JSON(t)
		if rb["title"] != "second" || rb["version"] != 5.0 {
			t.Fatalf("rollback of a deleted todo: %v", rb)
		}
		h, complete := s.history(id)
		ops := ""
		for _, rec := range h {
			ops += fmt.Sprint(rec["operation"], rec["version"], " ")
		}
		if !complete || ops != "create1 update2 rollback3 delete4 rollback5 " {
			t.Fatalf("history %q complete %v", ops, complete)
		}
	})
}

// Move gives a todo a new id in its new category, audited under both ids.
func TestMove(t *testing.T) {
	forEachScheme(t, nil, func(t *testing.T, s *server, scheme string) {
		id := s.Create("Grocery", "paint")["id"].(string)
		r := s.Do("POST", "/api/todos/"+id+"/move", map[string]any{"category": "Household"})
		if scheme == "synthetic" {
			want(t, r, 409)
			return
		}
		moved := want(t, r, 201).JSON(t)
		newID := moved["id"].(string)
		if r.Header.Get("Location") != "/api/todos/"+newID || moved["category"] != "Household" || moved["movedFrom"] != id || moved["version"] != 1.0 {
			t.Fatalf("move: %v %v", r.Header, moved)
		}
		want(t, s.Do("GET", "/api/todos/"+id, nil), 404)
		want(t, s.Do("GET", "/api/todos/"+newID, nil), 200)
		if items := s.ListAll("/api/todos"); len(items) != 1 || items[0]["id"] != newID {
			t.Fatalf("list after move: %v", items)
		}
		oldH, oldComplete := s.history(id)
		newH, newComplete := s.history(newID)
		if len(oldH) != 2 || oldH[1]["operation"] != "move" || !oldComplete {
			t.Fatalf("old history %v complete %v", oldH, oldComplete)
		}
		if oldH[1]["entity"].(map[string]any)["movingTo"] != newID {
			t.Fatalf("old history does not say where it went: %v", oldH[1])
		}
		if len(newH) != 1 || newH[0]["operation"] != "move" || !newComplete {
			t.Fatalf("new history %v complete %v", newH, newComplete)
		}
		want(t, s.Do("POST", "/api/todos/"+newID+"/move", map[string]any{"category": "Household"}), 409)
	})
}

// asOf answers a todo as it was from its history: 404 before it was
// created, each version between its writes, 404 once deleted; and an
// untouched history verifies over HTTP.
func TestAsOfAndVerify(t *testing.T) {
	forEachScheme(t, nil, func(t *testing.T, s *server, scheme string) {
		// Server times are stamped to the millisecond: keep a few between
		// each write and the instants read back.
		pause := func() time.Time {
			time.Sleep(3 * time.Millisecond)
			at := time.Now()
			time.Sleep(3 * time.Millisecond)
			return at
		}
		before := pause()
		id := s.Create("Grocery", "v1")["id"].(string)
		afterV1 := pause()
		want(t, s.Do("PUT", "/api/todos/"+id, map[string]any{"category": "Grocery", "title": "v2"}), 200)
		afterV2 := pause()
		want(t, s.Do("DELETE", "/api/todos/"+id, nil), 204)
		afterDelete := pause()
		s.history(id)

		asOf := func(at time.Time) apitest.Response {
			return s.Do("GET", "/api/todos/"+id+"?asOf="+url.QueryEscape(at.Format(time.RFC3339Nano)), nil)
		}
		want(t, asOf(before), 404)
		for at, title := range map[time.Time]string{afterV1: "v1", afterV2: "v2"} {
			r := want(t, asOf(at), 200)
			if got := r.JSON(t)["title"]; got != title {
				t.Fatalf("as of %v: title %v, want %s", at, got, title)
			}
			if r.Header.Get("X-Query-Scope") != "partition" || r.Header.Get("X-Request-Charge") == "" {
				t.Fatalf("asOf cost headers: %v", r.Header)
			}
		}
		if r := want(t, asOf(afterDelete), 404); r.Header.Get("Content-Type") != "application/problem+json" {
			t.Fatalf("asOf after deletion: %v", r.Header)
		}
		want(t, s.Do("GET", "/api/todos/"+id+"?asOf=yesterday", nil), 400)

		s.integrate()
		v := want(t, s.Do("GET", "/api/todos/"+id+"/history/verify", nil), 200)
		if string(v.Body) != `{"verified":true,"versions":3,"logged":3,"pending":0}`+"\n" || v.Header.Get("X-Query-Scope") == "" {
			t.Fatalf("verify: %s %v", v.Body, v.Header)
		}
		want(t, s.As("mallory").Do("GET", "/api/todos/"+id+"/history/verify", nil), 404)
	})
}

// The hash chain and asOf through the API, under every scheme.
func TestProof(t *testing.T) {
	forEachScheme(t, nil, func(t *testing.T, s *server, scheme string) {
		apitest.Proof(t, s.Client, scheme, func() {
			if err := s.app.DrainAudit(context.Background()); err != nil {
				t.Fatal(err)
			}
		})
	})
}

// The two forms of history and activity pages, under every scheme.
func TestHistoryForms(t *testing.T) {
	forEachScheme(t, map[string]string{"ADMIN_USERS": "root"}, func(t *testing.T, s *server, _ string) {
		apitest.HistoryForms(t, s.As("root").Client, func() {
			if err := s.app.DrainAudit(context.Background()); err != nil {
				t.Fatal(err)
			}
		})
	})
}
