// Package httpapi is the HTTP face of the handler: the /api routes of every
// HTTP function (forwarded by the Functions host with their original path),
// the payload-mode endpoints of the non-HTTP functions, authentication,
// problem+json errors and the cost headers.
package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/gorilla/mux"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/auth"
	"github.com/todoaudit/todo/health"
	"github.com/todoaudit/todo/hotkeys"
	"github.com/todoaudit/todo/service"
	"github.com/todoaudit/todo/store"
	"github.com/todoaudit/todo/telemetry"
)

// Route is one HTTP route: the function that serves it, its method, its
// path template (mux syntax) and what it requires of its caller.
type Route struct {
	Function string
	Method   string
	Path     string
	Access   auth.Access
}

// Routes lists every route the router serves. The manifest test checks it
// against functions/*/function.json and the OpenAPI test against
// openapi.json.
// They are registered in this order, which mux tries in turn: the most
// frequent first.
var Routes = []Route{
	{"GetTodo", http.MethodGet, "/api/todos/{id}", auth.User},
	{"ListTodos", http.MethodGet, "/api/todos", auth.User},
	{"UpsertTodo", http.MethodPost, "/api/todos", auth.User},
	{"UpsertTodo", http.MethodPut, "/api/todos/{id}", auth.User},
	{"DeleteTodo", http.MethodDelete, "/api/todos/{id}", auth.User},
	{"MoveTodo", http.MethodPost, "/api/todos/{id}/move", auth.User},
	{"TodoHistory", http.MethodGet, "/api/todos/{id}/history", auth.User},
	{"VerifyHistory", http.MethodGet, "/api/todos/{id}/history/verify", auth.User},
	{"RollbackTodo", http.MethodPost, "/api/todos/{id}/rollback", auth.User},
	{"AdminTodos", http.MethodGet, "/api/manage/todos", auth.Admin},
	{"Partitions", http.MethodGet, "/api/manage/partitions", auth.Admin},
	{"DeadLetters", http.MethodGet, "/api/manage/deadletters", auth.Admin},
	{"Health", http.MethodGet, "/api/health", auth.Anyone},
}

// Methods are the methods a route answers: HEAD wherever GET.
func (rt Route) Methods() []string {
	if rt.Method == http.MethodGet {
		return []string{http.MethodGet, http.MethodHead}
	}
	return []string{rt.Method}
}

// Config wires the API.
type Config struct {
	Service *service.Service
	Auth    *auth.Authenticator
	// MaxBodyBytes limits request bodies (413 above it).
	MaxBodyBytes int64
	// StoreTimeout, when positive, bounds the store work of each API
	// request as a whole; past it the request gets 503 with Retry-After.
	StoreTimeout time.Duration
	// Health reports the handler's state for /api/health; it must not
	// block.
	Health func() health.Status
	// Invocations maps payload-mode function names (AuditTrigger,
	// Reconcile) to their handlers, served at POST /{name}.
	Invocations map[string]http.Handler
	Log         *slog.Logger
	// StoreName is reported by /api/health.
	StoreName string
	// Partitions is the live per-partition load served at
	// /api/manage/partitions; nil disables it.
	Partitions *hotkeys.Recorder
	// Telemetry traces requests and invocations and records their
	// metrics; nil records nothing.
	Telemetry *telemetry.Telemetry
}

// api holds the handlers' dependencies.
type api struct {
	Config
}

// New returns the handler's router.
func New(c Config) http.Handler {
	a := &api{c}
	r := mux.NewRouter().UseEncodedPath()
	r.NotFoundHandler = a.wrap(Route{}, func(w http.ResponseWriter, r *http.Request) error {
		return todo.Errorf(todo.NotFound, "no route for %s", r.URL.Path)
	})
	r.MethodNotAllowedHandler = a.wrap(Route{}, func(w http.ResponseWriter, r *http.Request) error {
		return &errStatus{http.StatusMethodNotAllowed, r.Method + " is not allowed on " + r.URL.Path}
	})
	r.Methods(http.MethodGet, http.MethodHead).Path("/").HandlerFunc(ready)
	handlers := map[string]handlerFunc{
		"GET /api/todos":                     a.list,
		"POST /api/todos":                    a.create,
		"PUT /api/todos/{id}":                a.put,
		"GET /api/todos/{id}":                a.get,
		"DELETE /api/todos/{id}":             a.delete,
		"POST /api/todos/{id}/move":          a.move,
		"GET /api/todos/{id}/history":        a.history,
		"GET /api/todos/{id}/history/verify": a.verify,
		"POST /api/todos/{id}/rollback":      a.rollback,
		"GET /api/manage/todos":              a.admin,
		"GET /api/manage/partitions":         a.partitions,
		"GET /api/manage/deadletters":        a.deadLetters,
		"GET /api/health":                    a.health,
	}
	for _, rt := range Routes {
		h, ok := handlers[rt.Method+" "+rt.Path]
		if !ok {
			panic("httpapi: no handler for route " + rt.Method + " " + rt.Path)
		}
		r.Methods(rt.Methods()...).Path(rt.Path).Name(rt.Function).Handler(a.wrap(rt, h))
	}
	for name, h := range c.Invocations {
		r.Methods(http.MethodPost).Path("/" + name).Name(name).Handler(a.invocation(name, triggerOf(name), a.recoverer(name, h)))
	}
	return r
}

// ready answers the host's readiness and health polls of GET /.
func ready(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"status":"ready"}` + "\n"))
}

// handlerFunc serves a request; it writes the response only on success.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// statusWriter records the status a handler wrote and, as the headers go
// out, reports what the request's store calls cost so far (payload
// invocations, which answer the host, have no meter).
type statusWriter struct {
	http.ResponseWriter
	status int
	meter  *store.Meter
}

func (s *statusWriter) cost() store.Cost {
	if s.meter == nil {
		return store.Cost{}
	}
	return s.meter.Cost()
}

func (s *statusWriter) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
		if c := s.cost(); c.Touched() {
			setCost(s.Header(), c)
		}
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.WriteHeader(http.StatusOK)
	}
	return s.ResponseWriter.Write(b)
}

// wrap adds authentication, cost headers, errors as problems, panic
// recovery, the request's span and metrics, and one log line per request,
// which carries the cause of any 5xx answer.
func (a *api) wrap(rt Route, h handlerFunc) http.Handler {
	function := rt.Function
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ctx, meter := store.WithMeter(r.Context())
		sw := &statusWriter{ResponseWriter: w, meter: meter}
		ctx, span := a.begin(ctx, sw, r, function, rt.Path, "http")
		var err error
		defer func() {
			if p := recover(); p != nil {
				a.Log.ErrorContext(ctx, "panic", "panic", p, "stack", string(debug.Stack()))
				err = todo.Errorf(todo.Internal, "panic")
				if sw.status == 0 {
					writeError(sw, err)
				}
			}
			took, cost := time.Since(start), meter.Cost()
			a.end(ctx, span, function, sw.status, cost, err, took)
			attrs := make([]slog.Attr, 0, 8)
			attrs = append(attrs, slog.String("method", r.Method),
				slog.String("path", r.URL.Path), slog.Int("status", sw.status),
				slog.Duration("duration", took))
			if cost.Touched() {
				attrs = append(attrs, slog.String("scope", cost.Scope.String()), slog.Float64("ru", cost.Charge))
			}
			level := slog.LevelInfo
			switch k := todo.KindOf(err); {
			case err != nil && k == todo.Internal:
				level = slog.LevelError
				attrs = append(attrs, slog.String("error", err.Error()), slog.String("kind", k.String()))
			case sw.status >= 500:
				level = slog.LevelWarn
				if err != nil {
					attrs = append(attrs, slog.String("error", err.Error()), slog.String("kind", k.String()))
				}
			case k == todo.Unauthorized || k == todo.Forbidden:
				// Why a caller was refused is for the logs only.
				attrs = append(attrs, slog.String("error", err.Error()))
			}
			a.Log.LogAttrs(ctx, level, "request", attrs...)
		}()
		if rt.Access != auth.Anyone {
			caller, aerr := a.Auth.Authorize(r, rt.Access)
			if aerr != nil {
				err = aerr
				if c := auth.Challenge(err); c != "" {
					sw.Header().Set("WWW-Authenticate", c)
				}
				writeAny(sw, err)
				return
			}
			ctx = service.WithUser(ctx, caller.User)
		}
		if a.StoreTimeout > 0 && function != "Health" {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, a.StoreTimeout)
			defer cancel()
		}
		if err = h(sw, r.WithContext(ctx)); err != nil {
			if todo.KindOf(err) == todo.Internal && errors.Is(ctx.Err(), context.DeadlineExceeded) {
				err = todo.Wrap(todo.Unavailable, err, "the store did not answer within "+a.StoreTimeout.String())
			}
			writeAny(sw, err)
		}
	})
}

func (a *api) recoverer(function string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if p := recover(); p != nil {
				a.Log.ErrorContext(r.Context(), "panic", "panic", p, "stack", string(debug.Stack()))
				http.Error(w, `{"error":"internal error"}`, http.StatusInternalServerError)
			}
		}()
		h.ServeHTTP(w, r)
	})
}

func setCost(h http.Header, c store.Cost) {
	h.Set("X-Query-Scope", c.Scope.String())
	h.Set("X-Request-Charge", strconv.FormatFloat(c.Charge, 'f', 2, 64))
}

// pathID returns the {id} route variable, percent-decoded, so that a
// forbidden character sent encoded (%2F, %3F, %23, %5C) reaches validation
// and gets a 400 rather than a routing 404.
func pathID(r *http.Request) (string, error) {
	id, err := url.PathUnescape(mux.Vars(r)["id"])
	if err != nil {
		return "", todo.Errorf(todo.Invalid, "id is not validly percent-encoded")
	}
	if err := todo.ValidateID(id); err != nil {
		return "", err
	}
	return id, nil
}
