package httpapi

import (
	"context"
	"net/http"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/todoaudit/todo/azfunc"
	"github.com/todoaudit/todo/functions"
	"github.com/todoaudit/todo/internal/clip"
	"github.com/todoaudit/todo/internal/header"
	"github.com/todoaudit/todo/store"
	"github.com/todoaudit/todo/telemetry"
	"github.com/todoaudit/todo/telemetry/storetrace"
)

// Span attributes of requests and invocations (OpenTelemetry semantic
// conventions where one exists).
const (
	attrFunction     = "faas.name"
	attrInvocationID = "faas.invocation_id"
	attrTrigger      = "faas.trigger"
	attrRoute        = "http.route"
	attrMethod       = "http.request.method"
	attrStatus       = "http.response.status_code"
	attrCharge       = "todo.request_charge"
)

// flushTimeout bounds the export at the end of a payload invocation.
const flushTimeout = 5 * time.Second

// begin, given the request's context tagged with its telemetry.Call,
// starts its server span when tracing, as a child of the incoming
// traceparent (the caller's, or the Functions host's
// own: its HTTP client sends the invocation's trace context with every
// request it forwards or invokes), and answers with the span's traceparent.
// When not tracing, the request still gets trace and span ids of its own
// for its log lines (in the caller's trace when it sent a traceparent),
// and answers with them.
func (a *api) begin(ctx context.Context, w http.ResponseWriter, r *http.Request, function, route, trigger string) (context.Context, trace.Span) {
	carrier := propagation.HeaderCarrier(r.Header)
	if !a.Telemetry.Tracing() {
		if header.Get(r.Header, "Traceparent") != "" {
			ctx = telemetry.Propagator.Extract(ctx, carrier)
		}
		ctx = telemetry.LocalSpan(ctx)
		telemetry.SetTraceHeaders(ctx, w.Header())
		return ctx, trace.SpanFromContext(ctx)
	}
	method := clip.String(r.Method)
	name := function
	if route != "" {
		name = method + " " + route
	} else if name == "" {
		name = method
	}
	ctx, span := a.Telemetry.Start(telemetry.Propagator.Extract(ctx, carrier), name,
		trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(
			attribute.String(attrFunction, function), attribute.String(attrTrigger, trigger),
			attribute.String(attrMethod, method)))
	if route != "" {
		span.SetAttributes(attribute.String(attrRoute, route))
	}
	if id := header.Get(r.Header, azfunc.InvocationIDHeader); id != "" {
		span.SetAttributes(attribute.String(attrInvocationID, id))
	}
	telemetry.SetTraceHeaders(ctx, w.Header())
	return ctx, span
}

// end records a served request: its span's status, scope and request
// charge, and the request metrics.
func (a *api) end(ctx context.Context, span trace.Span, function string, status int, cost store.Cost, err error, took time.Duration) {
	a.Telemetry.Metrics().Request(ctx, function, status, took)
	if !span.IsRecording() {
		return
	}
	span.SetAttributes(attribute.Int(attrStatus, status))
	if cost.Touched() {
		span.SetAttributes(attribute.String(storetrace.AttrScope, cost.Scope.String()), attribute.Float64(attrCharge, cost.Charge))
	}
	if status >= 500 {
		cause := http.StatusText(status)
		if err != nil {
			cause = err.Error()
		}
		span.SetStatus(codes.Error, cause)
	}
	span.End()
}

// flush exports a payload invocation's spans before the host gets its
// answer: the instance may be frozen or recycled right after it.
func (a *api) flush(ctx context.Context) {
	if !a.Telemetry.Tracing() {
		return
	}
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), flushTimeout)
	defer cancel()
	if err := a.Telemetry.FlushTraces(fctx); err != nil {
		a.Log.WarnContext(ctx, "exporting spans failed", "error", err.Error())
	}
}

// triggerOf is the faas.trigger of a payload-mode function, from its
// function.json.
func triggerOf(function string) string {
	f, err := functions.Get(function)
	if err != nil {
		return "other"
	}
	b, _ := f.Trigger()
	switch b.Type {
	case "cosmosDBTrigger":
		return "datasource"
	case "timerTrigger":
		return "timer"
	case "httpTrigger":
		return "http"
	}
	return "other"
}
