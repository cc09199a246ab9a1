package gateway

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/carhub/backend/tools/internal/loopback"
)

// seen is what a stand-in service saw of one request.
type seen struct {
	Service string `json:"service"`
	Method  string `json:"method"`
	Path    string `json:"path"`
	Query   string `json:"query"`
	Bytes   int64  `json:"bytes"`
	ReadErr string `json:"readErr"`
}

// standIn is an in-process HTTP server standing in for one service. It answers
// /health, echoes X-Request-ID as the services do, answers CORS preflights
// for one allowed origin, streams events on its stream paths (one event per
// release), and reports every other request back as JSON.
type standIn struct {
	name    string
	srv     *httptest.Server
	streams map[string]bool
	release chan struct{}

	mu   sync.Mutex
	byID map[string]seen
}

const allowedOrigin = "http://localhost:5173"

func newStandIn(tb testing.TB, name string, streamPaths ...string) *standIn {
	tb.Helper()
	s := &standIn{name: name, streams: map[string]bool{}, release: make(chan struct{}), byID: map[string]seen{}}
	for _, p := range streamPaths {
		s.streams[p] = true
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	tb.Cleanup(s.srv.Close)
	return s
}

func (s *standIn) serve(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get("X-Request-ID")
	if id != "" {
		w.Header().Set("X-Request-ID", id)
	}
	if r.URL.Path == "/readyz" && id == "" { // Caddy's active health check
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"status":"ok"}`)
		return
	}
	if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
		if r.Header.Get("Origin") == allowedOrigin {
			w.Header().Set("Access-Control-Allow-Origin", allowedOrigin)
			w.Header().Set("Access-Control-Allow-Credentials", "true")
			w.Header().Set("Access-Control-Allow-Methods", "GET,POST,PUT,DELETE,OPTIONS")
			w.Header().Set("Access-Control-Allow-Headers", r.Header.Get("Access-Control-Request-Headers"))
		}
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if s.streams[r.URL.Path] {
		s.stream(w, r)
		return
	}
	n, err := io.Copy(io.Discard, r.Body)
	rec := seen{Service: s.name, Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Bytes: n}
	if err != nil {
		rec.ReadErr = err.Error()
	}
	s.mu.Lock()
	s.byID[id] = rec
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(rec)
}

// stream sends three events, each after the test releases it, so a test
// can only read event n through Caddy if Caddy did not hold it back.
func (s *standIn) stream(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
	for i := 1; i <= 3; i++ {
		select {
		case <-s.release:
		case <-r.Context().Done():
			return
		}
		fmt.Fprintf(w, "event: e%d\ndata: {\"n\":%d}\n\n", i, i)
		w.(http.Flusher).Flush()
	}
}

func (s *standIn) seenFor(id string) (seen, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, ok := s.byID[id]
	return rec, ok
}

// gateway is one Caddy in front of two stand-ins, with a static web root.
type gateway struct {
	url          string
	fuel, docqa  *standIn
	webRoot      string
	requestCount int
}

func newGateway(t *testing.T) *gateway {
	t.Helper()
	g := &gateway{
		fuel:    newStandIn(t, "fuel"),
		docqa:   newStandIn(t, "docqa", "/api/chat/stream", "/api/documents/upload/stream"),
		webRoot: t.TempDir(),
	}
	mustWrite(t, filepath.Join(g.webRoot, "index.html"), "<!doctype html><title>client</title>")
	mustWrite(t, filepath.Join(g.webRoot, "assets", "app.js"), "console.log('client')")
	mustWrite(t, filepath.Join(g.webRoot, "sw.js"), "self.addEventListener('fetch', () => {})")
	g.url = startCaddy(t,
		"FUEL_UPSTREAM="+hostPort(g.fuel.srv.URL),
		"DOCQA_UPSTREAM="+hostPort(g.docqa.srv.URL),
		"WEB_ROOT="+g.webRoot,
	)
	return g
}

func mustWrite(tb testing.TB, path, content string) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// do sends a request with a fresh X-Request-ID and returns the response with
// its body read.
func (g *gateway) do(t *testing.T, method, path string, body io.Reader, header http.Header) (*http.Response, []byte, string) {
	t.Helper()
	g.requestCount++
	id := fmt.Sprintf("test-%s-%d", strings.ReplaceAll(t.Name(), "/", "-"), g.requestCount)
	req, err := http.NewRequest(method, g.url+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if lr, ok := body.(*io.LimitedReader); ok {
		req.ContentLength = lr.N
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	req.Header.Set("X-Request-ID", id)
	if req.ContentLength > 0 {
		// As curl does for large bodies: a refused body is never sent, so
		// the answer cannot be lost to a connection reset mid-upload.
		req.Header.Set("Expect", "100-continue")
	}
	resp, err := expectClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", method, path, err)
	}
	return resp, b, id
}

// expectClient waits for "100 Continue" (or the final answer) before it
// sends a body.
var expectClient = &http.Client{Transport: &http.Transport{ExpectContinueTimeout: time.Minute}}

// wantJSONError checks a JSON error body in the services' shape.
func wantJSONError(t *testing.T, resp *http.Response, body []byte, status int, code string) {
	t.Helper()
	if resp.StatusCode != status {
		t.Fatalf("status = %d, want %d; body %s", resp.StatusCode, status, body)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("Content-Type = %q, want application/json; body %s", ct, body)
	}
	var e struct{ Code, Message string }
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("body is not JSON: %v: %s", err, body)
	}
	if e.Code != code || e.Message == "" {
		t.Fatalf("error body = %s, want code %s and a message", body, code)
	}
}

// wantGatewayHeaders checks what every answer through Caddy carries.
func wantGatewayHeaders(t *testing.T, resp *http.Response, requestID string) {
	t.Helper()
	if got := resp.Header.Values("X-Request-ID"); len(got) != 1 || got[0] != requestID {
		t.Errorf("X-Request-ID = %q, want exactly [%q]", got, requestID)
	}
	for name, want := range map[string]string{
		"X-Content-Type-Options": "nosniff",
		"X-Frame-Options":        "DENY",
		"Referrer-Policy":        "strict-origin-when-cross-origin",
	} {
		if got := resp.Header.Get(name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if s := resp.Header.Get("Server"); s != "" {
		t.Errorf("Server header %q present; the gateway should not name itself", s)
	}
}

func TestGateway(t *testing.T) {
	g := newGateway(t)

	t.Run("routes", func(t *testing.T) {
		tests := []struct {
			method, path, service string
		}{
			{http.MethodGet, "/health", "fuel"},
			{http.MethodGet, "/api/vehicles", "fuel"},
			{http.MethodPost, "/api/vehicles", "fuel"},
			{http.MethodPut, "/api/vehicles/7", "fuel"},
			{http.MethodGet, "/api/vehicles/7/statistics", "fuel"},
			{http.MethodGet, "/api/vehicles/7/statistics/monthly?start_date=2024-01-01T00:00:00Z", "fuel"},
			{http.MethodGet, "/api/vehicles/7/refuels.csv", "fuel"},
			{http.MethodPost, "/api/vehicles/7/refuels/import?dry_run=true", "fuel"},
			{http.MethodPost, "/api/vehicles/7/default", "fuel"},
			{http.MethodGet, "/api/refuels?vehicle_id=7&start_date=2024-01-01T00:00:00Z", "fuel"},
			{http.MethodDelete, "/api/refuels/3", "fuel"},
			{http.MethodPost, "/api/chat", "docqa"},
			{http.MethodGet, "/api/documents", "docqa"},
			{http.MethodPost, "/api/documents/upload", "docqa"},
			{http.MethodPost, "/api/documents/import", "docqa"},
			{http.MethodDelete, "/api/documents/0123456789abcdef0123456789abcdef", "docqa"},
		}
		for _, tt := range tests {
			t.Run(tt.method+" "+tt.path, func(t *testing.T) {
				resp, body, id := g.do(t, tt.method, tt.path, strings.NewReader("{}"), nil)
				if resp.StatusCode != http.StatusOK {
					t.Fatalf("status %d: %s", resp.StatusCode, body)
				}
				var got seen
				if err := json.Unmarshal(body, &got); err != nil {
					t.Fatalf("not a stand-in answer: %s", body)
				}
				path, query, _ := strings.Cut(tt.path, "?")
				want := seen{Service: tt.service, Method: tt.method, Path: path, Query: query, Bytes: 2}
				if got != want {
					t.Fatalf("upstream saw %+v, want %+v", got, want)
				}
				wantGatewayHeaders(t, resp, id)
			})
		}
	})

	t.Run("unknown API paths answer 404 JSON from Caddy", func(t *testing.T) {
		for _, path := range []string{"/api", "/api/", "/api/unknown", "/api/vehiclesx", "/api/chatty", "/api/v2/vehicles", "/api/unknown/index.html"} {
			for _, method := range []string{http.MethodGet, http.MethodPost, http.MethodDelete} {
				resp, body, id := g.do(t, method, path, nil, http.Header{"Accept": {"text/html"}})
				wantJSONError(t, resp, body, http.StatusNotFound, "NOT_FOUND")
				wantGatewayHeaders(t, resp, id)
				if bytes.Contains(body, []byte("<")) {
					t.Fatalf("%s %s answered HTML: %s", method, path, body)
				}
				if _, ok := g.fuel.seenFor(id); ok {
					t.Fatalf("%s %s reached fuel", method, path)
				}
				if _, ok := g.docqa.seenFor(id); ok {
					t.Fatalf("%s %s reached docqa", method, path)
				}
			}
		}
	})

	t.Run("a 2 MiB body to /api/vehicles is 413 JSON", func(t *testing.T) {
		resp, body, id := g.do(t, http.MethodPost, "/api/vehicles", bytes.NewReader(make([]byte, 2<<20)), nil)
		wantJSONError(t, resp, body, http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE")
		wantGatewayHeaders(t, resp, id)
		if _, ok := g.fuel.seenFor(id); ok {
			t.Fatal("the oversized request reached fuel")
		}
	})

	t.Run("1 MiB is the limit outside /api/documents", func(t *testing.T) {
		for _, path := range []string{"/api/vehicles", "/api/refuels", "/api/chat/stream"} {
			resp, body, _ := g.do(t, http.MethodPost, path, bytes.NewReader(make([]byte, 1<<20+1)), nil)
			wantJSONError(t, resp, body, http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE")
		}
		resp, body, id := g.do(t, http.MethodPost, "/api/refuels", bytes.NewReader(make([]byte, 1<<20)), nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("exactly 1 MiB: status %d: %s", resp.StatusCode, body)
		}
		if got, _ := g.fuel.seenFor(id); got.Bytes != 1<<20 {
			t.Fatalf("fuel read %d bytes, want %d", got.Bytes, 1<<20)
		}
	})

	t.Run("the fuel CSV import takes up to 10 MiB + 64 KiB", func(t *testing.T) {
		const limit = 10<<20 + 64<<10
		path := "/api/vehicles/7/refuels/import"
		resp, body, id := g.do(t, http.MethodPost, path, zeros(limit+1), nil)
		wantJSONError(t, resp, body, http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE")
		wantGatewayHeaders(t, resp, id)
		if _, ok := g.fuel.seenFor(id); ok {
			t.Fatal("the oversized import reached fuel")
		}
		resp, body, id = g.do(t, http.MethodPost, path, zeros(limit), nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("import of exactly the limit: status %d: %s", resp.StatusCode, body)
		}
		if got, _ := g.fuel.seenFor(id); got.Bytes != limit || got.ReadErr != "" {
			t.Fatalf("fuel saw %+v, want %d bytes", got, limit)
		}
		// Only that path: its neighbours keep 1 MiB.
		for _, p := range []string{"/api/vehicles/7/refuels", "/api/vehicles/7/refuels/import/x", "/api/vehicles/7/refuels.csv"} {
			resp, body, _ := g.do(t, http.MethodPost, p, zeros(1<<20+1), nil)
			wantJSONError(t, resp, body, http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE")
		}
	})

	t.Run("a chunked body over the limit never reaches fuel whole", func(t *testing.T) {
		// No Content-Length: Caddy cuts the body off at 1 MiB while streaming
		// it and answers 413, closing the connection. The client may see that
		// answer or, still writing, a reset connection.
		id := "chunked-2MiB"
		req, err := http.NewRequest(http.MethodPost, g.url+"/api/vehicles", struct{ io.Reader }{zeros(2 << 20)})
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-Request-ID", id)
		client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
		resp, err := client.Do(req)
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			wantJSONError(t, resp, body, http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE")
		}
		if got, ok := g.fuel.seenFor(id); ok && (got.Bytes > 1<<20 || got.ReadErr == "") {
			t.Fatalf("fuel saw %+v: more than 1 MiB, or a body that ended well", got)
		}
	})

	t.Run("uploads take up to 100 MiB", func(t *testing.T) {
		// One byte over: refused on the announced length, before the body
		// reaches docqa.
		resp, body, id := g.do(t, http.MethodPost, "/api/documents/upload", zeros(100<<20+1), nil)
		wantJSONError(t, resp, body, http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE")
		wantGatewayHeaders(t, resp, id)
		if _, ok := g.docqa.seenFor(id); ok {
			t.Fatal("the oversized upload reached docqa")
		}
		// Exactly 100 MiB passes whole.
		resp, body, id = g.do(t, http.MethodPost, "/api/documents/upload", zeros(100<<20), nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("100 MiB upload: status %d: %s", resp.StatusCode, body)
		}
		if got, _ := g.docqa.seenFor(id); got.Bytes != 100<<20 || got.ReadErr != "" {
			t.Fatalf("docqa saw %+v, want %d bytes", got, 100<<20)
		}
	})

	for _, path := range []string{"/api/chat/stream", "/api/documents/upload/stream"} {
		t.Run("events pass one by one on "+path, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodPost, g.url+path, strings.NewReader(`{"question":"q"}`))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("X-Request-ID", "stream-"+path)
			req.Header.Set("Accept-Encoding", "gzip") // must not make Caddy buffer or compress
			resp, err := http.DefaultTransport.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
				t.Fatalf("Content-Type = %q", ct)
			}
			if enc := resp.Header.Get("Content-Encoding"); enc != "" {
				t.Fatalf("event stream was encoded with %q", enc)
			}
			wantGatewayHeaders(t, resp, "stream-"+path)
			events := readEvents(resp.Body)
			for i := 1; i <= 3; i++ {
				// The stand-in writes event i only now; if Caddy held events
				// back, it would never arrive before the stand-in's next one.
				g.docqa.release <- struct{}{}
				select {
				case ev, ok := <-events:
					want := fmt.Sprintf("event: e%d\ndata: {\"n\":%d}", i, i)
					if !ok || ev != want {
						t.Fatalf("event %d = %q (open %v), want %q", i, ev, ok, want)
					}
				case <-time.After(20 * time.Second):
					t.Fatalf("event %d did not come through: Caddy buffers the stream", i)
				}
			}
		})
	}

	t.Run("request ids", func(t *testing.T) {
		// Kept when the client sends one: checked by every other subtest.
		// Made by Caddy when it does not, and the same one reaches the service.
		for _, path := range []string{"/api/vehicles", "/api/nowhere"} {
			resp, err := http.Get(g.url + path)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			ids := resp.Header.Values("X-Request-ID")
			if len(ids) != 1 || len(ids[0]) < 16 {
				t.Fatalf("%s: X-Request-ID = %q, want one generated id", path, ids)
			}
			if path == "/api/vehicles" {
				if got, ok := g.fuel.seenFor(ids[0]); !ok || got.Path != path {
					t.Fatalf("fuel did not see the generated id %q", ids[0])
				}
			}
		}
	})

	t.Run("CORS preflights pass through to the service", func(t *testing.T) {
		h := http.Header{
			"Origin":                         {allowedOrigin},
			"Access-Control-Request-Method":  {"PUT"},
			"Access-Control-Request-Headers": {"content-type,x-custom"},
		}
		for _, path := range []string{"/api/vehicles/1", "/api/chat/stream", "/api/documents/upload"} {
			resp, body, id := g.do(t, http.MethodOptions, path, nil, h)
			if resp.StatusCode != http.StatusNoContent {
				t.Fatalf("%s: status %d: %s", path, resp.StatusCode, body)
			}
			if got := resp.Header.Values("Access-Control-Allow-Origin"); len(got) != 1 || got[0] != allowedOrigin {
				t.Fatalf("%s: Access-Control-Allow-Origin = %q", path, got)
			}
			if got := resp.Header.Get("Access-Control-Allow-Headers"); got != "content-type,x-custom" {
				t.Fatalf("%s: Access-Control-Allow-Headers = %q", path, got)
			}
			if got := resp.Header.Get("Access-Control-Allow-Credentials"); got != "true" {
				t.Fatalf("%s: Access-Control-Allow-Credentials = %q", path, got)
			}
			wantGatewayHeaders(t, resp, id)
		}
		// A disallowed origin gets no allow-origin header from anyone.
		h.Set("Origin", "http://evil.example")
		resp, _, _ := g.do(t, http.MethodOptions, "/api/vehicles", nil, h)
		if got := resp.Header.Get("Access-Control-Allow-Origin"); got != "" {
			t.Fatalf("disallowed origin got Access-Control-Allow-Origin %q", got)
		}
	})

	t.Run("static root with a fallback page never under /api", func(t *testing.T) {
		tests := []struct{ path, want string }{
			{"/", "<!doctype html><title>client</title>"},
			{"/vehicles/3/refuels", "<!doctype html><title>client</title>"},
			{"/assets/app.js", "console.log('client')"},
			{"/apiary", "<!doctype html><title>client</title>"},
		}
		for _, tt := range tests {
			resp, body, id := g.do(t, http.MethodGet, tt.path, nil, nil)
			if resp.StatusCode != http.StatusOK || string(body) != tt.want {
				t.Fatalf("GET %s = %d %q, want 200 %q", tt.path, resp.StatusCode, body, tt.want)
			}
			wantGatewayHeaders(t, resp, id)
		}
		resp, body, _ := g.do(t, http.MethodGet, "/api/assets/app.js", nil, nil)
		wantJSONError(t, resp, body, http.StatusNotFound, "NOT_FOUND")
	})

	t.Run("the web client's CSP and caching", func(t *testing.T) {
		tests := []struct{ path, cache string }{
			{"/", "no-cache"},
			{"/history", "no-cache"},
			{"/sw.js", "no-cache"},
			{"/assets/app.js", "public, max-age=31536000, immutable"},
		}
		for _, tt := range tests {
			resp, body, _ := g.do(t, http.MethodGet, tt.path, nil, nil)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("GET %s = %d %s", tt.path, resp.StatusCode, body)
			}
			csp := resp.Header.Get("Content-Security-Policy")
			for _, want := range []string{"default-src 'self'", "script-src 'self';", "object-src 'none'", "frame-ancestors 'none'"} {
				if !strings.Contains(csp, want) {
					t.Errorf("GET %s: Content-Security-Policy %q lacks %q", tt.path, csp, want)
				}
			}
			if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
				t.Errorf("GET %s: Content-Security-Policy %q allows inline code", tt.path, csp)
			}
			if got := resp.Header.Get("Cache-Control"); got != tt.cache {
				t.Errorf("GET %s: Cache-Control %q, want %q", tt.path, got, tt.cache)
			}
		}
		// The API keeps its own policy, not the client's.
		resp, _, _ := g.do(t, http.MethodGet, "/api/nothing", nil, nil)
		if got := resp.Header.Get("Content-Security-Policy"); got != "default-src 'none'; frame-ancestors 'none'" {
			t.Errorf("GET /api/nothing: Content-Security-Policy %q", got)
		}
	})

	t.Run("a missing build file is 404 JSON, never index.html", func(t *testing.T) {
		for _, path := range []string{"/assets/gone-1234.js", "/workbox-gone.js", "/manifest.webmanifest"} {
			resp, body, _ := g.do(t, http.MethodGet, path, nil, nil)
			wantJSONError(t, resp, body, http.StatusNotFound, "NOT_FOUND")
		}
	})
}

func TestGatewayUpstreamDown(t *testing.T) {
	fuel := newStandIn(t, "fuel")
	url := startCaddy(t,
		"FUEL_UPSTREAM="+hostPort(fuel.srv.URL),
		"DOCQA_UPSTREAM="+loopback.FreeAddr(t), // nothing listens there
	)
	req, _ := http.NewRequest(http.MethodPost, url+"/api/chat/stream", strings.NewReader(`{}`))
	req.Header.Set("X-Request-ID", "down-1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	wantJSONError(t, resp, body, http.StatusServiceUnavailable, "UNAVAILABLE")
	wantGatewayHeaders(t, resp, "down-1")
}

// zeroReader reads zero bytes forever.
type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// zeros is a body of n zero bytes with a known length, without holding them.
func zeros(n int64) io.Reader {
	return &io.LimitedReader{R: zeroReader{}, N: n}
}

// readEvents splits an event stream into events (blank-line separated).
func readEvents(r io.Reader) <-chan string {
	out := make(chan string)
	go func() {
		defer close(out)
		sc := bufio.NewScanner(r)
		var ev []string
		for sc.Scan() {
			if sc.Text() == "" {
				if len(ev) > 0 {
					out <- strings.Join(ev, "\n")
					ev = nil
				}
				continue
			}
			ev = append(ev, sc.Text())
		}
	}()
	return out
}
