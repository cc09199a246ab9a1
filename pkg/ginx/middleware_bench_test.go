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
// services run it: metrics on, every request's line through logging's JSON
// handler into a file (written at once, logging.New, or in batches,
// logging.NewBuffered as fuel-service runs), a body limit, and a handler
// that answers at once (compare BenchmarkRequestMetrics, which logs
// nothing).
func BenchmarkMiddleware(b *testing.B) {
	for _, buffered := range []bool{false, true} {
		name := "direct"
		if buffered {
			name = "buffered"
		}
		b.Run(name, func(b *testing.B) {
			f, err := os.Create(b.TempDir() + "/access.log")
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			log := logging.New(f, slog.LevelInfo)
			if buffered {
				var stop func() error
				log, stop = logging.NewBuffered(f, slog.LevelInfo)
				defer stop()
			}
			e := New(log, Options{Metrics: metrics.NewRegistry(), MaxBodyBytes: 1 << 20})
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
		})
	}
}
