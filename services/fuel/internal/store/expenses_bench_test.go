package store

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// SeedExpenses gives vehicle id n expenses, one a day from 2000-01-01,
// cycling through the categories, every fourth a service with two items,
// inserted in batches.
func SeedExpenses(tb testing.TB, s *Store, vehicleID uint64, n int) {
	tb.Helper()
	rows := make([]expenseRow, 0, n)
	start := time.Date(2000, 1, 1, 12, 0, 0, 0, time.UTC)
	for i := 0; i < n; i++ {
		e := fuel.Expense{
			VehicleID: vehicleID, Time: start.Add(time.Duration(i) * 24 * time.Hour),
			Category: fuel.ExpenseCategories[i%len(fuel.ExpenseCategories)], Title: fmt.Sprintf("expense %d", i),
			Amount: decimal.New(int64(1000+i%50000), -2), Vendor: "garage", Tags: []string{"seeded"},
			CreatedAt: start, UpdatedAt: start,
		}
		if i%4 == 0 {
			e.Odometer = decimal.NewNullDecimal(decimal.NewFromInt(int64(1000 + 40*i)))
			e.Items = []fuel.ExpenseItem{
				{Name: "Oil 5W-30", Quantity: dec("4.5"), UnitPrice: dec("12.9")},
				{Name: "Oil filter", PartNumber: "OC 90", Quantity: dec("1"), UnitPrice: dec("11.85")},
			}
		}
		e.Normalize()
		row, err := toExpenseRow(e)
		if err != nil {
			tb.Fatal(err)
		}
		rows = append(rows, row)
	}
	if err := s.write.CreateInBatches(rows, 500).Error; err != nil {
		tb.Fatal(err)
	}
	if s.dialect == Postgres {
		if err := s.write.Exec("ANALYZE expenses").Error; err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkListExpenses10k lists every expense of a vehicle with 10 000
// (GET /api/expenses without limit), and the first page of 100.
func BenchmarkListExpenses10k(b *testing.B) {
	for _, d := range []Dialect{Postgres, SQLite} {
		s, id := benchVehicle(b, d, 0)
		SeedExpenses(b, s, id, 10_000)
		ctx := context.Background()
		for _, limit := range []int{0, 100} {
			want := 10_000
			if limit > 0 {
				want = limit
			}
			b.Run(fmt.Sprintf("%s/limit=%d", d, limit), func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					es, err := s.ListExpenses(ctx, fuel.ExpenseFilter{VehicleID: id, Limit: limit})
					if err != nil || len(es) != want {
						b.Fatalf("list: %v (%d)", err, len(es))
					}
				}
			})
		}
	}
}

// BenchmarkStatisticsWithExpenses10k is Statistics10k's vehicle (10 000
// refuels) with 10 000 expenses more, and the household's statistics and
// the monthly series of the same data.
func BenchmarkStatisticsWithExpenses10k(b *testing.B) {
	for _, d := range []Dialect{Postgres, SQLite} {
		s, id := benchVehicle(b, d, 10_000)
		SeedExpenses(b, s, id, 10_000)
		ctx := context.Background()
		b.Run(string(d)+"/vehicle", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				st, err := s.Statistics(ctx, id)
				if err != nil || st.TotalRecords != 10_000 || !st.ExpensesAmount.IsPositive() {
					b.Fatalf("statistics: %v (%d)", err, st.TotalRecords)
				}
			}
		})
		b.Run(string(d)+"/monthly", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := s.MonthlyStatistics(ctx, id, fuel.MonthlyQuery{Location: time.UTC}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(string(d)+"/household", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				cs, err := s.CostStatistics(ctx, nil, nil)
				if err != nil || len(cs.Vehicles) != 1 {
					b.Fatalf("household: %v", err)
				}
			}
		})
	}
}
