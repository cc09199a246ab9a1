package provider

import (
	"net/http"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/carhub/backend/pkg/tracing"
)

// traced returns hc itself while tracing is off. With tracing on it returns
// a copy whose transport puts every HTTP request to the provider (each
// attempt: retries are spans of their own) in a client span named
// "provider.<kind>" (embedding, chat, rerank), a child of the caller's
// span, and sends the trace on in the request's traceparent header. A
// streamed chat answer's span ends when its body does.
func traced(kind string, hc *http.Client) *http.Client {
	if !tracing.Enabled() {
		return hc
	}
	c := *hc
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	name := "provider." + kind
	c.Transport = otelhttp.NewTransport(base,
		otelhttp.WithSpanNameFormatter(func(string, *http.Request) string { return name }),
		otelhttp.WithSpanOptions(trace.WithAttributes(attribute.String("docqa.provider.kind", kind))),
	)
	return &c
}
