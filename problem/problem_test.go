package problem

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/todoaudit/todo"
)

var statusTests = []struct {
	err        error
	status     int
	retryAfter string
	detail     string
}{
	{todo.Errorf(todo.Invalid, "title is required"), 400, "", "title is required"},
	{todo.Errorf(todo.NotFound, "todo x not found"), 404, "", "todo x not found"},
	{todo.Errorf(todo.Conflict, "exists"), 409, "", "exists"},
	{todo.Errorf(todo.PreconditionFailed, "changed"), 412, "", "changed"},
	{todo.Errorf(todo.TooLarge, "big"), 413, "", "big"},
	{&todo.Error{Kind: todo.Throttled, Message: "busy", RetryAfter: 1500 * time.Millisecond}, 503, "2", "busy"},
	{todo.Errorf(todo.Unavailable, "down"), 503, "1", "down"},
	{todo.Errorf(todo.Unauthorized, "sign in"), 401, "", "sign in"},
	{&todo.Error{Kind: todo.InsufficientStorage, Message: "disk full", RetryAfter: 10 * time.Second, Err: errSecret}, 507, "10", "disk full"},
	{todo.Errorf(todo.Forbidden, "admins only"), 403, "", "admins only"},
	{todo.Wrap(todo.Internal, errSecret, "boom"), 500, "", "An internal error occurred."},
	{errSecret, 500, "", "An internal error occurred."},
	{todo.Errorf(todo.MethodNotAllowed, "PATCH is not allowed"), 405, "", "PATCH is not allowed"},
	{todo.Errorf(todo.UnsupportedMediaType, "send JSON"), 415, "", "send JSON"},
	{todo.Errorf(todo.Unprocessable, "key reused"), 422, "", "key reused"},
}

type secretErr struct{}

func (secretErr) Error() string { return "connection string AccountKey=xyz" }

var errSecret = secretErr{}

// Every kind has its status, a throttled store call reaches the client as
// 503 with Retry-After, and internal details never leak.
func TestStatusTable(t *testing.T) {
	for _, tc := range statusTests {
		w := httptest.NewRecorder()
		if got := Write(w, tc.err); got != tc.status {
			t.Errorf("%v: Write returned %d", tc.err, got)
		}
		var p Problem
		if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		if w.Code != tc.status || p.Status != tc.status || p.Detail != tc.detail || w.Header().Get("Retry-After") != tc.retryAfter {
			t.Errorf("%v: %d %+v Retry-After %q; want %d %q %q", tc.err, w.Code, p, w.Header().Get("Retry-After"), tc.status, tc.detail, tc.retryAfter)
		}
		if want := "urn:todoaudit:problem:" + todo.KindOf(tc.err).String(); p.Type != want || p.Title != http.StatusText(tc.status) {
			t.Errorf("%v: type %q title %q; want %q %q", tc.err, p.Type, p.Title, want, http.StatusText(tc.status))
		}
		if w.Header().Get("Content-Type") != "application/problem+json" {
			t.Errorf("%v: Content-Type %q", tc.err, w.Header().Get("Content-Type"))
		}
	}
}

// Every kind has a status of its own in the table: none falls through to
// 500 by being forgotten.
func TestEveryKindHasAStatus(t *testing.T) {
	for k := todo.Internal; k.String() != fmt.Sprintf("kind(%d)", int(k)); k++ {
		if _, ok := statusOf[k]; !ok {
			t.Errorf("kind %v has no status", k)
		}
	}
}

// A 304 is written without a body.
func TestNotModifiedHasNoBody(t *testing.T) {
	w := httptest.NewRecorder()
	Write(w, todo.Errorf(todo.NotModified, "same"))
	if w.Code != http.StatusNotModified || w.Body.Len() != 0 || w.Header().Get("Content-Type") != "" {
		t.Fatalf("304 answered %d %q with Content-Type %q", w.Code, w.Body, w.Header().Get("Content-Type"))
	}
}
