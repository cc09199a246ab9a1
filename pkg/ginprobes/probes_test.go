package ginprobes_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/carhub/backend/pkg/ginprobes"
)

func serve(t *testing.T, p *ginprobes.Probes, path string) (int, ginprobes.Readiness) {
	t.Helper()
	e := gin.New()
	p.Register(e)
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	var body ginprobes.Readiness
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatalf("%s: body %q: %v", path, rec.Body, err)
	}
	return rec.Code, body
}

func ok(context.Context) error { return nil }

func TestReadyz(t *testing.T) {
	hang := func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }
	deaf := func(context.Context) error { time.Sleep(time.Second); return nil } // ignores its context
	tests := []struct {
		name    string
		checks  []ginprobes.Check
		drain   bool
		code    int
		status  string
		failing map[string]string // check -> error
	}{
		{"all answer", []ginprobes.Check{{"database", ok}, {"files", ok}}, false, 200, "ready", nil},
		{"no checks", nil, false, 200, "ready", nil},
		{"one fails", []ginprobes.Check{{"database", func(context.Context) error { return errors.New("connection refused") }}, {"files", ok}},
			false, 503, "unready", map[string]string{"database": "connection refused"}},
		{"one hangs", []ginprobes.Check{{"database", hang}, {"files", ok}}, false, 503, "unready",
			map[string]string{"database": "no answer within 50ms"}},
		{"one ignores its timeout", []ginprobes.Check{{"vector_store", deaf}}, false, 503, "unready",
			map[string]string{"vector_store": "no answer within 50ms"}},
		{"one panics", []ginprobes.Check{{"pdf_engine", func(context.Context) error { panic("boom") }}}, false, 503, "unready",
			map[string]string{"pdf_engine": "check panicked: boom"}},
		{"draining", []ginprobes.Check{{"database", ok}}, true, 503, "draining", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := ginprobes.New(tt.checks...)
			p.Timeout = 50 * time.Millisecond
			if tt.drain {
				p.Drain()
			}
			start := time.Now()
			code, body := serve(t, p, "/readyz")
			if d := time.Since(start); d > 500*time.Millisecond {
				t.Errorf("readyz took %s, want about the timeout", d)
			}
			if code != tt.code || body.Status != tt.status {
				t.Errorf("readyz = %d %q, want %d %q", code, body.Status, tt.code, tt.status)
			}
			if len(body.Checks) != len(tt.checks) {
				t.Fatalf("checks = %+v, want one per check", body.Checks)
			}
			for i, c := range body.Checks {
				if c.Name != tt.checks[i].Name {
					t.Errorf("check %d named %q, want %q", i, c.Name, tt.checks[i].Name)
				}
				want, failing := tt.failing[c.Name]
				switch {
				case failing && (c.Status != "failing" || c.Error != want):
					t.Errorf("check %s = %+v, want failing with %q", c.Name, c, want)
				case !failing && (c.Status != "ok" || c.Error != ""):
					t.Errorf("check %s = %+v, want ok", c.Name, c)
				}
			}
		})
	}
}

func TestLivezTouchesNoDependency(t *testing.T) {
	called := false
	p := ginprobes.New(ginprobes.Check{Name: "database", Run: func(context.Context) error { called = true; return errors.New("down") }})
	p.Drain()
	e := gin.New()
	p.Register(e)
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/livez", nil))
	if rec.Code != 200 || called {
		t.Errorf("livez = %d (check called: %v), want 200 without calling a check", rec.Code, called)
	}
	if rec.Header().Get("Cache-Control") != "no-store" {
		t.Errorf("Cache-Control = %q", rec.Header().Get("Cache-Control"))
	}
}
