package fuel_test

import (
	"testing"

	"github.com/shopspring/decimal"

	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// TestConvertRoundTrip: an amount converted at a rate of at least 1 and
// back with that rate as inverse_rate is the amount again, to the last of
// its 3 places; below 1 the way there merges amounts, and the way back
// cannot tell them apart.
func TestConvertRoundTrip(t *testing.T) {
	d := decimal.RequireFromString
	roundTrip := func(a, rate string) string {
		there := fuel.CurrencyChange{Mode: fuel.CurrencyConvert, Rate: d(rate)}
		back := fuel.CurrencyChange{Mode: fuel.CurrencyConvert, Rate: d(rate), Inverse: true}
		return back.Convert(there.Convert(d(a))).String()
	}
	// Every amount from 0.000 to 20.000 in thousandths, at rates >= 1.
	for _, rate := range []string{"1", "1.0001", "1.1", "1.999", "7.8123", "160.25", "999999999"} {
		for i := int64(0); i <= 20_000; i++ {
			a := decimal.New(i, -3).String()
			if got := roundTrip(a, rate); got != a {
				t.Fatalf("rate %s: %s came back as %s", rate, a, got)
			}
		}
	}
	// Half-up at the third place: 281.74 × 1.1 = 309.914 exactly; 0.005 × 1.1 = 0.0055 -> 0.006.
	for a, want := range map[string]string{"281.74": "309.914", "0.005": "0.006", "1.235": "1.359"} {
		if got := (fuel.CurrencyChange{Mode: fuel.CurrencyConvert, Rate: d("1.1")}).Convert(d(a)).String(); got != want {
			t.Errorf("%s × 1.1 = %s, want %s", a, got, want)
		}
	}
	// Below 1: 0.003 and 0.004 both become 0.003 at 0.85 (0.00255 and
	// 0.0034), and 0.003 / 0.85 = 0.00353 comes back as 0.004.
	if got := roundTrip("0.003", "0.85"); got != "0.004" {
		t.Errorf("0.003 at 0.85 and back = %s, want 0.004 (the documented loss)", got)
	}
	// A relabel converts nothing.
	if got := (fuel.CurrencyChange{Mode: fuel.CurrencyRelabel, Rate: d("2")}).Convert(d("1.5")); got.String() != "1.5" {
		t.Errorf("relabel changed 1.5 to %s", got)
	}
}
