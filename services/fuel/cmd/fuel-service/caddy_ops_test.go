package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/carhub/backend/pkg/caddytest"
	"github.com/carhub/backend/pkg/metrics/metricstest"
)

// TestOperationalRoutesThroughCaddy: the gateway's active health check
// asks /readyz; /livez, /readyz and /metrics are not public (Caddy answers
// 404 itself, no metrics in the body); Caddy's own metrics are served on
// its internal METRICS_LISTEN only.
func TestOperationalRoutesThroughCaddy(t *testing.T) {
	svc := MustRun(t, map[string]string{"FUEL_SQLITE_PATH": filepath.Join(t.TempDir(), "fuel.db")})
	internal := caddytest.FreeAddr(t)
	gw := caddytest.Start(t,
		"FUEL_UPSTREAM="+strings.TrimPrefix(svc, "http://"),
		"DOCQA_UPSTREAM=127.0.0.1:1", // not used here
		"WEB_ROOT="+t.TempDir(),
		"METRICS_LISTEN="+internal,
	)
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if a := get(t, gw+"/api/vehicles"); a.code == 200 {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("fuel through the gateway: %d %s", a.code, a.body)
		}
	}
	for _, p := range []string{"/livez", "/readyz", "/metrics"} {
		a := get(t, gw+p)
		if a.code != 404 || strings.Contains(a.body, "http_requests_total") || strings.Contains(a.body, "checks") || strings.Contains(a.body, "alive") {
			t.Errorf("%s through the gateway: %d %s, want Caddy's 404", p, a.code, a.body)
		}
	}

	// The health check reached /readyz (not /health).
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(250 * time.Millisecond) {
		f := metricstest.MustScrape(t, svc+"/metrics")
		if v, _ := f.Value("http_requests_total", map[string]string{"route": "/readyz", "status": "200"}); v > 0 {
			if h, _ := f.Value("http_requests_total", map[string]string{"route": "/health"}); h > 0 {
				t.Errorf("the gateway still probes /health (%v times)", h)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the gateway's health check never asked /readyz")
		}
	}

	f := metricstest.MustScrape(t, "http://"+internal+"/metrics")
	if _, ok := f["caddy_http_requests_total"]; !ok {
		t.Errorf("Caddy's metrics listener serves no caddy_http_requests_total")
	}
	if a := get(t, "http://"+internal+"/other"); a.code != 404 {
		t.Errorf("metrics listener, other path: %d", a.code)
	}
}
