package tracing

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Span is a span started by Start; the zero Span (tracing off) does nothing.
type Span struct{ span trace.Span }

// Start starts a span named name under the span in ctx, of kind internal
// unless kind says otherwise. While tracing is off it returns ctx and the
// zero Span at the cost of one atomic load.
func Start(ctx context.Context, name string, kind trace.SpanKind, attrs ...attribute.KeyValue) (context.Context, Span) {
	if !Enabled() {
		return ctx, Span{}
	}
	ctx, s := Tracer().Start(ctx, name, trace.WithSpanKind(kind), trace.WithAttributes(attrs...))
	return ctx, Span{s}
}

// End ends the span; a non-nil *errp marks it failed with that error,
// unless it is a cancellation (the caller went away) or one of expected
// (an answer, such as "not found", rather than a failure). Meant for
// `defer span.End(&err)` with a named error result.
func (s Span) End(errp *error, expected ...error) {
	if s.span == nil {
		return
	}
	if errp != nil && *errp != nil && !errors.Is(*errp, context.Canceled) && !isAny(*errp, expected) {
		s.span.RecordError(*errp)
		s.span.SetStatus(codes.Error, (*errp).Error())
	}
	s.span.End()
}

func isAny(err error, targets []error) bool {
	for _, t := range targets {
		if errors.Is(err, t) {
			return true
		}
	}
	return false
}

// SetAttributes adds attributes to the span (results known at its end).
func (s Span) SetAttributes(attrs ...attribute.KeyValue) {
	if s.span != nil {
		s.span.SetAttributes(attrs...)
	}
}
