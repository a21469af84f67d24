package telemetry

import (
	"context"
	"io"
	"log/slog"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/todoaudit/todo/internal/jsondoc"
)

// jsonHandler writes exactly the lines slog.JSONHandler writes, but
// encodes the records every request logs (strings, integers, durations,
// floats, booleans) by hand: slog's handler spends more on a request's log
// line than the rest of a point read's handling, and encodes every float
// through encoding/json. Any other record, and every logger derived with
// WithAttrs or WithGroup, goes to slog.JSONHandler itself.
type jsonHandler struct {
	w    io.Writer
	mu   *sync.Mutex
	opts slog.HandlerOptions
	slow slog.Handler
}

// newJSONHandler is slog.NewJSONHandler(w, o) with the fast path; o must
// have no ReplaceAttr and no AddSource (the fast path does neither).
func newJSONHandler(w io.Writer, o *slog.HandlerOptions) slog.Handler {
	if o == nil {
		o = &slog.HandlerOptions{}
	}
	slow := slog.NewJSONHandler(w, o)
	if o.ReplaceAttr != nil || o.AddSource {
		return slow
	}
	return &jsonHandler{w: w, mu: new(sync.Mutex), opts: *o, slow: slow}
}

func (h *jsonHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.slow.Enabled(ctx, l)
}

func (h *jsonHandler) WithAttrs(attrs []slog.Attr) slog.Handler { return h.slow.WithAttrs(attrs) }
func (h *jsonHandler) WithGroup(name string) slog.Handler       { return h.slow.WithGroup(name) }

// lines are reused buffers of encoded log lines.
var lines = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

func (h *jsonHandler) Handle(ctx context.Context, r slog.Record) error {
	fast := true
	r.Attrs(func(a slog.Attr) bool {
		fast = plainAttr(a)
		return fast
	})
	if y := r.Time.Year(); !fast || (!r.Time.IsZero() && (y < 0 || y >= 10000)) {
		return h.slow.Handle(ctx, r)
	}
	bp := lines.Get().(*[]byte)
	defer func() {
		if cap(*bp) <= 16<<10 {
			lines.Put(bp)
		}
	}()
	b := append((*bp)[:0], '{')
	if !r.Time.IsZero() {
		b = append(b, `"time":"`...)
		b = r.Time.Round(0).AppendFormat(b, time.RFC3339Nano)
		b = append(b, `",`...)
	}
	b = append(b, `"level":`...)
	b = appendJSONString(b, r.Level.String())
	b = append(b, `,"msg":`...)
	b = appendJSONString(b, r.Message)
	r.Attrs(func(a slog.Attr) bool {
		b = append(b, ',')
		b = appendJSONString(b, a.Key)
		b = append(b, ':')
		b = appendPlainValue(b, a.Value)
		return true
	})
	b = append(b, "}\n"...)
	*bp = b
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := h.w.Write(b)
	return err
}

// plainAttr reports whether the fast path encodes a as slog does.
func plainAttr(a slog.Attr) bool {
	switch a.Value.Kind() {
	case slog.KindString, slog.KindInt64, slog.KindUint64, slog.KindBool, slog.KindDuration:
		return true
	case slog.KindFloat64:
		f := a.Value.Float64()
		return !math.IsInf(f, 0) && !math.IsNaN(f)
	}
	return false
}

// appendPlainValue encodes a value plainAttr accepts as slog's JSON
// handler does: durations in nanoseconds, floats as encoding/json writes
// them.
func appendPlainValue(b []byte, v slog.Value) []byte {
	switch v.Kind() {
	case slog.KindString:
		return appendJSONString(b, v.String())
	case slog.KindInt64:
		return strconv.AppendInt(b, v.Int64(), 10)
	case slog.KindUint64:
		return strconv.AppendUint(b, v.Uint64(), 10)
	case slog.KindBool:
		return strconv.AppendBool(b, v.Bool())
	case slog.KindDuration:
		return strconv.AppendInt(b, int64(v.Duration()), 10)
	default:
		return appendJSONFloat(b, v.Float64())
	}
}

// appendJSONFloat writes f as encoding/json does: the shortest decimal,
// with an exponent only for very small or very large magnitudes, and
// that exponent without a leading zero.
func appendJSONFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// appendJSONString quotes s as slog's JSON handler does.
func appendJSONString(b []byte, s string) []byte { return jsondoc.AppendString(b, s, jsondoc.Slog) }
