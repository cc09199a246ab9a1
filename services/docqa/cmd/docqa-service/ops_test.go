package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/carhub/backend/pkg/ginprobes"
	"github.com/carhub/backend/pkg/ginx"
	"github.com/carhub/backend/pkg/metrics/metricstest"
	"github.com/carhub/backend/services/docqa/internal/embedded"
	"github.com/carhub/backend/services/docqa/internal/ingest/ingesttest"
	"github.com/carhub/backend/services/docqa/internal/openaifake"
)

// fresh is a client without kept-alive connections: a request after the
// listener closed fails rather than reusing an old connection.
var fresh = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}

type answer struct {
	code int
	body string
}

func get(t *testing.T, url string) answer {
	t.Helper()
	res, err := fresh.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return answer{res.StatusCode, string(b)}
}

func readyBody(t *testing.T, a answer) ginprobes.Readiness {
	t.Helper()
	var r ginprobes.Readiness
	if err := json.Unmarshal([]byte(a.body), &r); err != nil {
		t.Fatalf("readyz body %q: %v", a.body, err)
	}
	return r
}

// checkStates maps each check of a readiness answer to its status.
func checkStates(r ginprobes.Readiness) map[string]string {
	m := map[string]string{}
	for _, c := range r.Checks {
		m[c.Name] = c.Status
	}
	return m
}

func waitReady(t *testing.T, url string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if a := get(t, url+"/readyz"); a.code == 200 {
			return
		}
	}
	t.Fatalf("not ready within a minute: %s", get(t, url+"/readyz").body)
}

func TestProbesServed(t *testing.T) {
	filesDir := filepath.Join(t.TempDir(), "files")
	s := start(t, map[string]string{"DOCQA_FILES_DIR": filesDir})
	if a := get(t, s.URL+"/livez"); a.code != 200 {
		t.Errorf("livez: %d %s", a.code, a.body)
	}
	waitReady(t, s.URL)
	a := get(t, s.URL+"/readyz")
	want := map[string]string{"vector_store": "ok", "pdf_engine": "ok", "files_dir": "ok"}
	if got := checkStates(readyBody(t, a)); len(got) != len(want) || got["vector_store"] != "ok" || got["pdf_engine"] != "ok" || got["files_dir"] != "ok" {
		t.Errorf("readyz checks = %v, want %v", got, want)
	}
	if entries, _ := os.ReadDir(filesDir); len(entries) != 0 {
		t.Errorf("the probe left files in DOCQA_FILES_DIR: %v", entries)
	}

	// A files directory that cannot take a file (here: replaced by a file;
	// file modes would not stop root) makes the service unready, not dead.
	if err := os.Remove(filesDir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filesDir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if a := get(t, s.URL+"/livez"); a.code != 200 {
		t.Errorf("livez with a broken files directory: %d %s", a.code, a.body)
	}
	a = get(t, s.URL+"/readyz")
	r := readyBody(t, a)
	if got := checkStates(r); a.code != 503 || r.Status != "unready" || got["files_dir"] != "failing" || got["vector_store"] != "ok" {
		t.Errorf("readyz with a broken files directory = %d %s", a.code, a.body)
	}
}

type engineState struct {
	ready bool
	err   error
}

func (e engineState) Ready() (bool, error) { return e.ready, e.err }

// TestReadinessChecks closes the vector store under the handler and tries
// each state of the PDF engine: liveness stays 200, readiness names what
// fails.
func TestReadinessChecks(t *testing.T) {
	tests := []struct {
		name        string
		closeStore  bool
		engine      engineState
		wantFailing []string
	}{
		{"all ready", false, engineState{ready: true}, nil},
		{"store closed", true, engineState{ready: true}, []string{"vector_store"}},
		{"engine starting", false, engineState{}, []string{"pdf_engine"}},
		{"engine failed, store closed", true, engineState{err: errors.New("no memory")}, []string{"vector_store", "pdf_engine"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store, err := embedded.Open(t.TempDir(), slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { store.Close() })
			e := ginx.New(slog.New(slog.DiscardHandler), ginx.Options{Probes: readiness(store, tt.engine, t.TempDir())})
			srv := httptest.NewServer(e)
			t.Cleanup(srv.Close)
			if tt.closeStore {
				store.Close()
			}
			if a := get(t, srv.URL+"/livez"); a.code != 200 {
				t.Errorf("livez: %d %s", a.code, a.body)
			}
			a := get(t, srv.URL+"/readyz")
			got := checkStates(readyBody(t, a))
			wantCode := 200
			if len(tt.wantFailing) > 0 {
				wantCode = 503
			}
			if a.code != wantCode {
				t.Errorf("readyz = %d %s, want %d", a.code, a.body, wantCode)
			}
			for _, name := range tt.wantFailing {
				if got[name] != "failing" {
					t.Errorf("check %s = %q, want failing (%s)", name, got[name], a.body)
				}
			}
		})
	}
}

// TestDrainThenStreamsEnd: on stop, /readyz turns 503 at once; for the
// drain an answer being streamed goes on and new requests are served;
// then the stream ends with its shutdown event and the listener closes.
func TestDrainThenStreamsEnd(t *testing.T) {
	const drain = 1500 * time.Millisecond
	fake := openaifake.New(t, openaifake.WithScript(openaifake.Script{Deltas: openaifake.Text("first", "never")}))
	fake.FailChat(openaifake.Failure{Hang: true, AfterDeltas: 1})
	s := start(t, map[string]string{"CHAT_BASE_URL": fake.URL, "CHAT_API_KEY": openaifake.APIKey, "SHUTDOWN_DRAIN": drain.String()})
	waitReady(t, s.URL)
	resp, err := http.Post(s.URL+"/api/chat/stream", "application/json", strings.NewReader(`{"question":"q"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(line, `data: {"content":"first"}`) {
			break
		}
	}
	stoppedAt := time.Now()
	stopped := make(chan error, 1)
	go func() { stopped <- s.stop() }()
	rest := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(br)
		rest <- string(b)
	}()

	for deadline := stoppedAt.Add(300 * time.Millisecond); ; time.Sleep(10 * time.Millisecond) {
		a := get(t, s.URL+"/readyz")
		if a.code == 503 && readyBody(t, a).Status == "draining" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("readyz still %d %s %s after the stop", a.code, a.body, time.Since(stoppedAt))
		}
	}
	f := metricstest.MustScrape(t, s.URL+"/metrics")
	if v, _ := f.Value("docqa_chat_streams_open", nil); v != 1 {
		t.Errorf("docqa_chat_streams_open during the drain = %v, want 1", v)
	}
	for time.Since(stoppedAt) < drain-500*time.Millisecond {
		if a := get(t, s.URL+"/api/documents"); a.code != 200 {
			t.Fatalf("GET /api/documents during the drain: %d %s", a.code, a.body)
		}
		select {
		case r := <-rest:
			t.Fatalf("the stream ended %s into the drain: %q", time.Since(stoppedAt), r)
		default:
		}
		time.Sleep(50 * time.Millisecond)
	}
	r := <-rest
	if d := time.Since(stoppedAt); d < drain {
		t.Errorf("the stream ended %s after the stop, before the drain of %s", d, drain)
	}
	if !strings.HasSuffix(r, "event: error\ndata: {\"code\":\"UNAVAILABLE\",\"message\":\"the service is shutting down; ask again\"}\n\n") {
		t.Errorf("stream after shutdown began = %q", r)
	}
	if err := <-stopped; err != nil {
		t.Errorf("run = %v", err)
	}
	if res, err := fresh.Get(s.URL + "/livez"); err == nil {
		res.Body.Close()
		t.Error("the service still accepts connections after the drain")
	}
}

// sample is an expected value of a metric.
type sample struct {
	name   string
	labels map[string]string
	want   float64
}

func TestMetrics(t *testing.T) {
	script := openaifake.Script{Deltas: openaifake.Text("From ", "the ", "fake.")}
	fake := openaifake.New(t, openaifake.WithScript(script))
	s := start(t, map[string]string{
		"EMBEDDING_BASE_URL": fake.URL, "EMBEDDING_API_KEY": openaifake.APIKey,
		"CHAT_BASE_URL": fake.URL, "CHAT_API_KEY": openaifake.APIKey, "CHAT_MODEL": "the-chat-model",
		"RERANK_BASE_URL": fake.URL, "RERANK_API_KEY": openaifake.APIKey,
	})
	waitReady(t, s.URL)
	doc := upload(t, s.URL, ingesttest.PDF("Brake fluid is changed every two years."))
	md5 := doc["fileMd5"].(string)
	upload(t, s.URL, ingesttest.PDF("Brake fluid is changed every two years.")) // a duplicate ingests nothing
	const question = "When is the brake fluid changed?"
	resp, err := http.Post(s.URL+"/api/chat/stream", "application/json", strings.NewReader(`{"question":"`+question+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), "event: done") {
		t.Fatalf("chat = %s", body)
	}
	if a := get(t, s.URL+"/api/documents/"+md5+"/file"); a.code != 200 {
		t.Fatalf("file: %d", a.code)
	}
	if a := get(t, s.URL+"/api/documents/0123456789abcdef0123456789abcdef/file"); a.code != 404 {
		t.Fatalf("missing file: %d", a.code)
	}
	get(t, s.URL+"/api/nothing/here")

	f := metricstest.MustScrape(t, s.URL+"/metrics")
	req, _ := fake.LastChatRequest()
	prompt, completion := openaifake.ChatUsage(req.Messages, script)
	values := []sample{
		{"build_info", map[string]string{"service": "docqa-service", "version": "dev", "goversion": runtime.Version()}, 1},
		{"http_requests_total", map[string]string{"method": "POST", "route": "/api/documents/upload", "status": "200"}, 2},
		{"http_requests_total", map[string]string{"method": "POST", "route": "/api/chat/stream", "status": "200"}, 1},
		{"http_requests_total", map[string]string{"method": "GET", "route": "/api/documents/:md5/file", "status": "200"}, 1},
		{"http_requests_total", map[string]string{"method": "GET", "route": "/api/documents/:md5/file", "status": "404"}, 1},
		{"http_requests_total", map[string]string{"method": "GET", "route": "unmatched", "status": "404"}, 1},
		{"docqa_ingest_documents_total", nil, 1},
		{"docqa_ingest_pages_total", nil, 1},
		{"docqa_ingest_chunks_total", nil, 1},
		{"docqa_ingest_extraction_seconds", nil, 1},
		{"docqa_ingest_queue_running", nil, 0},
		{"docqa_ingest_queue_waiting", nil, 0},
		{"docqa_ingest_refused_total", nil, 0},
		{"docqa_chat_streams_open", nil, 0},
		{"docqa_provider_requests_total", map[string]string{"kind": "chat", "outcome": "ok"}, 1},
		{"docqa_provider_requests_total", map[string]string{"kind": "rerank", "outcome": "ok"}, 1},
		{"docqa_provider_request_duration_seconds", map[string]string{"kind": "chat", "outcome": "ok"}, 1},
		// Every embeddings call of the fake was counted.
		{"docqa_provider_requests_total", map[string]string{"kind": "embedding", "outcome": "ok"}, float64(len(fake.EmbeddingRequests()))},
		// The tokens the fake reported for the question (it reports usage
		// because the client asks for it).
		{"docqa_provider_tokens_total", map[string]string{"model": "the-chat-model", "type": "prompt"}, float64(prompt)},
		{"docqa_provider_tokens_total", map[string]string{"model": "the-chat-model", "type": "completion"}, float64(completion)},
	}
	for _, v := range values {
		if got, ok := f.Value(v.name, v.labels); !ok || got != v.want {
			t.Errorf("%s%v = %v (found %v), want %v", v.name, v.labels, got, ok, v.want)
		}
	}
	if v, _ := f.Value("docqa_provider_tokens_total", map[string]string{"model": "BAAI/bge-m3", "type": "prompt"}); v <= 0 {
		t.Errorf("embedding tokens = %v, want the fake's reported usage", v)
	}
	if _, ok := f["go_sql_open_connections"]; !ok {
		t.Error("go_sql_open_connections missing: the embedded store's pool is not registered")
	}
	// No label carries the user's data.
	for name, fam := range f {
		for _, m := range fam.GetMetric() {
			for _, l := range m.GetLabel() {
				if v := l.GetValue(); strings.Contains(v, md5) || strings.Contains(v, "manual.pdf") || strings.Contains(v, "brake") {
					t.Errorf("%s label %s=%q carries user data", name, l.GetName(), v)
				}
			}
		}
	}
}

// TestIngestRefusedCounted fills the only slot and the queue of none, so a
// second upload is refused 503 and counted.
func TestIngestRefusedCounted(t *testing.T) {
	fake := openaifake.New(t, openaifake.WithEmbeddingDelay(2*time.Second))
	s := start(t, map[string]string{
		"EMBEDDING_BASE_URL": fake.URL, "EMBEDDING_API_KEY": openaifake.APIKey,
		"INGEST_CONCURRENCY": "1", "INGEST_QUEUE": "0",
	})
	waitReady(t, s.URL)
	done := make(chan struct{})
	go func() {
		defer close(done)
		upload(t, s.URL, ingesttest.PDF("The first manual waits for its embeddings."))
	}()
	// Wait until the first upload holds the slot.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if v, _ := metricstest.MustScrape(t, s.URL+"/metrics").Value("docqa_ingest_queue_running", nil); v == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first upload never ran")
		}
	}
	a := postPDF(t, s.URL, ingesttest.PDF("The second manual is refused."))
	if a.code != 503 {
		t.Errorf("second upload = %d %s, want 503", a.code, a.body)
	}
	<-done
	f := metricstest.MustScrape(t, s.URL+"/metrics")
	if v, _ := f.Value("docqa_ingest_refused_total", nil); v != 1 {
		t.Errorf("docqa_ingest_refused_total = %v, want 1", v)
	}
	if v, _ := f.Value("docqa_ingest_documents_total", nil); v != 1 {
		t.Errorf("docqa_ingest_documents_total = %v, want 1", v)
	}
}

func TestMetricsOff(t *testing.T) {
	s := start(t, map[string]string{"METRICS": "off"})
	if a := get(t, s.URL+"/metrics"); a.code != 404 {
		t.Errorf("/metrics with METRICS=off: %d", a.code)
	}
	if err := runErr(t, map[string]string{"METRICS": "sometimes"}); err == nil || !strings.Contains(err.Error(), "METRICS") {
		t.Errorf("METRICS=sometimes: %v, want an error naming METRICS", err)
	}
	if err := runErr(t, map[string]string{"SHUTDOWN_DRAIN": "-1s"}); err == nil || !strings.Contains(err.Error(), "SHUTDOWN_DRAIN") {
		t.Errorf("SHUTDOWN_DRAIN=-1s: %v, want an error naming SHUTDOWN_DRAIN", err)
	}
}

func postPDF(t *testing.T, url string, pdf []byte) answer {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	w, _ := mw.CreateFormFile("file", "manual.pdf")
	_, _ = w.Write(pdf)
	_ = mw.Close()
	res, err := fresh.Post(url+"/api/documents/upload", mw.FormDataContentType(), &b)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return answer{res.StatusCode, string(body)}
}
