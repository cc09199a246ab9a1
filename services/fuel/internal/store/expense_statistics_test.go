package store

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// addExpense stores an expense of vehicle v at t.
func addExpense(t *testing.T, s *Store, ctx context.Context, v uint64, at time.Time, category, amount string) fuel.Expense {
	t.Helper()
	e := fuel.Expense{VehicleID: v, Time: at, Category: category, Title: category, Amount: dec(amount)}
	if err := s.CreateExpense(ctx, &e); err != nil {
		t.Fatalf("create expense %s %s: %v", category, amount, err)
	}
	return e
}

// costFixture: ann (EUR) owns A, with two refuels 730 km apart and three
// expenses, and C, with one expense and no refuel; bob (GBP) owns B, with
// two refuels and an expense, and lets ann view it; carol's vehicle ann
// does not see.
type costFixture struct {
	ann, bob context.Context
	a, b, c  fuel.Vehicle
}

func newCostFixture(t *testing.T, s *Store) costFixture {
	t.Helper()
	var f costFixture
	ann, annUser := as(t, s, "ann")
	f.ann = ann
	f.bob, _ = as(t, s, "bob")
	carol, _ := as(t, s, "carol")
	setCurrency(t, s, f.ann, "EUR")
	setCurrency(t, s, f.bob, "GBP")
	f.a = fuel.Vehicle{Name: "A", FuelType: "diesel"}
	if err := s.CreateVehicle(f.ann, &f.a); err != nil {
		t.Fatal(err)
	}
	f.b = fuel.Vehicle{Name: "B", FuelType: "diesel"}
	if err := s.CreateVehicle(f.bob, &f.b); err != nil {
		t.Fatal(err)
	}
	f.c = fuel.Vehicle{Name: "C", FuelType: "gasoline"}
	if err := s.CreateVehicle(f.ann, &f.c); err != nil {
		t.Fatal(err)
	}
	hidden := fuel.Vehicle{Name: "carol's", FuelType: "diesel"}
	if err := s.CreateVehicle(carol, &hidden); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetMember(f.bob, f.b.ID, annUser.ID, fuel.RoleViewer); err != nil {
		t.Fatal(err)
	}
	day := func(m time.Month, d, h, mi int) time.Time { return time.Date(2026, m, d, h, mi, 0, 0, time.UTC) }
	addRefuel(t, s, f.ann, f.a.ID, 0, "1000", "40", "60", "", "")    // 2026-03-01 08:00
	addRefuel(t, s, f.ann, f.a.ID, 48, "1730", "30", "45.5", "", "") // 2026-03-03 08:00
	addExpense(t, s, f.ann, f.a.ID, day(2, 15, 10, 0), "tax", "120")
	addExpense(t, s, f.ann, f.a.ID, day(3, 5, 9, 0), "service", "10.1")
	// 23:30 UTC on 31 March is 01:30 on 1 April in Berlin (CEST).
	addExpense(t, s, f.ann, f.a.ID, day(3, 31, 23, 30), "service", "89.9")
	addExpense(t, s, f.ann, f.c.ID, day(3, 10, 12, 0), "wash", "15")
	addRefuel(t, s, f.bob, f.b.ID, 24, "100", "20", "30", "", "")  // 2026-03-02
	addRefuel(t, s, f.bob, f.b.ID, 456, "400", "25", "40", "", "") // 2026-03-20
	addExpense(t, s, f.bob, f.b.ID, day(3, 5, 18, 0), "parking", "30")
	addExpense(t, s, carol, hidden.ID, day(3, 5, 18, 0), "fine", "1000")
	return f
}

func categories(cs []fuel.CategoryTotal) string {
	out := ""
	for _, c := range cs {
		out += c.Category + ":" + c.Amount.String() + "/" + itoa(c.Records) + " "
	}
	return out
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestStatisticsCountExpenses(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		f := newCostFixture(t, s)
		st, err := s.Statistics(f.ann, f.a.ID)
		if err != nil {
			t.Fatal(err)
		}
		// Fuel 60 + 45.5 = 105.5; expenses 120 + 10.1 + 89.9 = 220;
		// total 325.5 over 1730 - 1000 = 730 km: 0.445890... -> 0.4459.
		if st.TotalAmount.String() != "105.5" || st.ExpensesAmount.String() != "220" || st.TotalCost.String() != "325.5" ||
			st.TotalDistance.String() != "730" || st.TotalCostPerKm.String() != "0.4459" {
			t.Errorf("fuel %s, expenses %s, total %s, distance %s, per km %s; want 105.5, 220, 325.5, 730, 0.4459",
				st.TotalAmount, st.ExpensesAmount, st.TotalCost, st.TotalDistance, st.TotalCostPerKm)
		}
		// The largest category first.
		if got := categories(st.ExpensesByCategory); got != "tax:120/1 service:100/2 " {
			t.Errorf("by category %q", got)
		}
		// A vehicle with expenses only: no distance, so no cost per km.
		st, err = s.Statistics(f.ann, f.c.ID)
		if err != nil || st.TotalCost.String() != "15" || !st.TotalCostPerKm.IsZero() || categories(st.ExpensesByCategory) != "wash:15/1 " {
			t.Errorf("C: total %s, per km %s, %q, %v", st.TotalCost, st.TotalCostPerKm, categories(st.ExpensesByCategory), err)
		}
		// A vehicle with neither: zeros and an empty list.
		empty := fuel.Vehicle{Name: "new", FuelType: "diesel"}
		if err := s.CreateVehicle(f.ann, &empty); err != nil {
			t.Fatal(err)
		}
		st, err = s.Statistics(f.ann, empty.ID)
		if err != nil || st.ExpensesByCategory == nil || len(st.ExpensesByCategory) != 0 || !st.TotalCost.IsZero() {
			t.Errorf("empty vehicle: %+v %v", st, err)
		}
	})
}

func TestMonthlySeriesCountsExpensesInTheOwnersZone(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		f := newCostFixture(t, s)
		berlin, err := time.LoadLocation("Europe/Berlin")
		if err != nil {
			t.Fatal(err)
		}
		type month struct{ month, records, liters, amount, expenses string }
		series := func(q fuel.MonthlyQuery) []month {
			t.Helper()
			ms, err := s.MonthlyStatistics(f.ann, f.a.ID, q)
			if err != nil {
				t.Fatal(err)
			}
			if ms.Energy != fuel.Diesel {
				t.Errorf("energy %q, want diesel", ms.Energy)
			}
			var out []month
			for _, m := range ms.Months {
				out = append(out, month{m.Month, itoa(m.Records), m.Liters.String(), m.Amount.String(), m.ExpensesAmount.String()})
			}
			return out
		}
		check := func(what string, got, want []month) {
			t.Helper()
			if len(got) != len(want) {
				t.Fatalf("%s: %v, want %v", what, got, want)
			}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("%s month %d: %v, want %v", what, i, got[i], want[i])
				}
			}
		}
		check("Berlin", series(fuel.MonthlyQuery{Location: berlin}), []month{
			{"2026-02", "0", "0", "0", "120"},
			{"2026-03", "2", "70", "105.5", "10.1"},
			{"2026-04", "0", "0", "0", "89.9"},
		})
		check("UTC", series(fuel.MonthlyQuery{}), []month{
			{"2026-02", "0", "0", "0", "120"},
			{"2026-03", "2", "70", "105.5", "100"},
		})
		start := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
		check("from March", series(fuel.MonthlyQuery{Start: &start, Location: berlin}), []month{
			{"2026-03", "2", "70", "105.5", "10.1"},
			{"2026-04", "0", "0", "0", "89.9"},
		})
		// Expenses alone still make a series, labelled with the vehicle's energy.
		ms, err := s.MonthlyStatistics(f.ann, f.c.ID, fuel.MonthlyQuery{})
		if err != nil || ms.Energy != fuel.Gasoline || len(ms.Months) != 1 || ms.Months[0].ExpensesAmount.String() != "15" {
			t.Errorf("C's series: %+v %v", ms, err)
		}
	})
}

func TestCostStatisticsOfEveryReadableVehicle(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		f := newCostFixture(t, s)
		start, end := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 31, 23, 59, 59, 0, time.UTC)
		cs, err := s.CostStatistics(f.ann, &start, &end)
		if err != nil {
			t.Fatal(err)
		}
		type row struct{ name, role, currency, fuel, expenses, cats, total, distance, perKm string }
		want := []row{
			// 105.5 + 100 = 205.5 over 730 km: 0.281506... -> 0.2815.
			{"A", "owner", "EUR", "105.5", "100", "service:100/2 ", "205.5", "730", "0.2815"},
			// 30 + 40 + 30 = 100 over 300 km.
			{"B", "viewer", "GBP", "70", "30", "parking:30/1 ", "100", "300", "0.3333"},
			{"C", "owner", "EUR", "0", "15", "wash:15/1 ", "15", "0", "0"},
		}
		if len(cs.Vehicles) != len(want) {
			t.Fatalf("%d vehicles, want %d: %+v", len(cs.Vehicles), len(want), cs.Vehicles)
		}
		for i, w := range want {
			v := cs.Vehicles[i]
			got := row{v.Name, string(v.Role), v.Currency, v.FuelAmount.String(), v.ExpensesAmount.String(), categories(v.ExpensesByCategory),
				v.TotalCost.String(), v.Distance.String(), v.TotalCostPerKm.String()}
			if got != w {
				t.Errorf("vehicle %d: %+v, want %+v", i, got, w)
			}
		}
		type total struct{ currency, vehicles, fuel, expenses, cats, total, distance, perKm string }
		wantTotals := []total{
			// 205.5 + 15 = 220.5 over 730 km: 0.302054... -> 0.3021.
			{"EUR", "2", "105.5", "115", "service:100/2 wash:15/1 ", "220.5", "730", "0.3021"},
			{"GBP", "1", "70", "30", "parking:30/1 ", "100", "300", "0.3333"},
		}
		if len(cs.Totals) != len(wantTotals) {
			t.Fatalf("totals %+v", cs.Totals)
		}
		for i, w := range wantTotals {
			tt := cs.Totals[i]
			got := total{tt.Currency, itoa(int64(tt.Vehicles)), tt.FuelAmount.String(), tt.ExpensesAmount.String(), categories(tt.ExpensesByCategory),
				tt.TotalCost.String(), tt.Distance.String(), tt.TotalCostPerKm.String()}
			if got != w {
				t.Errorf("totals %d: %+v, want %+v", i, got, w)
			}
		}
		// Unbounded, bob sees his own vehicle only.
		cs, err = s.CostStatistics(f.bob, nil, nil)
		if err != nil || len(cs.Vehicles) != 1 || cs.Vehicles[0].Name != "B" || cs.Totals[0].TotalCost.String() != "100" {
			t.Errorf("bob's: %+v %v", cs, err)
		}
	})
}
