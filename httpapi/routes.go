package httpapi

import (
	"context"
	"net/http"
	"net/url"
	"path"
	"strings"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/auth"
	"github.com/todoaudit/todo/internal/clip"
)

// Route is one HTTP route: the function that serves it, its method, its
// path template ({id} stands for one path segment, the todo id; a last
// segment {path} for one or more segments, which the handler reads from
// the request's path), what it requires of its caller, its handler and the
// query parameters it takes. Routes is the one route table: the router
// serves exactly these, the manifest test checks them against
// functions/*/function.json and the
// OpenAPI tests against openapi.json.
type Route struct {
	Function string
	Method   string
	Path     string
	Access   auth.Access
	serve    handler
	// Query lists the query parameters the route takes: any other, or one
	// of these given twice unless it is Repeatable, is refused with 400
	// before the handler runs.
	Query []Param
}

// Param is a query parameter of a route.
type Param struct {
	Name       string
	Repeatable bool
}

// params are query parameters that may each be given once.
func params(names ...string) []Param {
	out := make([]Param, len(names))
	for i, n := range names {
		out[i] = Param{Name: n}
	}
	return out
}

// functionKey is the query parameter that carries a function key (the
// host's authLevel function and admin): every route takes it once.
const functionKey = "code"

// handler serves one request to a route, with the route's {id} already
// percent-decoded and validated ("" for routes without one) and its query
// parameters checked. It writes the response only on success; an error is
// answered as a problem. ctx is the request's context with its caller,
// meter, trace and deadline: the handler uses it, not r.Context(), so that
// a request is not copied to carry it.
type handler func(a *api, ctx context.Context, w http.ResponseWriter, r *http.Request, id string) error

// The query parameters of lists and of pages.
var (
	pageQuery = params("pageSize", "continuation")
	// The pages of audit records take their form too (see recordForm).
	recordPageQuery = params("pageSize", "continuation", "form")
	// The filters of the activity views and their exports.
	activityFilters = params("since", "until", "operation", "category")
	auditFilters    = params("actor", "owner", "entityId", "operation", "category", "since", "until")
	listQuery       = append(params("category", "isCompleted", "dueBefore", "dueAfter", "q", "sort", "order", "pageSize", "continuation"),
		Param{Name: "tag", Repeatable: true})
)

// Routes lists every API route; the router tries them in this order, the
// most frequent first.
var Routes = []Route{
	{"GetTodo", http.MethodGet, "/api/todos/{id}", auth.User, (*api).get, params("asOf")},
	{"ListTodos", http.MethodGet, "/api/todos", auth.User, paged((*api).list), listQuery},
	{"UpsertTodo", http.MethodPost, "/api/todos", auth.User, (*api).create, nil},
	{"UpsertTodo", http.MethodPut, "/api/todos/{id}", auth.User, (*api).put, nil},
	{"UpsertTodo", http.MethodPatch, "/api/todos/{id}", auth.User, (*api).patch, nil},
	{"DeleteTodo", http.MethodDelete, "/api/todos/{id}", auth.User, (*api).delete, nil},
	{"MoveTodo", http.MethodPost, "/api/todos/{id}/move", auth.User, (*api).move, nil},
	{"TodoHistory", http.MethodGet, "/api/todos/{id}/history", auth.User, paged((*api).history), recordPageQuery},
	{"VerifyHistory", http.MethodGet, "/api/todos/{id}/history/verify", auth.User, paged((*api).verify), params("from", "prevHash")},
	{"HistoryDiff", http.MethodGet, "/api/todos/{id}/history/diff", auth.User, (*api).diff, params("from", "to")},
	{"HistoryExport", http.MethodGet, "/api/todos/{id}/history/export", auth.User, (*api).historyExport, nil},
	{"RollbackTodo", http.MethodPost, "/api/todos/{id}/rollback", auth.User, (*api).rollback, nil},
	{"TodoProof", http.MethodGet, "/api/todos/{id}/history/proof", auth.User, (*api).historyProof, params("version")},
	{"LogCheckpoint", http.MethodGet, "/api/log/checkpoint", auth.Anyone, (*api).logCheckpoint, nil},
	{"LogKey", http.MethodGet, "/api/log/key", auth.Anyone, (*api).logKey, nil},
	{"LogPolicy", http.MethodGet, "/api/log/policy", auth.Anyone, (*api).logPolicy, nil},
	{"LogTile", http.MethodGet, "/api/log/tile/" + restSegment, auth.Anyone, (*api).logTile, nil},
	{"LogConsistency", http.MethodGet, "/api/log/consistency", auth.Anyone, (*api).logConsistency, params("from", "to")},
	{"VerifyLog", http.MethodGet, "/api/manage/log/verify", auth.Admin, (*api).verifyLog, nil},
	{"AdminTodos", http.MethodGet, "/api/manage/todos", auth.Admin, paged((*api).admin), listQuery},
	{"Partitions", http.MethodGet, "/api/manage/partitions", auth.Admin, (*api).partitions, params("top", "container")},
	{"Activity", http.MethodGet, "/api/activity", auth.User, paged((*api).activity), append(activityFilters, recordPageQuery...)},
	{"AuditActivity", http.MethodGet, "/api/manage/audit", auth.Admin, paged((*api).auditActivity), append(auditFilters, recordPageQuery...)},
	{"ActivityExport", http.MethodGet, "/api/activity/export", auth.User, (*api).myActivityExport, activityFilters},
	{"AuditActivityExport", http.MethodGet, "/api/manage/audit/export", auth.Admin, (*api).auditActivityExport, auditFilters},
	{"LegalHolds", http.MethodGet, "/api/manage/holds", auth.Admin, (*api).listHolds, nil},
	{"LegalHolds", http.MethodPost, "/api/manage/holds", auth.Admin, (*api).createHold, nil},
	{"LegalHolds", http.MethodDelete, "/api/manage/holds/{id}", auth.Admin, (*api).releaseHold, params("reason")},
	{"Erasures", http.MethodPost, "/api/manage/erasures", auth.Admin, (*api).requestErasure, nil},
	{"Erasures", http.MethodGet, "/api/manage/erasures/{id}", auth.Admin, (*api).erasureStatus, nil},
	{"MyData", http.MethodDelete, "/api/me/data", auth.User, (*api).eraseMyData, nil},
	{"MyErasure", http.MethodGet, "/api/me/erasure", auth.User, (*api).myErasure, nil},
	{"DeadLetters", http.MethodGet, "/api/manage/deadletters", auth.Admin, paged((*api).deadLetters), pageQuery},
	{"Health", http.MethodGet, "/api/health", auth.Anyone, (*api).health, nil},
	{"OpenAPI", http.MethodGet, "/api/openapi.json", auth.Anyone, (*api).openAPI, nil},
}

// restSegment, as the last segment of a template, stands for one or more
// segments (the Functions route's catch-all {*path}): the router matches
// it as {path:.+}.
const restSegment = "{path}"

// Methods are the methods a route answers: HEAD wherever GET.
func (rt Route) Methods() []string {
	if rt.Method == http.MethodGet {
		return []string{http.MethodGet, http.MethodHead}
	}
	return []string{rt.Method}
}

// checkQuery refuses a query string that is not validly encoded, names a
// parameter the route does not take, or gives one twice that may be given
// once. The Functions host forwards a repeated parameter comma-joined;
// each route's own validation refuses that value.
func (rt *Route) checkQuery(raw string) error {
	q, err := url.ParseQuery(raw)
	if err != nil {
		return todo.Errorf(todo.Invalid, "query string is not validly encoded")
	}
	for k, vs := range q {
		p, ok := rt.param(k)
		switch {
		case !ok:
			return todo.Errorf(todo.Invalid, "unknown query parameter %q", clip.String(k))
		case len(vs) > 1 && !p.Repeatable:
			return todo.Errorf(todo.Invalid, "query parameter %s is given more than once", k)
		}
	}
	return nil
}

func (rt *Route) param(name string) (Param, bool) {
	if name == functionKey {
		return Param{Name: name}, true
	}
	for _, p := range rt.Query {
		if p.Name == name {
			return p, true
		}
	}
	return Param{}, false
}

// cleanPath is p without . and .. elements or repeated slashes, keeping a
// trailing slash: a request for another spelling is redirected to it.
func cleanPath(p string) string {
	if p == "" {
		return "/"
	}
	if p[0] != '/' {
		p = "/" + p
	}
	// Only repeated slashes and elements starting with a dot are cleaned
	// away: a path with neither is clean as it is.
	if !strings.Contains(p, "//") && !strings.Contains(p, "/.") {
		return p
	}
	np := path.Clean(p)
	if p[len(p)-1] == '/' && np != "/" {
		np += "/"
	}
	return np
}

// allowHeader is the Allow value of a path whose routes answer methods.
func allowHeader(methods []string) string {
	return strings.Join(append(methods, http.MethodOptions), ", ")
}
