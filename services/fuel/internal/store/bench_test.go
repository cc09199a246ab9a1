package store

import (
	"context"
	"testing"
	"time"

	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// The store's share of the load run's requests (bench/fuelload): one vehicle,
// the list of 100 refuels, one POST. The load run measures them through
// HTTP; these isolate the database path.

func BenchmarkVehicle(b *testing.B) {
	for _, d := range []Dialect{Postgres, SQLite} {
		b.Run(string(d), func(b *testing.B) {
			s, id := benchVehicle(b, d, 100)
			ctx := context.Background()
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := s.Vehicle(ctx, id); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

func BenchmarkListRefuels100(b *testing.B) {
	for _, d := range []Dialect{Postgres, SQLite} {
		b.Run(string(d), func(b *testing.B) {
			s, id := benchVehicle(b, d, 100)
			ctx := context.Background()
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if rs, err := s.ListRefuels(ctx, fuel.RefuelFilter{VehicleID: id}); err != nil || len(rs) != 100 {
						b.Errorf("list: %v (%d)", err, len(rs))
						return
					}
				}
			})
		})
	}
}

func BenchmarkCreateRefuel(b *testing.B) {
	for _, d := range []Dialect{Postgres, SQLite} {
		b.Run(string(d), func(b *testing.B) {
			s, id := benchVehicle(b, d, 0)
			ctx := context.Background()
			start := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				r := fuel.Refuel{VehicleID: id, RefuelTime: start.Add(time.Duration(i) * time.Minute), Odometer: dec("1000.5"),
					FuelType: "95", Liters: dec("41.25"), TotalAmount: dec("70.13"), IsFull: true}
				if err := s.CreateRefuel(ctx, &r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
