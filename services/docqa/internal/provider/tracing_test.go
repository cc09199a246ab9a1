package provider_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/carhub/backend/pkg/tracing"
	"github.com/carhub/backend/pkg/tracing/otlptest"
	"github.com/carhub/backend/services/docqa/internal/openaifake"
)

// TestProviderRequestsCarryTheTrace: with tracing on, each embedding
// request is a client span under the caller's span and its traceparent
// names that span; with tracing off no traceparent is sent.
func TestProviderRequestsCarryTheTrace(t *testing.T) {
	fake := openaifake.New(t)
	off := mustEmbedder(t, fake, nil)
	if _, err := off.Embed(context.Background(), texts(1)); err != nil {
		t.Fatal(err)
	}
	if r := fake.EmbeddingRequests(); r[0].Traceparent != "" {
		t.Errorf("traceparent %q sent with tracing off", r[0].Traceparent)
	}

	rcv, shutdown := otlptest.Traced(t, "provider-test")
	on := mustEmbedder(t, fake, nil) // built after Setup, as run does
	ctx, parent := tracing.Tracer().Start(context.Background(), "ingest.embed")
	if _, err := on.Embed(ctx, texts(1)); err != nil {
		t.Fatal(err)
	}
	parent.End()
	traceID, parentID := parent.SpanContext().TraceID().String(), parent.SpanContext().SpanID().String()
	if err := shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	spans := rcv.WaitTrace(t, traceID, 5*time.Second, func(s []otlptest.Span) bool { return len(s) == 2 })
	var call otlptest.Span
	for _, s := range spans {
		if s.Name == "provider.embedding" {
			call = s
		}
	}
	if call.ParentSpanID != parentID || call.Kind != "client" || call.Attrs["http.response.status_code"] != "200" {
		t.Errorf("provider span %v %v: want a client span under %s", call, call.Attrs, parentID)
	}
	reqs := fake.EmbeddingRequests()
	if got, want := reqs[len(reqs)-1].Traceparent, "00-"+traceID+"-"+call.SpanID+"-01"; got != want {
		t.Errorf("traceparent %q, want %q", got, want)
	}
	for k, v := range call.Attrs {
		if strings.Contains(v, openaifake.APIKey) {
			t.Errorf("attribute %s carries the API key", k)
		}
	}
}
