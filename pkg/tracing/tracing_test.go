package tracing_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/carhub/backend/pkg/tracing"
	"github.com/carhub/backend/pkg/tracing/otlptest"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestOffWithoutEndpoint(t *testing.T) {
	for name, vars := range map[string]map[string]string{
		"nothing set":      {},
		"only a name":      {"OTEL_SERVICE_NAME": "x"},
		"sdk disabled":     {"OTEL_SDK_DISABLED": "TRUE", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1"},
		"protocol, no URL": {"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"},
	} {
		t.Run(name, func(t *testing.T) {
			shutdown, err := tracing.Setup(context.Background(), env(vars), "svc")
			if err != nil {
				t.Fatal(err)
			}
			if tracing.Enabled() {
				t.Error("Enabled with tracing off")
			}
			if _, ok := otel.GetTracerProvider().(*sdktrace.TracerProvider); ok {
				t.Error("an SDK tracer provider was installed")
			}
			_, span := tracing.Tracer().Start(context.Background(), "x")
			if span.IsRecording() || span.SpanContext().IsValid() {
				t.Errorf("span of the off tracer records or has ids: %+v", span.SpanContext())
			}
			span.End()
			if fields := otel.GetTextMapPropagator().Fields(); len(fields) != 0 {
				t.Errorf("a propagator is installed: %v", fields)
			}
			if err := shutdown(context.Background()); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestSetupRefusesMalformedVariables(t *testing.T) {
	for name, tt := range map[string]struct {
		vars map[string]string
		want string
	}{
		"no scheme":       {map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4318"}, "OTEL_EXPORTER_OTLP_ENDPOINT: "},
		"signal variable": {map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "ftp://x/v1/traces"}, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "},
		"protocol":        {map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, "OTEL_EXPORTER_OTLP_PROTOCOL: "},
		"traces protocol": {map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "udp"}, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "},
		"disabled":        {map[string]string{"OTEL_SDK_DISABLED": "yes"}, "OTEL_SDK_DISABLED: "},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := tracing.Setup(context.Background(), env(tt.vars), "svc")
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("Setup = %v, want an error starting %q", err, tt.want)
			}
			if tracing.Enabled() {
				t.Error("Enabled after a refused configuration")
			}
		})
	}
}

// TestExportsToTheEndpoint sends spans to an in-process OTLP receiver, over
// the general endpoint (with /v1/traces added) and the signal's own one.
func TestExportsToTheEndpoint(t *testing.T) {
	for _, tt := range []struct{ name, variable, suffix, service string }{
		{"general endpoint", "OTEL_EXPORTER_OTLP_ENDPOINT", "", "default-name"},
		{"traces endpoint", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "/v1/traces", "named"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rcv := otlptest.Start(t)
			vars := map[string]string{tt.variable: rcv.URL + tt.suffix}
			if tt.service == "named" {
				vars["OTEL_SERVICE_NAME"] = "named"
			}
			shutdown, err := tracing.Setup(context.Background(), env(vars), "default-name")
			if err != nil {
				t.Fatal(err)
			}
			if !tracing.Enabled() {
				t.Fatal("not Enabled with an endpoint")
			}
			// A W3C traceparent is continued.
			carrier := propagation.MapCarrier{"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}
			ctx := otel.GetTextMapPropagator().Extract(context.Background(), carrier)
			ctx, parent := tracing.Tracer().Start(ctx, "parent")
			_, child := tracing.Tracer().Start(ctx, "child")
			child.End()
			parent.End()
			// Shutdown flushes the batch: everything is there once it returns.
			if err := shutdown(context.Background()); err != nil {
				t.Fatal(err)
			}
			if tracing.Enabled() {
				t.Error("Enabled after shutdown")
			}
			spans := rcv.WaitTrace(t, "4bf92f3577b34da6a3ce929d0e0e4736", time.Second, func(s []otlptest.Span) bool { return len(s) == 2 })
			byName := map[string]otlptest.Span{}
			for _, s := range spans {
				byName[s.Name] = s
				if s.Service != tt.service {
					t.Errorf("%s: service.name %q, want %q", s.Name, s.Service, tt.service)
				}
			}
			if byName["parent"].ParentSpanID != "00f067aa0ba902b7" || byName["child"].ParentSpanID != byName["parent"].SpanID {
				t.Errorf("parent-child relations wrong: %v", spans)
			}
		})
	}
}

// TestGRPCProtocol: OTEL_EXPORTER_OTLP_PROTOCOL=grpc makes a gRPC exporter
// (which connects lazily) to the endpoint as given, without /v1/traces.
func TestGRPCProtocol(t *testing.T) {
	shutdown, err := tracing.Setup(context.Background(), env(map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc",
	}), "svc")
	if err != nil {
		t.Fatal(err)
	}
	if !tracing.Enabled() {
		t.Error("not Enabled with a gRPC endpoint")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = shutdown(ctx) // nothing to flush; the endpoint does not answer
	if tracing.Enabled() {
		t.Error("Enabled after shutdown")
	}
}

// TestExtract: the caller's traceparent (with its tracestate) and baggage
// are read as the installed propagator reads them; a request with neither
// gets its context back unchanged.
func TestExtract(t *testing.T) {
	shutdown, err := tracing.Setup(context.Background(), env(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1"}), "svc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = shutdown(context.Background()) })
	type key struct{}
	base := context.WithValue(context.Background(), key{}, "base")
	for _, tt := range []struct {
		name                        string
		header                      http.Header
		traceID, spanID, state, bag string
	}{
		{"none", http.Header{"Accept": {"*/*"}, "Tracestate": {"k=v"}}, "", "", "", ""},
		{"traceparent", http.Header{"Traceparent": {"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}, "Tracestate": {"k=v"}},
			"4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7", "k=v", ""},
		{"baggage only", http.Header{"Baggage": {"tenant=a"}}, "", "", "", "a"},
		{"malformed traceparent", http.Header{"Traceparent": {"00-zz-00f067aa0ba902b7-01"}}, "", "", "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := tracing.Extract(base, tt.header)
			if ctx.Value(key{}) != "base" {
				t.Fatal("the context's own values are lost")
			}
			sc := trace.SpanContextFromContext(ctx)
			if tt.traceID == "" {
				if sc.IsValid() {
					t.Errorf("span context %v from %v", sc, tt.header)
				}
			} else if sc.TraceID().String() != tt.traceID || sc.SpanID().String() != tt.spanID || !sc.IsRemote() || !sc.IsSampled() || sc.TraceState().String() != tt.state {
				t.Errorf("span context %v %q, want trace %s span %s state %q, remote and sampled", sc, sc.TraceState(), tt.traceID, tt.spanID, tt.state)
			}
			if got := baggage.FromContext(ctx).Member("tenant").Value(); got != tt.bag {
				t.Errorf("baggage tenant %q, want %q", got, tt.bag)
			}
			if tt.name == "none" && ctx != base {
				t.Error("a request without trace headers got a new context")
			}
		})
	}
}
