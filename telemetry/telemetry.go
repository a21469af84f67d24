// Package telemetry is the handler's OpenTelemetry setup: traces and metrics
// exported over OTLP/HTTP when the standard OTEL_* settings name an endpoint,
// W3C trace-context propagation, the instruments the handler records, and a
// log handler that tags each line with its trace and invocation.
//
// Without an endpoint nothing is exported and no span is even started: a
// nil or disabled *Telemetry is valid everywhere and costs a branch.
//
// The OTLP exporters are linked only into a build with the otlp tag (make
// stage builds the deployable handler so): they are about a third of the
// binary's packages, and most processes never export. A build without them
// refuses an endpoint at start-up rather than drop what it was asked to
// send.
package telemetry

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"net/http"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// ServiceName is the service.name resource attribute unless OTEL_SERVICE_NAME
// or OTEL_RESOURCE_ATTRIBUTES say otherwise.
const ServiceName = "todoaudit-handler"

// instrumentation names the tracer and meter.
const instrumentation = "github.com/todoaudit/todo"

// Telemetry is the process's tracer and meter providers and the
// instruments recorded through them.
type Telemetry struct {
	tracer  trace.Tracer
	traces  *sdktrace.TracerProvider
	metrics *sdkmetric.MeterProvider
	m       *Metrics
}

// Metrics are the handler's instruments; they record nothing unless
// metrics are exported (nil included).
func (t *Telemetry) Metrics() *Metrics {
	if t == nil {
		return nil
	}
	return t.m
}

// Endpoints returns the OTLP/HTTP URLs traces and metrics go to, "" for a
// signal that is not exported, following the OpenTelemetry specification's
// rules for the OTEL_EXPORTER_OTLP_* variables.
func Endpoints(lookup func(string) (string, bool)) (traces, metrics string) {
	get := func(k string) string {
		if v, ok := lookup(k); ok {
			return strings.TrimSpace(v)
		}
		return ""
	}
	if strings.EqualFold(get("OTEL_SDK_DISABLED"), "true") {
		return "", ""
	}
	signal := func(exporter, specific, path string) string {
		if strings.EqualFold(get(exporter), "none") {
			return ""
		}
		if u := get(specific); u != "" {
			return u
		}
		if base := get("OTEL_EXPORTER_OTLP_ENDPOINT"); base != "" {
			return strings.TrimSuffix(base, "/") + path
		}
		return ""
	}
	return signal("OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "/v1/traces"),
		signal("OTEL_METRICS_EXPORTER", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "/v1/metrics")
}

// New sets up export as the settings say. With no endpoint it returns a
// disabled Telemetry that starts no span and records nothing.
func New(ctx context.Context, lookup func(string) (string, bool)) (*Telemetry, error) {
	tracesURL, metricsURL := Endpoints(lookup)
	t := &Telemetry{}
	if tracesURL == "" && metricsURL == "" {
		return t, nil
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", ServiceName)),
		resource.WithFromEnv(), resource.WithTelemetrySDK(), resource.WithHost())
	if err != nil {
		return nil, err
	}
	if tracesURL != "" {
		exp, err := traceExporter(ctx, tracesURL)
		if err != nil {
			return nil, err
		}
		t.traces = sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
		t.tracer = t.traces.Tracer(instrumentation)
	}
	if metricsURL != "" {
		exp, err := metricExporter(ctx, metricsURL)
		if err != nil {
			return nil, errors.Join(err, t.Shutdown(ctx))
		}
		t.metrics = sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp)), sdkmetric.WithResource(res))
		if t.m, err = newMetrics(t.metrics.Meter(instrumentation)); err != nil {
			return nil, errors.Join(err, t.Shutdown(ctx))
		}
	}
	return t, nil
}

// Tracing reports whether spans are recorded and exported.
func (t *Telemetry) Tracing() bool { return t != nil && t.tracer != nil }

// Enabled reports whether anything is exported.
func (t *Telemetry) Enabled() bool { return t != nil && (t.tracer != nil || t.metrics != nil) }

// Start begins a span as a child of the one in ctx. When not tracing it
// returns ctx unchanged and the span already in it, on which every call is
// a no-op.
func (t *Telemetry) Start(ctx context.Context, name string, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	if !t.Tracing() {
		return ctx, trace.SpanFromContext(ctx)
	}
	return t.tracer.Start(ctx, name, opts...)
}

// LocalSpan returns ctx with a span context of its own that nothing records:
// new random ids (a child span id in the trace of the span context already
// in ctx, the caller's traceparent, or a new trace), so that the log lines
// of a request carry a trace and span id when spans are not exported.
func LocalSpan(ctx context.Context) context.Context {
	parent := trace.SpanContextFromContext(ctx)
	cfg := trace.SpanContextConfig{TraceID: parent.TraceID(), TraceFlags: parent.TraceFlags(), TraceState: parent.TraceState()}
	for !cfg.TraceID.IsValid() {
		binary.BigEndian.PutUint64(cfg.TraceID[:8], rand.Uint64())
		binary.BigEndian.PutUint64(cfg.TraceID[8:], rand.Uint64())
	}
	for !cfg.SpanID.IsValid() {
		binary.BigEndian.PutUint64(cfg.SpanID[:], rand.Uint64())
	}
	return trace.ContextWithSpanContext(ctx, trace.NewSpanContext(cfg))
}

// Propagator reads and writes W3C traceparent and tracestate.
var Propagator propagation.TextMapPropagator = propagation.TraceContext{}

// TraceParent is the W3C traceparent of the span in ctx, "" without one.
func TraceParent(ctx context.Context) string {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() {
		return ""
	}
	return traceParent(sc)
}

// SetTraceHeaders answers with the span in ctx as Propagator.Inject would
// write it, traceparent and (when not empty) tracestate, without going
// through a carrier that canonicalizes each header name.
func SetTraceHeaders(ctx context.Context, h http.Header) {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() {
		return
	}
	if ts := sc.TraceState().String(); ts != "" {
		h["Tracestate"] = []string{ts}
	}
	h["Traceparent"] = []string{traceParent(sc)}
}

// traceParent is a valid span context as a version 00 traceparent: only
// the flags the specification defines, sampled and random, are kept.
func traceParent(sc trace.SpanContext) string {
	tid, sid := sc.TraceID(), sc.SpanID()
	flags := sc.TraceFlags() & (trace.FlagsSampled | trace.FlagsRandom)
	var b [55]byte
	b[0], b[1], b[2], b[35], b[52] = '0', '0', '-', '-', '-'
	hex.Encode(b[3:35], tid[:])
	hex.Encode(b[36:52], sid[:])
	hex.Encode(b[53:55], []byte{byte(flags)})
	return string(b[:])
}

// SpanContextOf parses a W3C traceparent (and tracestate), as a remote
// span context; ok is false when it is malformed.
func SpanContextOf(traceparent, tracestate string) (trace.SpanContext, bool) {
	ctx := Propagator.Extract(context.Background(), propagation.MapCarrier{"traceparent": traceparent, "tracestate": tracestate})
	sc := trace.SpanContextFromContext(ctx)
	return sc, sc.IsValid()
}

// FlushTraces exports the spans ended so far; payload invocations call it
// before answering, as the host may stop the process once it has its reply.
func (t *Telemetry) FlushTraces(ctx context.Context) error {
	if t == nil || t.traces == nil {
		return nil
	}
	return t.traces.ForceFlush(ctx)
}

// Shutdown flushes and stops every exporter.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	var err error
	if t.traces != nil {
		err = t.traces.Shutdown(ctx)
	}
	if t.metrics != nil {
		err = errors.Join(err, t.metrics.Shutdown(ctx))
	}
	return err
}

// TracerProvider is the provider spans are exported through, for SDKs that
// trace themselves; nil when not tracing.
func (t *Telemetry) TracerProvider() trace.TracerProvider {
	if !t.Tracing() {
		return nil
	}
	return t.traces
}
