package fuel

import (
	"math"
	"math/big"
	"testing"

	"github.com/shopspring/decimal"
)

func TestRefuelNormalizeAndValidate(t *testing.T) {
	r := Refuel{VehicleID: 1, RefuelTime: MinTime, FuelType: "95", Energy: Gasoline,
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

func TestRoundQuantity(t *testing.T) {
	tests := []struct{ in, want string }{
		{"41.25", "41.25"},
		{"41.250", "41.25"},
		{"1E+3", "1000"},
		{"0", "0"},
		{"41.2345", "41.235"},
		{"41.2344", "41.234"},
		{"-1.0005", "-1.001"},
		{"-1.0004", "-1"},
		{"0.0004", "0"},
		{"99999.9995", "100000"},
	}
	for _, tt := range tests {
		in := decimal.RequireFromString(tt.in)
		got := RoundQuantity(in)
		if got.String() != tt.want || got.Exponent() < -QuantityScale {
			t.Errorf("RoundQuantity(%s) = %s (exponent %d), want %s with at most %d places", tt.in, got, got.Exponent(), tt.want, QuantityScale)
		}
		if !got.Equal(in.Round(QuantityScale)) {
			t.Errorf("RoundQuantity(%s) = %s, Round gives %s", tt.in, got, in.Round(QuantityScale))
		}
	}
}
