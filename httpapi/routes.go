package httpapi

import (
	"context"
	"net/http"
	"path"
	"strings"

	"github.com/todoaudit/todo/auth"
)

// Route is one HTTP route: the function that serves it, its method, its
// path template ({id} stands for one path segment, the todo id), what it
// requires of its caller and its handler. Routes is the one route table: the router serves exactly these,
// the manifest test checks them against functions/*/function.json and the
// OpenAPI tests against openapi.json.
type Route struct {
	Function string
	Method   string
	Path     string
	Access   auth.Access
	serve    handler
}

// handler serves one request to a route, with the route's {id} already
// percent-decoded and validated ("" for routes without one). It writes the
// response only on success; an error is answered as a problem. ctx is the
// request's context with its caller, meter, trace and deadline: the
// handler uses it, not r.Context(), so that a request is not copied to
// carry it.
type handler func(a *api, ctx context.Context, w http.ResponseWriter, r *http.Request, id string) error

// Routes lists every API route, tried in this order: the most frequent
// first.
var Routes = []Route{
	{"GetTodo", http.MethodGet, "/api/todos/{id}", auth.User, (*api).get},
	{"ListTodos", http.MethodGet, "/api/todos", auth.User, (*api).list},
	{"UpsertTodo", http.MethodPost, "/api/todos", auth.User, (*api).create},
	{"UpsertTodo", http.MethodPut, "/api/todos/{id}", auth.User, (*api).put},
	{"DeleteTodo", http.MethodDelete, "/api/todos/{id}", auth.User, (*api).delete},
	{"MoveTodo", http.MethodPost, "/api/todos/{id}/move", auth.User, (*api).move},
	{"TodoHistory", http.MethodGet, "/api/todos/{id}/history", auth.User, (*api).history},
	{"VerifyHistory", http.MethodGet, "/api/todos/{id}/history/verify", auth.User, (*api).verify},
	{"HistoryDiff", http.MethodGet, "/api/todos/{id}/history/diff", auth.User, (*api).diff},
	{"HistoryExport", http.MethodGet, "/api/todos/{id}/history/export", auth.User, (*api).historyExport},
	{"RollbackTodo", http.MethodPost, "/api/todos/{id}/rollback", auth.User, (*api).rollback},
	{"AdminTodos", http.MethodGet, "/api/manage/todos", auth.Admin, (*api).admin},
	{"Partitions", http.MethodGet, "/api/manage/partitions", auth.Admin, (*api).partitions},
	{"Activity", http.MethodGet, "/api/activity", auth.User, (*api).activity},
	{"AuditActivity", http.MethodGet, "/api/manage/audit", auth.Admin, (*api).auditActivity},
	{"ActivityExport", http.MethodGet, "/api/activity/export", auth.User, (*api).myActivityExport},
	{"AuditActivityExport", http.MethodGet, "/api/manage/audit/export", auth.Admin, (*api).auditActivityExport},
	{"LegalHolds", http.MethodGet, "/api/manage/holds", auth.Admin, (*api).listHolds},
	{"LegalHolds", http.MethodPost, "/api/manage/holds", auth.Admin, (*api).createHold},
	{"LegalHolds", http.MethodDelete, "/api/manage/holds/{id}", auth.Admin, (*api).releaseHold},
	{"DeadLetters", http.MethodGet, "/api/manage/deadletters", auth.Admin, (*api).deadLetters},
	{"Health", http.MethodGet, "/api/health", auth.Anyone, (*api).health},
}

// Methods are the methods a route answers: HEAD wherever GET.
func (rt Route) Methods() []string {
	if rt.Method == http.MethodGet {
		return []string{http.MethodGet, http.MethodHead}
	}
	return []string{rt.Method}
}

func (rt *Route) allows(method string) bool {
	return method == rt.Method || (method == http.MethodHead && rt.Method == http.MethodGet)
}

const idSegment = "{id}"

// match reports whether the escaped path p fits the route's template, and
// returns the (still percent-encoded) {id} segment. It compares segment by
// segment, with no regular expression and no allocation.
func (rt *Route) match(p string) (id string, ok bool) {
	tpl := rt.Path
	for tpl != "" {
		if p == "" || p[0] != '/' {
			return "", false
		}
		tpl, p = tpl[1:], p[1:]
		want, tplRest := cut(tpl)
		got, pRest := cut(p)
		switch {
		case want == idSegment:
			if got == "" {
				return "", false
			}
			id = got
		case want != got:
			return "", false
		}
		tpl, p = tplRest, pRest
	}
	if p != "" {
		return "", false
	}
	return id, true
}

// cut splits s at its first slash: the segment before it and the rest from
// the slash on.
func cut(s string) (segment, rest string) {
	if i := strings.IndexByte(s, '/'); i >= 0 {
		return s[:i], s[i:]
	}
	return s, ""
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
	np := path.Clean(p)
	if p[len(p)-1] == '/' && np != "/" {
		np += "/"
	}
	return np
}
