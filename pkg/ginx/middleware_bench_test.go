package ginx

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/gin-gonic/gin"

	"github.com/carhub/backend/pkg/logging"
	"github.com/carhub/backend/pkg/metrics"
)

// BenchmarkMiddleware is the shared middleware's cost per request as the
// services run it: metrics on, every request's line through
// logging.New's JSON handler into a file, a body limit, and a handler
// that answers at once (compare BenchmarkRequestMetrics, which logs
// nothing).
func BenchmarkMiddleware(b *testing.B) {
	f, err := os.Create(b.TempDir() + "/access.log")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	e := New(logging.New(f, slog.LevelInfo), Options{Metrics: metrics.NewRegistry(), MaxBodyBytes: 1 << 20})
	e.GET("/api/vehicles/:id", func(c *gin.Context) { c.Status(http.StatusOK) })
	req := httptest.NewRequest(http.MethodGet, "/api/vehicles/7", nil)
	req.Body = http.NoBody // as net/http's server gives a request without one
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatal(rec.Code)
		}
	}
}
