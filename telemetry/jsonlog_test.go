package telemetry

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"math"
	"testing"
	"time"
)

// lineOf returns what h writes for one record.
func lineOf(t testing.TB, newH func(*bytes.Buffer) slog.Handler, r slog.Record) string {
	t.Helper()
	var buf bytes.Buffer
	if err := newH(&buf).Handle(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

var (
	fastJSON = func(b *bytes.Buffer) slog.Handler { return newJSONHandler(b, nil) }
	slowJSON = func(b *bytes.Buffer) slog.Handler { return slog.NewJSONHandler(b, nil) }
)

// sameLine checks that the fast handler writes the record as slog's JSON
// handler does.
func sameLine(t testing.TB, r slog.Record) {
	t.Helper()
	if got, want := lineOf(t, fastJSON, r), lineOf(t, slowJSON, r); got != want {
		t.Errorf("fast handler wrote\n%s\nslog wrote\n%s", got, want)
	}
}

func TestJSONHandlerWritesWhatSlogWrites(t *testing.T) {
	at := time.Date(2026, 12, 1, 15, 4, 5, 123456789, time.UTC)
	strs := []string{"", "plain", `quote " and \ backslash`, "new\nline\r\ttab", "\x00\x01\x1f\x7f", "<html>&amp;",
		"caf\u00e9 \U0001F600", "bad \xff utf-8", "sep\u2028ara\u2029tors", "/api/todos/Grocery:41500e6e"}
	floats := []float64{0, 1, -1.5, 0.1, 1e-6, 1e-7, 123456789.125, 1e20, 1e21, -2.5e-10, math.MaxFloat64, math.SmallestNonzeroFloat64}
	for _, level := range []slog.Level{slog.LevelDebug, slog.LevelInfo, slog.LevelWarn, slog.LevelError, slog.LevelInfo + 2} {
		for _, s := range strs {
			r := slog.NewRecord(at, level, s, 0)
			r.AddAttrs(slog.String("method", "GET"), slog.String(s, s), slog.Int("status", 200),
				slog.Duration("duration", 5582971*time.Nanosecond), slog.Bool("ok", true), slog.Uint64("n", math.MaxUint64))
			sameLine(t, r)
		}
	}
	for _, f := range floats {
		r := slog.NewRecord(at, slog.LevelInfo, "request", 0)
		r.AddAttrs(slog.Float64("ru", f))
		sameLine(t, r)
	}
	// Records the fast path leaves to slog: still the same line.
	for _, a := range []slog.Attr{slog.Any("err", errors.New("boom")), slog.Group("g", slog.Int("a", 1)),
		slog.Time("at", at), slog.Float64("nan", math.NaN()), slog.Any("nil", nil)} {
		r := slog.NewRecord(at, slog.LevelInfo, "other", 0)
		r.AddAttrs(slog.String("first", "x"), a)
		sameLine(t, r)
	}
	sameLine(t, slog.NewRecord(time.Time{}, slog.LevelInfo, "no time", 0))
	sameLine(t, slog.NewRecord(time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), slog.LevelInfo, "far", 0))
}

func FuzzJSONHandler(f *testing.F) {
	f.Add("request", "path", "/api/todos/x", 1.5)
	f.Add("a\nb", "\xff", "\u2028", 1e-9)
	f.Fuzz(func(t *testing.T, msg, key, val string, ru float64) {
		r := slog.NewRecord(time.Date(2026, 12, 1, 0, 0, 0, 1, time.UTC), slog.LevelWarn, msg, 0)
		r.AddAttrs(slog.String(key, val), slog.Float64("ru", ru))
		sameLine(t, r)
	})
}

// Loggers derived with attributes or a group are slog's own JSON handler.
func TestJSONHandlerDerived(t *testing.T) {
	h := newJSONHandler(&bytes.Buffer{}, nil)
	for _, d := range []slog.Handler{h.WithAttrs([]slog.Attr{slog.String("component", "pump")}), h.WithGroup("g")} {
		if _, ok := d.(*slog.JSONHandler); !ok {
			t.Errorf("derived handler %T, want *slog.JSONHandler", d)
		}
	}
}

func BenchmarkRequestLine(b *testing.B) {
	for name, newH := range map[string]func(*bytes.Buffer) slog.Handler{"fast": fastJSON, "slog": slowJSON} {
		b.Run(name, func(b *testing.B) {
			var buf bytes.Buffer
			h := newH(&buf)
			b.ReportAllocs()
			for b.Loop() {
				buf.Reset()
				r := slog.NewRecord(time.Now(), slog.LevelInfo, "request", 0)
				r.AddAttrs(slog.String("method", "GET"), slog.String("path", "/api/todos/Grocery:41500e6e-4e08-495b-9d09-824f03961f4a"),
					slog.Int("status", 200), slog.Duration("duration", time.Millisecond), slog.String("scope", "point"),
					slog.Float64("ru", 1), slog.String("function", "GetTodo"))
				_ = h.Handle(context.Background(), r)
			}
		})
	}
}
