package httpapi_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/carhub/backend/pkg/logging"
	"github.com/carhub/backend/pkg/tracing"
	"github.com/carhub/backend/services/fuel/internal/httpapi"
	"github.com/carhub/backend/services/fuel/internal/store"
)

// BenchmarkListRefuels100 is GET /api/refuels for a vehicle with 100
// records, in process (no network), on each database.
func BenchmarkListRefuels100(b *testing.B) {
	for _, d := range dialects {
		b.Run(string(d), func(b *testing.B) {
			st := mustStore(b, d)
			h := httpapi.New(slog.New(slog.NewTextHandler(io.Discard, nil)), st, httpapi.Options{})
			post := func(path, body string) {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest("POST", path, strings.NewReader(body)))
				if rec.Code != 200 {
					b.Fatalf("%s: %d %s", path, rec.Code, rec.Body)
				}
			}
			post("/api/vehicles", `{"name":"bench","fuel_type":"diesel"}`)
			for i := 0; i < 100; i++ {
				post("/api/refuels", fmt.Sprintf(`{"vehicle_id":1,"refuel_time":"2024-01-%02dT08:00:00Z","odometer":%d,"fuel_type":"95","liters":40.37,"total_amount":65.99,"is_full":true,"station_name":"Station","remark":"seed"}`, i%28+1, 1000+i*500))
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/refuels?vehicle_id=1", nil))
				if rec.Code != 200 {
					b.Fatal(rec.Code)
				}
			}
		})
	}
}

// BenchmarkGetVehicle is GET /api/vehicles/1 in process on each database.
func BenchmarkGetVehicle(b *testing.B) {
	for _, d := range dialects {
		b.Run(string(d), func(b *testing.B) {
			st := mustStore(b, d)
			h := httpapi.New(slog.New(slog.NewJSONHandler(io.Discard, nil)), st, httpapi.Options{})
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("POST", "/api/vehicles", strings.NewReader(`{"name":"bench","fuel_type":"diesel","tank_capacity":50}`)))
			if rec.Code != 200 {
				b.Fatal(rec.Body)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/vehicles/1", nil))
				if rec.Code != 200 {
					b.Fatal(rec.Code)
				}
			}
		})
	}
}

// BenchmarkCreateRefuel is POST /api/refuels in process on each database.
func BenchmarkCreateRefuel(b *testing.B) {
	for _, d := range dialects {
		b.Run(string(d), func(b *testing.B) {
			st := mustStore(b, d)
			h := httpapi.New(slog.New(slog.NewJSONHandler(io.Discard, nil)), st, httpapi.Options{})
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("POST", "/api/vehicles", strings.NewReader(`{"name":"bench","fuel_type":"diesel"}`)))
			if rec.Code != 200 {
				b.Fatal(rec.Body)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				rec := httptest.NewRecorder()
				body := fmt.Sprintf(`{"vehicle_id":1,"refuel_time":"2024-01-01T08:%02d:%02dZ","odometer":%d.5,"fuel_type":"95","liters":41.25,"total_amount":70.13,"is_full":true,"station_name":"Load"}`, i/60%60, i%60, 1000+i)
				h.ServeHTTP(rec, httptest.NewRequest("POST", "/api/refuels", strings.NewReader(body)))
				if rec.Code != 200 {
					b.Fatal(rec.Code, rec.Body)
				}
			}
		})
	}
}

// BenchmarkGetVehicleTracing is GET /api/vehicles/1 on PostgreSQL, in
// process, from GOMAXPROCS goroutines, with tracing off and on (every
// request sampled, exporting over OTLP/HTTP to a loopback receiver that
// reads and drops each export), the logger the service uses (request and
// trace ids on every line). Run with -cpuprofile to see where a traced
// request's extra time goes: the exporter runs in the same process.
func BenchmarkGetVehicleTracing(b *testing.B) {
	for _, traced := range []bool{false, true} {
		name := "off"
		if traced {
			name = "on"
		}
		b.Run(name, func(b *testing.B) {
			if traced {
				sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					_, _ = io.Copy(io.Discard, r.Body)
					w.Header().Set("Content-Type", "application/x-protobuf")
				}))
				b.Cleanup(sink.Close)
				vars := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": sink.URL}
				shutdown, err := tracing.Setup(context.Background(), func(k string) string { return vars[k] }, "fuel-bench")
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { _ = shutdown(context.Background()) })
			}
			st := mustStore(b, store.Postgres)
			h := httpapi.New(logging.New(io.Discard, slog.LevelInfo), st, httpapi.Options{})
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("POST", "/api/vehicles", strings.NewReader(`{"name":"bench","fuel_type":"diesel","tank_capacity":50}`)))
			if rec.Code != 200 {
				b.Fatal(rec.Body)
			}
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					rec := httptest.NewRecorder()
					h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/vehicles/1", nil))
					if rec.Code != 200 {
						b.Error(rec.Code)
						return
					}
				}
			})
		})
	}
}
