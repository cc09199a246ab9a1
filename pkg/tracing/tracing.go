// Package tracing turns OpenTelemetry tracing on from the standard OTEL_*
// environment variables, or leaves it off at no cost: without an OTLP
// endpoint nothing is installed, no middleware or instrumentation is added
// (they ask Enabled first), and the global tracer provider stays the no-op
// one. With an endpoint, spans go through a batch span processor to an
// OTLP exporter (HTTP/protobuf by default, gRPC when
// OTEL_EXPORTER_OTLP_PROTOCOL says so), and W3C traceparent and baggage are
// read from and written to HTTP headers.
package tracing

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strings"
	"sync/atomic"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// The variables Setup reads itself. Every other OTEL_EXPORTER_OTLP_*
// variable (headers, timeout, compression, certificates), the sampler
// (OTEL_TRACES_SAMPLER) and the batch processor's (OTEL_BSP_*) are read by
// the OpenTelemetry SDK from the process environment.
const (
	EnvEndpoint        = "OTEL_EXPORTER_OTLP_ENDPOINT"
	EnvTracesEndpoint  = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	EnvProtocol        = "OTEL_EXPORTER_OTLP_PROTOCOL"
	EnvTracesProtocol  = "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
	EnvServiceName     = "OTEL_SERVICE_NAME"
	EnvSDKDisabled     = "OTEL_SDK_DISABLED"
	defaultTracesPath  = "/v1/traces"
	protocolHTTP       = "http/protobuf"
	protocolGRPC       = "grpc"
	instrumentationLib = "github.com/carhub/backend"
)

// enabled is set while a provider installed by Setup is the global one.
var enabled atomic.Bool

// Enabled reports whether Setup turned tracing on. Instrumentation that
// costs something even with a no-op provider (middleware, wrapped
// transports, database callbacks) is installed only when it is true, so
// Setup must run before the handlers and clients are built.
func Enabled() bool { return enabled.Load() }

// Tracer returns the tracer for spans the services start themselves
// (ingestion stages, vector store calls). While tracing is off it is the
// global no-op tracer: starting a span costs a context lookup.
func Tracer() trace.Tracer { return otel.Tracer(instrumentationLib) }

// Setup reads the configuration with getenv and, when an endpoint is set
// (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT) and
// OTEL_SDK_DISABLED is not true, installs a global tracer provider that
// exports to it, with service.name OTEL_SERVICE_NAME or else service. The
// returned shutdown flushes the spans still buffered and restores the
// no-op provider; it is a no-op itself when tracing stayed off. A malformed
// variable is an error naming it.
func Setup(ctx context.Context, getenv func(string) string, service string) (shutdown func(context.Context) error, err error) {
	off := func(context.Context) error { return nil }
	if disabled, err := parseBool(getenv(EnvSDKDisabled)); err != nil {
		return off, fmt.Errorf("%s: %w", EnvSDKDisabled, err)
	} else if disabled {
		return off, nil
	}
	endpoint, err := exporterEndpoint(getenv)
	if err != nil || endpoint == "" {
		return off, err
	}
	protocol := protocolOf(getenv)
	var exp sdktrace.SpanExporter
	switch protocol {
	case protocolHTTP:
		exp, err = otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(endpoint))
	case protocolGRPC:
		exp, err = otlptracegrpc.New(ctx, otlptracegrpc.WithEndpointURL(endpoint))
	default:
		return off, fmt.Errorf("%s: %q is not %q or %q", protocolVar(getenv), protocol, protocolHTTP, protocolGRPC)
	}
	if err != nil {
		return off, fmt.Errorf("tracing: OTLP exporter: %w", err)
	}
	if name := getenv(EnvServiceName); name != "" {
		service = name
	}
	// resource.Default adds the SDK's attributes and OTEL_RESOURCE_ATTRIBUTES;
	// the service name given here wins over its "unknown_service".
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(attribute.String("service.name", service)))
	if err != nil {
		_ = exp.Shutdown(ctx)
		return off, fmt.Errorf("tracing: resource: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	enabled.Store(true)
	return func(ctx context.Context) error {
		enabled.Store(false)
		err := tp.Shutdown(ctx)
		otel.SetTracerProvider(noop.NewTracerProvider())
		otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator())
		return err
	}, nil
}

// exporterEndpoint is the URL to send spans to, "" when none is set. The
// signal's own variable is used as it is; the general one is a base URL
// that gets /v1/traces for OTLP/HTTP, as the specification says.
func exporterEndpoint(getenv func(string) string) (string, error) {
	name, raw := EnvTracesEndpoint, getenv(EnvTracesEndpoint)
	if raw == "" {
		name, raw = EnvEndpoint, getenv(EnvEndpoint)
	}
	if raw == "" {
		return "", nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%s: %q is not an http:// or https:// URL with a host", name, raw)
	}
	if name == EnvEndpoint && protocolOf(getenv) == protocolHTTP {
		u.Path = path.Join("/", u.Path, defaultTracesPath)
	}
	return u.String(), nil
}

func firstSet(getenv func(string) string, names ...string) string {
	for _, n := range names {
		if v := getenv(n); v != "" {
			return v
		}
	}
	return ""
}

func protocolVar(getenv func(string) string) string {
	if getenv(EnvTracesProtocol) != "" {
		return EnvTracesProtocol
	}
	return EnvProtocol
}

// parseBool reads OTEL_SDK_DISABLED: "" and "false" are false, "true" is
// true (any case); anything else is refused rather than guessed.
func parseBool(s string) (bool, error) {
	switch strings.ToLower(s) {
	case "", "false":
		return false, nil
	case "true":
		return true, nil
	}
	return false, fmt.Errorf(`want "true" or "false", got %q`, s)
}

// Extract returns ctx with the caller's span context and baggage read from
// the W3C traceparent, tracestate and baggage headers of h, as the
// propagator Setup installs reads them. A request with neither traceparent
// nor baggage (most of them: browsers send none) gets ctx back without the
// propagator's header lookups; tracestate means nothing without
// traceparent. h's keys are canonical, as net/http makes them.
func Extract(ctx context.Context, h http.Header) context.Context {
	if len(h["Traceparent"]) == 0 && len(h["Baggage"]) == 0 {
		return ctx
	}
	return otel.GetTextMapPropagator().Extract(ctx, propagation.HeaderCarrier(h))
}
