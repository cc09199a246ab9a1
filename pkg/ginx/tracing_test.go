package ginx

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/carhub/backend/pkg/ginprobes"
	"github.com/carhub/backend/pkg/tracing"
	"github.com/carhub/backend/pkg/tracing/otlptest"
)

const (
	clientTrace  = "4bf92f3577b34da6a3ce929d0e0e4736"
	clientSpan   = "00f067aa0ba902b7"
	clientParent = "00-" + clientTrace + "-" + clientSpan + "-01"
	// unsampledTrace is a caller's trace that it did not sample.
	unsampledTrace = "5bf92f3577b34da6a3ce929d0e0e4737"
)

// requestLines decodes the JSON log lines whose msg is msg.
func requestLines(t *testing.T, logs *bytes.Buffer, msg string) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(logs.Bytes()))
	for sc.Scan() {
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("log line is not JSON: %s", sc.Bytes())
		}
		if rec["msg"] == msg {
			out = append(out, rec)
		}
	}
	return out
}

func TestServerSpansContinueTraceparent(t *testing.T) {
	rcv, shutdown := otlptest.Traced(t, "ginx-test")

	e, logs := newTestEngine(t, Options{Probes: ginprobes.New()})
	e.GET("/api/items/:id", func(c *gin.Context) {
		_, span := tracing.Tracer().Start(c.Request.Context(), "store.Item")
		span.End()
		c.JSON(http.StatusOK, gin.H{"id": c.Param("id")})
	})
	if rec := do(e, "GET", "/api/items/secret-42", "", "traceparent", clientParent, HeaderRequestID, "req-1"); rec.Code != http.StatusOK {
		t.Fatalf("status %d", rec.Code)
	}
	do(e, "GET", "/api/nothing/here", "", "traceparent", "00-"+clientTrace+"-1111111111111111-01")
	do(e, "GET", "/livez", "", "traceparent", "00-"+clientTrace+"-2222222222222222-01")
	do(e, "GET", "/api/internal", "", "traceparent", "00-"+clientTrace+"-3333333333333333-01")
	// The caller did not sample this one: no span of it is exported, but
	// its log line still carries its trace.
	do(e, "GET", "/api/items/7", "", "traceparent", "00-"+unsampledTrace+"-4444444444444444-00", HeaderRequestID, "req-unsampled")
	if err := shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}

	spans := rcv.WaitTrace(t, clientTrace, 5*time.Second, func(s []otlptest.Span) bool { return len(s) >= 4 })
	byParent := map[string]otlptest.Span{}
	for _, s := range spans {
		byParent[s.ParentSpanID] = s
	}
	if len(spans) != 4 {
		t.Errorf("got %d spans, want 4 (no span for /livez): %v", len(spans), spans)
	}
	server := byParent[clientSpan]
	if server.Name != "GET /api/items/:id" || server.Kind != "server" || server.Attrs["http.route"] != "/api/items/:id" ||
		server.Attrs["http.request.method"] != "GET" || server.Attrs["url.path"] != "/api/items/secret-42" ||
		server.Attrs["http.response.status_code"] != "200" || server.Service != "ginx-test" {
		t.Errorf("server span %v %v", server, server.Attrs)
	}
	if got := rcv.Trace(unsampledTrace); len(got) != 0 {
		t.Errorf("an unsampled request's trace was exported: %v", got)
	}
	if child := byParent[server.SpanID]; child.Name != "store.Item" {
		t.Errorf("no child span under the server span: %v", spans)
	}
	if unmatched := byParent["1111111111111111"]; unmatched.Name != "GET" {
		t.Errorf("a path no route matches is named %q, want just the method", unmatched.Name)
	}
	if failed := byParent["3333333333333333"]; !failed.Error || failed.Attrs["http.response.status_code"] != "500" {
		t.Errorf("a failed request's span: %v %v", failed, failed.Attrs)
	}
	for _, s := range spans {
		for k, v := range s.Attrs {
			if bytes.Contains([]byte(v), []byte("secret-42")) && k != "url.path" {
				t.Errorf("span %q attribute %s carries the raw path: %q", s.Name, k, v)
			}
		}
	}

	// The access log line of each traced request carries its trace id
	// (/livez is logged at DEBUG only).
	lines := requestLines(t, logs, "request")
	if len(lines) != 4 {
		t.Fatalf("%d request lines: %s", len(lines), logs)
	}
	if l := lines[3]; l["request_id"] != "req-unsampled" || l["trace_id"] != unsampledTrace || l["span_id"] == nil || l["span_id"] == "" {
		t.Errorf("unsampled request line: %v, want its trace id %s and a span id", l, unsampledTrace)
	}
	for _, l := range append(lines[:3], requestLines(t, logs, "request failed")...) {
		if l["trace_id"] != clientTrace || l["span_id"] == nil || l["span_id"] == "" {
			t.Errorf("request line without the trace: %v", l)
		}
	}
	if l := lines[0]; l["request_id"] != "req-1" || l["span_id"] != server.SpanID {
		t.Errorf("first request line: %v, want request_id req-1 and span_id %s", l, server.SpanID)
	}
}

func TestNoServerSpansWhenTracingIsOff(t *testing.T) {
	if tracing.Enabled() {
		t.Fatal("tracing is on before the test")
	}
	e, logs := newTestEngine(t, Options{})
	before := len(e.Handlers)
	do(e, "GET", "/api/ok", "", "traceparent", clientParent)
	for _, l := range requestLines(t, logs, "request") {
		if _, ok := l["trace_id"]; ok {
			t.Errorf("a trace id is logged with tracing off: %v", l)
		}
	}
	// The same engine with tracing on has one handler more: off, the
	// middleware is not there at all.
	otlptest.Traced(t, "ginx-test")
	on, _ := newTestEngine(t, Options{})
	if len(on.Handlers) != before+1 {
		t.Errorf("middleware: %d handlers with tracing on, %d off", len(on.Handlers), before)
	}
}
