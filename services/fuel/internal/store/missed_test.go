package store

import (
	"context"
	"testing"
	"time"

	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// TestStatisticsMissedPreviousGolden checks missed_previous against
// hand-worked statistics (proto-docs/contract.md, "Missed fill-ups").
func TestStatisticsMissedPreviousGolden(t *testing.T) {
	type mrec struct {
		at                  int // minutes after base
		odo, liters, amount string
		full, missed        bool
	}
	tests := []struct {
		name                                    string
		recs                                    []mrec
		samples                                 int64
		liters, amount, avgPrice                string
		consumption, costPerKm, weighted, total string
	}{
		{
			// R2: 35 L / 500 km = 7, 56/500 = 0.112. R3 missed earlier
			// fill-ups: its 1000 km hold unlogged fuel, no sample; it is
			// full, so it is the next reference. R4: 48 L / 600 km = 8,
			// 72/600 = 0.12. Means 7.5 and 0.116; weighted 83/1100*100 =
			// 7.54545 -> 7.5455. Prices 1.5, 1.6, 1.6, 1.5 -> 1.55.
			name: "missed full record restarts the chain",
			recs: []mrec{
				{0, "1000", "40", "60", true, false},
				{60, "1500", "35", "56", true, false},
				{120, "2500", "50", "80", true, true},
				{180, "3100", "48", "72", true, false},
			},
			samples: 2, liters: "173", amount: "268", avgPrice: "1.55",
			consumption: "7.5", costPerKm: "0.116", weighted: "7.5455", total: "2100",
		},
		{
			// R3 (partial) missed earlier fill-ups: R2's 10 L and R3's own
			// are dropped from sampling, and there is no reference until R4,
			// which becomes it without a sample. R5: 35 L / 500 km = 7,
			// 52.5/500 = 0.105. Without the flag R4 would have sampled
			// (10+20+30) L / 1000 km = 6. Prices 1.5, 1.6, 1.5, 1.5, 1.5 ->
			// 7.6/5 = 1.52.
			name: "missed partial record: next full one is the reference",
			recs: []mrec{
				{0, "1000", "40", "60", true, false},
				{60, "1300", "10", "16", false, false},
				{120, "1800", "20", "30", false, true},
				{180, "2000", "30", "45", true, false},
				{240, "2500", "35", "52.5", true, false},
			},
			samples: 1, liters: "135", amount: "203.5", avgPrice: "1.52",
			consumption: "7", costPerKm: "0.105", weighted: "7", total: "1500",
		},
		{
			// A missed flag on the very first record changes nothing: R2
			// samples 35 L / 500 km = 7, 56/500 = 0.112.
			name: "missed on the first record",
			recs: []mrec{
				{0, "1000", "40", "60", true, true},
				{60, "1500", "35", "56", true, false},
			},
			samples: 1, liters: "75", amount: "116", avgPrice: "1.55",
			consumption: "7", costPerKm: "0.112", weighted: "7", total: "500",
		},
		{
			// Partials after a missed partial do not count either: R2 is
			// missed and partial, R3 partial, R4 full becomes the reference
			// (no sample), R5: 20 L / 400 km = 5, 30/400 = 0.075.
			// Prices 1.5, 1.5, 1.5, 1.5, 1.5.
			name: "partials after a missed partial",
			recs: []mrec{
				{0, "1000", "40", "60", true, false},
				{60, "1400", "10", "15", false, true},
				{120, "1600", "10", "15", false, false},
				{180, "1900", "20", "30", true, false},
				{240, "2300", "20", "30", true, false},
			},
			samples: 1, liters: "100", amount: "150", avgPrice: "1.5",
			consumption: "5", costPerKm: "0.075", weighted: "5", total: "1300",
		},
	}
	forEachDialect(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				v := fuel.Vehicle{Name: "missed", FuelType: "diesel"}
				if err := s.CreateVehicle(ctx, &v); err != nil {
					t.Fatal(err)
				}
				for i, r := range tt.recs {
					ref := fuel.Refuel{
						VehicleID: v.ID, RefuelTime: base.Add(time.Duration(r.at) * time.Minute),
						Odometer: dec(r.odo), Liters: dec(r.liters), TotalAmount: dec(r.amount),
						IsFull: r.full, MissedPrevious: r.missed, FuelType: "B7",
					}
					if err := s.CreateRefuel(ctx, &ref); err != nil {
						t.Fatalf("refuel %d: %v", i, err)
					}
					if got, err := s.Refuel(ctx, ref.ID); err != nil || got.MissedPrevious != r.missed {
						t.Fatalf("refuel %d read back missed_previous %v (%v), want %v", i, got.MissedPrevious, err, r.missed)
					}
				}
				got, err := s.Statistics(ctx, v.ID)
				if err != nil {
					t.Fatal(err)
				}
				if got.Samples != tt.samples {
					t.Errorf("samples = %d, want %d", got.Samples, tt.samples)
				}
				for _, c := range []struct{ name, got, want string }{
					{"total_liters", got.TotalLiters.String(), tt.liters},
					{"total_amount", got.TotalAmount.String(), tt.amount},
					{"avg_price", got.AvgPrice.String(), tt.avgPrice},
					{"avg_consumption", got.AvgConsumption.String(), tt.consumption},
					{"cost_per_km", got.CostPerKm.String(), tt.costPerKm},
					{"weighted_consumption", got.WeightedConsumption.String(), tt.weighted},
					{"total_distance", got.TotalDistance.String(), tt.total},
				} {
					if c.got != c.want {
						t.Errorf("%s = %s, want %s", c.name, c.got, c.want)
					}
				}
			})
		}
	})
}
