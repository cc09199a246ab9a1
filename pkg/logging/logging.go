// Package logging builds the services' slog loggers: JSON lines when the
// output is not a terminal (containers, CI), text for a person at a
// terminal, and the request id (and trace id) of the context on every line
// logged with it.
package logging

import (
	"context"
	"io"
	"log/slog"
	"os"

	"github.com/mattn/go-isatty"
	"go.opentelemetry.io/otel/trace"
)

type ctxKey struct{}

// WithRequestID returns ctx carrying the request id; every record logged
// with that ctx gets a request_id attribute.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, ctxKey{}, id)
}

// RequestID returns the request id in ctx, or "".
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(ctxKey{}).(string)
	return id
}

// New returns a logger writing to w at level: JSON unless w is a terminal.
func New(w io.Writer, level slog.Level) *slog.Logger {
	opts := &slog.HandlerOptions{Level: level}
	var h slog.Handler
	if f, ok := w.(*os.File); ok && isatty.IsTerminal(f.Fd()) {
		h = slog.NewTextHandler(w, opts)
	} else {
		h = slog.NewJSONHandler(w, opts)
	}
	return slog.New(ContextHandler{h})
}

// ContextHandler adds the request id (and the trace and span ids) of the
// record's context to the record.
type ContextHandler struct{ slog.Handler }

// Handle implements slog.Handler. A record whose context holds a valid
// span (tracing is on, pkg/tracing) also gets the span's trace_id and
// span_id, so a log line leads to its trace and back.
func (h ContextHandler) Handle(ctx context.Context, r slog.Record) error {
	if id := RequestID(ctx); id != "" {
		r.AddAttrs(slog.String("request_id", id))
	}
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		r.AddAttrs(slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
	}
	return h.Handler.Handle(ctx, r)
}

// WithAttrs implements slog.Handler.
func (h ContextHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return ContextHandler{h.Handler.WithAttrs(attrs)}
}

// WithGroup implements slog.Handler.
func (h ContextHandler) WithGroup(name string) slog.Handler {
	return ContextHandler{h.Handler.WithGroup(name)}
}

// ParseLevel reads "debug", "info", "warn" or "error" (any case); "" is info.
func ParseLevel(s string) (slog.Level, error) {
	var l slog.Level
	if s == "" {
		return slog.LevelInfo, nil
	}
	err := l.UnmarshalText([]byte(s))
	return l, err
}
