package store

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/services/fuel/internal/fuel"
)

func nullDec(s string) decimal.NullDecimal { return decimal.NullDecimal{Decimal: dec(s), Valid: true} }

// setCurrency stores ctx's user's currency preference.
func setCurrency(t *testing.T, s *Store, ctx context.Context, c string) {
	t.Helper()
	if _, err := s.UpdatePreferences(ctx, fuel.PreferencesUpdate{Currency: ptr(c)}); err != nil {
		t.Fatalf("set currency %s: %v", c, err)
	}
}

// addRefuel stores a full diesel record of vehicle v at base + hour.
func addRefuel(t *testing.T, s *Store, ctx context.Context, v uint64, hour int, odo, liters, total, currency, home string) fuel.Refuel {
	t.Helper()
	r := fuel.Refuel{VehicleID: v, RefuelTime: base.Add(time.Duration(hour) * time.Hour), Odometer: dec(odo), FuelType: "B7",
		Liters: dec(liters), TotalAmount: dec(total), IsFull: true, Currency: currency}
	if home != "" {
		r.HomeAmount = nullDec(home)
	}
	if err := s.CreateRefuel(ctx, &r); err != nil {
		t.Fatalf("create refuel %s %s: %v", total, currency, err)
	}
	return r
}

// amounts is what a record's money reads as: total, price, currency, home.
type amounts struct{ total, price, currency, home string }

func amountsOf(t *testing.T, s *Store, ctx context.Context, id uint64) amounts {
	t.Helper()
	r, err := s.Refuel(ctx, id)
	if err != nil {
		t.Fatalf("get refuel %d: %v", id, err)
	}
	a := amounts{total: r.TotalAmount.String(), price: r.PricePerLiter.String(), currency: r.Currency}
	if r.HomeAmount.Valid {
		a.home = r.HomeAmount.Decimal.String()
	}
	return a
}

// currencyFixture: ann (EUR) owns a vehicle with a home record, one paid
// in yen and one paid in dollars, and shares it with bob (GBP) to view;
// bob owns a vehicle of his own, which he lets ann edit.
type currencyFixture struct {
	ann, bob               context.Context
	annV, bobV             fuel.Vehicle
	home, yen, dollars, bb fuel.Refuel
}

func newCurrencyFixture(t *testing.T, s *Store) currencyFixture {
	t.Helper()
	var f currencyFixture
	ann, annUser := as(t, s, "ann")
	bob, bobUser := as(t, s, "bob")
	f.ann, f.bob = ann, bob
	setCurrency(t, s, ann, "EUR")
	setCurrency(t, s, bob, "GBP")
	f.annV = fuel.Vehicle{Name: "Golf", FuelType: "diesel"}
	if err := s.CreateVehicle(ann, &f.annV); err != nil {
		t.Fatal(err)
	}
	f.bobV = fuel.Vehicle{Name: "Mini", FuelType: "diesel"}
	if err := s.CreateVehicle(bob, &f.bobV); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetMember(ann, f.annV.ID, bobUser.ID, fuel.RoleViewer); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetMember(bob, f.bobV.ID, annUser.ID, fuel.RoleEditor); err != nil {
		t.Fatal(err)
	}
	f.home = addRefuel(t, s, ann, f.annV.ID, 0, "1000", "40", "281.74", "", "")
	f.yen = addRefuel(t, s, ann, f.annV.ID, 1, "1500", "30", "5000", "JPY", "30.5")
	f.dollars = addRefuel(t, s, ann, f.annV.ID, 2, "2000", "35", "55", "usd", "50")
	// Ann, as editor, adds a record to bob's vehicle: in bob's pounds.
	f.bb = addRefuel(t, s, ann, f.bobV.ID, 3, "700", "20", "31.5", "", "")
	return f
}

func TestChangeCurrencyConvertsTheCallersVehiclesOnly(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		f := newCurrencyFixture(t, s)
		if got := amountsOf(t, s, f.ann, f.dollars.ID); got != (amounts{"55", "1.5714", "USD", "50"}) {
			t.Fatalf("dollar record before = %+v", got)
		}
		res, err := s.ChangeCurrency(f.ann, fuel.CurrencyChange{From: "EUR", To: "USD", Mode: fuel.CurrencyConvert, Rate: dec("1.1")})
		if err != nil {
			t.Fatal(err)
		}
		if res.Vehicles != 1 || res.Refuels != 3 || res.Preferences.Currency != "USD" {
			t.Errorf("result = %d vehicles, %d refuels, currency %q; want 1, 3, USD", res.Vehicles, res.Refuels, res.Preferences.Currency)
		}
		for _, c := range []struct {
			name string
			id   uint64
			want amounts
		}{
			// 281.74 × 1.1 = 309.914; 309.914 / 40 = 7.74785 -> 7.7479.
			{"home", f.home.ID, amounts{"309.914", "7.7479", "", ""}},
			// Paid in yen: the yen stay, the home amount converts.
			{"yen", f.yen.ID, amounts{"5000", "166.6667", "JPY", "33.55"}},
			// Paid in dollars, now the home currency: what was paid is the home amount.
			{"dollars", f.dollars.ID, amounts{"55", "1.5714", "", ""}},
		} {
			if got := amountsOf(t, s, f.ann, c.id); got != c.want {
				t.Errorf("%s record = %+v, want %+v", c.name, got, c.want)
			}
		}
		// Bob's vehicle, though ann edits it, is bob's: in pounds, untouched.
		if got := amountsOf(t, s, f.bob, f.bb.ID); got != (amounts{"31.5", "1.575", "", ""}) {
			t.Errorf("bob's record = %+v, want unchanged", got)
		}
		if p, _ := s.Preferences(f.bob); p.Currency != "GBP" {
			t.Errorf("bob's currency = %q, want GBP", p.Currency)
		}
		// Every member reads a vehicle's amounts in its owner's currency.
		for _, c := range []struct {
			who  context.Context
			name string
			v    uint64
			want string
		}{{f.bob, "bob on ann's", f.annV.ID, "USD"}, {f.ann, "ann on ann's", f.annV.ID, "USD"}, {f.ann, "ann on bob's", f.bobV.ID, "GBP"}} {
			v, err := s.Vehicle(c.who, c.v)
			if err != nil || v.Currency != c.want {
				t.Errorf("%s: currency %q (%v), want %s", c.name, v.Currency, err, c.want)
			}
		}
		vs, _ := s.ListVehicles(f.bob)
		for _, v := range vs {
			want := map[uint64]string{f.annV.ID: "USD", f.bobV.ID: "GBP"}[v.ID]
			if v.Currency != want {
				t.Errorf("bob's list: vehicle %d currency %q, want %s", v.ID, v.Currency, want)
			}
		}
	})
}

func TestChangeCurrencyInverseRateRestoresTheAmounts(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		ctx, _ := as(t, s, "ann")
		setCurrency(t, s, ctx, "EUR")
		v := fuel.Vehicle{Name: "Golf", FuelType: "diesel"}
		if err := s.CreateVehicle(ctx, &v); err != nil {
			t.Fatal(err)
		}
		totals := []string{"281.74", "0.001", "0.005", "1.235", "99.999", "12345.678", "70.47", "0"}
		var ids []uint64
		before := map[uint64]amounts{}
		for i, a := range totals {
			r := addRefuel(t, s, ctx, v.ID, i, "1000", "41.3", a, "", "")
			ids = append(ids, r.ID)
			before[r.ID] = amountsOf(t, s, ctx, r.ID)
		}
		yen := addRefuel(t, s, ctx, v.ID, 20, "2000", "30", "5000", "JPY", "30.499")
		ids = append(ids, yen.ID)
		before[yen.ID] = amountsOf(t, s, ctx, yen.ID)

		for _, rate := range []string{"1.1", "7.8123", "1", "160.25"} {
			there := fuel.CurrencyChange{From: "EUR", To: "HKD", Mode: fuel.CurrencyConvert, Rate: dec(rate)}
			back := fuel.CurrencyChange{From: "HKD", To: "EUR", Mode: fuel.CurrencyConvert, Rate: dec(rate), Inverse: true}
			if _, err := s.ChangeCurrency(ctx, there); err != nil {
				t.Fatalf("rate %s there: %v", rate, err)
			}
			if got := amountsOf(t, s, ctx, ids[0]); rate == "1.1" && got.total != "309.914" {
				t.Errorf("rate 1.1: 281.74 became %s, want 309.914", got.total)
			}
			if _, err := s.ChangeCurrency(ctx, back); err != nil {
				t.Fatalf("rate %s back: %v", rate, err)
			}
			for _, id := range ids {
				if got := amountsOf(t, s, ctx, id); got != before[id] {
					t.Errorf("rate %s: record %d came back as %+v, want %+v", rate, id, got, before[id])
				}
			}
		}
	})
}

func TestChangeCurrencyIsAllOrNothing(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		f := newCurrencyFixture(t, s)
		ids := []uint64{f.home.ID, f.yen.ID, f.dollars.ID}
		before := map[uint64]amounts{}
		for _, id := range ids {
			before[id] = amountsOf(t, s, f.ann, id)
		}
		injected := errors.New("injected failure")
		s.afterConvert = func(n int) error {
			if n == 2 {
				return injected
			}
			return nil
		}
		_, err := s.ChangeCurrency(f.ann, fuel.CurrencyChange{From: "EUR", To: "USD", Mode: fuel.CurrencyConvert, Rate: dec("1.1")})
		if !errors.Is(err, injected) {
			t.Fatalf("err = %v, want the injected failure", err)
		}
		s.afterConvert = nil
		for _, id := range ids {
			if got := amountsOf(t, s, f.ann, id); got != before[id] {
				t.Errorf("record %d = %+v after the failed change, want %+v", id, got, before[id])
			}
		}
		if p, _ := s.Preferences(f.ann); p.Currency != "EUR" || p.LastCurrencyChange != nil {
			t.Errorf("currency = %q, last change %+v after the failed change, want EUR and none", p.Currency, p.LastCurrencyChange)
		}

		// An amount the storage cannot hold fails the change the same way, naming the rate.
		_, err = s.ChangeCurrency(f.ann, fuel.CurrencyChange{From: "EUR", To: "IDR", Mode: fuel.CurrencyConvert, Rate: dec("999999999")})
		wantInvalid(t, "overflowing rate", err, "rate")
		for _, id := range ids {
			if got := amountsOf(t, s, f.ann, id); got != before[id] {
				t.Errorf("record %d = %+v after the refused change, want %+v", id, got, before[id])
			}
		}
	})
}

func TestChangeCurrencyRelabelAndConflict(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		f := newCurrencyFixture(t, s)
		homeBefore, _ := s.Refuel(f.ann, f.home.ID)
		// A change from a currency that is not the stored one: nothing changes.
		_, err := s.ChangeCurrency(f.ann, fuel.CurrencyChange{From: "GBP", To: "USD", Mode: fuel.CurrencyRelabel})
		if e := apperr.From(err); e.Code != apperr.Conflict {
			t.Fatalf("wrong from: err = %v, want CONFLICT", err)
		}
		res, err := s.ChangeCurrency(f.ann, fuel.CurrencyChange{From: "EUR", To: "USD", Mode: fuel.CurrencyRelabel})
		if err != nil {
			t.Fatal(err)
		}
		if res.Refuels != 1 || res.Preferences.Currency != "USD" {
			t.Errorf("relabel: %d refuels changed, currency %q; want 1 (the dollar record), USD", res.Refuels, res.Preferences.Currency)
		}
		for _, c := range []struct {
			name string
			id   uint64
			want amounts
		}{
			{"home", f.home.ID, amounts{"281.74", "7.0435", "", ""}},
			{"yen", f.yen.ID, amounts{"5000", "166.6667", "JPY", "30.5"}},
			{"dollars", f.dollars.ID, amounts{"55", "1.5714", "", ""}},
		} {
			if got := amountsOf(t, s, f.ann, c.id); got != c.want {
				t.Errorf("%s record = %+v, want %+v", c.name, got, c.want)
			}
		}
		if homeAfter, _ := s.Refuel(f.ann, f.home.ID); !homeAfter.UpdatedAt.Equal(homeBefore.UpdatedAt) {
			t.Errorf("relabel touched the home record's updated_at: %v -> %v", homeBefore.UpdatedAt, homeAfter.UpdatedAt)
		}
		// The same change again (a double submit) finds USD stored: refused, nothing converted twice.
		_, err = s.ChangeCurrency(f.ann, fuel.CurrencyChange{From: "EUR", To: "USD", Mode: fuel.CurrencyConvert, Rate: dec("1.1")})
		if e := apperr.From(err); e.Code != apperr.Conflict {
			t.Fatalf("second submit: err = %v, want CONFLICT", err)
		}
		if got := amountsOf(t, s, f.ann, f.home.ID); got.total != "281.74" {
			t.Errorf("second submit converted: %s", got.total)
		}
	})
}

func TestRefuelCurrencyRules(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		ctx, _ := as(t, s, "ann")
		setCurrency(t, s, ctx, "EUR")
		v := fuel.Vehicle{Name: "Golf", FuelType: "diesel"}
		if err := s.CreateVehicle(ctx, &v); err != nil {
			t.Fatal(err)
		}
		mk := func(currency, home string) fuel.Refuel {
			r := fuel.Refuel{VehicleID: v.ID, RefuelTime: base, Odometer: dec("1000"), FuelType: "B7", Liters: dec("40"), TotalAmount: dec("60"), Currency: currency}
			if home != "" {
				r.HomeAmount = nullDec(home)
			}
			return r
		}
		for _, c := range []struct {
			name, currency, home, field string
		}{
			{"currency without home_amount", "CHF", "", "home_amount"},
			{"home_amount without currency", "", "55", "home_amount"},
			{"home currency with another home_amount", "EUR", "55", "home_amount"},
			{"unknown code", "ABC", "55", "currency"},
		} {
			r := mk(c.currency, c.home)
			wantInvalid(t, c.name, s.CreateRefuel(ctx, &r), c.field)
		}
		// Every bad field is named, the currency's with the others.
		r := mk("CHF", "")
		r.Liters = decimal.Zero
		err := s.CreateRefuel(ctx, &r)
		if e := apperr.From(err); e.Code != apperr.InvalidArgument || !strings.Contains(e.Message, "liters:") || !strings.Contains(e.Message, "home_amount:") {
			t.Errorf("liters and home_amount wrong: err = %v, want both named", err)
		}
		if n, _ := s.CountRows(ctx, "refuels"); n != 0 {
			t.Errorf("%d records stored by refused writes", n)
		}
		// The home currency, named: stored as the home currency.
		r = mk("eur", "60")
		if err := s.CreateRefuel(ctx, &r); err != nil || r.Currency != "" || r.HomeAmount.Valid {
			t.Errorf("EUR at home: %+v, %v; want a home record", r, err)
		}
		// Back to the home currency: currency null clears the home amount.
		r = mk("CHF", "58.2")
		if err := s.CreateRefuel(ctx, &r); err != nil {
			t.Fatal(err)
		}
		got, err := s.UpdateRefuel(ctx, r.ID, fuel.RefuelUpdate{Currency: ptr("")})
		if err != nil || got.Currency != "" || got.HomeAmount.Valid {
			t.Errorf("reset to home: %+v, %v", got, err)
		}
		got, err = s.UpdateRefuel(ctx, r.ID, fuel.RefuelUpdate{Currency: ptr("CHF")})
		wantInvalid(t, "currency set without home amount", err, "home_amount")
		got, err = s.UpdateRefuel(ctx, r.ID, fuel.RefuelUpdate{Currency: ptr("CHF"), HomeAmount: &decimal.NullDecimal{Decimal: dec("58.25"), Valid: true}})
		if err != nil || got.Currency != "CHF" || got.HomeAmount.Decimal.String() != "58.25" {
			t.Errorf("abroad again: %+v, %v", got, err)
		}
	})
}

func TestStatisticsCountTheHomeAmount(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		ctx, _ := as(t, s, "ann")
		setCurrency(t, s, ctx, "EUR")
		v := fuel.Vehicle{Name: "Golf", FuelType: "diesel"}
		if err := s.CreateVehicle(ctx, &v); err != nil {
			t.Fatal(err)
		}
		// Three full records 500 km apart; the middle one paid 5000 yen, 33 euros at home.
		addRefuel(t, s, ctx, v.ID, 0, "1000", "40", "60", "", "")
		addRefuel(t, s, ctx, v.ID, 1, "1500", "30", "5000", "JPY", "33")
		addRefuel(t, s, ctx, v.ID, 2, "2000", "35", "56", "", "")
		st, err := s.Statistics(ctx, v.ID)
		if err != nil {
			t.Fatal(err)
		}
		// total 60 + 33 + 56 = 149; prices 1.5, 1.1, 1.6: mean 1.4; samples
		// 33/500 = 0.066 and 56/500 = 0.112 per km: mean 0.089; weighted
		// (33 + 56) / 1000 = 0.089.
		for name, c := range map[string][2]decimal.Decimal{
			"total_amount":         {st.TotalAmount, dec("149")},
			"avg_price":            {st.AvgPrice, dec("1.4")},
			"cost_per_km":          {st.CostPerKm, dec("0.089")},
			"weighted_cost_per_km": {st.WeightedCostPerKm, dec("0.089")},
			"by_energy total":      {st.ByEnergy[0].TotalAmount, dec("149")},
			"avg_consumption":      {st.AvgConsumption, dec("6.5")},
		} {
			if !c[0].Equal(c[1]) {
				t.Errorf("%s = %s, want %s", name, c[0], c[1])
			}
		}
		m, err := s.MonthlyStatistics(ctx, v.ID, fuel.MonthlyQuery{})
		if err != nil || len(m.Months) != 1 {
			t.Fatalf("monthly: %+v, %v", m, err)
		}
		if got := m.Months[0]; !got.Amount.Equal(dec("149")) || !got.AvgPrice.Equal(dec("1.4")) {
			t.Errorf("month: amount %s avg_price %s, want 149 and 1.4", got.Amount, got.AvgPrice)
		}
	})
}

// TestChangeCurrencyTwiceAtOnce: the same change submitted twice at once
// (two tabs, a double click) converts once: one succeeds, the other finds
// the new currency stored and is refused.
func TestChangeCurrencyTwiceAtOnce(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		f := newCurrencyFixture(t, s)
		c := fuel.CurrencyChange{From: "EUR", To: "USD", Mode: fuel.CurrencyConvert, Rate: dec("1.1")}
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i := range errs {
			wg.Go(func() { _, errs[i] = s.ChangeCurrency(f.ann, c) })
		}
		wg.Wait()
		ok, conflict := 0, 0
		for _, err := range errs {
			switch {
			case err == nil:
				ok++
			case apperr.From(err).Code == apperr.Conflict:
				conflict++
			default:
				t.Errorf("unexpected error: %v", err)
			}
		}
		if ok != 1 || conflict != 1 {
			t.Errorf("%d succeeded, %d refused; want 1 and 1 (%v)", ok, conflict, errs)
		}
		if got := amountsOf(t, s, f.ann, f.home.ID); got.total != "309.914" {
			t.Errorf("281.74 became %s, want 309.914 (converted once)", got.total)
		}
	})
}
