package store

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// TestCurrentOdometerFollowsRefuels walks two vehicles' current_odometer
// through the writes of their refuels and of the vehicles, on both
// databases, read through both reads of a vehicle (one and the list). The
// readings cross from four digits to five, where text order (SQLite keeps
// decimals as text) would put 10000.25 below 9999.5.
func TestCurrentOdometerFollowsRefuels(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		ctx, _ := as(t, s, "driver")
		car := fuel.Vehicle{Name: "car", FuelType: "diesel", CurrentOdometer: dec("500")}
		van := fuel.Vehicle{Name: "van", FuelType: "diesel"}
		for _, v := range []*fuel.Vehicle{&car, &van} {
			if err := s.CreateVehicle(ctx, v); err != nil {
				t.Fatal(err)
			}
		}
		want := func(step string, v fuel.Vehicle, reading string) {
			t.Helper()
			one, err := s.Vehicle(ctx, v.ID)
			if err != nil {
				t.Fatalf("%s: %v", step, err)
			}
			if !one.CurrentOdometer.Equal(dec(reading)) {
				t.Errorf("%s: %s current_odometer = %s, want %s", step, v.Name, one.CurrentOdometer, reading)
			}
			all, err := s.ListVehicles(ctx)
			if err != nil {
				t.Fatalf("%s: %v", step, err)
			}
			for _, listed := range all {
				if listed.ID == v.ID && !listed.CurrentOdometer.Equal(dec(reading)) {
					t.Errorf("%s: %s listed with current_odometer %s, want %s", step, v.Name, listed.CurrentOdometer, reading)
				}
			}
		}
		create := func(v fuel.Vehicle, hour int, reading string) fuel.Refuel {
			t.Helper()
			r := newRefuel(v.ID, hour)
			r.Odometer = dec(reading)
			if err := s.CreateRefuel(ctx, &r); err != nil {
				t.Fatal(err)
			}
			return r
		}
		update := func(id uint64, u fuel.RefuelUpdate) {
			t.Helper()
			if _, err := s.UpdateRefuel(ctx, id, u); err != nil {
				t.Fatal(err)
			}
		}
		setVehicle := func(step string, v fuel.Vehicle, u fuel.VehicleUpdate, reading string) {
			t.Helper()
			got, err := s.UpdateVehicle(ctx, v.ID, u)
			if err != nil {
				t.Fatal(err)
			}
			if !got.CurrentOdometer.Equal(dec(reading)) {
				t.Errorf("%s: the answer's current_odometer = %s, want %s", step, got.CurrentOdometer, reading)
			}
		}
		reading := func(s string) *decimal.Decimal { d := dec(s); return &d }

		want("no refuel yet", car, "500")
		create(car, 1, "400")
		want("a reading below the owner's value", car, "500")
		b := create(car, 2, "9999.5")
		want("a higher reading", car, "9999.5")
		c := create(car, 3, "10000.25")
		want("a reading with one more digit", car, "10000.25")
		update(c.ID, fuel.RefuelUpdate{Odometer: reading("10200")})
		want("the top reading corrected up", car, "10200")
		update(c.ID, fuel.RefuelUpdate{Odometer: reading("9000")})
		want("the top reading corrected below another", car, "9999.5")

		setVehicle("the owner's value above every reading", car, fuel.VehicleUpdate{CurrentOdometer: reading("20000")}, "20000")
		if err := s.DeleteRefuel(ctx, b.ID); err != nil {
			t.Fatal(err)
		}
		want("a reading below the owner's value deleted", car, "20000")

		d := create(car, 4, "30000")
		want("a reading above the owner's value", car, "30000")
		update(d.ID, fuel.RefuelUpdate{VehicleID: &van.ID})
		want("the top reading moved away: the owner's value again", car, "20000")
		want("the vehicle it moved to", van, "30000")
		// Changes of other fields leave the van's own value (0) stored,
		// not the reading it answers.
		setVehicle("a rename", van, fuel.VehicleUpdate{Name: new("camper")}, "30000")
		if _, err := s.SetDefaultVehicle(ctx, van.ID); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteRefuel(ctx, d.ID); err != nil {
			t.Fatal(err)
		}
		want("the last reading deleted after a rename and a default", van, "0")

		imported := []fuel.Refuel{newRefuel(0, 10), newRefuel(0, 11)}
		imported[0].Odometer, imported[1].Odometer = dec("55000"), dec("21000")
		if _, err := s.ImportRefuels(ctx, car.ID, imported, false); err != nil {
			t.Fatal(err)
		}
		want("an import", car, "55000")
		setVehicle("the owner's value below a reading", car, fuel.VehicleUpdate{CurrentOdometer: reading("100")}, "55000")
	})
}

// TestCurrentOdometerOfSharedVehicle: a member reads the same odometer as
// the owner, also when the member's refuel set it.
func TestCurrentOdometerOfSharedVehicle(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		owner, _ := as(t, s, "alice")
		editor, e := as(t, s, "bob")
		v, _ := ownVehicle(t, s, owner, "shared")
		if _, err := s.SetMember(owner, v.ID, e.ID, fuel.RoleEditor); err != nil {
			t.Fatal(err)
		}
		r := newRefuel(v.ID, 5)
		r.Odometer = dec("123456.7")
		if err := s.CreateRefuel(editor, &r); err != nil {
			t.Fatal(err)
		}
		for name, ctx := range map[string]context.Context{"owner": owner, "editor": editor} {
			got, err := s.Vehicle(ctx, v.ID)
			if err != nil {
				t.Fatal(err)
			}
			if !got.CurrentOdometer.Equal(r.Odometer) {
				t.Errorf("%s reads current_odometer %s, want %s", name, got.CurrentOdometer, r.Odometer)
			}
		}
	})
}

// TestTopReadingUsesItsIndex: the highest reading is one read of
// refuels_vehicle_odometer, not a sort of the vehicle's refuels. On
// SQLite the index is on an expression, which the query must repeat
// exactly for the planner to use it.
func TestTopReadingUsesItsIndex(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		ctx, _ := as(t, s, "driver")
		v, _ := ownVehicle(t, s, ctx, "car")
		SeedRefuels(t, s, v.ID, 200)
		explain := "EXPLAIN "
		if s.dialect == SQLite {
			explain = "EXPLAIN QUERY PLAN "
		} else if err := s.write.Exec("ANALYZE refuels").Error; err != nil {
			t.Fatal(err)
		}
		db, err := s.write.DB()
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for _, row := range dumpRows(t, db, fmt.Sprintf("%sSELECT v.id, %s FROM vehicles v WHERE v.id = %d", explain, topReading(s.dialect), v.ID)) {
			plan = append(plan, fmt.Sprint(row...))
		}
		text := strings.Join(plan, "\n")
		if !strings.Contains(text, "refuels_vehicle_odometer") || strings.Contains(text, "TEMP B-TREE") {
			t.Errorf("the top reading's plan does not read refuels_vehicle_odometer alone:\n%s", text)
		}
	})
}
