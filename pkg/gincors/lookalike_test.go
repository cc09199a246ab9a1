package gincors

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestLookAlikeOriginsGetNoGrant: origins that resemble a listed one (other
// scheme, port, case, suffix, userinfo trick, "null", a list-like value) are
// granted nothing, neither on a preflight nor on the request itself; and an
// Origin naming the request's own host is no cross-origin grant either.
func TestLookAlikeOriginsGetNoGrant(t *testing.T) {
	e := newEngine()
	for _, origin := range []string{
		"null",
		"https://localhost:5173",
		"http://localhost:5174",
		"http://localhost",
		"http://LOCALHOST:5173",
		"http://localhost:5173/",
		"http://localhost:5173.evil.example",
		"http://evil.example?http://localhost:5173",
		"http://localhost:5173@evil.example",
		"http://localhost:5173, https://evil.example",
		"*",
	} {
		t.Run(origin, func(t *testing.T) {
			for _, req := range []*http.Request{
				httptest.NewRequest(http.MethodOptions, "/api/things", nil),
				httptest.NewRequest(http.MethodGet, "/api/things", nil),
			} {
				req.Header.Set("Origin", origin)
				if req.Method == http.MethodOptions {
					req.Header.Set("Access-Control-Request-Method", "DELETE")
					req.Header.Set("Access-Control-Request-Headers", "Authorization")
				}
				rec := httptest.NewRecorder()
				e.ServeHTTP(rec, req)
				for _, k := range []string{"Access-Control-Allow-Origin", "Access-Control-Allow-Credentials", "Access-Control-Allow-Methods", "Access-Control-Allow-Headers"} {
					if got := rec.Header().Get(k); got != "" {
						t.Errorf("%s from %q got %s: %q", req.Method, origin, k, got)
					}
				}
			}
		})
	}

	t.Run("own host", func(t *testing.T) {
		req := httptest.NewRequest(http.MethodGet, "http://api.evil.example/api/things", nil)
		req.Header.Set("Origin", "http://api.evil.example")
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("status %d", rec.Code)
		}
		if got := rec.Header().Get("Access-Control-Allow-Origin"); got != "" {
			t.Errorf("same-host origin got Access-Control-Allow-Origin %q", got)
		}
	})
}
