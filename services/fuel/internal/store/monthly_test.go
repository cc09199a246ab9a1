package store

import (
	"context"
	"testing"

	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// BenchmarkMonthly10k: the monthly series of 10 000 refuels (one a day:
// about 330 months), one ordered scan.
func BenchmarkMonthly10k(b *testing.B) {
	for _, d := range []Dialect{Postgres, SQLite} {
		b.Run(string(d), func(b *testing.B) {
			s, id := benchVehicle(b, d, 10000)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				ms, err := s.MonthlyStatistics(context.Background(), id, fuel.MonthlyQuery{})
				if err != nil || len(ms.Months) < 300 {
					b.Fatalf("monthly: %v (%d months)", err, len(ms.Months))
				}
			}
		})
	}
}
