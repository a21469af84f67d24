// Package problem answers errors over HTTP as RFC 9457 problem details
// (application/problem+json): the one table from error kinds to statuses,
// and the one writer every error answer of the handler goes through, API
// routes and payload-mode functions alike.
package problem

import (
	"encoding/json"
	"math"
	"net/http"
	"strconv"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/internal/clip"
)

// statusOf is the one table from error kinds to HTTP statuses. A throttled
// store call reaches the client as 503 with Retry-After, as Azure services
// do, rather than as a 429 the client did not cause.
var statusOf = map[todo.Kind]int{
	todo.Internal:             http.StatusInternalServerError,
	todo.Invalid:              http.StatusBadRequest,
	todo.NotFound:             http.StatusNotFound,
	todo.Conflict:             http.StatusConflict,
	todo.PreconditionFailed:   http.StatusPreconditionFailed,
	todo.TooLarge:             http.StatusRequestEntityTooLarge,
	todo.Throttled:            http.StatusServiceUnavailable,
	todo.Unavailable:          http.StatusServiceUnavailable,
	todo.NotModified:          http.StatusNotModified,
	todo.Unauthorized:         http.StatusUnauthorized,
	todo.InsufficientStorage:  http.StatusInsufficientStorage,
	todo.Forbidden:            http.StatusForbidden,
	todo.MethodNotAllowed:     http.StatusMethodNotAllowed,
	todo.UnsupportedMediaType: http.StatusUnsupportedMediaType,
}

// Status is the HTTP status of errors of kind k.
func Status(k todo.Kind) int {
	if s, ok := statusOf[k]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// Problem is an RFC 9457 problem details object.
type Problem struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail"`
}

// maxDetail bounds a detail, which may quote what the caller sent (a
// field name, a path): an answer is never as long as its request.
const maxDetail = 1024

// Of is the problem err stands for. An internal error's detail is a
// generic sentence, so nothing internal leaks.
func Of(err error) Problem {
	k := todo.KindOf(err)
	status := Status(k)
	return Problem{Type: "urn:todoaudit:problem:" + k.String(), Title: http.StatusText(status), Status: status, Detail: clip.To(todo.Message(err), maxDetail)}
}

// Write answers err as problem+json and returns the status written. The
// caller logs the cause. A 503 carries Retry-After (the store's hint, or
// one second); a 304 has no body.
func Write(w http.ResponseWriter, err error) int {
	p := Of(err)
	if p.Status == http.StatusNotModified {
		w.WriteHeader(p.Status)
		return p.Status
	}
	if d := todo.RetryAfter(err); d > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(d.Seconds()))))
	} else if p.Status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "1")
	}
	h := w.Header()
	h.Set("Content-Type", "application/problem+json")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(p.Status)
	_, _ = w.Write(JSON(p))
	return p.Status
}

// JSON is the body of a problem answer, for writers that answer below
// net/http (the listener that rewrites net/http's own refusals).
func JSON(p Problem) []byte {
	b, _ := json.Marshal(p)
	return append(b, '\n')
}
