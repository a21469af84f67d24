package httpapi

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/internal/header"
	"github.com/todoaudit/todo/service"
)

// ifMatch parses an If-Match header: "" (absent), "*", or one strong ETag.
func ifMatch(r *http.Request) (string, error) {
	v := strings.TrimSpace(header.Get(r.Header, "If-Match"))
	if v == "" || v == "*" {
		return v, nil
	}
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' || strings.Count(v, `"`) != 2 {
		return "", todo.Errorf(todo.Invalid, "If-Match must be * or one quoted ETag, as returned in the ETag header")
	}
	return v, nil
}

// createOnly reads a PUT's If-None-Match: only "*" (create, never update)
// means something there, and it contradicts an If-Match.
func createOnly(r *http.Request, match string) (bool, error) {
	v := strings.TrimSpace(header.Get(r.Header, "If-None-Match"))
	switch {
	case v == "":
		return false, nil
	case v != "*":
		return false, todo.Errorf(todo.Invalid, "If-None-Match on PUT must be *")
	case match != "":
		return false, todo.Errorf(todo.Invalid, "If-Match and If-None-Match cannot be combined")
	}
	return true, nil
}

func (a *api) body(r *http.Request, v any) error {
	_, err := decodeBody(r, a.MaxBodyBytes, v)
	return err
}

// answer writes a todo result with the given status, when there was no
// error.
func answer(w http.ResponseWriter, status int, res service.Result, err error) error {
	if err == nil {
		writeTodo(w, status, res)
	}
	return err
}

func (a *api) create(ctx context.Context, w http.ResponseWriter, r *http.Request, _ string) error {
	var f todo.Fields
	idem, err := a.idempotentBody(r, &f)
	if err != nil {
		return err
	}
	var res service.Result
	if idem != nil {
		res, err = a.Service.CreateOnce(ctx, f, *idem)
	} else {
		res, err = a.Service.Create(ctx, f)
	}
	return answer(w, http.StatusCreated, res, err)
}

func (a *api) put(ctx context.Context, w http.ResponseWriter, r *http.Request, id string) error {
	match, err := ifMatch(r)
	if err != nil {
		return err
	}
	var f todo.Fields
	if err := a.body(r, &f); err != nil {
		return err
	}
	createOnly, err := createOnly(r, match)
	if err != nil {
		return err
	}
	res, err := a.Service.Put(ctx, id, f, match, createOnly)
	status := http.StatusOK
	if res.Created {
		status = http.StatusCreated
	}
	return answer(w, status, res, err)
}

func (a *api) get(ctx context.Context, w http.ResponseWriter, r *http.Request, id string) error {
	if at, ok, err := asOf(r); err != nil || ok {
		if err != nil {
			return err
		}
		res, err := a.Service.AsOf(ctx, id, at)
		if err == nil {
			writeOne(w, http.StatusOK, &res.Todo)
		}
		return err
	}
	res, err := a.Service.Get(ctx, id)
	if err != nil {
		return err
	}
	if noneMatch(header.Get(r.Header, "If-None-Match"), httpETag(res.ETag)) {
		w.Header().Set("ETag", httpETag(res.ETag))
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	writeTodo(w, http.StatusOK, res)
	return nil
}

// asOf reads GetTodo's asOf parameter: the RFC 3339 time to read the todo
// as of, from its history.
func asOf(r *http.Request) (time.Time, bool, error) {
	if r.URL.RawQuery == "" {
		return time.Time{}, false, nil
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return time.Time{}, false, todo.Errorf(todo.Invalid, "query string is not validly encoded")
	}
	vs, ok := q["asOf"]
	if !ok {
		return time.Time{}, false, nil
	}
	at, err := todo.ParseTime(vs[0])
	if err != nil {
		return time.Time{}, false, todo.Errorf(todo.Invalid, "asOf must be an RFC 3339 time, such as 2026-01-02T15:04:05Z")
	}
	return at, true, nil
}

// httpETag is a store's ETag as an HTTP entity tag: quoted. Cosmos DB's
// _etag values carry their quotes; other stores' may not.
func httpETag(s string) string {
	if s == "" || (len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"') {
		return s
	}
	return `"` + s + `"`
}

// noneMatch reports whether an If-None-Match header matches etag (weak
// comparison, as RFC 9110 requires for If-None-Match).
func noneMatch(header, etag string) bool {
	for header != "" {
		var tag string
		tag, header, _ = strings.Cut(header, ",")
		tag = strings.TrimPrefix(strings.TrimSpace(tag), "W/")
		if tag == "*" || (tag != "" && tag == etag) {
			return true
		}
	}
	return false
}

func (a *api) delete(ctx context.Context, w http.ResponseWriter, r *http.Request, id string) error {
	match, err := ifMatch(r)
	if err != nil {
		return err
	}
	err = a.Service.Delete(ctx, id, match)
	if err == nil {
		w.WriteHeader(http.StatusNoContent)
	}
	return err
}

func (a *api) rollback(ctx context.Context, w http.ResponseWriter, r *http.Request, id string) error {
	match, err := ifMatch(r)
	if err != nil {
		return err
	}
	var in struct {
		Version *int64 `json:"version"`
	}
	idem, err := a.idempotentBody(r, &in)
	if err != nil {
		return err
	}
	if in.Version == nil {
		return todo.Errorf(todo.Invalid, "version is required")
	}
	var res service.Result
	if idem != nil {
		res, err = a.Service.RollbackOnce(ctx, id, *in.Version, match, *idem)
	} else {
		res, err = a.Service.Rollback(ctx, id, *in.Version, match)
	}
	return answer(w, http.StatusOK, res, err)
}

func (a *api) move(ctx context.Context, w http.ResponseWriter, r *http.Request, id string) error {
	match, err := ifMatch(r)
	if err != nil {
		return err
	}
	var in struct {
		Category *string `json:"category"`
	}
	idem, err := a.idempotentBody(r, &in)
	if err != nil {
		return err
	}
	if in.Category == nil {
		return todo.Errorf(todo.Invalid, "category is required")
	}
	var res service.Result
	if idem != nil {
		res, err = a.Service.MoveOnce(ctx, id, *in.Category, match, *idem)
	} else {
		res, err = a.Service.Move(ctx, id, *in.Category, match)
	}
	return answer(w, http.StatusCreated, res, err)
}
