package app_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"maps"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/todoaudit/todo/app"
	"github.com/todoaudit/todo/app/apitest"
	"github.com/todoaudit/todo/audit"
	"github.com/todoaudit/todo/azfunc"
	"github.com/todoaudit/todo/telemetry"
	"github.com/todoaudit/todo/telemetry/otlptest"
)

// lockedBuffer collects log lines written from many goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// lines returns the JSON log lines written so far.
func (l *lockedBuffer) lines(t *testing.T) []map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(l.b.Bytes()))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("log line %q: %v", sc.Text(), err)
		}
		out = append(out, m)
	}
	return out
}

// startTraced runs the handler exporting to an in-process OTLP receiver,
// with its JSON logs collected.
func startTraced(t *testing.T, env map[string]string, ln net.Listener) (*server, *telemetry.Telemetry, *otlptest.Receiver, *lockedBuffer) {
	t.Helper()
	rcv := otlptest.Start(t)
	tel, err := telemetry.New(context.Background(), func(k string) (string, bool) {
		return rcv.URL, k == "OTEL_EXPORTER_OTLP_ENDPOINT"
	})
	if err != nil {
		t.Fatal(err)
	}
	logs := &lockedBuffer{}
	settings := map[string]string{"DATA_DIR": t.TempDir(), "AUDIT_PUMP": "on"}
	maps.Copy(settings, env)
	a := apitest.StartLogged(t, settings,
		&app.Options{Telemetry: tel, Listener: ln}, telemetry.NewLogger(logs, logs, slog.LevelInfo))
	t.Cleanup(func() { _ = tel.Shutdown(context.Background()) })
	return &server{Client: &apitest.Client{T: t, Base: "http://" + a.Addr(), User: "alice"}, app: a}, tel, rcv, logs
}

func findSpan(spans []otlptest.Span, match func(otlptest.Span) bool) (otlptest.Span, bool) {
	for _, s := range spans {
		if match(s) {
			return s, true
		}
	}
	return otlptest.Span{}, false
}

// A request continues its caller's trace: its server span has the caller's
// trace id and parent, answers with its own traceparent, has a store child
// span with the request charge, and its log line names the same trace and
// span. The audit of the write is traced by the pump, which runs the
// trigger's core in-process, and the batch's span links back to the write.
func TestTraceOfARequestAndItsAudit(t *testing.T) {
	s, tel, rcv, logs := startTraced(t, nil, nil)
	const traceID, caller = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	created := want(t, s.Do("POST", "/api/todos", map[string]any{"category": "Grocery", "title": "milk"},
		"traceparent: 00-"+traceID+"-"+caller+"-01", "tracestate: vendor=1"), 201)
	id := created.JSON(t)["id"].(string)
	tp := strings.Split(created.Header.Get("traceparent"), "-")
	if len(tp) != 4 || tp[1] != traceID || tp[2] == caller {
		t.Fatalf("response traceparent %q does not continue trace %s", created.Header.Get("traceparent"), traceID)
	}
	serverSpan := tp[2]

	const readTrace = "0af7651916cd43dd8448eb211c80319c"
	want(t, s.Do("GET", "/api/todos/"+id, nil, "traceparent: 00-"+readTrace+"-b7ad6b7169203331-01"), 200)
	if err := tel.FlushTraces(context.Background()); err != nil {
		t.Fatal(err)
	}

	// Standalone, the write's audit is part of its commit (the pump's
	// relay): its span is in the write's trace, under the store's batch.
	relayed := func(sp otlptest.Span) bool { return sp.Name == "audit relay" && sp.TraceID == traceID }
	spans := rcv.WaitSpans(t, 10*time.Second, "write, read and audit spans", func(spans []otlptest.Span) bool {
		_ = tel.FlushTraces(context.Background())
		_, ok := findSpan(spans, relayed)
		return ok
	})

	write, ok := findSpan(spans, func(sp otlptest.Span) bool { return sp.SpanID == serverSpan })
	if !ok || write.TraceID != traceID || write.ParentSpanID != caller || write.Name != "POST /api/todos" ||
		write.Kind != "SERVER" || write.Attrs["faas.name"] != "UpsertTodo" || write.Attrs["http.route"] != "/api/todos" ||
		write.Attrs["http.response.status_code"] != int64(201) || write.Attrs["todo.query_scope"] == nil {
		t.Fatalf("write span %+v", write)
	}
	batch, ok := findSpan(spans, func(sp otlptest.Span) bool {
		return sp.TraceID == traceID && sp.ParentSpanID == serverSpan && sp.Name == "execute_batch todos"
	})
	if !ok || !(batch.Attrs["db.cosmosdb.request_charge"].(float64) > 0) || batch.Kind != "CLIENT" {
		t.Fatalf("no store batch span under the write with its charge:\n%s", otlptest.Format(spans))
	}

	read, ok := findSpan(spans, func(sp otlptest.Span) bool { return sp.TraceID == readTrace && sp.Name == "GET /api/todos/{id}" })
	if !ok || read.ParentSpanID != "b7ad6b7169203331" || read.Attrs["todo.query_scope"] != "point" || !(read.Attrs["todo.request_charge"].(float64) > 0) {
		t.Fatalf("read span %+v", read)
	}
	point, ok := findSpan(spans, func(sp otlptest.Span) bool { return sp.ParentSpanID == read.SpanID && sp.Name == "read_item todos" })
	if !ok || point.TraceID != readTrace || point.Attrs["db.cosmosdb.request_charge"] != 1.0 ||
		point.Attrs["db.collection.name"] != "todos" || point.Attrs["db.operation.name"] != "read_item" || point.Attrs["todo.query_scope"] != "point" {
		t.Fatalf("no point-read span with its charge under the read:\n%s", otlptest.Format(spans))
	}

	// The audit: written with the todo, in the write's own transaction.
	auditSpan, _ := findSpan(spans, relayed)
	if auditSpan.ParentSpanID != batch.SpanID || auditSpan.Attrs[audit.AttrDocuments] != int64(1) || auditSpan.Attrs[audit.AttrRecords] == int64(0) {
		t.Fatalf("the audit span is not the write's batch's child, with its version's records:\n%s", otlptest.Format(spans))
	}
	t.Logf("the write's trace and its audit, as the receiver saw them:\n%s", otlptest.Format(spans))

	// The request's log line carries the same trace, span and function.
	line, ok := func() (map[string]any, bool) {
		for _, l := range logs.lines(t) {
			if l["msg"] == "request" && l["method"] == "POST" {
				return l, true
			}
		}
		return nil, false
	}()
	if !ok || line["trace_id"] != traceID || line["span_id"] != serverSpan || line["function"] != "UpsertTodo" {
		t.Fatalf("request log line %v does not name trace %s span %s", line, traceID, serverSpan)
	}

	// The metrics, exported at shutdown: requests by function and status,
	// RU by function and container, the audit lag and the pump's backlog.
	if err := tel.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	has := func(metric string, attrs map[string]any) bool {
		for _, p := range rcv.Points() {
			match := p.Metric == metric && p.Value > 0
			for k, v := range attrs {
				match = match && p.Attrs[k] == v
			}
			if match {
				return true
			}
		}
		return false
	}
	for _, m := range []struct {
		name  string
		attrs map[string]any
	}{
		{telemetry.MetricRequests, map[string]any{"function": "UpsertTodo", "status": int64(201)}},
		{telemetry.MetricDuration, map[string]any{"function": "GetTodo", "status": int64(200)}},
		{telemetry.MetricRequestUnits, map[string]any{"function": "GetTodo", "container": "todos"}},
		{telemetry.MetricRequestUnits, map[string]any{"function": "UpsertTodo", "container": "todos"}},
		{telemetry.MetricAuditLag, nil},
	} {
		if !has(m.name, m.attrs) {
			t.Errorf("no %s point with %v among %v", m.name, m.attrs, rcv.Points())
		}
	}
	if !slices.ContainsFunc(rcv.Points(), func(p otlptest.Point) bool { return p.Metric == telemetry.MetricPumpBacklog }) {
		t.Errorf("no %s point", telemetry.MetricPumpBacklog)
	}
}

// Under the host, a payload invocation continues the trace context the
// host sends in its headers, and its spans are exported before the host
// gets its answer.
func TestInvocationContinuesTheHostTraceAndFlushes(t *testing.T) {
	ln, port := hostSocket(t)
	s, _, rcv, _ := startTraced(t, map[string]string{"FUNCTIONS_CUSTOMHANDLER_PORT": port, "AUTH_MODE": "single"}, ln)
	const traceID, hostSpan, invocation = "5bf92f3577b34da6a3ce929d0e0e4736", "10f067aa0ba902b7", "6f3b2a1c-0000-4000-8000-000000000002"
	want(t, s.Do("POST", "/Reconcile", `{"Data":{"timer":{"IsPastDue":false}},"Metadata":{"sys":{"MethodName":"Reconcile"}}}`,
		"traceparent: 00-"+traceID+"-"+hostSpan+"-01", azfunc.InvocationIDHeader+": "+invocation), 200)
	span, ok := findSpan(rcv.Spans(), func(sp otlptest.Span) bool { return sp.Name == "Reconcile" })
	if !ok || span.TraceID != traceID || span.ParentSpanID != hostSpan || span.Attrs["faas.trigger"] != "timer" ||
		span.Attrs["faas.invocation_id"] != invocation {
		t.Fatalf("invocation span not exported before the answer, or not continuing the host's trace:\n%s", otlptest.Format(rcv.Spans()))
	}
}

// A request's log line stays a few hundred bytes however long the values
// the caller controls: the path, the method, the invocation id header and
// what an error quotes (a query parameter's name).
func TestLogLinesBounded(t *testing.T) {
	logs := &lockedBuffer{}
	a := apitest.StartLogged(t, map[string]string{"DATA_DIR": t.TempDir()}, nil, telemetry.NewLogger(logs, logs, slog.LevelInfo))
	c := &apitest.Client{T: t, Base: "http://" + a.Addr(), User: "alice"}
	huge := strings.Repeat("x", 900_000)
	want(t, c.Do("GET", "/api/"+huge, nil), 404)
	want(t, c.Do("GET", "/api/todos?"+huge+"=1", nil), 400)
	want(t, c.Do("GET", "/api/todos", nil, azfunc.InvocationIDHeader+": "+huge), 200)
	want(t, c.Do("POST", "/api/todos", `{"category":"Grocery","title":"b","`+huge+`":1}`), 400)
	requests := 0
	for _, line := range logs.lines(t) {
		b, _ := json.Marshal(line)
		if len(b) > 2048 {
			t.Errorf("a %d-byte log line: %.300s", len(b), b)
		}
		if line["msg"] == "request" {
			requests++
		}
	}
	if requests != 4 {
		t.Fatalf("%d request log lines, want 4", requests)
	}
}

// Without an OTLP endpoint every log line of a request still carries a
// trace and span id: the caller's trace with a span id of the handler's
// own when it sent a traceparent, new ones otherwise, answered in the
// response's traceparent.
func TestLogLinesCarryTraceIDsWithoutExport(t *testing.T) {
	logs := &lockedBuffer{}
	a := apitest.StartLogged(t, map[string]string{"DATA_DIR": t.TempDir(), "AUDIT_PUMP": "on"}, nil,
		telemetry.NewLogger(logs, logs, slog.LevelInfo))
	s := &server{Client: &apitest.Client{T: t, Base: "http://" + a.Addr(), User: "alice"}, app: a}
	const traceID, caller = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	created := want(t, s.Do("POST", "/api/todos", map[string]any{"category": "Grocery", "title": "traced"},
		"traceparent: 00-"+traceID+"-"+caller+"-01"), 201)
	tp := strings.Split(created.Header.Get("traceparent"), "-")
	if len(tp) != 4 || tp[1] != traceID || tp[2] == caller || len(tp[2]) != 16 {
		t.Fatalf("response traceparent %q does not continue trace %s with a span of its own", created.Header.Get("traceparent"), traceID)
	}
	want(t, s.Do("GET", "/api/todos/"+created.JSON(t)["id"].(string), nil), 200)
	want(t, s.Do("GET", "/api/todos?owner=bob", nil), 400)
	want(t, s.Do("GET", "/api/nothing", nil), 404)
	if err := a.DrainAudit(context.Background()); err != nil {
		t.Fatal(err)
	}
	requests, traces := 0, map[string]bool{}
	for _, l := range logs.lines(t) {
		if l["function"] == nil {
			continue // not logged in a request
		}
		trace, span := l["trace_id"], l["span_id"]
		if tr, ok := trace.(string); !ok || len(tr) != 32 || len(span.(string)) != 16 {
			t.Fatalf("log line of a request without trace and span ids: %v", l)
		}
		if l["msg"] == "request" {
			requests++
			traces[trace.(string)] = true
		}
		if l["method"] == "POST" && l["path"] == "/api/todos" && (trace != traceID || span != tp[2]) {
			t.Fatalf("the create's log line %v is not in trace %s span %s", l, traceID, tp[2])
		}
	}
	// The four requests above, each in a trace of its own.
	if requests != 4 || len(traces) != requests {
		t.Fatalf("%d request lines in %d traces", requests, len(traces))
	}
}
