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
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/auth"
	"github.com/todoaudit/todo/azfunc"
	"github.com/todoaudit/todo/health"
	"github.com/todoaudit/todo/internal/clip"
	"github.com/todoaudit/todo/internal/deadline"
	"github.com/todoaudit/todo/internal/header"
	"github.com/todoaudit/todo/problem"
	"github.com/todoaudit/todo/service"
	"github.com/todoaudit/todo/store"
	"github.com/todoaudit/todo/telemetry"
	"github.com/todoaudit/todo/telemetry/partitionload"
	"github.com/todoaudit/todo/transparency"
)

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
	// Reconcile) to their handlers, served at POST /{name}: under the
	// Functions host only, whose loopback port no one else talks to.
	// Standalone it is empty, and those paths are 404 like any other.
	Invocations map[string]http.Handler
	// MaxPayloadBytes limits invocation bodies: 413 above it, and never
	// more than that read.
	MaxPayloadBytes int64
	Log             *slog.Logger
	// StoreName is reported by /api/health.
	StoreName string
	// Partitions is the live per-partition load served at
	// /api/manage/partitions; nil disables it.
	Partitions *partitionload.Recorder
	// Hosted is set under the Functions host, where this process is one of
	// the app's instances: the partition view then names the query that
	// sees the load of all of them.
	Hosted bool
	// Telemetry traces requests and invocations and records their
	// metrics; nil records nothing.
	Telemetry *telemetry.Telemetry
	// CORS is the policy for browsers; the zero value answers no CORS.
	CORS CORS
	// Transparency is the transparency log the /api/log routes serve; nil
	// when there is none.
	Transparency *transparency.Log
}

// api holds the handlers' dependencies.
type api struct {
	Config
	// payloadTurns admits maxPayloadsAtOnce invocations at a time.
	payloadTurns chan struct{}
	// pageTurns admits maxPagesAtOnce paged answers at a time.
	pageTurns chan struct{}
	router    *router
}

// New returns the handler: the API routes, the payload-mode functions at
// POST /{name}, and GET / for the host's readiness poll, behind the CORS
// policy when one is configured.
func New(c Config) http.Handler {
	a := &api{Config: c, payloadTurns: make(chan struct{}, maxPayloadsAtOnce), pageTurns: make(chan struct{}, maxPagesAtOnce), router: newRouter(Routes)}
	return withCORS(a, c.CORS)
}

// Requests that match no route are answered through these, so that they
// are logged and answered as problems like any other.
var (
	notFound = Route{serve: func(_ *api, _ context.Context, _ http.ResponseWriter, r *http.Request, _ string) error {
		return todo.Errorf(todo.NotFound, "no route for %s", clip.String(r.URL.Path))
	}}
	methodNotAllowed = Route{serve: func(_ *api, _ context.Context, _ http.ResponseWriter, r *http.Request, _ string) error {
		return todo.Errorf(todo.MethodNotAllowed, "%s is not allowed on %s", clip.String(r.Method), clip.String(r.URL.Path))
	}}
	options = Route{serve: func(_ *api, _ context.Context, w http.ResponseWriter, _ *http.Request, _ string) error {
		w.WriteHeader(http.StatusNoContent)
		return nil
	}}
)

// The Allow values of the paths outside the route table.
var (
	allowInvocation = []string{http.MethodPost}
	allowReady      = []string{http.MethodGet + ", " + http.MethodHead}
)

// ServeHTTP routes a request. A path with . or .. elements or repeated
// slashes is redirected to its clean form with 308, which keeps the
// method and body: a 301 or 302 would turn a write into a GET. On a path
// of the route table, OPTIONS is answered 204 and any method the path does
// not take 405, both with Allow.
func (a *api) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.EscapedPath()
	if clean := cleanPath(p); clean != p {
		if r.URL.RawQuery != "" {
			clean += "?" + r.URL.RawQuery
		}
		w.Header().Set("Location", clean)
		w.WriteHeader(http.StatusPermanentRedirect)
		return
	}
	if e, id, ok := a.router.match(r, p); ok {
		switch {
		case e.rt != nil:
			a.serve(w, r, e.rt, id)
		case r.Method == http.MethodOptions:
			w.Header()["Allow"] = e.allow
			a.serve(w, r, &options, "")
		default:
			w.Header()["Allow"] = e.allow
			a.serve(w, r, &methodNotAllowed, "")
		}
		return
	}
	if h, ok := a.Invocations[p[1:]]; ok {
		if r.Method == http.MethodPost {
			a.invoke(w, r, p[1:], h)
			return
		}
		w.Header()["Allow"] = allowInvocation
		a.serve(w, r, &methodNotAllowed, "")
		return
	}
	if p == "/" {
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			ready(w)
			return
		}
		w.Header()["Allow"] = allowReady
		a.serve(w, r, &methodNotAllowed, "")
		return
	}
	a.serve(w, r, &notFound, "")
}

// maxPayloadsAtOnce is how many invocations are decoded at once; more
// wait their turn, so that memory stays within a small multiple of
// MaxPayloadBytes however many the host sends in parallel.
const maxPayloadsAtOnce = 1

// bounded serves an invocation, refusing a body over MaxPayloadBytes: at
// once when its length says so, or as soon as that much has been read of a
// chunked one.
func (a *api) bounded(w http.ResponseWriter, r *http.Request, h http.Handler) {
	if r.ContentLength > a.MaxPayloadBytes {
		azfunc.WriteFailure(w, &http.MaxBytesError{Limit: a.MaxPayloadBytes})
		return
	}
	select {
	case a.payloadTurns <- struct{}{}:
		defer func() { <-a.payloadTurns }()
	case <-r.Context().Done():
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, a.MaxPayloadBytes)
	h.ServeHTTP(w, r)
}

// ready answers the host's readiness and health polls of GET /.
func ready(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"status":"ready"}` + "\n"))
}

// statusWriter records the status a handler wrote and, as the headers go
// out, reports what the request's store calls cost so far (payload
// invocations, which answer the host, have no meter).
type statusWriter struct {
	http.ResponseWriter
	status int
	meter  *store.Meter
	// costValues holds the values of the cost headers.
	costValues *[2]string
}

// writers are reused across requests: one allocation less per request.
var writers = sync.Pool{New: func() any { return new(statusWriter) }}

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
			setCost(s.Header(), c, s.costValues)
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

// requestState is what every API request needs for its whole life, in one
// allocation: its context nodes (meter, call, caller and store deadline)
// and the values of its cost headers. It is never reused: the answer's
// headers and whatever keeps the context may refer to it after the request.
type requestState struct {
	meter      store.MeterContext
	call       telemetry.CallContext
	user       service.UserContext
	deadline   deadline.Context
	costValues [2]string
}

// call is what identifies a request or invocation of function in logs.
func call(function string, r *http.Request) telemetry.Call {
	return telemetry.Call{Function: function, InvocationID: clip.String(header.Get(r.Header, azfunc.InvocationIDHeader))}
}

// serve runs one request of a route: authentication, its query
// parameters, the {id}, the store meter behind the cost headers, errors as
// problems, panic recovery and one log line, which carries the cause of
// every error.
func (a *api) serve(w http.ResponseWriter, r *http.Request, rt *Route, rawID string) {
	start := time.Now()
	rc := new(requestState)
	meter := rc.meter.Init(r.Context())
	rc.call.Init(&rc.meter, call(rt.Function, r))
	sw := writers.Get().(*statusWriter)
	*sw = statusWriter{ResponseWriter: w, meter: meter, costValues: &rc.costValues}
	defer writers.Put(sw)
	ctx, span := a.begin(&rc.call, sw, r, rt.Function, rt.Path, "http")
	var err error
	defer a.finish(ctx, span, sw, r, rt.Function, start, &err)
	if rt.Access != auth.Anyone {
		var caller auth.Caller
		if caller, err = a.Auth.Authorize(r, rt.Access); err != nil {
			if c := auth.Challenge(err); c != "" {
				sw.Header().Set("WWW-Authenticate", c)
			}
			problem.Write(sw, err)
			return
		}
		rc.user.Init(ctx, caller.User)
		ctx = &rc.user
	}
	if r.URL.RawQuery != "" && rt.Function != "" {
		if err = rt.checkQuery(r.URL.RawQuery); err != nil {
			problem.Write(sw, err)
			return
		}
	}
	var id string
	if rawID != "" {
		if id, err = decodeID(rawID); err != nil {
			problem.Write(sw, err)
			return
		}
	}
	if a.StoreTimeout > 0 && rt.Function != "Health" {
		ctx = rc.deadline.Init(ctx, time.Now().Add(a.StoreTimeout))
		defer rc.deadline.Cancel()
	}
	if err = rt.serve(a, ctx, sw, r, id); err != nil {
		if todo.KindOf(err) == todo.Internal && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			err = todo.Wrap(todo.Unavailable, err, "the store did not answer within "+a.StoreTimeout.String())
		}
		if to := todo.MovedTo(err); to != "" {
			sw.Header().Set("Location", todoPath(to))
		}
		problem.Write(sw, err)
	}
}

// maxLoggedError bounds the error of a log line: long enough for a store's
// own account of a failure, short enough that no caller's value quoted in
// it makes the line as long as the request.
const maxLoggedError = 2048

// finish recovers a panic of the request, ends its span and logs it: an
// internal error at Error level, any other 5xx at Warn, and the cause of
// every error. The context's log handler adds the function, the host's
// invocation id and the trace.
func (a *api) finish(ctx context.Context, span trace.Span, sw *statusWriter, r *http.Request, function string, start time.Time, errp *error) {
	if p := recover(); p != nil {
		a.Log.ErrorContext(ctx, "panic", "panic", p, "stack", string(debug.Stack()))
		*errp = todo.Errorf(todo.Internal, "panic")
		if sw.status == 0 {
			problem.Write(sw, *errp)
		}
	}
	took, cost := time.Since(start), sw.meter.Cost()
	a.end(ctx, span, function, sw.status, cost, *errp, took)
	attrs := make([]slog.Attr, 0, 8)
	attrs = append(attrs, slog.String("method", clip.String(r.Method)),
		slog.String("path", clip.String(r.URL.Path)), slog.Int("status", sw.status),
		slog.Duration("duration", took))
	if cost.Touched() {
		attrs = append(attrs, slog.String("scope", cost.Scope.String()), slog.Float64("ru", cost.Charge))
	}
	level := slog.LevelInfo
	if err := *errp; err != nil {
		k := todo.KindOf(err)
		attrs = append(attrs, slog.String("error", clip.To(err.Error(), maxLoggedError)), slog.String("kind", k.String()))
		switch {
		case k == todo.Internal:
			level = slog.LevelError
		case problem.Status(k) >= http.StatusInternalServerError:
			level = slog.LevelWarn
		}
	}
	// The record is made here rather than by Logger.LogAttrs, which walks
	// the stack for the caller's source line on every call: the handler's
	// logger writes no source.
	if h := a.Log.Handler(); h.Enabled(ctx, level) {
		rec := slog.NewRecord(time.Now(), level, "request", 0)
		rec.AddAttrs(attrs...)
		_ = h.Handle(ctx, rec)
	}
}

// invoke runs a payload-mode function with its span, answering a panic as
// a problem and exporting the span before the host gets its answer.
func (a *api) invoke(w http.ResponseWriter, r *http.Request, function string, h http.Handler) {
	start := time.Now()
	sw := &statusWriter{ResponseWriter: w}
	ctx, meter := store.WithMeter(r.Context())
	ctx, span := a.begin(telemetry.WithCall(ctx, call(function, r)), sw, r, function, "", triggerOf(function))
	defer func() {
		if p := recover(); p != nil {
			a.Log.ErrorContext(ctx, "panic", "panic", p, "stack", string(debug.Stack()))
			problem.Write(sw, todo.Errorf(todo.Internal, "panic"))
		}
		a.end(ctx, span, function, sw.status, meter.Cost(), nil, time.Since(start))
		a.flush(ctx)
	}()
	a.bounded(sw, r.WithContext(ctx), h)
}

// setCost reports c in the cost headers, whose values it keeps in v.
func setCost(h http.Header, c store.Cost, v *[2]string) {
	v[0], v[1] = c.Scope.String(), strconv.FormatFloat(c.Charge, 'f', 2, 64)
	h["X-Query-Scope"] = v[0:1:1]
	h["X-Request-Charge"] = v[1:2:2]
}

// decodeID percent-decodes and validates the {id} segment of a path, so
// that a forbidden character sent encoded (%2F, %3F, %23, %5C) reaches
// validation and gets a 400 rather than a routing 404.
func decodeID(raw string) (string, error) {
	id := raw
	if strings.IndexByte(raw, '%') >= 0 {
		var err error
		if id, err = url.PathUnescape(raw); err != nil {
			return "", todo.Errorf(todo.Invalid, "id is not validly percent-encoded")
		}
	}
	if err := todo.ValidateID(id); err != nil {
		return "", err
	}
	return id, nil
}
