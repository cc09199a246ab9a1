package systemtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/carhub/backend/pkg/caddytest"
	"github.com/carhub/backend/pkg/tracing/otlptest"
	"github.com/carhub/backend/services/docqa/internal/openaifake"
)

// TestTraceThroughCaddy: an upload and a question, each with its own
// traceparent, go through the real Caddy to the real docqa-service, whose
// providers are the fake. Caddy and the service export their spans to an
// in-process OTLP receiver: Caddy's server span under the client's, the
// service's under Caddy's (named by the route template), under it the
// ingestion stages with the vector store write and the embedding calls,
// or the searches and the chat call; and every provider request carries
// the trace on in its traceparent, naming its provider span as parent.
func TestTraceThroughCaddy(t *testing.T) {
	rcv := otlptest.Start(t)
	fake := openaifake.New(t, openaifake.WithScript(openaifake.Script{Deltas: openaifake.Text("Every ", "60 000 km.")}))
	svc := startService(t, serviceEnv(t, fake, t.TempDir(), map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT": rcv.URL,
		"OTEL_BSP_SCHEDULE_DELAY":     "100",
	}))
	gw := caddytest.Start(t,
		"DOCQA_UPSTREAM="+strings.TrimPrefix(svc.URL, "http://"),
		"FUEL_UPSTREAM=127.0.0.1:1", // not used here
		"WEB_ROOT="+t.TempDir(),
		"OTEL_EXPORTER_OTLP_ENDPOINT="+rcv.URL,
		"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=",
		"OTEL_SERVICE_NAME=caddy",
		"OTEL_BSP_SCHEDULE_DELAY=100",
	)
	// Caddy's health check admits the service once its PDF engine is up.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		res, err := httpClient.Get(gw + "/api/documents")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("Caddy does not route to the service: %v", err)
		}
	}

	t.Run("upload", func(t *testing.T) {
		const trace, parent = "5b8efff798038103d269b633813fc60c", "eee19b7ec3c1b174"
		ct, body := multipartFile(t, "manual.pdf", prosePDF(2, 11))
		req, _ := http.NewRequest("POST", gw+"/api/documents/upload", bytes.NewReader(body))
		req.Header.Set("Content-Type", ct)
		req.Header.Set("traceparent", "00-"+trace+"-"+parent+"-01")
		send(t, req)

		// Every span read below: a batch can leave between one span's end
		// and its parent's.
		spans := rcv.WaitTrace(t, trace, 30*time.Second, func(s []otlptest.Span) bool {
			for _, name := range []string{"POST /api/documents/upload", "ingest.extract", "ingest.split", "ingest.embed", "ingest.store", "embedded.Upsert"} {
				if find(s, "docqa-service", name) == nil {
					return false
				}
			}
			return find(s, "caddy", "POST") != nil
		})
		gateway := find(spans, "caddy", "POST")
		server := find(spans, "docqa-service", "POST /api/documents/upload")
		wantChild(t, spans, gateway, parent)
		wantChild(t, spans, server, gateway.SpanID)
		for _, stage := range []string{"ingest.extract", "ingest.split", "ingest.embed", "ingest.store"} {
			wantChild(t, spans, find(spans, "docqa-service", stage), server.SpanID)
		}
		wantChild(t, spans, find(spans, "docqa-service", "embedded.Upsert"), find(spans, "docqa-service", "ingest.store").SpanID)
		embed := find(spans, "docqa-service", "provider.embedding")
		wantChild(t, spans, embed, find(spans, "docqa-service", "ingest.embed").SpanID)
		if embed != nil && embed.Kind != "client" {
			t.Errorf("provider span %v is not a client span", embed)
		}

		// The provider saw the trace: each embedding request's traceparent
		// names this trace and one of its provider spans.
		reqs := fake.EmbeddingRequests()
		if len(reqs) == 0 {
			t.Fatal("no embedding request")
		}
		for _, r := range reqs {
			if !strings.HasPrefix(r.Traceparent, "00-"+trace+"-") {
				t.Errorf("embedding request traceparent %q, want trace %s", r.Traceparent, trace)
				continue
			}
			if s := spanByID(spans, strings.Split(r.Traceparent, "-")[2]); s == nil || s.Name != "provider.embedding" {
				t.Errorf("embedding request traceparent %q names span %v, want a provider.embedding span", r.Traceparent, s)
			}
		}
		for _, l := range logLines(svc.Logs(), "document ingested") {
			if l["trace_id"] != trace {
				t.Errorf("ingestion log line without the trace id: %v", l)
			}
		}
	})

	t.Run("chat", func(t *testing.T) {
		const trace, parent = "a3ce929d0e0e47364bf92f3577b34da6", "53995c3f42cd8ad8"
		req, _ := http.NewRequest("POST", gw+"/api/chat/stream", strings.NewReader(`{"question":"How often is the timing belt replaced?"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("traceparent", "00-"+trace+"-"+parent+"-01")
		req.Header.Set("X-Request-ID", "traced-chat")
		if b := send(t, req); !bytes.Contains(b, []byte("event: done")) {
			t.Fatalf("chat stream did not end with done: %s", b)
		}

		spans := rcv.WaitTrace(t, trace, 30*time.Second, func(s []otlptest.Span) bool {
			return find(s, "caddy", "POST") != nil && find(s, "docqa-service", "provider.chat") != nil &&
				find(s, "docqa-service", "POST /api/chat/stream") != nil
		})
		gateway := find(spans, "caddy", "POST")
		server := find(spans, "docqa-service", "POST /api/chat/stream")
		wantChild(t, spans, gateway, parent)
		wantChild(t, spans, server, gateway.SpanID)
		for _, name := range []string{"embedded.Search", "embedded.SearchText", "provider.embedding", "provider.chat"} {
			wantUnder(t, spans, find(spans, "docqa-service", name), server.SpanID)
		}
		chat, ok := fake.LastChatRequest()
		if want := "00-" + trace + "-" + find(spans, "docqa-service", "provider.chat").SpanID + "-01"; !ok || chat.Traceparent != want {
			t.Errorf("chat request traceparent %q, want %q", chat.Traceparent, want)
		}
		// The access log line is written after the answer is sent: wait
		// for it.
		var lines []map[string]any
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			lines = logLines(svc.Logs(), "request")
			if slices.ContainsFunc(lines, func(l map[string]any) bool { return l["request_id"] == "traced-chat" }) {
				break
			}
		}
		found := false
		for _, l := range lines {
			if l["request_id"] == "traced-chat" {
				found = true
				if l["trace_id"] != trace || l["span_id"] != server.SpanID {
					t.Errorf("chat log line %v: want trace_id %s, span_id %s", l, trace, server.SpanID)
				}
			}
		}
		if !found {
			t.Errorf("no request log line of the chat:\n%s", svc.Logs())
		}
	})
}

// send sends req through the tests' client and wants 200; it returns the body.
func send(t *testing.T, req *http.Request) []byte {
	t.Helper()
	res, err := httpClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil && !errors.Is(err, io.EOF) {
		t.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	if res.StatusCode != http.StatusOK {
		t.Fatalf("%s %s: %d %s", req.Method, req.URL.Path, res.StatusCode, b)
	}
	return b
}

// find returns the first span of service named name, or nil.
func find(spans []otlptest.Span, service, name string) *otlptest.Span {
	for i := range spans {
		if spans[i].Service == service && spans[i].Name == name {
			return &spans[i]
		}
	}
	return nil
}

func spanByID(spans []otlptest.Span, id string) *otlptest.Span {
	for i := range spans {
		if spans[i].SpanID == id {
			return &spans[i]
		}
	}
	return nil
}

// wantChild fails the test unless s exists and its parent is parentID.
func wantChild(t *testing.T, spans []otlptest.Span, s *otlptest.Span, parentID string) {
	t.Helper()
	if s == nil {
		t.Fatalf("a span is missing; the trace has: %v", spans)
	}
	if s.ParentSpanID != parentID {
		t.Errorf("span %v: want parent %s", s, parentID)
	}
}

// wantUnder fails the test unless s exists and descends from ancestorID.
func wantUnder(t *testing.T, spans []otlptest.Span, s *otlptest.Span, ancestorID string) {
	t.Helper()
	if s == nil {
		t.Fatalf("a span is missing; the trace has: %v", spans)
	}
	for p := s; p != nil; p = spanByID(spans, p.ParentSpanID) {
		if p.ParentSpanID == ancestorID {
			return
		}
	}
	t.Errorf("span %v does not descend from %s", s, ancestorID)
}

// logLines decodes the JSON log lines whose msg is msg.
func logLines(logs, msg string) []map[string]any {
	var out []map[string]any
	for _, line := range strings.Split(logs, "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil && rec["msg"] == msg {
			out = append(out, rec)
		}
	}
	return out
}
