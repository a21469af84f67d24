package telemetry_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/todoaudit/todo/telemetry"
	"github.com/todoaudit/todo/telemetry/otlptest"
)

func lookup(kv map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := kv[k]; return v, ok }
}

func TestEndpoints(t *testing.T) {
	cases := []struct {
		env             map[string]string
		traces, metrics string
	}{
		{nil, "", ""},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318/"}, "http://c:4318/v1/traces", "http://c:4318/v1/metrics"},
		{map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://t/x"}, "http://t/x", ""},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "http://m/y"}, "http://c/v1/traces", "http://m/y"},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c", "OTEL_METRICS_EXPORTER": "none"}, "http://c/v1/traces", ""},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c", "OTEL_SDK_DISABLED": "true"}, "", ""},
	}
	for _, c := range cases {
		tr, m := telemetry.Endpoints(lookup(c.env))
		if tr != c.traces || m != c.metrics {
			t.Errorf("%v: got %q, %q; want %q, %q", c.env, tr, m, c.traces, c.metrics)
		}
	}
}

// Without an endpoint, starting a span changes nothing and allocates nothing.
func TestDisabledCostsNothing(t *testing.T) {
	tel, err := telemetry.New(context.Background(), lookup(nil))
	if err != nil {
		t.Fatal(err)
	}
	if tel.Enabled() || tel.Tracing() {
		t.Fatal("enabled without an endpoint")
	}
	ctx := context.Background()
	allocs := testing.AllocsPerRun(100, func() {
		c, span := tel.Start(ctx, "x")
		span.End()
		tel.Metrics().Request(c, "GetTodo", 200, time.Millisecond)
		if c != ctx {
			t.Fatal("context changed")
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per span", allocs)
	}
}

func TestExportAndLogCorrelation(t *testing.T) {
	rcv := otlptest.Start(t)
	tel, err := telemetry.New(context.Background(), lookup(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": rcv.URL}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tel.Shutdown(context.Background()) })
	parent, ok := telemetry.SpanContextOf("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "")
	if !ok {
		t.Fatal("traceparent not parsed")
	}
	var buf bytes.Buffer
	log := slog.New(telemetry.NewLogHandler(slog.NewJSONHandler(&buf, nil)))

	ctx := telemetry.WithCall(context.Background(), telemetry.Call{Function: "GetTodo", InvocationID: "inv-1"})
	ctx, span := tel.Start(trace.ContextWithRemoteSpanContext(ctx, parent), "GET /api/todos/{id}")
	log.InfoContext(ctx, "request")
	if got := telemetry.TraceParent(ctx); got != "00-0af7651916cd43dd8448eb211c80319c-"+span.SpanContext().SpanID().String()+"-01" {
		t.Fatalf("traceparent %q", got)
	}
	span.End()
	tel.Metrics().Request(ctx, "GetTodo", 200, time.Millisecond)
	if err := tel.FlushTraces(context.Background()); err != nil {
		t.Fatal(err)
	}
	spans := rcv.Spans()
	if len(spans) != 1 || spans[0].TraceID != "0af7651916cd43dd8448eb211c80319c" || spans[0].ParentSpanID != "b7ad6b7169203331" || spans[0].Service != telemetry.ServiceName {
		t.Fatalf("spans:\n%s", otlptest.Format(spans))
	}
	var line map[string]any
	if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
		t.Fatal(err)
	}
	if line["trace_id"] != spans[0].TraceID || line["span_id"] != spans[0].SpanID || line["function"] != "GetTodo" || line["invocationId"] != "inv-1" {
		t.Fatalf("log line %v does not name span %+v", line, spans[0])
	}
	if err := tel.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, p := range rcv.Points() {
		found = found || p.Metric == telemetry.MetricRequests && p.Attrs["function"] == "GetTodo" && p.Value == 1
	}
	if !found {
		t.Fatalf("no request count among %v", rcv.Points())
	}
}

// A handler built without the exporters refuses an endpoint at start-up,
// naming the setting, instead of dropping what it was asked to export.
func TestEndpointNeedsExporters(t *testing.T) {
	if telemetry.Exports {
		t.Skip("this build links the OTLP exporters")
	}
	_, err := telemetry.New(context.Background(), lookup(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}))
	if err == nil || !strings.Contains(err.Error(), "OTEL_EXPORTER_OTLP_ENDPOINT") || !strings.Contains(err.Error(), "-tags otlp") {
		t.Fatalf("New with an endpoint in a build without exporters: %v", err)
	}
}

// SetTraceHeaders writes the headers Propagator.Inject writes.
func TestSetTraceHeadersAsInject(t *testing.T) {
	state, err := trace.ParseTraceState("vendor=a,other=b")
	if err != nil {
		t.Fatal(err)
	}
	for _, flags := range []trace.TraceFlags{0, 1, 2, 3, 0xff} {
		for _, ts := range []trace.TraceState{{}, state} {
			sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{0x0a, 0xf7, 15: 0x9c},
				SpanID: trace.SpanID{0xb7, 7: 0x01}, TraceFlags: flags, TraceState: ts})
			ctx := trace.ContextWithSpanContext(context.Background(), sc)
			want, got := http.Header{}, http.Header{}
			telemetry.Propagator.Inject(ctx, propagation.HeaderCarrier(want))
			telemetry.SetTraceHeaders(ctx, got)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("flags %x, state %q: %v, Inject %v", flags, ts.String(), got, want)
			}
		}
	}
	none := http.Header{}
	telemetry.SetTraceHeaders(context.Background(), none)
	if len(none) != 0 {
		t.Errorf("no span, headers %v", none)
	}
}
