package httpapi

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
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

// buffers keeps the buffers answers are encoded into between requests,
// up to max bytes each: Write copies an answer out and must not keep it,
// and a page of records runs to tens of kilobytes that the heap would
// otherwise allocate, zero and give back to the system on every request.
type buffers struct {
	pool sync.Pool
	max  int
}

func (p *buffers) get() *[]byte {
	if b, ok := p.pool.Get().(*[]byte); ok {
		return b
	}
	return new([]byte)
}

// put keeps b for the next answer, unless it grew past p.max (one large
// answer does not stay in memory after its request).
func (p *buffers) put(b *[]byte) {
	if cap(*b) <= p.max {
		*b = (*b)[:0]
		p.pool.Put(b)
	}
}

// bodies are the buffers of single-todo answers, pages those of page
// answers.
var (
	bodies = buffers{max: 4 << 10}
	pages  = buffers{max: 256 << 10}
)

// writeOne answers the API view of t.
func writeOne(w http.ResponseWriter, status int, t *todo.Todo) {
	buf := bodies.get()
	*buf = append(t.AppendView(*buf), '\n')
	writeBytes(w, status, *buf)
	bodies.put(buf)
}

// todoPath is the URL path of the todo id.
func todoPath(id string) string { return "/api/todos/" + url.PathEscape(id) }

// writeRecords answers a page of records, of a history or of activity,
// each appending itself without encoding/json's reflection, and then the
// members more (see appendPage); the bytes are json.Marshal's
// (TestPagesEncodeAsEncodingJSON).
func writeRecords[T todo.JSONAppender](w http.ResponseWriter, items []T, continuation string, more []byte) {
	writeItems(w, len(items), func(b []byte, i int) ([]byte, error) { return items[i].AppendJSON(b) }, continuation, more)
}

// writeItems answers the page of n items appendPage writes, in a kept
// buffer.
func writeItems(w http.ResponseWriter, n int, item func([]byte, int) ([]byte, error), continuation string, more []byte) {
	buf := pages.get()
	defer pages.put(buf)
	b, err := appendPage(*buf, n, item, continuation, more)
	if err != nil {
		problem.Write(w, todo.Wrap(todo.Internal, err, "response does not encode"))
		return
	}
	*buf = append(b, '\n')
	writeBytes(w, http.StatusOK, *buf)
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
	writeItems(w, len(p.Items), func(b []byte, i int) ([]byte, error) { return p.Items[i].Todo.AppendView(b), nil }, p.Continuation, nil)
}

// appendPage appends the body of a page answer: {"items":[…],
// "continuation":…}, the token null when there is none, then the members
// more (each with its leading comma). item appends the i-th of n items.
func appendPage(b []byte, n int, item func([]byte, int) ([]byte, error), continuation string, more []byte) ([]byte, error) {
	b = append(b, `{"items":[`...)
	start := len(b)
	for i := range n {
		if i == 1 {
			// The rest are about the size of the first: room for them
			// at once, not in doublings that copy the page so far.
			b = slices.Grow(b, (len(b)-start+1)*(n-1)*9/8+len(continuation)+len(more)+32)
		}
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
