package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/carhub/backend/services/docqa/internal/docqa"
	"github.com/carhub/backend/services/docqa/internal/ingest/ingesttest"
	"github.com/carhub/backend/services/docqa/internal/openaifake"
	"github.com/carhub/backend/services/docqa/internal/pdftext/pdftexttest"
	"github.com/carhub/backend/services/docqa/internal/retrieval"
)

// started is a running service.
type started struct {
	URL  string
	Log  *bytes.Buffer // everything logged until the service stopped (read after stop)
	stop func() error  // cancels run and returns its error
}

// start runs the whole service on 127.0.0.1:0 with env (plus defaults for
// the address and directories) and waits until it listens.
func start(t *testing.T, env map[string]string) *started {
	t.Helper()
	s, err := launch(t, env)
	if err != nil {
		t.Fatalf("service did not start: %v\n%s", err, s.Log)
	}
	return s
}

// runErr runs the service with env and returns the error that kept it
// from starting (nil when it listened, after stopping it).
func runErr(t *testing.T, env map[string]string) error {
	t.Helper()
	s, err := launch(t, env)
	if err != nil {
		return err
	}
	return s.stop()
}

// launch starts the service; the error is run's when it ended before listening.
func launch(t *testing.T, env map[string]string) (*started, error) {
	t.Helper()
	vars := map[string]string{
		"DOCQA_ADDR":           "127.0.0.1:0",
		"DOCQA_STORE_PATH":     t.TempDir(),
		"DOCQA_DATA_DIR":       t.TempDir(),
		"DOCQA_TEMP_DIR":       t.TempDir(),
		"DOCQA_FILES_DIR":      t.TempDir(),
		"DOCQA_PDF_CACHE_DIR":  pdftexttest.CacheDir(),
		"DOCQA_PAGE_CACHE_DIR": t.TempDir(),
		"SHUTDOWN_DRAIN":       "0s", // stop at once; the drain has its own test
	}
	for k, v := range env {
		vars[k] = v
	}
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	logs := &bytes.Buffer{}
	errc := make(chan error, 1)
	go func() {
		err := run(ctx, func(k string) string { return vars[k] }, pw)
		pw.CloseWithError(io.EOF)
		errc <- err
	}()

	addr := make(chan string, 1)
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		sc := bufio.NewScanner(pr)
		sent := false
		for sc.Scan() {
			logs.Write(sc.Bytes())
			logs.WriteByte('\n')
			var rec struct{ Msg, Addr string }
			if !sent && json.Unmarshal(sc.Bytes(), &rec) == nil && rec.Msg == "listening" {
				addr <- rec.Addr
				sent = true
			}
		}
		if !sent {
			close(addr)
		}
	}()
	s := &started{Log: logs}
	var once sync.Once
	var runErr error
	s.stop = func() error {
		once.Do(func() {
			cancel()
			runErr = <-errc
			<-copied
		})
		return runErr
	}
	a, ok := <-addr
	if !ok {
		err := s.stop()
		if err == nil {
			err = errors.New("run returned without listening")
		}
		return s, err
	}
	s.URL = "http://" + a
	t.Cleanup(func() { s.stop() })
	return s, nil
}

func upload(t *testing.T, url string, pdf []byte) map[string]any {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	w, _ := mw.CreateFormFile("file", "manual.pdf")
	w.Write(pdf)
	mw.Close()
	resp, err := http.Post(url+"/api/documents/upload", mw.FormDataContentType(), &b)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &out) != nil {
		t.Fatalf("upload: %d %s", resp.StatusCode, body)
	}
	return out
}

// waitHealthy polls /health until it stops saying "starting" (the PDF
// engine compiles at start) and fails on any other 503 on the way.
func waitHealthy(t *testing.T, url string) {
	t.Helper()
	for deadline := time.Now().Add(pdftexttest.StartTimeout); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		resp, err := http.Get(url + "/health")
		if err != nil {
			t.Fatal(err)
		}
		var h struct{ Status string }
		err = json.NewDecoder(resp.Body).Decode(&h)
		resp.Body.Close()
		switch {
		case err != nil:
			t.Fatalf("health: %v", err)
		case resp.StatusCode == http.StatusOK && h.Status == "ok":
			return
		case resp.StatusCode != http.StatusServiceUnavailable || h.Status != "starting":
			t.Fatalf("health while starting = %d %q", resp.StatusCode, h.Status)
		}
	}
	t.Fatalf("the PDF engine did not start within %v", pdftexttest.StartTimeout)
}

func TestRunLocalFallbacks(t *testing.T) {
	filesDir := filepath.Join(t.TempDir(), "not", "yet")
	s := start(t, map[string]string{"DOCQA_FILES_DIR": filesDir})
	waitHealthy(t, s.URL)

	resp, err := http.Get(s.URL + "/health")
	if err != nil {
		t.Fatal(err)
	}
	var h struct {
		Status         string
		Store          struct{ Kind string }
		Embedder, Chat struct{ Name, Mode string }
		Retrieval      struct{ Mode, Reason, Serving string }
	}
	json.NewDecoder(resp.Body).Decode(&h)
	resp.Body.Close()
	if resp.StatusCode != 200 || h.Status != "ok" || h.Store.Kind != "embedded" || h.Embedder.Mode != "local" || h.Chat.Mode != "local" {
		t.Fatalf("health = %d %+v", resp.StatusCode, h)
	}
	// RETRIEVAL unset: the local embedder's default, and why.
	if mode, reason := retrieval.DefaultMode(true); h.Retrieval.Mode != string(mode) || h.Retrieval.Serving != string(mode) || h.Retrieval.Reason != reason {
		t.Errorf("health retrieval = %+v, want %s (%s)", h.Retrieval, mode, reason)
	}

	pdf := ingesttest.PDF("The spark plugs are replaced every 60000 kilometres, says the manual.")
	doc := upload(t, s.URL, pdf)
	if doc["chunks"].(float64) != 1 {
		t.Fatalf("upload = %v", doc)
	}
	// The original is kept in DOCQA_FILES_DIR (created at start) and served.
	if kept, err := os.ReadFile(filepath.Join(filesDir, doc["fileMd5"].(string)+".pdf")); err != nil || !bytes.Equal(kept, pdf) {
		t.Fatalf("kept original: %v (equal: %v)", err, bytes.Equal(kept, pdf))
	}
	resp, err = http.Get(s.URL + "/api/documents/" + doc["fileMd5"].(string) + "/file")
	if err != nil {
		t.Fatal(err)
	}
	served, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !bytes.Equal(served, pdf) || resp.Header.Get("Content-Type") != "application/pdf" {
		t.Fatalf("file = %d %q, %d bytes", resp.StatusCode, resp.Header.Get("Content-Type"), len(served))
	}
	// Its first page is drawn (DOCQA_PAGE_CACHE_DIR) and its passage found there.
	resp, err = http.Get(s.URL + "/api/documents/" + doc["fileMd5"].(string) + "/pages/1.png?width=300")
	if err != nil {
		t.Fatal(err)
	}
	served, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "image/png" || !bytes.HasPrefix(served, []byte("\x89PNG")) {
		t.Fatalf("page 1 = %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	resp, err = http.Post(s.URL+"/api/chat/stream", "application/json", strings.NewReader(`{"question":"When are the spark plugs replaced?"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.HasPrefix(string(body), "event: sources\n") || !strings.Contains(string(body), "60000") || !strings.Contains(string(body), `"highlights":[{"x":`) || !strings.Contains(string(body), "event: done\ndata: {\"finishReason\":\"stop\",\"used\":[1") {
		t.Fatalf("chat = %s", body)
	}

	if err := s.stop(); err != nil {
		t.Fatalf("run returned %v", err)
	}
	logs := s.Log.String()
	for _, want := range []string{`"msg":"starting docqa-service"`, `"msg":"running on local fallbacks`, `"embedder_mode":"local"`, `"DOCQA_STORE_PATH"`} {
		if !strings.Contains(logs, want) {
			t.Errorf("log lacks %s:\n%s", want, logs)
		}
	}
}

func TestRunRemoteProvidersAndSecretsMasked(t *testing.T) {
	fake := openaifake.New(t, openaifake.WithScript(openaifake.Script{Deltas: openaifake.Text("From the fake.")}))
	s := start(t, map[string]string{
		"EMBEDDING_BASE_URL": fake.URL, "EMBEDDING_API_KEY": openaifake.APIKey,
		"CHAT_BASE_URL": fake.URL, "CHAT_API_KEY": openaifake.APIKey, "CHAT_MODEL": "the-chat-model",
		"MILVUS_PASSWORD": "milvus-secret-password",
		"RERANK_BASE_URL": fake.URL, "RERANK_API_KEY": openaifake.APIKey, "RERANK_MODEL": "the-rerank-model",
		"RETRIEVAL": "Convex",
	})
	upload(t, s.URL, ingesttest.PDF("Brake fluid is changed every two years."))
	var h struct {
		Retrieval struct{ Mode, Reason, Reranker string }
	}
	hr, err := http.Get(s.URL + "/health")
	if err != nil {
		t.Fatal(err)
	}
	json.NewDecoder(hr.Body).Decode(&h)
	hr.Body.Close()
	if h.Retrieval.Mode != "convex" || h.Retrieval.Reason != "RETRIEVAL=convex" || h.Retrieval.Reranker == "" {
		t.Errorf("health retrieval = %+v", h.Retrieval)
	}
	resp, err := http.Post(s.URL+"/api/chat/stream", "application/json", strings.NewReader(`{"question":"brake fluid?"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `data: {"content":"From the fake."}`) {
		t.Fatalf("chat = %s", body)
	}
	req, _ := fake.LastChatRequest()
	if req.Model != "the-chat-model" || req.Temperature == nil || *req.Temperature != 0.7 {
		t.Errorf("chat request = %+v", req)
	}
	if len(fake.EmbeddingRequests()) < 2 || fake.EmbeddingRequests()[0].Model != "BAAI/bge-m3" {
		t.Errorf("embedding requests = %+v", fake.EmbeddingRequests())
	}
	// The reranker saw the question and the fused candidates, titled.
	rr := fake.RerankRequests()
	if len(rr) != 1 || rr[0].Model != "the-rerank-model" || rr[0].Query != "brake fluid?" || len(rr[0].Documents) != 1 ||
		!strings.HasSuffix(rr[0].Documents[0], "Brake fluid is changed every two years.") {
		t.Errorf("rerank requests = %+v", rr)
	}
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}
	logs := s.Log.String()
	if strings.Contains(logs, openaifake.APIKey) || strings.Contains(logs, "milvus-secret-password") {
		t.Errorf("a secret reached the log:\n%s", logs)
	}
	if !strings.Contains(logs, `"embedder_mode":"remote"`) || strings.Contains(logs, "local fallbacks") {
		t.Errorf("log does not say remote:\n%s", logs)
	}
}

func TestRunRefusesAnotherEmbeddersStore(t *testing.T) {
	fake := openaifake.New(t)
	storeDir := t.TempDir()
	remote := map[string]string{"DOCQA_STORE_PATH": storeDir, "EMBEDDING_BASE_URL": fake.URL, "EMBEDDING_API_KEY": openaifake.APIKey}
	s := start(t, remote)
	upload(t, s.URL, ingesttest.PDF("Written by the remote embedder."))
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}

	err := runErr(t, map[string]string{"DOCQA_STORE_PATH": storeDir})
	if !errors.Is(err, docqa.ErrEmbedderMismatch) || !strings.Contains(err.Error(), "openai:BAAI/bge-m3") || !strings.Contains(err.Error(), "lexical:v1") {
		t.Fatalf("run with the local embedder = %v", err)
	}
	// The same embedder again starts fine.
	start(t, remote)
}

func TestRunBadConfig(t *testing.T) {
	// A directory the service cannot create or write (tests may run as
	// root, for whom permissions do not stop writes: a file stands in).
	notADirectory := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(notADirectory, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"VECTOR_STORE": "postgres"}, "VECTOR_STORE"},
		{map[string]string{"VECTOR_STORE": "milvus"}, "MILVUS_ADDRESS"},
		{map[string]string{"MILVUS_NPROBE": "many"}, "MILVUS_NPROBE"},
		{map[string]string{"SSE_HEARTBEAT": "often"}, "SSE_HEARTBEAT"},
		{map[string]string{"LOG_LEVEL": "loud"}, "LOG_LEVEL"},
		{map[string]string{"CORS_ORIGINS": "not an origin"}, "CORS_ORIGINS"},
		{map[string]string{"TRUSTED_PROXIES": "caddy"}, "TRUSTED_PROXIES"},
		{map[string]string{"EMBEDDING_API_KEY": "k"}, "EMBEDDING_BASE_URL"},
		{map[string]string{"DOCQA_ADDR": "256.1.1.1:99999"}, "DOCQA_ADDR"},
		{map[string]string{"RETRIEVAL": "bm25"}, "RETRIEVAL"},
		{map[string]string{"RETRIEVAL_LEXICAL_WEIGHT": "-1"}, "RETRIEVAL_LEXICAL_WEIGHT"},
		{map[string]string{"RETRIEVAL_RRF_K": "0"}, "RETRIEVAL_RRF_K"},
		{map[string]string{"RETRIEVAL_LEXICAL_SHARE": "1.5"}, "RETRIEVAL_LEXICAL_SHARE"},
		{map[string]string{"RETRIEVAL_LEXICAL_SHARE": "0"}, "RETRIEVAL_LEXICAL_SHARE"},
		{map[string]string{"RETRIEVAL_NORMALIZATION": "rank"}, "RETRIEVAL_NORMALIZATION"},
		{map[string]string{"RETRIEVAL_ANCHOR_DEPTH": "0"}, "RETRIEVAL_ANCHOR_DEPTH"},
		{map[string]string{"RERANK_BASE_URL": "ftp://rerank"}, "RERANK_BASE_URL"},
		{map[string]string{"DOCQA_FILES_DIR": notADirectory}, "DOCQA_FILES_DIR"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			err := runErr(t, tt.env)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want one naming %s", err, tt.want)
			}
		})
	}
}

func TestCommand(t *testing.T) {
	var out strings.Builder
	env := map[string]string{"DOCQA_STORE_PATH": t.TempDir()}
	getenv := func(k string) string { return env[k] }
	if err := command(context.Background(), []string{"reindex"}, getenv, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "nothing to do: the embedded store builds its lexical index at every start") {
		t.Errorf("reindex on the embedded store said %s", out.String())
	}
	for _, args := range [][]string{{"backups"}, {"reindex", "now"}} {
		if err := command(context.Background(), args, getenv, &out); err == nil || !strings.Contains(err.Error(), "the commands are reindex, backup") {
			t.Errorf("%v: %v", args, err)
		}
	}
}

// TestShutdownEndsRunningAnswers: a chat stream still running when the
// service stops ends with an error event instead of a cut connection, and
// run returns cleanly.
func TestShutdownEndsRunningAnswers(t *testing.T) {
	fake := openaifake.New(t, openaifake.WithScript(openaifake.Script{Deltas: openaifake.Text("first", "never")}))
	fake.FailChat(openaifake.Failure{Hang: true, AfterDeltas: 1})
	s := start(t, map[string]string{"CHAT_BASE_URL": fake.URL, "CHAT_API_KEY": openaifake.APIKey})
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
	stopped := make(chan error, 1)
	go func() { stopped <- s.stop() }()
	rest, _ := io.ReadAll(br)
	if !strings.HasSuffix(string(rest), "event: error\ndata: {\"code\":\"UNAVAILABLE\",\"message\":\"the service is shutting down; ask again\"}\n\n") {
		t.Errorf("stream after shutdown began = %q", rest)
	}
	if err := <-stopped; err != nil {
		t.Errorf("run = %v", err)
	}
}

// TestSetGCPercent: the embedded store gets embeddedGCPercent unless the
// operator set GOGC; Milvus keeps the runtime's target.
func TestSetGCPercent(t *testing.T) {
	const before = 77 // a target none of the cases sets
	orig := debug.SetGCPercent(before)
	t.Cleanup(func() { debug.SetGCPercent(orig) })
	for _, tc := range []struct {
		gogc, store string
		want        int
	}{
		{"", "", embeddedGCPercent},
		{"", "Embedded", embeddedGCPercent},
		{"", "milvus", before},
		{"200", "embedded", before},
		{"off", "embedded", before},
	} {
		debug.SetGCPercent(before)
		env := map[string]string{"GOGC": tc.gogc}
		setGCPercent(func(k string) string { return env[k] }, tc.store, slog.New(slog.DiscardHandler))
		if got := debug.SetGCPercent(before); got != tc.want {
			t.Errorf("GOGC %q, VECTOR_STORE %q: target %d, want %d", tc.gogc, tc.store, got, tc.want)
		}
	}
}
