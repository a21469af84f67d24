package apitest

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// Idempotency covers Idempotency-Key on create, move and rollback: a retry
// with the same key and body answers the first answer again (status, body,
// Location, ETag) without writing, even after the todo changed; the same
// key with another body is 422; concurrent duplicates make one todo; keys
// are per caller.
func Idempotency(t *testing.T, c *Client, scheme string) {
	body := map[string]any{"category": "Grocery", "title": "once " + c.User, "tags": []string{"x"}}
	first := Want(t, c.Do("POST", "/api/todos", body, `Idempotency-Key: "order-1"`), 201)
	id := first.JSON(t)["id"].(string)
	again := Want(t, c.Do("POST", "/api/todos", body, `Idempotency-Key: "order-1"`), 201)
	sameAnswer(t, "a retried create", first, again)
	Want(t, c.Do("PUT", "/api/todos/"+id, map[string]any{"category": "Grocery", "title": "changed since"}), 200)
	sameAnswer(t, "a create retried after a change", first, Want(t, c.Do("POST", "/api/todos", body, "Idempotency-Key: order-1"), 201))
	if n := countTitled(c, "changed since") + countTitled(c, body["title"].(string)); n != 1 {
		t.Fatalf("retried creates made %d todos, want 1", n)
	}

	other := map[string]any{"category": "Grocery", "title": "another body"}
	r := Want(t, c.Do("POST", "/api/todos", other, `Idempotency-Key: "order-1"`), 422)
	if r.Header.Get("Content-Type") != "application/problem+json" || !strings.Contains(string(r.Body), "order-1") {
		t.Fatalf("a reused key: %v %s", r.Header, r.Body)
	}
	if n := countTitled(c, "another body"); n != 0 {
		t.Fatalf("a reused key created %d todos", n)
	}

	bob := c.As(c.User + "-bob")
	theirs := Want(t, bob.Do("POST", "/api/todos", body, `Idempotency-Key: "order-1"`), 201)
	if theirs.JSON(t)["id"] == id || theirs.JSON(t)["userId"] != bob.User {
		t.Fatalf("another user's same key answered %s", theirs.Body)
	}

	concurrent(t, c, map[string]any{"category": "Household", "title": "concurrent " + c.User})

	// Rollback: the retry answers the first rollback, writing no version.
	rb := Want(t, c.Do("POST", "/api/todos/"+id+"/rollback", map[string]any{"version": 1}, "Idempotency-Key: undo-1"), 200)
	sameAnswer(t, "a retried rollback", rb, Want(t, c.Do("POST", "/api/todos/"+id+"/rollback", map[string]any{"version": 1}, "Idempotency-Key: undo-1"), 200))
	if v := Want(t, c.Do("GET", "/api/todos/"+id, nil), 200).JSON(t)["version"]; v != rb.JSON(t)["version"] {
		t.Fatalf("a retried rollback wrote version %v", v)
	}
	Want(t, c.Do("POST", "/api/todos/"+id+"/rollback", map[string]any{"version": 2}, "Idempotency-Key: undo-1"), 422)

	// Move: where the scheme refuses it, nothing is recorded and a retry
	// is refused again; elsewhere the retry answers the first move.
	move := map[string]any{"category": "Household"}
	if scheme == "synthetic" {
		Want(t, c.Do("POST", "/api/todos/"+id+"/move", move, "Idempotency-Key: move-1"), 409)
		Want(t, c.Do("POST", "/api/todos/"+id+"/move", move, "Idempotency-Key: move-1"), 409)
		return
	}
	mv := Want(t, c.Do("POST", "/api/todos/"+id+"/move", move, "Idempotency-Key: move-1"), 201)
	sameAnswer(t, "a retried move", mv, Want(t, c.Do("POST", "/api/todos/"+id+"/move", move, "Idempotency-Key: move-1"), 201))
	if n := countTitled(c, body["title"].(string)); n != 1 {
		t.Fatalf("after a retried move %d todos carry its title, want 1", n)
	}
}

// sameAnswer fails unless b repeats a: status, body, Location and ETag.
func sameAnswer(t *testing.T, what string, a, b Response) {
	t.Helper()
	for _, h := range []string{"Location", "ETag"} {
		if a.Header.Get(h) != b.Header.Get(h) {
			t.Fatalf("%s: %s %q, first answered %q", what, h, b.Header.Get(h), a.Header.Get(h))
		}
	}
	if a.Status != b.Status || !bytes.Equal(a.Body, b.Body) {
		t.Fatalf("%s answered %d %s, first %d %s", what, b.Status, b.Body, a.Status, a.Body)
	}
}

func countTitled(c *Client, title string) int {
	n := 0
	for _, td := range c.ListAll("/api/todos?pageSize=100") {
		if td["title"] == title {
			n++
		}
	}
	return n
}

// concurrent sends one create with one key from several goroutines at
// once: every answer is the one todo's 201 or 409 "in progress", and one
// todo is made.
func concurrent(t *testing.T, c *Client, body map[string]any) {
	const n = 8
	b := `{"category":"` + body["category"].(string) + `","title":"` + body["title"].(string) + `"}`
	type answer struct {
		status int
		body   string
		err    error
	}
	answers := make(chan answer, n)
	var start sync.WaitGroup
	start.Add(1)
	for range n {
		go func() {
			start.Wait()
			req, err := http.NewRequest("POST", c.Base+"/api/todos", strings.NewReader(b))
			if err != nil {
				answers <- answer{err: err}
				return
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-User-Id", c.User)
			req.Header.Set("Idempotency-Key", "same-for-all")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				answers <- answer{err: err}
				return
			}
			defer resp.Body.Close()
			got, err := io.ReadAll(resp.Body)
			answers <- answer{resp.StatusCode, string(got), err}
		}()
	}
	start.Done()
	var created []string
	for range n {
		a := <-answers
		switch {
		case a.err != nil:
			t.Fatal(a.err)
		case a.status == 201:
			created = append(created, a.body)
		case a.status != 409 || !strings.Contains(a.body, "in progress"):
			t.Fatalf("a concurrent duplicate answered %d %s", a.status, a.body)
		}
	}
	for _, got := range created {
		if got != created[0] {
			t.Fatalf("concurrent duplicates answered different todos:\n%s\n%s", created[0], got)
		}
	}
	if len(created) == 0 {
		t.Fatal("no concurrent duplicate was answered 201")
	}
	if m := countTitled(c, body["title"].(string)); m != 1 {
		t.Fatalf("%d concurrent duplicates made %d todos, want 1", n, m)
	}
}
