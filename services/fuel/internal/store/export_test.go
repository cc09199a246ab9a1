package store

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// TestExportReadsEveryPage: an export of more records than a few pages
// holds gives each record once, in (time, id) order, also where records
// share a time at a page's edge.
func TestExportReadsEveryPage(t *testing.T) {
	const n = 2*exportPage + 203
	forEachDialect(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		v := fuel.Vehicle{Name: "pages", FuelType: "diesel"}
		if err := s.CreateVehicle(ctx, &v); err != nil {
			t.Fatal(err)
		}
		SeedRefuels(t, s, v.ID, n)
		start := time.Date(2020, 1, 1, 8, 0, 0, 0, time.UTC)
		es := make([]fuel.Expense, n)
		for i := range es {
			// Three expenses a day: ties on the time, some across a page's end.
			es[i] = fuel.Expense{VehicleID: v.ID, Time: start.Add(time.Duration(i/3) * 24 * time.Hour), Category: "parking",
				Title: fmt.Sprintf("parking %d", i), Amount: decimal.NewFromInt(int64(i % 7))}
			es[i].Normalize()
		}
		if res, err := s.ImportExpenses(ctx, v.ID, es, false); err != nil || res.Imported != n {
			t.Fatalf("import: %+v, %v", res, err)
		}

		type key struct {
			at time.Time
			id uint64
		}
		check := func(what string, keys []key) {
			t.Helper()
			if len(keys) != n {
				t.Fatalf("%s: %d records, want %d", what, len(keys), n)
			}
			seen := map[uint64]bool{}
			for i, k := range keys {
				if seen[k.id] {
					t.Fatalf("%s: record %d twice", what, k.id)
				}
				seen[k.id] = true
				if i > 0 && (k.at.Before(keys[i-1].at) || k.at.Equal(keys[i-1].at) && k.id < keys[i-1].id) {
					t.Fatalf("%s: record %d (%v) after %d (%v)", what, k.id, k.at, keys[i-1].id, keys[i-1].at)
				}
			}
		}
		var refuels, expenses []key
		if err := s.ExportRefuels(ctx, v.ID, func(r fuel.Refuel) error { refuels = append(refuels, key{r.RefuelTime, r.ID}); return nil }); err != nil {
			t.Fatal(err)
		}
		check("refuels", refuels)
		if err := s.ExportExpenses(ctx, v.ID, func(e fuel.Expense) error { expenses = append(expenses, key{e.Time, e.ID}); return nil }); err != nil {
			t.Fatal(err)
		}
		check("expenses", expenses)
	})
}
