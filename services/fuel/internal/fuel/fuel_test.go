package fuel

import (
	"math"
	"math/big"
	"testing"

	"github.com/shopspring/decimal"
)

func TestParseFixed(t *testing.T) {
	tests := []struct {
		in    string
		scale int
		want  int64
		ok    bool
	}{
		{"40", 3, 40000, true},
		{"40.5", 3, 40500, true},
		{"40.000", 3, 40000, true},
		{"1.5000", 4, 15000, true},
		{"0.001", 3, 1, true},
		{"99999999999.999", 3, 99999999999999, true},
		{"-1.25", 3, -1250, true},
		{"1.2340", 3, 1234, true}, // trailing zero past the scale
		{"1.2345", 3, 0, false},
		{"", 3, 0, false},
		{"1e3", 3, 0, false},
		{"1.2.3", 3, 0, false},
		{"99999999999999999999", 3, 0, false},
	}
	for _, tt := range tests {
		got, err := ParseFixed([]byte(tt.in), tt.scale)
		if (err == nil) != tt.ok || (tt.ok && got != tt.want) {
			t.Errorf("ParseFixed(%q, %d) = %d, %v; want %d, ok %v", tt.in, tt.scale, got, err, tt.want, tt.ok)
		}
	}
}

func TestRefuelNormalizeAndValidate(t *testing.T) {
	r := Refuel{VehicleID: 1, RefuelTime: MinTime, FuelType: "95",
		Odometer: decimal.RequireFromString("10.0005"), Liters: decimal.RequireFromString("3"), TotalAmount: decimal.RequireFromString("10")}
	r.Normalize()
	if r.Odometer.String() != "10.001" || r.PricePerLiter.String() != "3.3333" {
		t.Errorf("normalized odometer %s price %s, want 10.001 and 3.3333", r.Odometer, r.PricePerLiter)
	}
	if err := r.Validate(); err != nil {
		t.Errorf("valid refuel: %v", err)
	}
	r.Liters = decimal.RequireFromString("0.0004")
	r.Normalize()
	if err := r.Validate(); err == nil || err.Error() != "INVALID_ARGUMENT: liters: must be greater than 0 (at 3 decimal places)" {
		t.Errorf("liters rounding to 0: %v", err)
	}
}

func TestSumSpillsPastInt64(t *testing.T) {
	var s sum
	for i := 0; i < 3; i++ {
		s.add(math.MaxInt64)
	}
	s.add(5)
	want := new(big.Int).Mul(big.NewInt(math.MaxInt64), big.NewInt(3))
	want.Add(want, big.NewInt(5))
	if got := s.big(); got.Cmp(want) != 0 {
		t.Errorf("sum = %s, want %s", got, want)
	}
	s.reset()
	if got := s.big(); got.Sign() != 0 {
		t.Errorf("after reset: %s", got)
	}
}
