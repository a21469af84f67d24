// The handler's structured log: JSON lines to stdout, errors to stderr
// (which the Functions host logs at Error level), buffered and flushed in
// batches, each line of a request tagged with its trace and invocation.

package telemetry

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"sync"
	"time"

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

// NewLogger returns a structured JSON logger that writes to stdout, and
// errors to stderr, which the Functions host logs at Error level. Lines
// logged with a request's context carry its trace and span ids, function
// and invocation id.
func NewLogger(stdout, stderr io.Writer, level slog.Level) *slog.Logger {
	o := &slog.HandlerOptions{Level: level}
	return slog.New(NewLogHandler(&splitHandler{out: newJSONHandler(stdout, o), err: newJSONHandler(stderr, o)}))
}

// ParseLevel reads a LOG_LEVEL value.
func ParseLevel(s string) slog.Level {
	var l slog.Level
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return slog.LevelInfo
	}
	return l
}

type splitHandler struct{ out, err slog.Handler }

func (h *splitHandler) pick(l slog.Level) slog.Handler {
	if l >= slog.LevelError {
		return h.err
	}
	return h.out
}

func (h *splitHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.pick(l).Enabled(ctx, l)
}

func (h *splitHandler) Handle(ctx context.Context, r slog.Record) error {
	return h.pick(r.Level).Handle(ctx, r)
}

func (h *splitHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &splitHandler{out: h.out.WithAttrs(attrs), err: h.err.WithAttrs(attrs)}
}

func (h *splitHandler) WithGroup(name string) slog.Handler {
	return &splitHandler{out: h.out.WithGroup(name), err: h.err.WithGroup(name)}
}

// FlushingWriter buffers log lines and writes them out at least every
// interval, so a busy handler makes one write system call per batch of
// lines rather than one per request. Flush before exiting.
type FlushingWriter struct {
	mu   sync.Mutex
	w    *bufio.Writer
	stop chan struct{}
	done chan struct{}
}

// NewFlushingWriter buffers w, flushing every interval.
func NewFlushingWriter(w io.Writer, interval time.Duration) *FlushingWriter {
	f := &FlushingWriter{w: bufio.NewWriterSize(w, 64<<10), stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(f.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-f.stop:
				return
			case <-t.C:
				_ = f.Flush()
			}
		}
	}()
	return f
}

func (f *FlushingWriter) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.w.Write(p)
}

// Flush writes out what is buffered.
func (f *FlushingWriter) Flush() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.w.Flush()
}

// Close stops the periodic flush and flushes.
func (f *FlushingWriter) Close() error {
	close(f.stop)
	<-f.done
	return f.Flush()
}
