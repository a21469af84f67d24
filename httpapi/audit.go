package httpapi

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/todoaudit/todo"
)

// queryOf reads a query string that may hold only the given parameters
// (and code, the function key), each at most once, whether repeated or,
// as the Functions host forwards it, comma-joined.
func queryOf(r *http.Request, allowed ...string) (map[string]string, error) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, todo.Errorf(todo.Invalid, "query string is not validly encoded")
	}
	out := make(map[string]string, len(q))
	for k, vs := range q {
		if k == "code" {
			continue
		}
		known := false
		for _, a := range allowed {
			known = known || a == k
		}
		switch {
		case !known:
			return nil, todo.Errorf(todo.Invalid, "unknown query parameter %q", k)
		case len(vs) > 1:
			return nil, todo.Errorf(todo.Invalid, "query parameter %s is given more than once", k)
		}
		out[k] = vs[0]
	}
	return out, nil
}

// versionParam reads a required version number parameter.
func versionParam(q map[string]string, name string) (int64, error) {
	v, ok := q[name]
	if !ok {
		return 0, todo.Errorf(todo.Invalid, "query parameter %s is required", name)
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 1 {
		return 0, todo.Errorf(todo.Invalid, "%s must be a version number, 1 or more", name)
	}
	return n, nil
}

// diff serves GET /api/todos/{id}/history/diff?from=a&to=b.
func (a *api) diff(ctx context.Context, w http.ResponseWriter, r *http.Request, id string) error {
	q, err := queryOf(r, "from", "to")
	if err != nil {
		return err
	}
	from, err := versionParam(q, "from")
	if err != nil {
		return err
	}
	to, err := versionParam(q, "to")
	if err != nil {
		return err
	}
	d, err := a.Service.Diff(ctx, id, from, to)
	if err == nil {
		writeJSON(w, http.StatusOK, d)
	}
	return err
}
