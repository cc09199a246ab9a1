package store

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/services/fuel/internal/accounts"
	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// as returns a context acting for a new user named name.
func as(t *testing.T, s *Store, name string) (context.Context, accounts.User) {
	t.Helper()
	u, err := s.CreateUser(context.Background(), name, "", false)
	if err != nil {
		t.Fatalf("create user %s: %v", name, err)
	}
	return auth.WithIdentity(context.Background(), auth.Identity{UserID: u.ID, Username: u.Username, Scope: auth.ScopeWrite}), u
}

// ownVehicle creates, as ctx's user, a default vehicle with one refuel.
func ownVehicle(t *testing.T, s *Store, ctx context.Context, name string) (fuel.Vehicle, fuel.Refuel) {
	t.Helper()
	v := fuel.Vehicle{Name: name, FuelType: "diesel", DefaultVehicle: true}
	if err := s.CreateVehicle(ctx, &v); err != nil {
		t.Fatalf("create vehicle %s: %v", name, err)
	}
	r := newRefuel(v.ID, 0)
	if err := s.CreateRefuel(ctx, &r); err != nil {
		t.Fatalf("create refuel of %s: %v", name, err)
	}
	return v, r
}

// newRefuel is a record of the vehicle (0: one to import), the given
// hours after base.
func newRefuel(vehicleID uint64, hour int) fuel.Refuel {
	r := fuel.Refuel{VehicleID: vehicleID, RefuelTime: base.Add(time.Duration(hour) * time.Hour), Odometer: dec("1000"),
		FuelType: "B7", Liters: dec("40"), TotalAmount: dec("60"), IsFull: true}
	if vehicleID == 0 {
		r.Energy = fuel.Diesel
		r.Normalize()
	}
	return r
}

// hash64 is a request hash: 64 hex digits, as the column holds.
var hash64 = strings.Repeat("a", 64)

// wantErr fails unless err is want.
func wantErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Errorf("%s: err = %v, want %v", what, err, want)
	}
}

// wantInvalid fails unless err is an INVALID_ARGUMENT naming field.
func wantInvalid(t *testing.T, what string, err error, field string) {
	t.Helper()
	var ae *apperr.Error
	if !errors.As(err, &ae) || ae.Code != apperr.InvalidArgument || ae.Field != field {
		t.Errorf("%s: err = %v, want INVALID_ARGUMENT on %s", what, err, field)
	}
}

// readAll runs every read of the store on vehicle v and refuel r as ctx's
// user and returns the first error of each, by name.
func readAll(s *Store, ctx context.Context, v, r uint64) map[string]error {
	out := map[string]error{}
	_, out["Vehicle"] = s.Vehicle(ctx, v)
	_, out["Statistics"] = s.Statistics(ctx, v)
	_, out["MonthlyStatistics"] = s.MonthlyStatistics(ctx, v, fuel.MonthlyQuery{})
	out["ExportRefuels"] = s.ExportRefuels(ctx, v, func(fuel.Refuel) error { return nil })
	_, out["Members"] = s.Members(ctx, v)
	_, out["Refuel"] = s.Refuel(ctx, r)
	return out
}

func TestUsersCannotSeeOrWriteEachOthersData(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		annCtx, _ := as(t, s, "ann")
		bobCtx, bob := as(t, s, "bob")
		va, ra := ownVehicle(t, s, annCtx, "ann's")
		vb, rb := ownVehicle(t, s, bobCtx, "bob's")

		for name, err := range readAll(s, bobCtx, va.ID, ra.ID) {
			want := fuel.ErrVehicleNotFound
			if name == "Refuel" {
				want = fuel.ErrRefuelNotFound
			}
			wantErr(t, "bob's "+name+" of ann's", err, want)
		}
		// The built-in user (a context without identity) sees neither.
		for name, err := range readAll(s, context.Background(), vb.ID, rb.ID) {
			if err == nil {
				t.Errorf("built-in user's %s of bob's: no error", name)
			}
		}
		if rs, err := s.ListRefuels(bobCtx, fuel.RefuelFilter{VehicleID: va.ID}); err != nil || len(rs) != 0 {
			t.Errorf("bob lists ann's refuels: %v %v, want none", rs, err)
		}
		for ctx, want := range map[context.Context]uint64{annCtx: va.ID, bobCtx: vb.ID} {
			vs, err := s.ListVehicles(ctx)
			if err != nil || len(vs) != 1 || vs[0].ID != want || !vs[0].DefaultVehicle || vs[0].Role != fuel.RoleOwner {
				t.Errorf("ListVehicles: %+v %v, want only vehicle %d, the caller's default", vs, err, want)
			}
		}
		if vs, err := s.ListVehicles(context.Background()); err != nil || len(vs) != 0 {
			t.Errorf("built-in user's ListVehicles: %v %v, want none", vs, err)
		}

		// Writes to what bob may not see: not found, nothing changed.
		r := newRefuel(va.ID, 5)
		wantInvalid(t, "bob's CreateRefuel on ann's vehicle", s.CreateRefuel(bobCtx, &r), "vehicle_id")
		r.Energy = fuel.Diesel
		wantInvalid(t, "bob's CreateRefuel with an energy on ann's vehicle", s.CreateRefuel(bobCtx, &r), "vehicle_id")
		name := "x"
		_, err := s.UpdateRefuel(bobCtx, ra.ID, fuel.RefuelUpdate{Remark: &name})
		wantErr(t, "bob's UpdateRefuel of ann's", err, fuel.ErrRefuelNotFound)
		_, err = s.UpdateRefuel(bobCtx, rb.ID, fuel.RefuelUpdate{VehicleID: &va.ID})
		wantInvalid(t, "bob moving his refuel to ann's vehicle", err, "vehicle_id")
		wantErr(t, "bob's DeleteRefuel of ann's", s.DeleteRefuel(bobCtx, ra.ID), fuel.ErrRefuelNotFound)
		for _, dry := range []bool{true, false} {
			_, err = s.ImportRefuels(bobCtx, va.ID, []fuel.Refuel{newRefuel(0, 9)}, dry)
			wantErr(t, "bob's ImportRefuels into ann's", err, fuel.ErrVehicleNotFound)
		}
		_, err = s.UpdateVehicle(bobCtx, va.ID, fuel.VehicleUpdate{Name: &name})
		wantErr(t, "bob's UpdateVehicle of ann's", err, fuel.ErrVehicleNotFound)
		yes := true
		_, err = s.UpdateVehicle(bobCtx, va.ID, fuel.VehicleUpdate{DefaultVehicle: &yes})
		wantErr(t, "bob's UpdateVehicle making ann's the default", err, fuel.ErrVehicleNotFound)
		_, err = s.SetDefaultVehicle(bobCtx, va.ID)
		wantErr(t, "bob's SetDefaultVehicle of ann's", err, fuel.ErrVehicleNotFound)
		wantErr(t, "bob's DeleteVehicle of ann's", s.DeleteVehicle(bobCtx, va.ID), fuel.ErrVehicleNotFound)
		_, err = s.SetMember(bobCtx, va.ID, bob.ID, fuel.RoleEditor)
		wantErr(t, "bob's SetMember on ann's", err, fuel.ErrVehicleNotFound)
		wantErr(t, "bob's RemoveMember on ann's", s.RemoveMember(bobCtx, va.ID, bob.ID), fuel.ErrVehicleNotFound)

		got, err := s.Vehicle(annCtx, va.ID)
		if err != nil || got.Name != "ann's" || !got.DefaultVehicle {
			t.Errorf("ann's vehicle after bob's writes: %+v %v", got, err)
		}
		got, err = s.Vehicle(bobCtx, vb.ID)
		if err != nil || !got.DefaultVehicle {
			t.Errorf("bob's default after his failed SetDefaultVehicle of ann's: %+v %v", got, err)
		}
		if rs, err := s.ListRefuels(annCtx, fuel.RefuelFilter{VehicleID: va.ID}); err != nil || len(rs) != 1 || rs[0].Remark != "" {
			t.Errorf("ann's refuels after bob's writes: %+v %v", rs, err)
		}
		if st, err := s.Statistics(annCtx, va.ID); err != nil || st.LastRefuel == nil || st.LastRefuel.ID != ra.ID {
			t.Errorf("ann's statistics: %+v %v", st, err)
		}
	})
}

func TestSharedVehicleViewerAndEditor(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		annCtx, ann := as(t, s, "ann")
		viewCtx, viewer := as(t, s, "vic")
		editCtx, editor := as(t, s, "eve")
		va, ra := ownVehicle(t, s, annCtx, "shared")
		ve, _ := ownVehicle(t, s, editCtx, "eve's")

		if _, err := s.SetMember(annCtx, va.ID, viewer.ID, fuel.RoleViewer); err != nil {
			t.Fatal(err)
		}
		m, err := s.SetMember(annCtx, va.ID, editor.ID, fuel.RoleEditor)
		if err != nil || m.Username != "eve" || m.Role != fuel.RoleEditor {
			t.Fatalf("SetMember editor: %+v %v", m, err)
		}
		_, err = s.SetMember(annCtx, va.ID, ann.ID, fuel.RoleEditor)
		wantInvalid(t, "owner adding herself", err, "user_id")
		_, err = s.SetMember(annCtx, va.ID, 999999, fuel.RoleViewer)
		wantErr(t, "SetMember of an unknown user", err, accounts.ErrUserNotFound)
		_, err = s.SetMember(annCtx, va.ID, viewer.ID, fuel.RoleOwner)
		wantInvalid(t, "SetMember as owner", err, "role")

		for _, who := range []struct {
			name string
			ctx  context.Context
			role fuel.Role
		}{{"viewer", viewCtx, fuel.RoleViewer}, {"editor", editCtx, fuel.RoleEditor}} {
			for name, err := range readAll(s, who.ctx, va.ID, ra.ID) {
				if err != nil {
					t.Errorf("%s's %s: %v", who.name, name, err)
				}
			}
			if rs, err := s.ListRefuels(who.ctx, fuel.RefuelFilter{VehicleID: va.ID}); err != nil || len(rs) != 1 {
				t.Errorf("%s's ListRefuels: %v %v", who.name, rs, err)
			}
			n := 0
			if err := s.ExportRefuels(who.ctx, va.ID, func(fuel.Refuel) error { n++; return nil }); err != nil || n != 1 {
				t.Errorf("%s's export: %d records, %v", who.name, n, err)
			}
			ms, err := s.Members(who.ctx, va.ID)
			if err != nil || len(ms) != 2 || ms[0].UserID != viewer.ID || ms[0].Role != fuel.RoleViewer || ms[1].Role != fuel.RoleEditor {
				t.Errorf("%s's Members: %+v %v", who.name, ms, err)
			}
			v, err := s.Vehicle(who.ctx, va.ID)
			if err != nil || v.DefaultVehicle || v.Role != who.role || v.OwnerID != ann.ID {
				t.Errorf("%s's view of the shared vehicle: %+v %v, want not default, role %s", who.name, v, err, who.role)
			}
			// What only the owner may do.
			name := "renamed"
			_, err = s.UpdateVehicle(who.ctx, va.ID, fuel.VehicleUpdate{Name: &name})
			wantErr(t, who.name+"'s UpdateVehicle", err, fuel.ErrForbidden)
			yes := true
			_, err = s.UpdateVehicle(who.ctx, va.ID, fuel.VehicleUpdate{DefaultVehicle: &yes})
			wantErr(t, who.name+"'s UpdateVehicle to default", err, fuel.ErrForbidden)
			_, err = s.SetDefaultVehicle(who.ctx, va.ID)
			wantErr(t, who.name+"'s SetDefaultVehicle", err, fuel.ErrForbidden)
			wantErr(t, who.name+"'s DeleteVehicle", s.DeleteVehicle(who.ctx, va.ID), fuel.ErrForbidden)
			_, err = s.SetMember(who.ctx, va.ID, viewer.ID, fuel.RoleEditor)
			wantErr(t, who.name+"'s SetMember", err, fuel.ErrForbidden)
			wantErr(t, who.name+"'s RemoveMember", s.RemoveMember(who.ctx, va.ID, viewer.ID), fuel.ErrForbidden)
		}
		if ve, err := s.Vehicle(editCtx, ve.ID); err != nil || !ve.DefaultVehicle {
			t.Errorf("eve's own default after her refused SetDefaultVehicle: %+v %v", ve, err)
		}

		// The viewer writes no refuel.
		r := newRefuel(va.ID, 3)
		wantErr(t, "viewer's CreateRefuel", s.CreateRefuel(viewCtx, &r), fuel.ErrForbidden)
		remark := "x"
		_, err = s.UpdateRefuel(viewCtx, ra.ID, fuel.RefuelUpdate{Remark: &remark})
		wantErr(t, "viewer's UpdateRefuel", err, fuel.ErrForbidden)
		wantErr(t, "viewer's DeleteRefuel", s.DeleteRefuel(viewCtx, ra.ID), fuel.ErrForbidden)
		for _, dry := range []bool{true, false} {
			_, err = s.ImportRefuels(viewCtx, va.ID, []fuel.Refuel{newRefuel(0, 9)}, dry)
			wantErr(t, "viewer's ImportRefuels", err, fuel.ErrForbidden)
		}

		// The editor writes refuels.
		r = newRefuel(va.ID, 4)
		if err := s.CreateRefuel(editCtx, &r); err != nil {
			t.Fatalf("editor's CreateRefuel: %v", err)
		}
		if got, err := s.UpdateRefuel(editCtx, ra.ID, fuel.RefuelUpdate{Remark: &remark}); err != nil || got.Remark != "x" {
			t.Errorf("editor's UpdateRefuel: %+v %v", got, err)
		}
		if res, err := s.ImportRefuels(editCtx, va.ID, []fuel.Refuel{newRefuel(0, 9)}, false); err != nil || res.Imported != 1 {
			t.Errorf("editor's ImportRefuels: %+v %v", res, err)
		}
		// Moving a record needs the right on both vehicles.
		if _, err := s.UpdateRefuel(editCtx, r.ID, fuel.RefuelUpdate{VehicleID: &ve.ID}); err != nil {
			t.Errorf("editor moving a record to her own vehicle: %v", err)
		}
		if _, err := s.UpdateRefuel(editCtx, r.ID, fuel.RefuelUpdate{VehicleID: &va.ID}); err != nil {
			t.Errorf("editor moving it back: %v", err)
		}
		// Moving her own record to a vehicle she only views is refused.
		wr := newRefuel(ve.ID, 7)
		if err := s.CreateRefuel(editCtx, &wr); err != nil {
			t.Fatal(err)
		}
		if _, err := s.SetMember(annCtx, va.ID, editor.ID, fuel.RoleViewer); err != nil {
			t.Fatal(err)
		}
		_, err = s.UpdateRefuel(editCtx, wr.ID, fuel.RefuelUpdate{VehicleID: &va.ID})
		wantErr(t, "moving a record to a vehicle she views", err, fuel.ErrForbidden)
		if _, err := s.SetMember(annCtx, va.ID, editor.ID, fuel.RoleEditor); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteRefuel(editCtx, r.ID); err != nil {
			t.Errorf("editor's DeleteRefuel: %v", err)
		}
		// The owner's changes still work, and remove a member.
		wantErr(t, "RemoveMember of a non-member", s.RemoveMember(annCtx, va.ID, ann.ID), fuel.ErrMemberNotFound)
		if err := s.RemoveMember(annCtx, va.ID, viewer.ID); err != nil {
			t.Fatal(err)
		}
		_, err = s.Vehicle(viewCtx, va.ID)
		wantErr(t, "removed viewer's Vehicle", err, fuel.ErrVehicleNotFound)
		if vs, err := s.ListVehicles(editCtx); err != nil || len(vs) != 2 || vs[0].ID != ve.ID || vs[1].ID != va.ID {
			t.Errorf("editor's ListVehicles: %+v %v, want her default, then the shared one", vs, err)
		}
		if err := s.DeleteVehicle(annCtx, va.ID); err != nil {
			t.Fatalf("owner's DeleteVehicle: %v", err)
		}
		if n, _ := s.CountRows(context.Background(), "vehicle_members"); n != 0 {
			t.Errorf("%d members left after the vehicle was deleted", n)
		}
	})
}

func TestOneDefaultPerOwner(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		annCtx, ann := as(t, s, "ann")
		bobCtx, bob := as(t, s, "bob")
		a1, _ := ownVehicle(t, s, annCtx, "a1")
		b1, _ := ownVehicle(t, s, bobCtx, "b1")
		a2, _ := ownVehicle(t, s, annCtx, "a2") // takes ann's default
		for ctx, want := range map[context.Context][]uint64{annCtx: {a2.ID, a1.ID}, bobCtx: {b1.ID}} {
			vs, err := s.ListVehicles(ctx)
			if err != nil || len(vs) != len(want) || vs[0].ID != want[0] || !vs[0].DefaultVehicle || (len(vs) > 1 && vs[1].DefaultVehicle) {
				t.Errorf("ListVehicles: %+v %v, want %v with the first the only default", vs, err, want)
			}
		}
		if _, err := s.SetDefaultVehicle(annCtx, a1.ID); err != nil {
			t.Fatal(err)
		}
		if v, err := s.Vehicle(bobCtx, b1.ID); err != nil || !v.DefaultVehicle {
			t.Errorf("bob's default after ann switched hers: %+v %v", v, err)
		}
		// The database itself refuses a second default for one owner.
		now := time.Now().UTC()
		if err := s.write.Exec("UPDATE vehicles SET default_vehicle = ? WHERE id = ?", true, a2.ID).Error; err == nil {
			t.Error("the database let ann have two defaults")
		}
		err := s.write.Exec("INSERT INTO vehicles (name, fuel_type, default_vehicle, owner_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
			"b2", "diesel", true, bob.ID, now, now).Error
		if err == nil {
			t.Error("the database let bob have two defaults")
		}
		if err := s.write.Exec("INSERT INTO vehicles (name, fuel_type, default_vehicle, owner_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
			"builtin", "diesel", true, auth.BuiltinUserID, now, now).Error; err != nil {
			t.Errorf("a default of a third owner: %v", err)
		}
		_ = ann
	})
}

func TestIdempotencyKeysPerUser(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		annCtx, _ := as(t, s, "ann")
		bobCtx, _ := as(t, s, "bob")
		k := fuel.IdempotencyKey{Key: "same", Method: "POST", Path: "/api/vehicles", RequestHash: hash64}
		create := func(ctx context.Context, name string) fuel.StoredAnswer {
			t.Helper()
			a, replayed, err := s.Once(ctx, k, func(tx fuel.Store) (fuel.StoredAnswer, error) {
				v := fuel.Vehicle{Name: name, FuelType: "diesel"}
				if err := tx.CreateVehicle(ctx, &v); err != nil {
					return fuel.StoredAnswer{}, err
				}
				return fuel.StoredAnswer{Status: 201, Body: []byte(name)}, nil
			})
			if err != nil || replayed {
				t.Fatalf("%s's Once: replayed %v, %v", name, replayed, err)
			}
			return a
		}
		if a := create(annCtx, "ann's"); string(a.Body) != "ann's" {
			t.Errorf("ann's answer %q", a.Body)
		}
		if a := create(bobCtx, "bob's"); string(a.Body) != "bob's" {
			t.Errorf("bob's answer %q, want his own", a.Body)
		}
		a, replayed, err := s.Once(annCtx, k, func(fuel.Store) (fuel.StoredAnswer, error) {
			t.Error("ann's repeated request ran again")
			return fuel.StoredAnswer{}, nil
		})
		if err != nil || !replayed || string(a.Body) != "ann's" {
			t.Errorf("ann's repeat: %q replayed %v %v", a.Body, replayed, err)
		}
		for _, ctx := range []context.Context{annCtx, bobCtx} {
			if vs, err := s.ListVehicles(ctx); err != nil || len(vs) != 1 {
				t.Errorf("vehicles: %+v %v, want one each", vs, err)
			}
		}
		if n, _ := s.CountRows(context.Background(), "idempotency_keys"); n != 2 {
			t.Errorf("%d idempotency keys, want 2", n)
		}
	})
}

func TestDeleteUserDeletesOwnedVehiclesAndMemberships(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		annCtx, ann := as(t, s, "ann")
		bobCtx, bob := as(t, s, "bob")
		va, _ := ownVehicle(t, s, annCtx, "ann's")
		vb, rb := ownVehicle(t, s, bobCtx, "bob's")
		if _, err := s.SetMember(annCtx, va.ID, bob.ID, fuel.RoleEditor); err != nil {
			t.Fatal(err)
		}
		if _, err := s.SetMember(bobCtx, vb.ID, ann.ID, fuel.RoleViewer); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteUser(ctx, ann.ID); err != nil {
			t.Fatal(err)
		}
		for table, want := range map[string]int64{"vehicles": 1, "refuels": 1, "vehicle_members": 0} {
			if n, err := s.CountRows(ctx, table); err != nil || n != want {
				t.Errorf("%s after deleting ann: %d %v, want %d", table, n, err, want)
			}
		}
		if vs, err := s.ListVehicles(bobCtx); err != nil || len(vs) != 1 || vs[0].ID != vb.ID {
			t.Errorf("bob's vehicles: %+v %v", vs, err)
		}
		if _, err := s.Refuel(bobCtx, rb.ID); err != nil {
			t.Errorf("bob's refuel: %v", err)
		}
	})
}

// TestOwnersMigrationKeepsOldRecords writes a database as migration 0004
// left it, with vehicles, refuels and an idempotency key, then opens it:
// everything belongs to the built-in user and nothing else changes.
func TestOwnersMigrationKeepsOldRecords(t *testing.T) {
	for _, d := range []Dialect{Postgres, SQLite} {
		t.Run(string(d), func(t *testing.T) {
			ctx := context.Background()
			exec, open := olderDatabase(t, d, 5)
			now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			for i := 1; i <= 2; i++ {
				exec("INSERT INTO vehicles (id, name, fuel_type, default_vehicle, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
					i, "old", "diesel", i == 1, now, now)
				exec(`INSERT INTO refuels (vehicle_id, refuel_time, odometer, fuel_type, energy, liters, total_amount, price_per_liter, is_full, created_at, updated_at)
					VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, i, now, "1000.5", "x", "diesel", "40.125", "60", "1.4953", true, now, now)
			}
			exec("INSERT INTO idempotency_keys (idem_key, method, path, request_hash, status, body, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
				"old-key", "POST", "/api/vehicles", hash64, 201, []byte("old answer"), time.Now().UTC())
			s := open()
			vs, err := s.ListVehicles(ctx)
			if err != nil || len(vs) != 2 || vs[0].ID != 1 || !vs[0].DefaultVehicle || vs[1].DefaultVehicle {
				t.Fatalf("the built-in user's vehicles: %+v %v", vs, err)
			}
			for _, v := range vs {
				if v.OwnerID != auth.BuiltinUserID || v.Role != fuel.RoleOwner {
					t.Errorf("vehicle %d: owner %d role %s, want the built-in user", v.ID, v.OwnerID, v.Role)
				}
				rs, err := s.ListRefuels(ctx, fuel.RefuelFilter{VehicleID: v.ID})
				if err != nil || len(rs) != 1 || rs[0].Liters.String() != "40.125" || !rs[0].RefuelTime.Equal(now) {
					t.Errorf("refuels of vehicle %d: %+v %v", v.ID, rs, err)
				}
			}
			k := fuel.IdempotencyKey{Key: "old-key", Method: "POST", Path: "/api/vehicles", RequestHash: hash64}
			a, replayed, err := s.Once(ctx, k, func(fuel.Store) (fuel.StoredAnswer, error) {
				t.Error("the old key's request ran again")
				return fuel.StoredAnswer{}, nil
			})
			if err != nil || !replayed || string(a.Body) != "old answer" {
				t.Errorf("the built-in user's old key: %q %v %v", a.Body, replayed, err)
			}
			annCtx, _ := as(t, s, "ann")
			if vs, err := s.ListVehicles(annCtx); err != nil || len(vs) != 0 {
				t.Errorf("a new user sees %+v %v, want none", vs, err)
			}
		})
	}
}
