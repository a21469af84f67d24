package witness

import (
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/problem"
	"github.com/todoaudit/todo/transparency/witnessproto"
)

// Handler serves the witness's two routes: POST /add-checkpoint, and GET
// /<hex SHA-256 of an origin>/checkpoint, the monitoring route. Errors are
// one line of text/plain, with the statuses C2SP tlog-witness gives them;
// a stale old size gets 409 with the witness's size as the body, of type
// text/x.tlog.size.
func (w *Witness) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /add-checkpoint", func(rw http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(http.MaxBytesReader(rw, r.Body, witnessproto.MaxRequestBytes))
		if err != nil {
			writeError(rw, todo.Errorf(todo.TooLarge, "the request is larger than %d bytes", witnessproto.MaxRequestBytes))
			return
		}
		req, err := witnessproto.ParseRequest(body)
		if err != nil {
			writeError(rw, err)
			return
		}
		cosig, err := w.Add(req)
		if err != nil {
			writeError(rw, err)
			return
		}
		rw.Header().Set("Content-Type", "text/plain; charset=utf-8")
		rw.Write(cosig)
	})
	mux.HandleFunc("GET /{origin}/checkpoint", func(rw http.ResponseWriter, r *http.Request) {
		latest, err := w.Latest(r.PathValue("origin"))
		if err != nil {
			writeError(rw, err)
			return
		}
		rw.Header().Set("Content-Type", "text/plain; charset=utf-8")
		rw.Write(latest)
	})
	return mux
}

func writeError(rw http.ResponseWriter, err error) {
	var stale *witnessproto.StaleError
	if errors.As(err, &stale) {
		rw.Header().Set("Content-Type", "text/x.tlog.size")
		rw.WriteHeader(http.StatusConflict)
		io.WriteString(rw, strconv.FormatInt(stale.Size, 10)+"\n")
		return
	}
	rw.Header().Set("Content-Type", "text/plain; charset=utf-8")
	rw.Header().Set("X-Content-Type-Options", "nosniff")
	rw.WriteHeader(problem.Status(todo.KindOf(err)))
	io.WriteString(rw, todo.Message(err)+"\n")
}
