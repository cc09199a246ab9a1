package gincors

import (
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/gin-gonic/gin"
)

func TestParseOrigins(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", DefaultOrigins},
		{" , ", DefaultOrigins},
		{"https://app.example.com", []string{"https://app.example.com"}},
		{"https://a.example/, https://b.example,https://a.example", []string{"https://a.example", "https://b.example"}},
	}
	for _, tt := range tests {
		got, err := ParseOrigins(tt.in)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseOrigins(%q) = %v, %v, want %v", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"localhost:5173", "ftp://x.example", "https://x.example/path", "https://", "*"} {
		if got, err := ParseOrigins(bad); err == nil {
			t.Errorf("ParseOrigins(%q) = %v, want an error", bad, got)
		}
	}
}

func newEngine() *gin.Engine {
	gin.SetMode(gin.ReleaseMode)
	e := gin.New()
	e.Use(Middleware(DefaultOrigins))
	e.GET("/api/things", func(c *gin.Context) { c.JSON(http.StatusOK, gin.H{"ok": true}) })
	e.NoRoute(func(c *gin.Context) { c.JSON(http.StatusNotFound, gin.H{"code": "NOT_FOUND"}) })
	return e
}

func TestPreflightFromAllowedOriginsEchoesHeaders(t *testing.T) {
	e := newEngine()
	for _, origin := range DefaultOrigins {
		t.Run(origin, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodOptions, "/api/things", nil)
			req.Header.Set("Origin", origin)
			req.Header.Set("Access-Control-Request-Method", "POST")
			req.Header.Set("Access-Control-Request-Headers", "content-type,x-custom-header")
			rec := httptest.NewRecorder()
			e.ServeHTTP(rec, req)

			if rec.Code != http.StatusNoContent {
				t.Fatalf("status %d", rec.Code)
			}
			h := rec.Header()
			want := map[string]string{
				"Access-Control-Allow-Origin":      origin,
				"Access-Control-Allow-Credentials": "true",
				"Access-Control-Allow-Headers":     "content-type,x-custom-header",
				"Access-Control-Allow-Methods":     "GET,POST,PUT,DELETE,OPTIONS",
			}
			for k, v := range want {
				if got := h.Get(k); got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
		})
	}
}

func TestDisallowedOriginGetsNoGrant(t *testing.T) {
	e := newEngine()

	pre := httptest.NewRequest(http.MethodOptions, "/api/things", nil)
	pre.Header.Set("Origin", "https://evil.example")
	pre.Header.Set("Access-Control-Request-Method", "POST")
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, pre)
	if rec.Code != http.StatusNoContent {
		t.Fatalf("preflight status %d", rec.Code)
	}
	if got := rec.Header().Get("Access-Control-Allow-Origin"); got != "" {
		t.Fatalf("disallowed preflight granted %q", got)
	}

	get := httptest.NewRequest(http.MethodGet, "/api/things", nil)
	get.Header.Set("Origin", "https://evil.example")
	rec = httptest.NewRecorder()
	e.ServeHTTP(rec, get)
	if rec.Code != http.StatusOK {
		t.Fatalf("simple request status %d, want the API's own answer", rec.Code)
	}
	for _, k := range []string{"Access-Control-Allow-Origin", "Access-Control-Allow-Credentials"} {
		if got := rec.Header().Get(k); got != "" {
			t.Errorf("disallowed origin got %s: %q", k, got)
		}
	}
}

func TestSimpleRequestFromAllowedOrigin(t *testing.T) {
	e := newEngine()
	req := httptest.NewRequest(http.MethodGet, "/api/things", nil)
	req.Header.Set("Origin", "http://localhost:5173")
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d", rec.Code)
	}
	if got := rec.Header().Get("Access-Control-Allow-Origin"); got != "http://localhost:5173" {
		t.Fatalf("Allow-Origin %q", got)
	}
	if got := rec.Header().Get("Access-Control-Allow-Credentials"); got != "true" {
		t.Fatalf("Allow-Credentials %q", got)
	}
}

func TestPrefixOfAllowedOriginIsRefused(t *testing.T) {
	e := newEngine()
	req := httptest.NewRequest(http.MethodGet, "/api/things", nil)
	req.Header.Set("Origin", "http://localhost:51730")
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	if got := rec.Header().Get("Access-Control-Allow-Origin"); got != "" {
		t.Fatalf("look-alike origin granted %q", got)
	}
}
