// Package logging builds the services' slog loggers: JSON lines when the
// output is not a terminal (containers, CI), text for a person at a
// terminal, and the request id (and trace id) of the context on every line
// logged with it.
package logging

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/mattn/go-isatty"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap/zapcore"
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
// Each line is written to w as it is logged.
func New(w io.Writer, level slog.Level) *slog.Logger {
	if isTerminal(w) {
		return slog.New(ContextHandler{Handler: slog.NewTextHandler(w, &slog.HandlerOptions{Level: level})})
	}
	return slog.New(ContextHandler{Handler: slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level})})
}

// BufferSize is NewBuffered's buffer, and FlushInterval the longest a
// line waits in it.
const (
	BufferSize    = 256 << 10
	FlushInterval = 100 * time.Millisecond
)

// NewBuffered returns a logger like New's for a service's stream of lines
// (a line for every request): they collect in a buffer of BufferSize that is
// written to w when it fills, every FlushInterval, at once after any line at
// WARN or above, and by stop, which the service calls last. Whole lines only
// are written (zapcore.BufferedWriteSyncer). A terminal gets New's logger:
// a person watching sees each line as it comes.
//
// One write of many lines instead of one a line: the write was a third of
// the access log's cost on fuel-service's GET of a vehicle (one write system
// call a request, under the handler's lock). A crash that ends the process
// without stop loses what the buffer held, at most FlushInterval of INFO
// lines; the crash's own report goes to stderr, unbuffered.
func NewBuffered(w io.Writer, level slog.Level) (log *slog.Logger, stop func() error) {
	if isTerminal(w) {
		return New(w, level), func() error { return nil }
	}
	// w wrapped so that AddSync does not find an *os.File's Sync: a flush
	// writes the lines out, it does not wait for a disk (fsync).
	out := zapcore.AddSync(struct{ io.Writer }{w})
	b := &zapcore.BufferedWriteSyncer{WS: out, Size: BufferSize, FlushInterval: FlushInterval}
	h := ContextHandler{Handler: slog.NewJSONHandler(b, &slog.HandlerOptions{Level: level}), flush: b.Sync}
	return slog.New(h), b.Stop
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && isatty.IsTerminal(f.Fd())
}

// ContextHandler adds the request id (and the trace and span ids) of the
// record's context to the record.
type ContextHandler struct {
	slog.Handler
	// flush, when set, writes out a buffered output (NewBuffered); it is
	// called after every record at WARN or above.
	flush func() error
}

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
	err := h.Handler.Handle(ctx, r)
	if h.flush != nil && r.Level >= slog.LevelWarn {
		return errors.Join(err, h.flush())
	}
	return err
}

// WithAttrs implements slog.Handler.
func (h ContextHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return ContextHandler{Handler: h.Handler.WithAttrs(attrs), flush: h.flush}
}

// WithGroup implements slog.Handler.
func (h ContextHandler) WithGroup(name string) slog.Handler {
	return ContextHandler{Handler: h.Handler.WithGroup(name), flush: h.flush}
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
