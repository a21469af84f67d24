package httpapi

import (
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"strconv"

	"github.com/todoaudit/todo"
)

// statusOf is the one table from error kinds to HTTP statuses. A throttled
// store call reaches the client as 503 with Retry-After, as Azure services
// do, rather than as a 429 the client did not cause.
var statusOf = map[todo.Kind]int{
	todo.Internal:            http.StatusInternalServerError,
	todo.Invalid:             http.StatusBadRequest,
	todo.NotFound:            http.StatusNotFound,
	todo.Conflict:            http.StatusConflict,
	todo.PreconditionFailed:  http.StatusPreconditionFailed,
	todo.TooLarge:            http.StatusRequestEntityTooLarge,
	todo.Throttled:           http.StatusServiceUnavailable,
	todo.Unavailable:         http.StatusServiceUnavailable,
	todo.NotModified:         http.StatusNotModified,
	todo.Unauthorized:        http.StatusUnauthorized,
	todo.InsufficientStorage: http.StatusInsufficientStorage,
	todo.Forbidden:           http.StatusForbidden,
}

// Problem is an RFC 9457 problem details object.
type Problem struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail"`
}

// problemType is the type URI of a kind's problems.
func problemType(k todo.Kind) string { return "urn:todoaudit:problem:" + k.String() }

// writeError answers err as problem+json. Internal errors are logged by the
// caller and shown without detail.
func writeError(w http.ResponseWriter, err error) int {
	k := todo.KindOf(err)
	status, ok := statusOf[k]
	if !ok {
		status = http.StatusInternalServerError
	}
	if status == http.StatusNotModified {
		w.WriteHeader(status)
		return status
	}
	if to := todo.MovedTo(err); to != "" {
		w.Header().Set("Location", todoPath(to))
	}
	if d := todo.RetryAfter(err); d > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(d.Seconds()))))
	} else if status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "1")
	}
	writeProblem(w, Problem{Type: problemType(k), Title: http.StatusText(status), Status: status, Detail: todo.Message(err)})
	return status
}

func writeProblem(w http.ResponseWriter, p Problem) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(p.Status)
	_, _ = w.Write(problemJSON(p))
}

// problemJSON is the body of a problem answer.
func problemJSON(p Problem) []byte {
	b, _ := json.Marshal(p)
	return append(b, '\n')
}

// errStatus is an error that carries a status no kind has (405, 415).
type errStatus struct {
	status int
	detail string
}

func (e *errStatus) Error() string { return e.detail }

// WriteError answers err as problem+json, for the parts of the handler
// that answer outside the router (while the store opens).
func WriteError(w http.ResponseWriter, err error) { writeAny(w, err) }

func writeAny(w http.ResponseWriter, err error) int {
	var es *errStatus
	if errors.As(err, &es) {
		writeProblem(w, Problem{Type: "about:blank", Title: http.StatusText(es.status), Status: es.status, Detail: es.detail})
		return es.status
	}
	return writeError(w, err)
}
