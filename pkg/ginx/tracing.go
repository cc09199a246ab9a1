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
	return func(c *gin.Context) {
		route := c.FullPath()
		if slices.Contains(untraced, route) {
			c.Next()
			return
		}
		r := c.Request
		method := methodLabel(r.Method)
		name, attrs := method, make([]attribute.KeyValue, 0, 4)
		attrs = append(attrs, attribute.String("http.request.method", method), attribute.String("url.path", r.URL.Path))
		if route != "" {
			name += " " + route
			attrs = append(attrs, attribute.String("http.route", route))
		}
		ctx := tracing.Extract(r.Context(), r.Header)
		ctx, span := tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...))
		defer span.End()
		c.Request = r.WithContext(ctx)
		c.Next()

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
