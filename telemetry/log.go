package telemetry

import (
	"context"
	"log/slog"

	"go.opentelemetry.io/otel/trace"
)

// Log attribute names that join a log line to its trace and invocation.
const (
	LogTraceID      = "trace_id"
	LogSpanID       = "span_id"
	LogFunction     = "function"
	LogInvocationID = "invocationId"
)

// LogHandler adds to every record logged with a context the trace and span
// ids of the span in it and the function and invocation id of its Call, so
// each line of a request can be joined to its trace.
type LogHandler struct{ slog.Handler }

// NewLogHandler wraps h.
func NewLogHandler(h slog.Handler) *LogHandler { return &LogHandler{h} }

// Handle adds the context's identifiers and passes the record on.
func (h *LogHandler) Handle(ctx context.Context, r slog.Record) error {
	if ctx != nil {
		// Added in one call: the record's attributes grow once, not per pair.
		var attrs [4]slog.Attr
		n := 0
		if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
			attrs[0], attrs[1] = slog.String(LogTraceID, sc.TraceID().String()), slog.String(LogSpanID, sc.SpanID().String())
			n = 2
		}
		if c := CallOf(ctx); c != nil {
			attrs[n] = slog.String(LogFunction, c.Function)
			n++
			if c.InvocationID != "" {
				attrs[n] = slog.String(LogInvocationID, c.InvocationID)
				n++
			}
		}
		if n > 0 {
			r.AddAttrs(attrs[:n]...)
		}
	}
	return h.Handler.Handle(ctx, r)
}

// WithAttrs keeps the wrapper around the derived handler.
func (h *LogHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &LogHandler{h.Handler.WithAttrs(attrs)}
}

// WithGroup keeps the wrapper around the derived handler.
func (h *LogHandler) WithGroup(name string) slog.Handler {
	return &LogHandler{h.Handler.WithGroup(name)}
}
