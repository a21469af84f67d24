package httpapi

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/governance"
	"github.com/todoaudit/todo/service"
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

// activityOperations are the values of the operation filter: those of a
// version, and an erasure's.
var activityOperations = func() []string {
	var out []string
	for _, op := range append(slices.Clip(todo.Operations), todo.OpErase) {
		out = append(out, string(op))
	}
	return out
}()

// activityFilter reads the filters of an activity query, and returns the
// parameters as given too; admin says whether actor, owner and entityId
// may be given.
func activityFilter(r *http.Request, admin bool) (service.ActivityFilter, map[string]string, error) {
	names := []string{"since", "until", "operation", "category", "pageSize", "continuation", "form"}
	if admin {
		names = append(names, "actor", "owner", "entityId")
	}
	var f service.ActivityFilter
	q, err := queryOf(r, names...)
	if err != nil {
		return f, nil, err
	}
	for name, t := range map[string]*time.Time{"since": &f.Since, "until": &f.Until} {
		if v, ok := q[name]; ok {
			if *t, err = time.Parse(time.RFC3339Nano, v); err != nil {
				return f, q, todo.Errorf(todo.Invalid, "%s must be an RFC 3339 time, such as 2026-01-02T15:04:05Z", name)
			}
		}
	}
	if v, ok := q["operation"]; ok {
		if !slices.Contains(activityOperations, v) {
			return f, q, todo.Errorf(todo.Invalid, "operation must be one of %s", strings.Join(activityOperations, ", "))
		}
		f.Operation = todo.Operation(v)
	}
	if v, ok := q["category"]; ok {
		if err := todo.ValidateCategory(v); err != nil {
			return f, q, err
		}
		f.Category = v
	}
	if v, ok := q["entityId"]; ok {
		if err := todo.ValidateID(v); err != nil {
			return f, q, err
		}
		f.EntityID = v
	}
	for name, u := range map[string]*string{"actor": &f.Actor, "owner": &f.Owner} {
		if v, ok := q[name]; ok {
			if err := todo.ValidateUserID(v); err != nil {
				return f, q, err
			}
			*u = v
		}
	}
	if v, ok := q["pageSize"]; ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > service.MaxPageSize {
			return f, q, todo.Errorf(todo.Invalid, "pageSize must be a whole number from 1 to %d", service.MaxPageSize)
		}
		f.PageSize = n
	}
	if v, ok := q["continuation"]; ok {
		if v == "" {
			return f, q, todo.Errorf(todo.Invalid, "continuation is empty")
		}
		f.Continuation = v
	}
	form, given := q["form"]
	f.AsStored, err = recordForm(form, given)
	return f, q, err
}

func writeActivity(w http.ResponseWriter, p service.ActivityPage) {
	writeRecords(w, p.Items, p.Continuation, nil)
}

// listActivity serves GET /api/activity (the caller's own audit records)
// and, for administrators, GET /api/manage/audit (any user's).
func (a *api) listActivity(ctx context.Context, w http.ResponseWriter, r *http.Request, admin bool) error {
	f, _, err := activityFilter(r, admin)
	if err != nil {
		return err
	}
	p, err := a.Service.Activity(ctx, f, admin)
	if err == nil {
		writeActivity(w, p)
	}
	return err
}

func (a *api) activity(ctx context.Context, w http.ResponseWriter, r *http.Request, _ string) error {
	return a.listActivity(ctx, w, r, false)
}

func (a *api) auditActivity(ctx context.Context, w http.ResponseWriter, r *http.Request, _ string) error {
	return a.listActivity(ctx, w, r, true)
}

// holdInput is the body of POST /api/manage/holds.
type holdInput struct {
	UserID string `json:"userId"`
	TodoID string `json:"todoId"`
	Reason string `json:"reason"`
}

// holdsPage is the body of GET /api/manage/holds.
type holdsPage struct {
	Items []governance.Hold `json:"items"`
}

func (a *api) createHold(ctx context.Context, w http.ResponseWriter, r *http.Request, _ string) error {
	var in holdInput
	if err := a.body(r, &in); err != nil {
		return err
	}
	h, err := a.Service.CreateHold(ctx, in.UserID, in.TodoID, in.Reason)
	if err == nil {
		w.Header().Set("Location", "/api/manage/holds/"+url.PathEscape(h.ID))
		writeJSON(w, http.StatusCreated, h)
	}
	return err
}

func (a *api) listHolds(ctx context.Context, w http.ResponseWriter, r *http.Request, _ string) error {
	if _, err := queryOf(r); err != nil {
		return err
	}
	hs, err := a.Service.Holds(ctx)
	if err == nil {
		if hs == nil {
			hs = []governance.Hold{}
		}
		writeJSON(w, http.StatusOK, holdsPage{Items: hs})
	}
	return err
}

// releaseHold serves DELETE /api/manage/holds/{id}?reason=…
func (a *api) releaseHold(ctx context.Context, w http.ResponseWriter, r *http.Request, id string) error {
	q, err := queryOf(r, "reason")
	if err != nil {
		return err
	}
	if err := a.Service.ReleaseHold(ctx, id, q["reason"]); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
