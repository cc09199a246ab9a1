// Package otlptest is an in-process OTLP/HTTP trace receiver for tests:
// what an OpenTelemetry collector would receive on /v1/traces, decoded
// into plain spans that a test can look for.
package otlptest

import (
	"compress/gzip"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/carhub/backend/pkg/tracing"
)

// Span is one received span, its ids in lower-case hex as in traceparent.
type Span struct {
	Service      string // the resource's service.name
	TraceID      string
	SpanID       string
	ParentSpanID string // "" for a root span
	Name         string
	Kind         string // "server", "client", "internal", "producer", "consumer"
	Attrs        map[string]string
	Error        bool // status code ERROR
	Start, End   time.Time
}

func (s Span) String() string {
	return fmt.Sprintf("%s %q (%s) trace %s span %s parent %s", s.Service, s.Name, s.Kind, s.TraceID, s.SpanID, s.ParentSpanID)
}

// Receiver collects the spans exported to it.
type Receiver struct {
	// URL is the base URL to give as OTEL_EXPORTER_OTLP_ENDPOINT.
	URL string

	mu    sync.Mutex
	spans []Span
}

// Start runs a receiver on a free loopback port until the test ends.
func Start(tb testing.TB) *Receiver {
	tb.Helper()
	return StartAt(tb, "127.0.0.1:0")
}

// Traced starts a receiver and turns tracing on towards it
// (tracing.Setup, as a service named service) until the test ends. What is
// built afterwards is instrumented, as in a service's run. It returns the
// receiver and the shutdown, which a test calls to flush the buffered
// spans before reading them (calling it again at the end does nothing).
func Traced(tb testing.TB, service string) (*Receiver, func(context.Context) error) {
	tb.Helper()
	rcv := Start(tb)
	shutdown, err := tracing.Setup(context.Background(), func(k string) string {
		return map[string]string{tracing.EnvEndpoint: rcv.URL}[k]
	}, service)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = shutdown(context.Background()) })
	return rcv, shutdown
}

// StartAt runs a receiver on addr until the test ends; a test that wants
// to see what an exporter left at its defaults would send listens on the
// default OTLP/HTTP address, 127.0.0.1:4318.
func StartAt(tb testing.TB, addr string) *Receiver {
	tb.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		tb.Fatalf("otlptest: listen on %s: %v", addr, err)
	}
	r := &Receiver{}
	srv := httptest.NewUnstartedServer(Handler(func(req *collectortrace.ExportTraceServiceRequest) {
		spans := Decode(req)
		r.mu.Lock()
		r.spans = append(r.spans, spans...)
		r.mu.Unlock()
	}))
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	tb.Cleanup(srv.Close)
	r.URL = srv.URL
	return r
}

// Spans returns every span received so far.
func (r *Receiver) Spans() []Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.spans)
}

// Trace returns the spans of one trace (hex id) received so far.
func (r *Receiver) Trace(traceID string) []Span {
	var out []Span
	for _, s := range r.Spans() {
		if s.TraceID == traceID {
			out = append(out, s)
		}
	}
	return out
}

// WaitTrace waits up to timeout until done says the spans of traceID are
// all there (exporters send in batches, after a delay), and returns them;
// it fails the test when they never are.
func (r *Receiver) WaitTrace(tb testing.TB, traceID string, timeout time.Duration, done func([]Span) bool) []Span {
	tb.Helper()
	deadline := time.Now().Add(timeout)
	for {
		spans := r.Trace(traceID)
		if done(spans) {
			return spans
		}
		if time.Now().After(deadline) {
			var b strings.Builder
			for _, s := range r.Spans() {
				fmt.Fprintf(&b, "\n  %s", s)
			}
			tb.Fatalf("otlptest: trace %s incomplete after %s; received:%s", traceID, timeout, b.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Handler answers OTLP/HTTP protobuf export requests (POST /v1/traces,
// gzip or not) and hands each decoded request to got (which may be nil:
// the spans are then read and dropped, as a sink would).
func Handler(got func(*collectortrace.ExportTraceServiceRequest)) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/traces", func(w http.ResponseWriter, r *http.Request) {
		if ct := r.Header.Get("Content-Type"); ct != "application/x-protobuf" {
			http.Error(w, "Content-Type must be application/x-protobuf, got "+ct, http.StatusUnsupportedMediaType)
			return
		}
		var body io.Reader = r.Body
		if r.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(r.Body)
			if err != nil {
				http.Error(w, "gzip: "+err.Error(), http.StatusBadRequest)
				return
			}
			defer zr.Close()
			body = zr
		}
		raw, err := io.ReadAll(io.LimitReader(body, 64<<20))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if got != nil {
			var req collectortrace.ExportTraceServiceRequest
			if err := proto.Unmarshal(raw, &req); err != nil {
				http.Error(w, "protobuf: "+err.Error(), http.StatusBadRequest)
				return
			}
			got(&req)
		}
		out, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	})
	return mux
}

// Decode flattens an export request into spans.
func Decode(req *collectortrace.ExportTraceServiceRequest) []Span {
	var out []Span
	for _, rs := range req.GetResourceSpans() {
		service := attrs(rs.GetResource().GetAttributes())["service.name"]
		for _, ss := range rs.GetScopeSpans() {
			for _, sp := range ss.GetSpans() {
				out = append(out, Span{
					Service:      service,
					TraceID:      hex.EncodeToString(sp.GetTraceId()),
					SpanID:       hex.EncodeToString(sp.GetSpanId()),
					ParentSpanID: hex.EncodeToString(sp.GetParentSpanId()),
					Name:         sp.GetName(),
					Kind:         kind(sp.GetKind()),
					Attrs:        attrs(sp.GetAttributes()),
					Error:        sp.GetStatus().GetCode() == tracepb.Status_STATUS_CODE_ERROR,
					Start:        time.Unix(0, int64(sp.GetStartTimeUnixNano())),
					End:          time.Unix(0, int64(sp.GetEndTimeUnixNano())),
				})
			}
		}
	}
	return out
}

func kind(k tracepb.Span_SpanKind) string {
	return strings.ToLower(strings.TrimPrefix(k.String(), "SPAN_KIND_"))
}

// attrs renders attribute values as text (numbers in decimal).
func attrs(kvs []*commonpb.KeyValue) map[string]string {
	m := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		v := kv.GetValue()
		switch x := v.GetValue().(type) {
		case *commonpb.AnyValue_StringValue:
			m[kv.GetKey()] = x.StringValue
		case *commonpb.AnyValue_IntValue:
			m[kv.GetKey()] = fmt.Sprint(x.IntValue)
		case *commonpb.AnyValue_BoolValue:
			m[kv.GetKey()] = fmt.Sprint(x.BoolValue)
		case *commonpb.AnyValue_DoubleValue:
			m[kv.GetKey()] = fmt.Sprint(x.DoubleValue)
		default:
			m[kv.GetKey()] = v.String()
		}
	}
	return m
}
