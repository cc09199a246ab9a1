package httpapi_test

import (
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/carhub/backend/services/fuel/internal/httpapi"
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
