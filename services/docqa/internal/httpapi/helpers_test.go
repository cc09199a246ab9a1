package httpapi_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/services/docqa/internal/docqa"
	"github.com/carhub/backend/services/docqa/internal/embedded"
	"github.com/carhub/backend/services/docqa/internal/httpapi"
	"github.com/carhub/backend/services/docqa/internal/ingest"
	"github.com/carhub/backend/services/docqa/internal/openaifake"
	"github.com/carhub/backend/services/docqa/internal/originals"
	"github.com/carhub/backend/services/docqa/internal/pagecache"
	"github.com/carhub/backend/services/docqa/internal/pdftext"
	"github.com/carhub/backend/services/docqa/internal/pdftext/pdftexttest"
	"github.com/carhub/backend/services/docqa/internal/provider"
	"github.com/carhub/backend/services/docqa/internal/splitter"
)

var testNow = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// pdfEngine is the PDF engine every test shares: it compiles once.
var pdfEngine *pdftext.Engine

func TestMain(m *testing.M) {
	pdfEngine = pdftext.Start(pdftext.Config{Instances: 2, CacheDir: pdftexttest.CacheDir()})
	ctx, cancel := context.WithTimeout(context.Background(), pdftexttest.StartTimeout)
	err := pdfEngine.Wait(ctx)
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "PDF engine did not start:", err)
		os.Exit(1)
	}
	code := m.Run()
	pdfEngine.Close()
	os.Exit(code)
}

// sharedSplitter is the splitter every service shares: loading the
// cl100k_base encoding is most of what starting a service costs, and a
// Splitter is safe for concurrent use (the service shares one too).
var sharedSplitter = sync.OnceValues(splitter.New)

// service is the HTTP layer over real parts: an embedded store in a
// temporary directory, the real splitter, and the OpenAI-compatible
// providers talking over HTTP to the fake.
type service struct {
	URL     string
	store   *embedded.Store
	fake    *openaifake.Server
	dataDir string
	tempDir string
	// filesDir keeps the originals (on tempDir's file system, as by default).
	filesDir string
	// pages caches rendered pages (bounded by options.pageCacheBytes).
	pages *pagecache.Cache

	embedder  docqa.Embedder
	chatModel docqa.ChatModel
	pipeline  *ingest.Pipeline

	// client sends every request of the helpers; with accounts on it hands
	// each one the identity the gateway would (signing).
	client *http.Client
	// identity is who the client's requests act for: the built-in user
	// with accounts off, accountsAdmin with them on.
	identity auth.Identity
	// gateway is the signing of the client (nil with accounts off), for
	// requests written by hand on a raw connection.
	gateway *signing
	routes  gin.RoutesInfo
}

type options struct {
	fake  []openaifake.Option
	local bool // use the local fallbacks instead of the fake provider
	// chat, with local, replaces the extractive model (a real provider,
	// in a benchmark).
	chat docqa.ChatModel
	// writing (with local) hides that the extractive model quotes: the
	// stream is in answer mode and its sources event lists every retrieved
	// passage, in retrieval order (tests of retrieval).
	writing     bool
	heartbeat   time.Duration
	maxUpload   int64
	firstByte   time.Duration
	chatTimeout time.Duration
	uploadStall time.Duration
	// extractor replaces the shared PDF engine (wrapped to hold uploads
	// in the pipeline); pdfReady replaces what /health is told of it.
	extractor ingest.Extractor
	pdfReady  interface{ Ready() (bool, error) }
	// ocr is what /health is told of OCR.
	ocr         httpapi.OCRHealth
	concurrency int
	queue       int
	// identitySecret turns accounts on (AUTH_MODE=local); the limits are
	// per user. Requests then need a signed identity, which the tests of
	// per-user behaviour make themselves.
	identitySecret []byte
	// accounts turns accounts on (with accountsSecret unless identitySecret
	// is set) and makes the service's client sign every request as
	// accountsAdmin, as the gateway does for a logged-in administrator.
	accounts       bool
	chatPerMinute  int
	uploadsPerUser int
	// pageCacheBytes bounds the page cache (0: its default); pageWait and
	// pageBudget replace the page routes' defaults.
	pageCacheBytes  int64
	pageWait        time.Duration
	pageBudget      time.Duration
	highlightBudget time.Duration
	// pages replaces the page engine (the shared PDF engine).
	pages httpapi.PageEngine
	// wrapPageCache, when set, stands between the handlers and the page
	// cache (to count its hits).
	wrapPageCache func(httpapi.PageCache) httpapi.PageCache
}

func newService(t testing.TB, opts options) *service {
	t.Helper()
	now := func() time.Time { return testNow }
	store, err := embedded.Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	s := &service{store: store, dataDir: t.TempDir(), tempDir: t.TempDir(), filesDir: t.TempDir()}
	files, err := originals.Open(s.filesDir)
	if err != nil {
		t.Fatal(err)
	}

	s.pages, err = pagecache.Open(t.TempDir(), opts.pageCacheBytes)
	if err != nil {
		t.Fatal(err)
	}
	if opts.pages == nil {
		opts.pages = pdfEngine
	}
	var (
		emb  docqa.Embedder
		chat docqa.ChatModel
		mode = "remote"
	)
	if opts.local {
		emb, chat, mode = provider.NewLexicalEmbedder(), provider.NewExtractiveChat(store), "local"
		if opts.chat != nil {
			chat = opts.chat
		}
		if opts.writing {
			chat = writingModel{chat}
		}
	} else {
		s.fake = openaifake.New(t, opts.fake...)
		e, err := provider.NewEmbedder(provider.EmbedderConfig{
			BaseURL: s.fake.URL, APIKey: openaifake.APIKey, Model: "bge-m3", MaxRetries: -1,
		})
		if err != nil {
			t.Fatal(err)
		}
		c, err := provider.NewChat(provider.ChatConfig{
			BaseURL: s.fake.URL, APIKey: openaifake.APIKey, Model: "chat-model", MaxRetries: -1,
			FirstByteTimeout: opts.firstByte, Timeout: opts.chatTimeout,
		})
		if err != nil {
			t.Fatal(err)
		}
		emb, chat = e, c
	}
	split, err := sharedSplitter()
	if err != nil {
		t.Fatal(err)
	}
	if opts.extractor == nil {
		opts.extractor = pdfEngine
	}
	if opts.pdfReady == nil {
		opts.pdfReady = pdfEngine
	}
	pipe, err := ingest.New(ingest.Config{
		Store: store, Embedder: emb, Splitter: split, Extractor: opts.extractor,
		Concurrency: opts.concurrency, QueueLength: opts.queue,
		DataDir: s.dataDir, TempDir: s.tempDir, MaxBytes: opts.maxUpload, Originals: files,
		Now: func() time.Time { return testNow },
	})
	if err != nil {
		t.Fatal(err)
	}
	s.client, s.identity = &http.Client{}, auth.Builtin()
	if opts.accounts {
		if opts.identitySecret == nil {
			opts.identitySecret = accountsSecret
		}
		s.identity = accountsAdmin
		s.gateway = &signing{secret: opts.identitySecret, id: accountsAdmin, now: now, next: http.DefaultTransport}
		s.client = &http.Client{Transport: s.gateway}
	}
	authMode := auth.ModeOff
	if opts.identitySecret != nil {
		authMode = auth.ModeLocal
	}
	var pageCache httpapi.PageCache = s.pages
	if opts.wrapPageCache != nil {
		pageCache = opts.wrapPageCache(s.pages)
	}
	engine := httpapi.New(httpapi.Config{
		AuthMode: authMode,
		Store:    store, Embedder: emb, Chat: chat, Pipeline: pipe, Originals: files, PDFEngine: opts.pdfReady,
		Pages: opts.pages, PageCache: pageCache, PageWait: opts.pageWait, PageBudget: opts.pageBudget,
		HighlightBudget: opts.highlightBudget,
		CountTokens:     split.CountTokens, Heartbeat: opts.heartbeat, MaxUploadBytes: opts.maxUpload,
		UploadStallTimeout: opts.uploadStall,
		StoreKind:          "embedded", EmbedderMode: mode, ChatMode: mode, OCR: opts.ocr,
		IdentitySecret: opts.identitySecret, ChatPerMinute: opts.chatPerMinute, UploadsPerUser: opts.uploadsPerUser,
		Now: now,
	})
	s.embedder, s.chatModel, s.pipeline, s.routes = emb, chat, pipe, engine.Routes()
	srv := httptest.NewServer(engine)
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// part is one multipart part.
type part struct {
	field, fileName string
	data            []byte
}

func multipartBody(t testing.TB, parts ...part) (contentType string, body []byte) {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for _, p := range parts {
		var w io.Writer
		var err error
		if p.fileName != "" {
			w, err = mw.CreateFormFile(p.field, p.fileName)
		} else {
			w, err = mw.CreateFormField(p.field)
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(p.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return mw.FormDataContentType(), b.Bytes()
}

// exchange sends req with c and returns the answer with its whole body.
func exchange(t testing.TB, c *http.Client, req *http.Request) (*http.Response, []byte) {
	t.Helper()
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

func (s *service) post(t testing.TB, path, contentType string, body []byte) *http.Response {
	t.Helper()
	resp, err := s.client.Post(s.URL+path, contentType, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func (s *service) get(t testing.TB, path string) *http.Response {
	t.Helper()
	resp, err := s.client.Get(s.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func (s *service) del(t testing.TB, path string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodDelete, s.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// anonymous sends GET path without an identity in either mode, as a probe
// or a load balancer does: /health needs none.
func (s *service) anonymous(t testing.TB, path string) *http.Response {
	t.Helper()
	resp, err := http.Get(s.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// rawHeaders is what a request written by hand on a connection adds to its
// header lines so that it reaches the handlers in either mode: the
// identity line with accounts on, nothing with them off.
func (s *service) rawHeaders() string {
	if s.gateway == nil {
		return ""
	}
	return auth.HeaderIdentity + ": " + s.gateway.header() + "\r\n"
}

// ctx acts for the user the client's requests act for, for looking at the
// store directly.
func (s *service) ctx() context.Context {
	return auth.WithIdentity(context.Background(), s.identity)
}

var (
	accountsSecret = []byte(strings.Repeat("A", auth.MinSecretBytes))
	// accountsAdmin is who the contract tests act for with accounts on: an
	// administrator (the import is theirs alone), and not the built-in
	// user, so that a handler reading the owner from anywhere but the
	// request's identity is caught.
	accountsAdmin = auth.Identity{UserID: 42, Username: "admin", Admin: true, Scope: auth.ScopeWrite}
)

// signing is the gateway's part for the tests: it adds to every request the
// identity fuel-service's /auth/verify signs for a valid token, signed
// afresh each time (an identity is valid for auth.SignedTTL), on the
// service's own clock.
type signing struct {
	secret []byte
	id     auth.Identity
	now    func() time.Time
	next   http.RoundTripper
}

func (g *signing) header() string { return auth.Sign(g.secret, g.id, g.now()) }

func (g *signing) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context()) // a RoundTripper must not change the caller's request
	req.Header.Set(auth.HeaderIdentity, g.header())
	return g.next.RoundTrip(req)
}

// forEachAuthMode runs fn with accounts off, and again with accounts on
// (AUTH_MODE=local) where every request of the service's client carries an
// administrator's signed identity: the contract holds in both modes.
// fn passes accounts on to newService's options.
func forEachAuthMode(t *testing.T, fn func(t *testing.T, accounts bool)) {
	t.Helper()
	t.Run("auth-off", func(t *testing.T) { fn(t, false) })
	t.Run("auth-local", func(t *testing.T) { fn(t, true) })
}

func (s *service) upload(t testing.TB, path string, parts ...part) *http.Response {
	t.Helper()
	ct, body := multipartBody(t, parts...)
	return s.post(t, path, ct, body)
}

func (s *service) uploadPDF(t testing.TB, name string, pdf []byte) ingest.Result {
	t.Helper()
	resp := s.upload(t, "/api/documents/upload", part{"file", name, pdf})
	var res ingest.Result
	decode(t, resp, http.StatusOK, &res)
	return res
}

func (s *service) chat(t testing.TB, body string) *http.Response {
	t.Helper()
	return s.post(t, "/api/chat/stream", "application/json", []byte(body))
}

// decode checks the status and decodes the JSON body into v.
func decode(t testing.TB, resp *http.Response, status int, v any) {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != status {
		t.Fatalf("status = %d, want %d; body %s", resp.StatusCode, status, b)
	}
	if v != nil {
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("decode %s: %v", b, err)
		}
	}
}

type errorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// wantError checks a JSON error answer.
func wantError(t testing.TB, resp *http.Response, status int, code, msgPart string) {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type = %q", ct)
	}
	var e errorBody
	decode(t, resp, status, &e)
	if e.Code != code || !strings.Contains(e.Message, msgPart) {
		t.Errorf("error = %+v, want %s containing %q", e, code, msgPart)
	}
}

// event is one server-sent event; Comment is set for comment lines.
type event struct {
	Name    string
	Data    string
	Comment string
}

// readEvents parses a whole event stream.
func readEvents(t testing.TB, resp *http.Response) []event {
	t.Helper()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status = %d; body %s", resp.StatusCode, b)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("Content-Type = %q", ct)
	}
	return readEventsFrom(t, newEventReader(resp.Body))
}

// readEventsFrom reads the rest of a stream from r; a read error fails the
// test (without stopping it: it may run in another goroutine).
func readEventsFrom(t testing.TB, r *eventReader) []event {
	t.Helper()
	var events []event
	for {
		ev, err := r.next()
		if err == io.EOF {
			return events
		}
		if err != nil {
			t.Error(err)
			return events
		}
		events = append(events, ev)
	}
}

type eventReader struct{ br *bufio.Reader }

func newEventReader(r io.Reader) *eventReader { return &eventReader{br: bufio.NewReader(r)} }

// next returns the next event or comment, following the SSE parsing rules
// (data lines joined with "\n", a blank line dispatches).
func (r *eventReader) next() (event, error) {
	var ev event
	var data []string
	hasData := false
	for {
		line, err := r.br.ReadString('\n')
		if err != nil {
			if err == io.EOF && (hasData || ev.Name != "") {
				return event{}, io.ErrUnexpectedEOF
			}
			return event{}, err
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "":
			if hasData || ev.Name != "" {
				ev.Data = strings.Join(data, "\n")
				return ev, nil
			}
		case strings.HasPrefix(line, ":"):
			if !hasData && ev.Name == "" {
				// A comment on its own; the blank line after it is skipped.
				if _, err := r.br.ReadString('\n'); err != nil && err != io.EOF {
					return event{}, err
				}
				return event{Comment: strings.TrimSpace(strings.TrimPrefix(line, ":"))}, nil
			}
		case strings.HasPrefix(line, "event:"):
			ev.Name = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
			hasData = true
		}
	}
}

// withoutComments drops heartbeat comments.
func withoutComments(events []event) []event {
	var out []event
	for _, e := range events {
		if e.Comment == "" {
			out = append(out, e)
		}
	}
	return out
}

func unmarshal(t testing.TB, data string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(data), v); err != nil {
		t.Fatalf("decode %q: %v", data, err)
	}
}

func storedCount(t testing.TB, s *service) int {
	t.Helper()
	docs, err := s.store.Documents(s.ctx())
	if err != nil {
		t.Fatal(err)
	}
	return len(docs)
}

// writingModel is a ChatModel that does not say it quotes.
type writingModel struct{ docqa.ChatModel }
