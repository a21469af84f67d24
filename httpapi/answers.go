package httpapi

import (
	"encoding/json"
	"net/http"
	"net/url"
	"sync"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/internal/jsondoc"
	"github.com/todoaudit/todo/problem"
	"github.com/todoaudit/todo/service"
)

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		problem.Write(w, todo.Wrap(todo.Internal, err, "response does not encode"))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

func writeTodo(w http.ResponseWriter, status int, res service.Result) {
	h := w.Header()
	h["Etag"] = []string{httpETag(res.ETag)} // the canonical key, set without canonicalising it
	if status == http.StatusCreated {
		h.Set("Location", todoPath(res.Todo.ID))
	}
	writeOne(w, status, &res.Todo)
}

// bodies holds the buffers of single-todo answers between requests: Write
// copies an answer out and must not keep it.
var bodies = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledBody bounds the buffers kept in bodies, so that one large todo
// does not stay in memory after its request.
const maxPooledBody = 4 << 10

// writeOne answers the API view of t.
func writeOne(w http.ResponseWriter, status int, t *todo.Todo) {
	buf := bodies.Get().(*[]byte)
	*buf = append(t.AppendView((*buf)[:0]), '\n')
	writeBytes(w, status, *buf)
	if cap(*buf) <= maxPooledBody {
		bodies.Put(buf)
	}
}

// todoPath is the URL path of the todo id.
func todoPath(id string) string { return "/api/todos/" + url.PathEscape(id) }

// writeRecords answers a page of records, of a history or of activity,
// each appending itself without encoding/json's reflection, and then the
// members more (see appendPage); the bytes are json.Marshal's
// (TestPagesEncodeAsEncodingJSON).
func writeRecords[T todo.JSONAppender](w http.ResponseWriter, items []T, continuation string, more []byte) {
	item := func(b []byte, i int) ([]byte, error) { return items[i].AppendJSON(b) }
	b, err := appendPage(make([]byte, 0, 1024*len(items)+64), len(items), item, continuation, more)
	if err != nil {
		problem.Write(w, todo.Wrap(todo.Internal, err, "response does not encode"))
		return
	}
	writeBytes(w, http.StatusOK, append(b, '\n'))
}

// jsonType is the Content-Type of JSON answers: one value shared by every
// answer and never modified, so that setting it allocates nothing.
var jsonType = []string{"application/json"}

func writeBytes(w http.ResponseWriter, status int, b []byte) {
	w.Header()["Content-Type"] = jsonType
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// writePage answers a page of todos, each in its API view.
func writePage(w http.ResponseWriter, p service.Page) {
	item := func(b []byte, i int) ([]byte, error) { return p.Items[i].Todo.AppendView(b), nil }
	b, _ := appendPage(make([]byte, 0, 256*(len(p.Items)+1)), len(p.Items), item, p.Continuation, nil) // views always append
	writeBytes(w, http.StatusOK, append(b, '\n'))
}

// appendPage appends the body of a page answer: {"items":[…],
// "continuation":…}, the token null when there is none, then the members
// more (each with its leading comma). item appends the i-th of n items.
func appendPage(b []byte, n int, item func([]byte, int) ([]byte, error), continuation string, more []byte) ([]byte, error) {
	b = append(b, `{"items":[`...)
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = item(b, i); err != nil {
			return nil, err
		}
	}
	b = append(b, `],"continuation":`...)
	if continuation != "" {
		b = jsondoc.AppendString(b, continuation, jsondoc.JSON)
	} else {
		b = append(b, "null"...)
	}
	return append(append(b, more...), '}'), nil
}
