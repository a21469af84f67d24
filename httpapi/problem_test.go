package httpapi

import (
	"encoding/json"
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
}

type secretErr struct{}

func (secretErr) Error() string { return "connection string AccountKey=xyz" }

var errSecret = secretErr{}

// Every kind has its status, a throttled store call reaches the client as
// 503 with Retry-After, and internal details never leak.
func TestStatusTable(t *testing.T) {
	for _, tc := range statusTests {
		w := httptest.NewRecorder()
		writeError(w, tc.err)
		var p Problem
		if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		if w.Code != tc.status || p.Status != tc.status || p.Detail != tc.detail || w.Header().Get("Retry-After") != tc.retryAfter {
			t.Errorf("%v: %d %+v Retry-After %q; want %d %q %q", tc.err, w.Code, p, w.Header().Get("Retry-After"), tc.status, tc.detail, tc.retryAfter)
		}
		if w.Header().Get("Content-Type") != "application/problem+json" {
			t.Errorf("%v: Content-Type %q", tc.err, w.Header().Get("Content-Type"))
		}
	}
}
