package ginx

import (
	"io"
	"strings"
	"testing"
)

// BenchmarkDecodeJSON is a POST refuel's body decoded as the handlers
// decode it, from a reader that hands out what it holds (as a request
// body does once the bytes have arrived).
func BenchmarkDecodeJSON(b *testing.B) {
	const body = `{"vehicle_id":2,"refuel_time":"2024-01-01T08:15:30Z","odometer":1234.5,"fuel_type":"95",` +
		`"liters":41.25,"total_amount":70.13,"is_full":true,"station_name":"Load"}`
	var dst struct {
		VehicleID   uint64  `json:"vehicle_id"`
		RefuelTime  string  `json:"refuel_time"`
		Odometer    float64 `json:"odometer"`
		FuelType    string  `json:"fuel_type"`
		Liters      float64 `json:"liters"`
		TotalAmount float64 `json:"total_amount"`
		IsFull      bool    `json:"is_full"`
		StationName string  `json:"station_name"`
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := DecodeJSON(struct{ io.Reader }{strings.NewReader(body)}, &dst); err != nil {
			b.Fatal(err)
		}
	}
}
