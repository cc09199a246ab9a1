package ginx

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/pkg/logging"
)

type body struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func newTestEngine(t *testing.T, opts Options) (*gin.Engine, *bytes.Buffer) {
	t.Helper()
	var logs bytes.Buffer
	e := New(logging.New(&logs, slog.LevelInfo), opts)
	e.GET("/api/ok", func(c *gin.Context) { c.JSON(http.StatusOK, gin.H{"ok": true}) })
	e.GET("/api/panic", func(c *gin.Context) { panic("boom") })
	e.GET("/api/missing", func(c *gin.Context) { Fail(c, apperr.New(apperr.NotFound, "vehicle 7 not found")) })
	e.GET("/api/internal", func(c *gin.Context) {
		Fail(c, io.ErrUnexpectedEOF) // a driver error with no code
	})
	e.POST("/api/echo", func(c *gin.Context) {
		var in struct {
			Name  string   `json:"name"`
			Liter *float64 `json:"liters"`
			TopK  int      `json:"topK"`
			Full  bool     `json:"is_full"`
		}
		if err := BindJSON(c, &in); err != nil {
			Fail(c, err)
			return
		}
		c.JSON(http.StatusOK, in)
	})
	return e, &logs
}

func do(e http.Handler, method, path, payload string, hdr ...string) *httptest.ResponseRecorder {
	var r io.Reader
	if payload != "" {
		r = strings.NewReader(payload)
	}
	req := httptest.NewRequest(method, path, r)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	return rec
}

func decodeBody(t *testing.T, rec *httptest.ResponseRecorder) body {
	t.Helper()
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("Content-Type %q, body %s", ct, rec.Body)
	}
	var b body
	if err := json.Unmarshal(rec.Body.Bytes(), &b); err != nil {
		t.Fatalf("body is not JSON: %v: %s", err, rec.Body)
	}
	return b
}

func TestUnmatchedRoutesAndMethodsAreJSON404(t *testing.T) {
	e, _ := newTestEngine(t, Options{})
	for _, tc := range []struct{ method, path string }{
		{http.MethodGet, "/api/nothing-here"},
		{http.MethodDelete, "/api/ok"}, // path exists, method does not
		{http.MethodGet, "/"},
	} {
		rec := do(e, tc.method, tc.path, "")
		if rec.Code != http.StatusNotFound {
			t.Fatalf("%s %s: status %d", tc.method, tc.path, rec.Code)
		}
		if b := decodeBody(t, rec); b.Code != "NOT_FOUND" || !strings.Contains(b.Message, tc.path) {
			t.Fatalf("%s %s: body %+v", tc.method, tc.path, b)
		}
	}
}

func TestPanicBecomesLogged500(t *testing.T) {
	e, logs := newTestEngine(t, Options{})
	rec := do(e, http.MethodGet, "/api/panic", "", HeaderRequestID, "trace-1")
	if rec.Code != http.StatusInternalServerError {
		t.Fatalf("status %d", rec.Code)
	}
	if b := decodeBody(t, rec); b.Code != "INTERNAL" || b.Message != "internal error" {
		t.Fatalf("body %+v", b)
	}
	if !strings.Contains(logs.String(), `"panic":"boom"`) || !strings.Contains(logs.String(), `"request_id":"trace-1"`) {
		t.Fatalf("panic not logged with its request id: %s", logs)
	}
}

func TestErrorsRenderedOnce(t *testing.T) {
	e, logs := newTestEngine(t, Options{})
	rec := do(e, http.MethodGet, "/api/missing", "")
	if b := decodeBody(t, rec); rec.Code != 404 || b.Message != "vehicle 7 not found" {
		t.Fatalf("%d %+v", rec.Code, b)
	}
	rec = do(e, http.MethodGet, "/api/internal", "")
	if b := decodeBody(t, rec); rec.Code != 500 || b.Message != "internal error" {
		t.Fatalf("%d %+v", rec.Code, b)
	}
	if !strings.Contains(logs.String(), "unexpected EOF") {
		t.Fatalf("internal cause not logged: %s", logs)
	}
}

func TestRequestIDTakenOrMade(t *testing.T) {
	e, logs := newTestEngine(t, Options{})
	rec := do(e, http.MethodGet, "/api/ok", "", HeaderRequestID, "abc-123")
	if got := rec.Header().Get(HeaderRequestID); got != "abc-123" {
		t.Fatalf("echoed %q", got)
	}
	if !strings.Contains(logs.String(), `"request_id":"abc-123"`) {
		t.Fatalf("access log lacks the request id: %s", logs)
	}
	for _, bad := range []string{"", "with space", strings.Repeat("x", 129), "tab\there"} {
		rec = do(e, http.MethodGet, "/api/ok", "", HeaderRequestID, bad)
		got := rec.Header().Get(HeaderRequestID)
		if got == "" || got == bad {
			t.Fatalf("request id %q answered with %q", bad, got)
		}
	}
	// 404s and errors carry one too.
	if rec := do(e, http.MethodGet, "/api/zzz", ""); rec.Header().Get(HeaderRequestID) == "" {
		t.Fatal("404 without X-Request-ID")
	}
}

// TestAccessLogLine pins the line every request writes: its message, level
// and fields, the request id from the context, and nothing else (no source).
func TestAccessLogLine(t *testing.T) {
	e, logs := newTestEngine(t, Options{})
	req := httptest.NewRequest(http.MethodGet, "/api/ok?x=1", nil)
	req.RemoteAddr = "192.0.2.7:41000"
	req.Header.Set("X-Request-ID", "line-1") // any spelling of the name
	e.ServeHTTP(httptest.NewRecorder(), req)
	do(e, http.MethodGet, "/api/internal", "")

	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	var first, last map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
		t.Fatalf("%v: %s", err, lines[0])
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		t.Fatalf("%v: %s", err, lines[len(lines)-1])
	}
	d, ok := first["duration_ms"].(float64)
	if !ok || d < 0 {
		t.Fatalf("duration_ms %v", first["duration_ms"])
	}
	if _, err := time.Parse(time.RFC3339Nano, first["time"].(string)); err != nil {
		t.Fatalf("time: %v", err)
	}
	delete(first, "duration_ms")
	delete(first, "time")
	want := map[string]any{"level": "INFO", "msg": "request", "method": "GET", "path": "/api/ok", "status": 200.0,
		"bytes": 11.0, "remote": "192.0.2.7", "request_id": "line-1"}
	if !reflect.DeepEqual(first, want) {
		t.Fatalf("line %v\nwant %v (with time and duration_ms)", first, want)
	}
	if last["msg"] != "request" || last["level"] != "WARN" || last["status"] != 500.0 {
		t.Fatalf("a 500's line %v, want the request at WARN", last)
	}
}

func TestBindJSON(t *testing.T) {
	e, _ := newTestEngine(t, Options{MaxBodyBytes: 1 << 10})
	tests := []struct {
		name, payload string
		status        int
		msg           string
	}{
		{"ok", `{"name":"a","liters":1.5,"topK":3,"unknown":1}`, 200, ""},
		{"empty", ``, 400, "empty body"},
		{"blank", " \n\t\r ", 400, "empty body"},
		{"leading blanks", " \n\t{\"name\":\"a\"}\n", 200, ""},
		{"array after blanks", " \n[{\"name\":\"a\"}]", 400, "must be a JSON object"},
		{"malformed non-object", `nul`, 400, "must be a JSON object"},
		{"array", `[1,2]`, 400, "must be a JSON object"},
		{"null", `null`, 400, "must be a JSON object"},
		{"string", `"x"`, 400, "must be a JSON object"},
		{"malformed", `{"name":`, 400, "malformed JSON"},
		{"syntax", `{"name" "a"}`, 400, "malformed JSON"},
		{"trailing", `{"name":"a"} {"name":"b"}`, 400, "single JSON object"},
		{"string for number", `{"liters":"40"}`, 400, "liters: must be a number"},
		{"string for bool", `{"is_full":"true"}`, 400, "is_full: must be a boolean"},
		{"float for int", `{"topK":5.0}`, 400, "topK: must be an integer"},
		{"number for string", `{"name":5}`, 400, "name: must be a string"},
		{"overflow", `{"liters":1e400}`, 400, "liters: must be a number"},
		{"too large", `{"name":"` + strings.Repeat("a", 2<<10) + `"}`, 413, "1 KiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := do(e, http.MethodPost, "/api/echo", tt.payload)
			if rec.Code != tt.status {
				t.Fatalf("status %d, body %s", rec.Code, rec.Body)
			}
			if tt.status == 200 {
				return
			}
			b := decodeBody(t, rec)
			wantCode := "INVALID_ARGUMENT"
			if tt.status == 413 {
				wantCode = "PAYLOAD_TOO_LARGE"
			}
			if b.Code != wantCode || !strings.Contains(b.Message, tt.msg) {
				t.Fatalf("body %+v, want code %s and message containing %q", b, wantCode, tt.msg)
			}
		})
	}
}

func TestBodyLimitByContentLengthBeforeReading(t *testing.T) {
	e, _ := newTestEngine(t, Options{MaxBodyBytes: 1 << 20})
	read := false
	big := &countingReader{n: 2 << 20, onRead: func() { read = true }}
	req := httptest.NewRequest(http.MethodPost, "/api/echo", big)
	req.ContentLength = 2 << 20
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	if rec.Code != http.StatusRequestEntityTooLarge {
		t.Fatalf("status %d", rec.Code)
	}
	if b := decodeBody(t, rec); b.Code != "PAYLOAD_TOO_LARGE" {
		t.Fatalf("body %+v", b)
	}
	if read {
		t.Fatal("the body was read although Content-Length already exceeded the limit")
	}
}

type countingReader struct {
	n      int
	onRead func()
}

func (r *countingReader) Read(p []byte) (int, error) {
	r.onRead()
	if r.n == 0 {
		return 0, io.EOF
	}
	k := min(len(p), r.n)
	for i := range p[:k] {
		p[i] = 'a'
	}
	r.n -= k
	return k, nil
}
