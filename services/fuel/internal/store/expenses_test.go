package store

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// newExpense is a service of the vehicle, the given hours after base.
func newExpense(vehicleID uint64, hour int) fuel.Expense {
	return fuel.Expense{
		VehicleID: vehicleID, Time: base.Add(time.Duration(hour) * time.Hour), Category: "service", Title: "Oil change",
		Amount: dec("89.9"), Odometer: decimal.NewNullDecimal(dec("45210.5")), Vendor: "ATU", Notes: "5W-30",
		Items: []fuel.ExpenseItem{
			{Name: "Oil 5W-30", Quantity: dec("4.5"), UnitPrice: dec("12.9")},
			{Name: "Oil filter", PartNumber: "OC 90", Quantity: dec("1"), UnitPrice: dec("11.85")},
		},
		Tags: []string{"oil", "Filter"},
	}
}

// sameExpense fails unless got equals want field by field, decimals by
// value and string (scale kept as stored).
func sameExpense(t *testing.T, what string, got, want fuel.Expense) {
	t.Helper()
	if got.ID != want.ID || got.VehicleID != want.VehicleID || !got.Time.Equal(want.Time) || got.Category != want.Category ||
		got.Title != want.Title || got.Amount.String() != want.Amount.String() || got.Vendor != want.Vendor || got.Notes != want.Notes ||
		got.Odometer.Valid != want.Odometer.Valid || got.Odometer.Decimal.String() != want.Odometer.Decimal.String() ||
		!reflect.DeepEqual(got.Tags, want.Tags) || len(got.Items) != len(want.Items) ||
		!got.CreatedAt.Equal(want.CreatedAt) || !got.UpdatedAt.Equal(want.UpdatedAt) {
		t.Fatalf("%s:\n got %+v\nwant %+v", what, got, want)
	}
	for i := range got.Items {
		g, w := got.Items[i], want.Items[i]
		if g.Name != w.Name || g.PartNumber != w.PartNumber || g.Quantity.String() != w.Quantity.String() || g.UnitPrice.String() != w.UnitPrice.String() {
			t.Fatalf("%s: item %d = %+v, want %+v", what, i, g, w)
		}
	}
}

func TestExpenseRoundTripAndPatch(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		now := time.Date(2026, 3, 1, 10, 0, 0, 123456000, time.UTC)
		s.Now = func() time.Time { return now }
		v := fuel.Vehicle{Name: "A", FuelType: "diesel"}
		if err := s.CreateVehicle(ctx, &v); err != nil {
			t.Fatal(err)
		}
		e := newExpense(v.ID, 0)
		e.Time = time.Date(2026, 2, 27, 9, 30, 0, 1500, time.FixedZone("CET", 3600)) // nanoseconds cut to µs
		e.Amount = dec("89.9005")                                                    // rounds half-up to 89.901
		e.Items[0].UnitPrice = dec("12.90005")                                       // to 12.9001
		e.Tags = []string{" oil ", "Filter"}
		if err := s.CreateExpense(ctx, &e); err != nil {
			t.Fatal(err)
		}
		if e.ID == 0 || e.Amount.String() != "89.901" || e.Items[0].UnitPrice.String() != "12.9001" || e.Tags[0] != "oil" {
			t.Fatalf("created %+v", e)
		}
		if want := time.Date(2026, 2, 27, 8, 30, 0, 1000, time.UTC); !e.Time.Equal(want) || e.Time.Location() != time.UTC {
			t.Fatalf("time %v, want %v in UTC", e.Time, want)
		}
		got, err := s.Expense(ctx, e.ID)
		if err != nil {
			t.Fatal(err)
		}
		sameExpense(t, "read back", got, e)

		// A patch changes what it names; null-like resets empty the lists
		// and forget the odometer.
		later := now.Add(time.Hour)
		s.Now = func() time.Time { return later }
		title, noItems, noTags, unknown := "Oil and filter", []fuel.ExpenseItem{}, []string{}, decimal.NullDecimal{}
		upd, err := s.UpdateExpense(ctx, e.ID, fuel.ExpenseUpdate{Title: &title, Items: &noItems, Tags: &noTags, Odometer: &unknown})
		if err != nil {
			t.Fatal(err)
		}
		want := e
		want.Title, want.Items, want.Tags, want.Odometer, want.UpdatedAt = title, []fuel.ExpenseItem{}, []string{}, decimal.NullDecimal{}, later
		sameExpense(t, "patched", upd, want)
		got, err = s.Expense(ctx, e.ID)
		if err != nil {
			t.Fatal(err)
		}
		sameExpense(t, "patched, read back", got, want)

		// An invalid patch names every bad field and writes nothing.
		bad, blank, neg := "coal", " ", dec("-1")
		_, err = s.UpdateExpense(ctx, e.ID, fuel.ExpenseUpdate{Category: &bad, Title: &blank, Amount: &neg})
		wantInvalid(t, "bad patch", err, "category")
		if err == nil || !strings.Contains(err.Error(), "title:") || !strings.Contains(err.Error(), "amount:") {
			t.Errorf("bad patch error %v does not name title and amount", err)
		}
		got, _ = s.Expense(ctx, e.ID)
		sameExpense(t, "after a refused patch", got, want)

		if err := s.DeleteExpense(ctx, e.ID); err != nil {
			t.Fatal(err)
		}
		_, err = s.Expense(ctx, e.ID)
		wantErr(t, "read after delete", err, fuel.ErrExpenseNotFound)
		wantErr(t, "second delete", s.DeleteExpense(ctx, e.ID), fuel.ErrExpenseNotFound)
	})
}

func TestExpenseValidationNamesEveryField(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		v := fuel.Vehicle{Name: "A", FuelType: "diesel"}
		if err := s.CreateVehicle(ctx, &v); err != nil {
			t.Fatal(err)
		}
		e := fuel.Expense{
			VehicleID: v.ID, Time: time.Date(1899, 1, 1, 0, 0, 0, 0, time.UTC), Odometer: decimal.NewNullDecimal(dec("-5")),
			Category: "fuel", Title: strings.Repeat("t", 201), Amount: dec("100000000000"), Vendor: strings.Repeat("v", 129),
			Notes: "a\x00b",
			Items: []fuel.ExpenseItem{{Name: "ok", Quantity: dec("1"), UnitPrice: dec("1")}, {Name: "", Quantity: dec("0"), UnitPrice: dec("-1")}},
			Tags:  []string{"oil", "OIL", ""},
		}
		err := s.CreateExpense(ctx, &e)
		want := "INVALID_ARGUMENT: time: must lie between 1900-01-01T00:00:00Z and 9999-12-31T23:59:59.999999Z; odometer: must be at least 0; " +
			"category: must be one of service, repair, tyres, inspection, insurance, tax, parking, toll, wash, fine, accessory, other; " +
			"title: must be at most 200 characters (got 201); amount: must be at most 99999999999.999; vendor: must be at most 128 characters (got 129); " +
			"notes: must not contain NUL characters; items[1].name: is required and must not be blank; " +
			"items[1].quantity: must be greater than 0 (at 3 decimal places); items[1].unit_price: must be at least 0; " +
			"tags[1]: repeats tags[0] (tags are compared ignoring case); tags[2]: is required and must not be blank"
		if err == nil || err.Error() != want {
			t.Fatalf("err = %v\nwant %s", err, want)
		}
		if n, _ := s.CountRows(ctx, "expenses"); n != 0 {
			t.Errorf("%d expenses stored after a refused create", n)
		}
	})
}

func TestListExpensesOrderFilterPage(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		v := fuel.Vehicle{Name: "A", FuelType: "diesel"}
		w := fuel.Vehicle{Name: "B", FuelType: "diesel"}
		for _, x := range []*fuel.Vehicle{&v, &w} {
			if err := s.CreateVehicle(ctx, x); err != nil {
				t.Fatal(err)
			}
		}
		// Hours and categories; two at hour 5 (order by id then).
		specs := []struct {
			hour int
			cat  string
		}{{1, "service"}, {5, "toll"}, {5, "service"}, {3, "tax"}, {9, "service"}}
		ids := make([]uint64, len(specs))
		for i, sp := range specs {
			e := newExpense(v.ID, sp.hour)
			e.Category = sp.cat
			if err := s.CreateExpense(ctx, &e); err != nil {
				t.Fatal(err)
			}
			ids[i] = e.ID
		}
		other := newExpense(w.ID, 4)
		if err := s.CreateExpense(ctx, &other); err != nil {
			t.Fatal(err)
		}
		list := func(f fuel.ExpenseFilter) []uint64 {
			t.Helper()
			es, err := s.ListExpenses(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			out := []uint64{}
			for _, e := range es {
				out = append(out, e.ID)
			}
			return out
		}
		start, end := base.Add(3*time.Hour), base.Add(5*time.Hour)
		for _, tt := range []struct {
			name string
			f    fuel.ExpenseFilter
			want []uint64
		}{
			{"all, newest first", fuel.ExpenseFilter{VehicleID: v.ID}, []uint64{ids[4], ids[2], ids[1], ids[3], ids[0]}},
			{"category", fuel.ExpenseFilter{VehicleID: v.ID, Category: "service"}, []uint64{ids[4], ids[2], ids[0]}},
			{"range inclusive", fuel.ExpenseFilter{VehicleID: v.ID, Start: &start, End: &end}, []uint64{ids[2], ids[1], ids[3]}},
			{"page", fuel.ExpenseFilter{VehicleID: v.ID, Limit: 2, Offset: 1}, []uint64{ids[2], ids[1]}},
			{"offset alone", fuel.ExpenseFilter{VehicleID: v.ID, Offset: 3}, []uint64{ids[3], ids[0]}},
			{"other vehicle", fuel.ExpenseFilter{VehicleID: w.ID}, []uint64{other.ID}},
			{"unknown vehicle", fuel.ExpenseFilter{VehicleID: w.ID + 100}, []uint64{}},
		} {
			if got := list(tt.f); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
			}
		}

		// Deleting a vehicle deletes its expenses, and only its.
		if err := s.DeleteVehicle(ctx, v.ID); err != nil {
			t.Fatal(err)
		}
		if n, _ := s.CountRows(ctx, "expenses"); n != 1 {
			t.Errorf("%d expenses after deleting the vehicle of 5, want 1", n)
		}
	})
}

func TestExpensesOfOthersAndSharedVehicles(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		annCtx, _ := as(t, s, "ann")
		bobCtx, _ := as(t, s, "bob")
		vicCtx, vic := as(t, s, "vic")
		eveCtx, eve := as(t, s, "eve")
		va, _ := ownVehicle(t, s, annCtx, "ann's")
		vb, _ := ownVehicle(t, s, bobCtx, "bob's")
		if _, err := s.SetMember(annCtx, va.ID, vic.ID, fuel.RoleViewer); err != nil {
			t.Fatal(err)
		}
		if _, err := s.SetMember(annCtx, va.ID, eve.ID, fuel.RoleEditor); err != nil {
			t.Fatal(err)
		}
		ea := newExpense(va.ID, 1)
		if err := s.CreateExpense(annCtx, &ea); err != nil {
			t.Fatal(err)
		}

		// Bob sees nothing of Ann's: not found, as if it did not exist.
		_, err := s.Expense(bobCtx, ea.ID)
		wantErr(t, "bob reads ann's", err, fuel.ErrExpenseNotFound)
		title := "mine now"
		_, err = s.UpdateExpense(bobCtx, ea.ID, fuel.ExpenseUpdate{Title: &title})
		wantErr(t, "bob patches ann's", err, fuel.ErrExpenseNotFound)
		wantErr(t, "bob deletes ann's", s.DeleteExpense(bobCtx, ea.ID), fuel.ErrExpenseNotFound)
		if es, err := s.ListExpenses(bobCtx, fuel.ExpenseFilter{VehicleID: va.ID}); err != nil || len(es) != 0 {
			t.Errorf("bob lists ann's vehicle: %v %v", es, err)
		}
		e := newExpense(va.ID, 2)
		wantInvalid(t, "bob creates on ann's vehicle", s.CreateExpense(bobCtx, &e), "vehicle_id")
		// Nor may Ann move her expense to Bob's vehicle.
		_, err = s.UpdateExpense(annCtx, ea.ID, fuel.ExpenseUpdate{VehicleID: &vb.ID})
		wantInvalid(t, "ann moves hers to bob's vehicle", err, "vehicle_id")

		// The viewer reads and writes nothing.
		if got, err := s.Expense(vicCtx, ea.ID); err != nil || got.Title != ea.Title {
			t.Errorf("viewer reads: %+v %v", got, err)
		}
		if es, err := s.ListExpenses(vicCtx, fuel.ExpenseFilter{VehicleID: va.ID}); err != nil || len(es) != 1 {
			t.Errorf("viewer lists: %v %v", es, err)
		}
		e = newExpense(va.ID, 3)
		wantErr(t, "viewer creates", s.CreateExpense(vicCtx, &e), fuel.ErrForbidden)
		_, err = s.UpdateExpense(vicCtx, ea.ID, fuel.ExpenseUpdate{Title: &title})
		wantErr(t, "viewer patches", err, fuel.ErrForbidden)
		wantErr(t, "viewer deletes", s.DeleteExpense(vicCtx, ea.ID), fuel.ErrForbidden)

		// The editor writes.
		e = newExpense(va.ID, 4)
		if err := s.CreateExpense(eveCtx, &e); err != nil {
			t.Fatalf("editor creates: %v", err)
		}
		if got, err := s.UpdateExpense(eveCtx, ea.ID, fuel.ExpenseUpdate{Title: &title}); err != nil || got.Title != title {
			t.Fatalf("editor patches: %+v %v", got, err)
		}
		if err := s.DeleteExpense(eveCtx, e.ID); err != nil {
			t.Fatalf("editor deletes: %v", err)
		}
		if n, _ := s.CountRows(context.Background(), "expenses"); n != 1 {
			t.Errorf("%d expenses, want 1", n)
		}
	})
}

func TestSchemaRejectsBadExpenses(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		v := fuel.Vehicle{Name: "A", FuelType: "diesel"}
		if err := s.CreateVehicle(ctx, &v); err != nil {
			t.Fatal(err)
		}
		e := newExpense(v.ID, 0)
		if err := s.CreateExpense(ctx, &e); err != nil {
			t.Fatal(err)
		}
		for _, tt := range []struct {
			name, set string
			arg       any
		}{
			{"unknown category", "category = ?", "fuel"},
			{"blank title", "title = ?", "  "},
			{"negative amount", "amount = ?", "-1"},
			{"negative odometer", "odometer = ?", "-1"},
			{"items not an array", "items = ?", `{"name":"x"}`},
			{"tags not JSON", "tags = ?", `oil`},
			{"absent vehicle", "vehicle_id = ?", v.ID + 100},
		} {
			if err := s.write.Exec("UPDATE expenses SET "+tt.set+" WHERE id = ?", tt.arg, e.ID).Error; err == nil {
				t.Errorf("%s: the schema accepted it", tt.name)
			}
		}
	})
}

func TestBackupAndRestoreKeepExpenses(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "fuel.db")
	s := mustOpenSQLiteAt(t, path)
	v := fuel.Vehicle{Name: "backed up", FuelType: "diesel"}
	if err := s.CreateVehicle(ctx, &v); err != nil {
		t.Fatal(err)
	}
	var want []fuel.Expense
	for i := 0; i < 3; i++ {
		e := newExpense(v.ID, i)
		e.Title = fmt.Sprintf("expense %d", i)
		if err := s.CreateExpense(ctx, &e); err != nil {
			t.Fatal(err)
		}
		want = append([]fuel.Expense{e}, want...) // newest first, as listed
	}
	dst := filepath.Join(t.TempDir(), "backup.db")
	info, err := BackupSQLite(ctx, path, dst, false)
	if err != nil {
		t.Fatal(err)
	}
	if info.Expenses != 3 || info.Vehicles != 1 {
		t.Errorf("backup reports %d expenses and %d vehicles, want 3 and 1", info.Expenses, info.Vehicles)
	}
	restored := filepath.Join(t.TempDir(), "restored", "fuel.db")
	if info, err = RestoreSQLite(ctx, dst, restored, false); err != nil || info.Expenses != 3 {
		t.Fatalf("restore: %+v %v", info, err)
	}
	r := mustOpenSQLiteAt(t, restored)
	got, err := r.ListExpenses(ctx, fuel.ExpenseFilter{VehicleID: v.ID})
	if err != nil || len(got) != len(want) {
		t.Fatalf("restored expenses %v %v, want %d", got, err, len(want))
	}
	for i := range want {
		sameExpense(t, fmt.Sprintf("restored expense %d", i), got[i], want[i])
	}
}

func TestChangeCurrencyConvertsOwnedExpenses(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		f := newCurrencyFixture(t, s)
		mine := newExpense(f.annV.ID, 5) // 89.9; items 12.9 and 11.85
		if err := s.CreateExpense(f.ann, &mine); err != nil {
			t.Fatal(err)
		}
		bobs := newExpense(f.bobV.ID, 5) // ann edits bob's vehicle: bob's pounds
		if err := s.CreateExpense(f.ann, &bobs); err != nil {
			t.Fatal(err)
		}
		res, err := s.ChangeCurrency(f.ann, fuel.CurrencyChange{From: "EUR", To: "USD", Mode: fuel.CurrencyConvert, Rate: dec("1.1")})
		if err != nil {
			t.Fatal(err)
		}
		if res.Expenses != 1 {
			t.Errorf("%d expenses converted, want 1", res.Expenses)
		}
		got, err := s.Expense(f.ann, mine.ID)
		if err != nil {
			t.Fatal(err)
		}
		// 89.9 × 1.1 = 98.89; 12.9 × 1.1 = 14.19; 11.85 × 1.1 = 13.035.
		if got.Amount.String() != "98.89" || got.Items[0].UnitPrice.String() != "14.19" || got.Items[1].UnitPrice.String() != "13.035" {
			t.Errorf("converted expense %s, items %s and %s; want 98.89, 14.19, 13.035", got.Amount, got.Items[0].UnitPrice, got.Items[1].UnitPrice)
		}
		if got, _ := s.Expense(f.bob, bobs.ID); got.Amount.String() != "89.9" {
			t.Errorf("bob's expense = %s, want 89.9 untouched", got.Amount)
		}
		// Relabelling changes no expense.
		res, err = s.ChangeCurrency(f.ann, fuel.CurrencyChange{From: "USD", To: "CHF", Mode: fuel.CurrencyRelabel})
		if err != nil || res.Expenses != 0 {
			t.Fatalf("relabel: %+v %v", res, err)
		}
		if got, _ := s.Expense(f.ann, mine.ID); got.Amount.String() != "98.89" {
			t.Errorf("relabelled expense = %s, want 98.89", got.Amount)
		}
	})
}
