package ginx

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gin-gonic/gin"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/pkg/ginprobes"
	"github.com/carhub/backend/pkg/metrics"
	"github.com/carhub/backend/pkg/metrics/metricstest"
)

func TestRequestMetrics(t *testing.T) {
	reg := metrics.NewRegistry()
	e := New(slog.New(slog.DiscardHandler), Options{Metrics: reg, Probes: ginprobes.New()})
	e.GET("/api/vehicles/:id", func(c *gin.Context) {
		if c.Param("id") == "404" {
			Fail(c, apperr.New(apperr.NotFound, "no such vehicle"))
			return
		}
		c.JSON(http.StatusOK, gin.H{"id": c.Param("id")})
	})
	e.GET("/api/panic", func(c *gin.Context) { panic("boom") })
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)

	for _, r := range []struct{ method, path string }{
		{"GET", "/api/vehicles/1"}, {"GET", "/api/vehicles/2"}, {"GET", "/api/vehicles/3"},
		{"GET", "/api/vehicles/404"},
		{"GET", "/api/panic"},
		{"GET", "/nope"}, {"POST", "/api/vehicles/1"}, {"GET", "/secret/user/42"}, {"BREW", "/coffee"},
		{"GET", "/livez"},
	} {
		req, _ := http.NewRequestWithContext(context.Background(), r.method, srv.URL+r.path, nil)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	f := metricstest.MustScrape(t, srv.URL+"/metrics")

	for _, tt := range []struct {
		method, route, status string
		want                  float64
	}{
		{"GET", "/api/vehicles/:id", "200", 3},
		{"GET", "/api/vehicles/:id", "404", 1},
		{"GET", "/api/panic", "500", 1},
		{"GET", UnmatchedRoute, "404", 2},
		{"POST", UnmatchedRoute, "404", 1},
		{"OTHER", UnmatchedRoute, "404", 1},
		{"GET", "/livez", "200", 1},
	} {
		labels := map[string]string{"method": tt.method, "route": tt.route, "status": tt.status}
		if v, _ := f.Value("http_requests_total", labels); v != tt.want {
			t.Errorf("http_requests_total%v = %v, want %v", labels, v, tt.want)
		}
		if v, _ := f.Value("http_request_duration_seconds", labels); v != tt.want {
			t.Errorf("http_request_duration_seconds%v count = %v, want %v", labels, v, tt.want)
		}
	}
	for _, route := range f.LabelValues("http_requests_total", "route") {
		switch route {
		case "/api/vehicles/:id", "/api/panic", UnmatchedRoute, "/livez":
		default:
			t.Errorf("route label %q: only templates and %q may be routes", route, UnmatchedRoute)
		}
	}
	// The scrape itself is in flight while it is answered.
	if v, ok := f.Value("http_requests_in_flight", nil); !ok || v != 1 {
		t.Errorf("http_requests_in_flight = %v (found %v), want 1", v, ok)
	}
	for _, name := range []string{"go_goroutines", "process_cpu_seconds_total"} {
		if _, ok := f[name]; !ok {
			t.Errorf("%s missing: the runtime and process collectors are not registered", name)
		}
	}
}

func TestNoMetricsNoRoute(t *testing.T) {
	e := New(slog.New(slog.DiscardHandler), Options{})
	for _, path := range []string{"/metrics", "/livez", "/readyz"} {
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Code != http.StatusNotFound {
			t.Errorf("%s without Metrics and Probes = %d, want 404", path, rec.Code)
		}
	}
}

// BenchmarkRequestMetrics is the middleware's cost per request (compare
// with -bench 'RequestMetrics/off').
func BenchmarkRequestMetrics(b *testing.B) {
	for _, on := range []bool{false, true} {
		name := "off"
		if on {
			name = "on"
		}
		b.Run(name, func(b *testing.B) {
			opts := Options{}
			if on {
				opts.Metrics = metrics.NewRegistry()
			}
			e := New(slog.New(slog.DiscardHandler), opts)
			e.GET("/api/vehicles/:id", func(c *gin.Context) { c.Status(http.StatusOK) })
			req := httptest.NewRequest(http.MethodGet, "/api/vehicles/7", nil)
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					e.ServeHTTP(httptest.NewRecorder(), req)
				}
			})
		})
	}
}
