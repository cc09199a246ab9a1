package store

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// SeedRefuels gives vehicle id n refuels, one a day, every third partial,
// inserted in batches.
func SeedRefuels(tb testing.TB, s *Store, vehicleID uint64, n int) {
	tb.Helper()
	rows := make([]refuelRow, 0, n)
	start := time.Date(2000, 1, 1, 8, 0, 0, 0, time.UTC)
	for i := 0; i < n; i++ {
		r := fuel.Refuel{
			VehicleID:   vehicleID,
			RefuelTime:  start.Add(time.Duration(i) * 24 * time.Hour),
			Odometer:    decimal.NewFromInt(int64(1000 + 550*i)),
			FuelType:    "95",
			Liters:      decimal.NewFromInt(int64(30 + i%15)).Add(decimal.New(int64(i%1000), -3)),
			TotalAmount: decimal.NewFromInt(int64(50 + i%20)).Add(decimal.New(int64(i%100), -2)),
			IsFull:      i%3 != 1,
			CreatedAt:   start,
			UpdatedAt:   start,
		}
		r.Normalize()
		rows = append(rows, toRefuelRow(r))
	}
	if err := s.db.CreateInBatches(rows, 500).Error; err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkStatistics10k measures GET statistics' store work for a
// vehicle with 10 000 refuels and reports the median as p50-ms.
func BenchmarkStatistics10k(b *testing.B) {
	for _, d := range []Dialect{Postgres, SQLite} {
		b.Run(string(d), func(b *testing.B) {
			s := MustOpen(b, d)
			ctx := context.Background()
			v := fuel.Vehicle{Name: "bench", FuelType: "diesel"}
			if err := s.CreateVehicle(ctx, &v); err != nil {
				b.Fatal(err)
			}
			SeedRefuels(b, s, v.ID, 10000)
			if d == Postgres {
				if err := s.db.Exec("ANALYZE refuels").Error; err != nil {
					b.Fatal(err)
				}
			}
			durations := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				st, err := s.Statistics(ctx, v.ID)
				durations = append(durations, time.Since(t0))
				if err != nil || st.TotalRecords != 10000 {
					b.Fatalf("statistics: %v (%d records)", err, st.TotalRecords)
				}
			}
			b.StopTimer()
			sort.Slice(durations, func(i, j int) bool { return durations[i] < durations[j] })
			b.ReportMetric(float64(durations[len(durations)/2].Microseconds())/1000, "p50-ms")
		})
	}
}
