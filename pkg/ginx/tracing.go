package ginx

import (
	"slices"

	"github.com/gin-gonic/gin"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/carhub/backend/pkg/tracing"
)

// serverSpans starts one server span per request, continuing the trace of
// the caller's traceparent (Caddy's span, or the client's). The span is
// named by the method and gin's route template ("GET /api/vehicles/:id";
// just the method when no route matches), never by the client's path, and
// carries the semantic conventions' request attributes, the status, and
// the error of a 5xx. Requests to the untraced routes (probes, metrics,
// health checks) get no span: they come every few seconds and say nothing
// about a user's request. New installs it only when tracing.Enabled.
//
// It is written here rather than taken from otelgin: otelgin also records
// HTTP metrics for every request (attributes built even for the no-op
// meter), which made it cost more than the rest of the span, and its
// module stopped at v0.65 while the rest of contrib moved on.
func serverSpans(untraced []string) gin.HandlerFunc {
	tracer := tracing.Tracer()
	server := trace.WithSpanKind(trace.SpanKindServer) // an option value is an allocation: made once
	return func(c *gin.Context) {
		route := c.FullPath()
		if slices.Contains(untraced, route) {
			c.Next()
			return
		}
		r := c.Request
		method := methodLabel(r.Method)
		ctx := tracing.Extract(r.Context(), r.Header)
		// The span starts with the method as its name and no attributes: the
		// samplers OTEL_TRACES_SAMPLER can name decide by the trace id and
		// the parent alone, and a span not sampled (most of them, once an
		// operator samples) should not cost its name and attributes.
		ctx, span := tracer.Start(ctx, method, server)
		defer span.End()
		recording := span.IsRecording()
		if recording {
			attrs := append(make([]attribute.KeyValue, 0, 3), attribute.String("http.request.method", method), attribute.String("url.path", r.URL.Path))
			if route != "" {
				span.SetName(method + " " + route)
				attrs = append(attrs, attribute.String("http.route", route))
			}
			span.SetAttributes(attrs...) // one call: each grows the span's list
		}
		c.Request = r.WithContext(ctx)
		c.Next()

		if !recording {
			return
		}
		status := c.Writer.Status()
		span.SetAttributes(attribute.Int("http.response.status_code", status))
		if status >= 500 {
			desc := ""
			if err := c.Errors.Last(); err != nil {
				span.RecordError(err.Err)
				desc = err.Error()
			}
			span.SetStatus(codes.Error, desc)
		}
	}
}
