package systemtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/carhub/backend/pkg/caddytest"
	"github.com/carhub/backend/pkg/proctest"
	"github.com/carhub/backend/pkg/tracing/otlptest"
)

// The client's trace: its traceparent names this trace and span.
const (
	clientTrace = "0af7651916cd43dd8448eb211c80319c"
	clientSpan  = "b7ad6b7169203331"
)

// otelEnv turns tracing on towards rcv, exporting every 100 ms.
func otelEnv(rcv *otlptest.Receiver, service string) map[string]string {
	return map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT": rcv.URL,
		"OTEL_SERVICE_NAME":           service,
		"OTEL_BSP_SCHEDULE_DELAY":     "100",
	}
}

// gateway starts the real Caddy in front of svc with env added; it returns
// once Caddy routes to the service (its health check admits it).
func gateway(t *testing.T, svc *proctest.Process, env map[string]string) *client {
	t.Helper()
	vars := []string{
		"FUEL_UPSTREAM=" + strings.TrimPrefix(svc.URL, "http://"),
		"DOCQA_UPSTREAM=127.0.0.1:1", // not used here
		"WEB_ROOT=" + t.TempDir(),
		// Whatever the test's own environment says, Caddy traces only when
		// env asks it to.
		"OTEL_EXPORTER_OTLP_ENDPOINT=", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=",
	}
	for k, v := range env {
		vars = append(vars, k+"="+v)
	}
	c := newClient(caddytest.Start(t, vars...))
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		a, err := c.do("GET", "/health", "")
		if err == nil && a.status == http.StatusOK {
			return c
		}
		if time.Now().After(deadline) {
			t.Fatalf("Caddy does not route to the service: %v %d %s", err, a.status, a.body)
		}
	}
}

// createVehicle creates a vehicle through c and returns its id.
func createVehicle(t *testing.T, c *client) string {
	t.Helper()
	a, err := c.do("POST", "/api/vehicles", `{"name":"Traced","fuel_type":"gasoline"}`)
	if err != nil || a.status != http.StatusOK {
		t.Fatalf("create vehicle: %v %d %s", err, a.status, a.body)
	}
	var v map[string]any
	if err := decode(a.body, &v); err != nil {
		t.Fatal(err)
	}
	return idOf(v)
}

// logLine finds the service's access log line of the request with id.
func logLine(t *testing.T, svc *proctest.Process, requestID string) map[string]any {
	t.Helper()
	// The access log line is written after the answer is sent: the client
	// may have it before the line exists.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		sc := bufio.NewScanner(strings.NewReader(svc.Logs()))
		for sc.Scan() {
			var rec map[string]any
			if json.Unmarshal(sc.Bytes(), &rec) == nil && rec["msg"] == "request" && rec["request_id"] == requestID {
				return rec
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no request log line with request_id %s:\n%s", requestID, svc.Logs())
		}
	}
}

// TestTraceThroughCaddy: a request with a traceparent goes through the real
// Caddy to the real fuel-service; both export spans of the client's trace
// to an in-process OTLP receiver: Caddy's server span under the client's
// span, the service's server span (named by its route template) under
// Caddy's, the database statement under the service's. The service's log
// line of the request carries the trace id beside the request id.
func TestTraceThroughCaddy(t *testing.T) {
	rcv := otlptest.Start(t)
	env := otelEnv(rcv, "fuel-service")
	env["FUEL_SQLITE_PATH"] = filepath.Join(t.TempDir(), "fuel.db")
	svc := startService(t, env)
	c := gateway(t, svc, otelEnv(rcv, "caddy"))
	id := createVehicle(t, c)

	a, err := c.do("GET", "/api/vehicles/"+id, "", "traceparent", "00-"+clientTrace+"-"+clientSpan+"-01", "X-Request-ID", "trace-test-1")
	if err != nil || a.status != http.StatusOK {
		t.Fatalf("GET vehicle: %v %d %s", err, a.status, a.body)
	}
	// Every span read below: a batch can leave between the statement's end
	// and the request's (CI once had the statement without its parent).
	spans := rcv.WaitTrace(t, clientTrace, 20*time.Second, func(s []otlptest.Span) bool {
		return findSpan(s, "fuel-service", "SELECT vehicles") != nil && findSpan(s, "fuel-service", "GET /api/vehicles/:id") != nil &&
			findSpan(s, "caddy", "GET") != nil
	})
	gw := findSpan(spans, "caddy", "GET")
	if gw.ParentSpanID != clientSpan || gw.Kind != "server" {
		t.Errorf("Caddy's span %v: want a server span under the client's %s", gw, clientSpan)
	}
	server := findSpan(spans, "fuel-service", "GET /api/vehicles/:id")
	if server == nil {
		t.Fatalf("no fuel-service span named by the route template: %v", spans)
	}
	if server.ParentSpanID != gw.SpanID || server.Kind != "server" || server.Attrs["http.route"] != "/api/vehicles/:id" {
		t.Errorf("service span %v %v: want a server span under Caddy's %s", server, server.Attrs, gw.SpanID)
	}
	db := findSpan(spans, "fuel-service", "SELECT vehicles")
	if db.ParentSpanID != server.SpanID || db.Kind != "client" || db.Attrs["db.system.name"] != "sqlite" {
		t.Errorf("database span %v %v: want a sqlite client span under the service's %s", db, db.Attrs, server.SpanID)
	}
	for _, s := range spans {
		if strings.Contains(s.Name, id) && id != "" {
			t.Errorf("span %v is named with the vehicle id", s)
		}
	}

	line := logLine(t, svc, "trace-test-1")
	if line["trace_id"] != clientTrace || line["span_id"] != server.SpanID {
		t.Errorf("log line %v: want trace_id %s and span_id %s", line, clientTrace, server.SpanID)
	}
}

// TestServiceFollowsCaddysSampling: with Caddy sampling as the Kubernetes
// base has it (parent-based, a ratio: here 0, so that the outcome is
// known), a request Caddy does not sample is traced by nobody, the
// service included (it follows Caddy's traceparent, unsampled), yet the
// service's log line carries Caddy's trace id; a client's sampled
// traceparent is followed by both.
func TestServiceFollowsCaddysSampling(t *testing.T) {
	rcv := otlptest.Start(t)
	env := otelEnv(rcv, "fuel-service")
	env["FUEL_SQLITE_PATH"] = filepath.Join(t.TempDir(), "fuel.db")
	svc := startService(t, env)
	gwEnv := otelEnv(rcv, "caddy")
	gwEnv["OTEL_TRACES_SAMPLER"] = "parentbased_traceidratio"
	gwEnv["OTEL_TRACES_SAMPLER_ARG"] = "0"
	c := gateway(t, svc, gwEnv)
	id := createVehicle(t, c)

	if a, err := c.do("GET", "/api/vehicles/"+id, "", "X-Request-ID", "unsampled-1"); err != nil || a.status != http.StatusOK {
		t.Fatalf("GET vehicle: %v %d %s", err, a.status, a.body)
	}
	line := logLine(t, svc, "unsampled-1")
	unsampled, _ := line["trace_id"].(string)
	if len(unsampled) != 32 || unsampled == clientTrace {
		t.Fatalf("log line %v: want the trace id Caddy passed on", line)
	}
	if a, err := c.do("GET", "/api/vehicles/"+id, "", "traceparent", "00-"+clientTrace+"-"+clientSpan+"-01"); err != nil || a.status != http.StatusOK {
		t.Fatalf("GET vehicle: %v %d %s", err, a.status, a.body)
	}
	// Each process exports its spans in the order they end: once the
	// second request's are in, the first's would be.
	rcv.WaitTrace(t, clientTrace, 20*time.Second, func(s []otlptest.Span) bool {
		return findSpan(s, "fuel-service", "SELECT vehicles") != nil && findSpan(s, "fuel-service", "GET /api/vehicles/:id") != nil &&
			findSpan(s, "caddy", "GET") != nil
	})
	if got := rcv.Trace(unsampled); len(got) != 0 {
		t.Errorf("spans of the request Caddy did not sample: %v", got)
	}
}

// TestNoTracesWhenUnset: with no OTLP endpoint Caddy makes no span and
// passes the client's traceparent on unchanged (a traced service then
// hangs its span right under the client's), and a service without one
// exports nothing and logs no trace id.
func TestNoTracesWhenUnset(t *testing.T) {
	t.Run("Caddy off, service on", func(t *testing.T) {
		rcv := otlptest.Start(t)
		env := otelEnv(rcv, "fuel-service")
		env["FUEL_SQLITE_PATH"] = filepath.Join(t.TempDir(), "fuel.db")
		c := gateway(t, startService(t, env), nil)
		id := createVehicle(t, c)
		if a, err := c.do("GET", "/api/vehicles/"+id, "", "traceparent", "00-"+clientTrace+"-"+clientSpan+"-01"); err != nil || a.status != http.StatusOK {
			t.Fatalf("GET vehicle: %v %d", err, a.status)
		}
		spans := rcv.WaitTrace(t, clientTrace, 20*time.Second, func(s []otlptest.Span) bool {
			return findSpan(s, "fuel-service", "GET /api/vehicles/:id") != nil
		})
		if s := findSpan(spans, "fuel-service", "GET /api/vehicles/:id"); s.ParentSpanID != clientSpan {
			t.Errorf("service span %v: want it right under the client's span %s", s, clientSpan)
		}
		for _, s := range rcv.Spans() {
			if s.Service != "fuel-service" {
				t.Errorf("a span from %q with Caddy's tracing off: %v", s.Service, s)
			}
		}
	})
	t.Run("all off", func(t *testing.T) {
		// A receiver on the default OTLP/HTTP address: an exporter made
		// without an endpoint would send there. It must stay empty.
		rcv := otlptest.StartAt(t, "127.0.0.1:4318")
		svc := startService(t, map[string]string{"FUEL_SQLITE_PATH": filepath.Join(t.TempDir(), "fuel.db")})
		c := gateway(t, svc, nil)
		id := createVehicle(t, c)
		if a, err := c.do("GET", "/api/vehicles/"+id, "", "traceparent", "00-"+clientTrace+"-"+clientSpan+"-01", "X-Request-ID", "untraced-1"); err != nil || a.status != http.StatusOK {
			t.Fatalf("GET vehicle: %v %d", err, a.status)
		}
		if line := logLine(t, svc, "untraced-1"); line["trace_id"] != nil {
			t.Errorf("log line with tracing off carries a trace id: %v", line)
		}
		if !bytes.Contains([]byte(svc.Logs()), []byte(`"msg":"tracing off"`)) {
			t.Errorf("the service did not say tracing is off:\n%s", svc.Logs())
		}
		time.Sleep(300 * time.Millisecond) // three export intervals of a traced service
		if got := rcv.Spans(); len(got) != 0 {
			t.Errorf("spans exported with tracing off: %v", got)
		}
	})
}

// findSpan returns the first span of service named name, or nil.
func findSpan(spans []otlptest.Span, service, name string) *otlptest.Span {
	for i := range spans {
		if spans[i].Service == service && spans[i].Name == name {
			return &spans[i]
		}
	}
	return nil
}
