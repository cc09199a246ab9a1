package httpapi_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/carhub/backend/services/fuel/internal/httpapi"
	"github.com/carhub/backend/services/fuel/internal/store"
)

// fuzzHandler is the API on a fresh SQLite database (the fuzzer runs many
// thousand requests; SQLite keeps that fast) with one vehicle, id 1.
func fuzzHandler(f *testing.F) http.Handler {
	st := mustStore(f, store.SQLite)
	h := httpapi.New(slog.New(slog.NewTextHandler(io.Discard, nil)), st, httpapi.Options{})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("POST", "/api/vehicles", strings.NewReader(`{"name":"fuzz","fuel_type":"diesel"}`)))
	if rec.Code != 200 {
		f.Fatalf("seed vehicle: %d %s", rec.Code, rec.Body)
	}
	return h
}

// checkAnswer fails on a 5xx and on a 200 whose body is not JSON.
func checkAnswer(t *testing.T, rec *httptest.ResponseRecorder, input string) {
	t.Helper()
	if rec.Code >= 500 {
		t.Fatalf("input %q: status %d %s", input, rec.Code, rec.Body)
	}
	if !json.Valid(rec.Body.Bytes()) {
		t.Fatalf("input %q: status %d with a body that is not JSON: %q", input, rec.Code, rec.Body)
	}
	if rec.Code != 200 && rec.Code != 400 && rec.Code != 413 {
		t.Fatalf("input %q: unexpected status %d %s", input, rec.Code, rec.Body)
	}
}

func FuzzCreateVehicle(f *testing.F) {
	for _, seed := range []string{
		`{"name":"Golf","fuel_type":"diesel"}`,
		`{"name":"Golf","brand":"VW","model":"8","plate_number":"B","fuel_type":"hybrid","tank_capacity":50.5,"current_odometer":1e3,"default_vehicle":true}`,
		`{"name":"","fuel_type":"coal","tank_capacity":-1}`,
		`{"name":null,"tank_capacity":"40","default_vehicle":"true"}`,
		`{"name":"a\u0000","fuel_type":"diesel","tank_capacity":1e999999999}`,
		`{"name":"x","fuel_type":"diesel","current_odometer":0.0000000000000000000000000000000000001}`,
		`[]`, `null`, `{`, ``, `{"name":"\ud800"}`,
	} {
		f.Add(seed)
	}
	h := fuzzHandler(f)
	f.Fuzz(func(t *testing.T, body string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("POST", "/api/vehicles", strings.NewReader(body)))
		checkAnswer(t, rec, body)
	})
}

func FuzzCreateRefuel(f *testing.F) {
	for _, seed := range []string{
		`{"vehicle_id":1,"refuel_time":"2026-03-01T08:00:00Z","odometer":1000,"fuel_type":"95","liters":40,"total_amount":60}`,
		`{"vehicle_id":1,"refuel_time":"2026-03-01T08:00:00.123456789+02:00","odometer":0,"fuel_type":"E10","liters":0.0005,"total_amount":0,"is_full":true,"station_name":"s","remark":"r"}`,
		`{"vehicle_id":18446744073709551615,"refuel_time":"9999-12-31T23:59:59.999999-01:00","odometer":99999999999.999,"fuel_type":"x","liters":0.001,"total_amount":99999999999.999}`,
		`{"vehicle_id":-1,"refuel_time":"2026-03-01","odometer":"1","liters":1e-400,"total_amount":-0}`,
		`{"vehicle_id":1e3,"refuel_time":null,"price_per_liter":5}`,
		`{}`, `1`, `"x"`,
	} {
		f.Add(seed)
	}
	h := fuzzHandler(f)
	f.Fuzz(func(t *testing.T, body string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("POST", "/api/refuels", strings.NewReader(body)))
		checkAnswer(t, rec, body)
	})
}

func FuzzListRefuels(f *testing.F) {
	for _, seed := range []string{
		"vehicle_id=1",
		"vehicle_id=1&start_date=2026-03-01T00:00:00Z&end_date=2026-03-02T00:00:00%2B02:00",
		"vehicle_id=1&start_date=2026-03-01T00:00:00 01:00&limit=10&offset=5",
		"vehicle_id=18446744073709551616&limit=0",
		"vehicle_id=1&vehicle_id=2&offset=-1",
		"vehicle_id=%zz", "", "&&&=",
	} {
		f.Add(seed)
	}
	h := fuzzHandler(f)
	f.Fuzz(func(t *testing.T, query string) {
		req := httptest.NewRequest("GET", "/api/refuels", nil)
		req.URL.RawQuery = query
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		checkAnswer(t, rec, query)
	})
}
