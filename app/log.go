package app

import (
	"context"
	"io"
	"log/slog"
)

// NewLogger returns a structured JSON logger that writes to stdout, and
// errors to stderr, which the Functions host logs at Error level.
func NewLogger(stdout, stderr io.Writer, level slog.Level) *slog.Logger {
	o := &slog.HandlerOptions{Level: level}
	return slog.New(&splitHandler{out: slog.NewJSONHandler(stdout, o), err: slog.NewJSONHandler(stderr, o)})
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
