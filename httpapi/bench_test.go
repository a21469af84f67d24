package httpapi_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/auth"
	"github.com/todoaudit/todo/bolt"
	"github.com/todoaudit/todo/httpapi"
	"github.com/todoaudit/todo/partition"
	"github.com/todoaudit/todo/service"
	"github.com/todoaudit/todo/store"
	"github.com/todoaudit/todo/telemetry"
	"github.com/todoaudit/todo/telemetry/partitionload"
)

func newAPI(b *testing.B) (http.Handler, string) {
	b.Helper()
	// As in production without an OTLP endpoint: telemetry set up, nothing
	// exported.
	tel, err := telemetry.New(context.Background(), func(string) (string, bool) { return "", false })
	if err != nil {
		b.Fatal(err)
	}
	return newAPIWith(b, tel)
}

// newAPIWith is the API with the given telemetry (nil: none at all).
func newAPIWith(b *testing.B, tel *telemetry.Telemetry) (http.Handler, string) {
	b.Helper()
	ttl := -1
	st, err := bolt.Open(b.TempDir(), []store.ContainerSpec{
		{Name: "todos", PartitionKeyPaths: []string{"/userId", "/category"}, DefaultTTL: &ttl},
		{Name: "audit", PartitionKeyPaths: partition.AuditKeyPaths},
	}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = st.Close() })
	// As in production, every store call is counted per partition.
	wrapped := partitionload.Wrap(st, partitionload.NewRecorder(0, 0))
	todos, _ := wrapped.Container(context.Background(), "todos")
	audit, _ := wrapped.Container(context.Background(), "audit")
	sch, _ := partition.New("hierarchical", 1, nil)
	svc := service.New(sch, todos, audit, nil)
	authn, err := auth.New(context.Background(), auth.Settings{Mode: auth.Dev}, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	h := httpapi.New(httpapi.Config{Service: svc, Auth: authn, MaxBodyBytes: 1 << 20,
		Log: telemetry.NewLogger(io.Discard, io.Discard, slog.LevelInfo), StoreName: "embedded", Telemetry: tel})
	res, err := svc.Create(service.WithUser(context.Background(), "local"), todo.Fields{Category: "Grocery", Title: "Get more milk", Tags: []string{"dairy"}})
	if err != nil {
		b.Fatal(err)
	}
	return h, res.Todo.ID
}

// discard is a ResponseWriter that keeps only the status and reuses its
// header map, so that a benchmark counts the handler's allocations and not
// a recorder's.
type discard struct {
	h      http.Header
	status int
}

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) WriteHeader(status int)      { d.status = status }
func (d *discard) Write(b []byte) (int, error) { return len(b), nil }

// BenchmarkGetTodo is one point read through the handler, answered into
// an httptest.ResponseRecorder: routing, authentication, the store read,
// decoding, encoding and the log line, plus the recorder's own allocations.
func BenchmarkGetTodo(b *testing.B) {
	h, id := newAPI(b)
	req := httptest.NewRequest(http.MethodGet, "/api/todos/"+id, nil)
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != 200 {
			b.Fatal(w.Code)
		}
	}
}

// BenchmarkGetTodoHandlerOnly is the same point read answered into a
// writer that allocates nothing: the handler's own allocations alone.
func BenchmarkGetTodoHandlerOnly(b *testing.B) {
	h, id := newAPI(b)
	benchmarkHandlerOnly(b, h, id)
}

// BenchmarkGetTodoNoTelemetry is BenchmarkGetTodoHandlerOnly without any
// telemetry: with tracing set up but no endpoint, a point read should cost
// no more than this.
func BenchmarkGetTodoNoTelemetry(b *testing.B) {
	h, id := newAPIWith(b, nil)
	benchmarkHandlerOnly(b, h, id)
}

func benchmarkHandlerOnly(b *testing.B, h http.Handler, id string) {
	req := httptest.NewRequest(http.MethodGet, "/api/todos/"+id, nil)
	w := &discard{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		clear(w.h)
		h.ServeHTTP(w, req)
		if w.status != 200 {
			b.Fatal(w.status)
		}
	}
}

// BenchmarkUpdateTodo is one PUT: a point read and the outbox batch.
func BenchmarkUpdateTodo(b *testing.B) {
	h, id := newAPI(b)
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPut, "/api/todos/"+id, strings.NewReader(`{"category":"Grocery","title":"Get oat milk"}`))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != 200 {
			b.Fatal(w.Code, w.Body)
		}
	}
}
