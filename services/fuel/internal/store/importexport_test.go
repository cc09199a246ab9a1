package store

import (
	"context"
	"testing"

	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// BenchmarkExport10k: reading 10 000 refuels in export pages.
func BenchmarkExport10k(b *testing.B) {
	for _, d := range []Dialect{Postgres, SQLite} {
		b.Run(string(d), func(b *testing.B) {
			s, id := benchVehicle(b, d, 10000)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				n := 0
				if err := s.ExportRefuels(context.Background(), id, func(fuel.Refuel) error { n++; return nil }); err != nil || n != 10000 {
					b.Fatalf("export: %v (%d rows)", err, n)
				}
			}
		})
	}
}

// BenchmarkImport10k: importing 10 000 new refuels into a vehicle that has
// 10 000 (so every row is compared with the stored ones), one transaction.
func BenchmarkImport10k(b *testing.B) {
	for _, d := range []Dialect{Postgres, SQLite} {
		b.Run(string(d), func(b *testing.B) {
			s, id := benchVehicle(b, d, 10000)
			var rs []fuel.Refuel
			if err := s.ExportRefuels(context.Background(), id, func(r fuel.Refuel) error {
				r.RefuelTime = r.RefuelTime.AddDate(40, 0, 0) // new records
				rs = append(rs, r)
				return nil
			}); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				v := fuel.Vehicle{Name: "copy", FuelType: "diesel"}
				if err := s.CreateVehicle(context.Background(), &v); err != nil {
					b.Fatal(err)
				}
				res, err := s.ImportRefuels(context.Background(), v.ID, rs, false)
				if err != nil || res.Imported != len(rs) {
					b.Fatalf("import: %v (%+v)", err, res)
				}
			}
		})
	}
}
