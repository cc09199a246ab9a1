package store

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/pkg/pgtest"
	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// MustOpen opens a fresh store of dialect d: a new PostgreSQL database per
// test (pgtest) or a new SQLite file in t.TempDir.
func MustOpen(tb testing.TB, d Dialect) *Store {
	tb.Helper()
	ctx := context.Background()
	var (
		s   *Store
		err error
	)
	switch d {
	case Postgres:
		s, err = OpenPostgres(ctx, newPostgresDatabase(tb))
	case SQLite:
		s, err = OpenSQLite(ctx, filepath.Join(tb.TempDir(), "sub", "fuel.db"))
	}
	if err != nil {
		tb.Fatalf("open %s store: %v", d, err)
	}
	tb.Cleanup(func() { _ = s.Close() })
	return s
}

// newPostgresDatabase is a new PostgreSQL database holding every
// migration's schema: a copy of a template migrated once per server and
// set of migrations (pgtest.NewDatabaseFrom), as storetest.PostgresURL
// makes it for other packages (storetest imports this package, so its
// tests here cannot import storetest).
func newPostgresDatabase(tb testing.TB) string {
	tb.Helper()
	digest, err := MigrationsDigest(Postgres)
	if err != nil {
		tb.Fatal(err)
	}
	return pgtest.NewDatabaseFrom(tb, "fuel_migrated_"+digest[:16], func(ctx context.Context, url string) error {
		s, err := OpenPostgres(ctx, url)
		if err != nil {
			return err
		}
		return s.Close()
	})
}

// forEachDialect runs fn as a subtest against each database.
func forEachDialect(t *testing.T, fn func(t *testing.T, s *Store)) {
	for _, d := range []Dialect{Postgres, SQLite} {
		t.Run(string(d), func(t *testing.T) { fn(t, MustOpen(t, d)) })
	}
}

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func TestMigrationsRecordedAndIdempotent(t *testing.T) {
	for _, d := range []Dialect{Postgres, SQLite} {
		t.Run(string(d), func(t *testing.T) {
			s := MustOpen(t, d)
			if err := s.migrate(context.Background()); err != nil {
				t.Fatalf("second migrate: %v", err)
			}
			var versions []int
			if err := s.write.Raw("SELECT version FROM schema_migrations ORDER BY version").Scan(&versions).Error; err != nil {
				t.Fatal(err)
			}
			all, err := loadMigrations(d)
			if err != nil {
				t.Fatal(err)
			}
			if len(versions) != len(all) || versions[0] != 1 {
				t.Fatalf("recorded versions %v, want one row per migration (%d)", versions, len(all))
			}
		})
	}
}

func TestSchemaRejectsWhatTheAPIRejects(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		a := fuel.Vehicle{Name: "A", FuelType: "diesel", DefaultVehicle: true}
		if err := s.CreateVehicle(ctx, &a); err != nil {
			t.Fatal(err)
		}
		b := fuel.Vehicle{Name: "B", FuelType: "diesel"}
		if err := s.CreateVehicle(ctx, &b); err != nil {
			t.Fatal(err)
		}
		// Statements that bypass the Go validation must still fail.
		bad := []struct {
			name string
			sql  string
			args []any
		}{
			{"second default", "UPDATE vehicles SET default_vehicle = ? WHERE id = ?", []any{true, b.ID}},
			{"blank name", "UPDATE vehicles SET name = ? WHERE id = ?", []any{"  ", b.ID}},
			{"name too long", "UPDATE vehicles SET name = ? WHERE id = ?", []any{strings.Repeat("é", 65), b.ID}},
			{"bad fuel type", "UPDATE vehicles SET fuel_type = ? WHERE id = ?", []any{"coal", b.ID}},
			{"negative capacity", "UPDATE vehicles SET tank_capacity = ? WHERE id = ?", []any{"-1", b.ID}},
			{"refuel of absent vehicle", "INSERT INTO refuels (vehicle_id, refuel_time, odometer, fuel_type, liters, total_amount, price_per_liter, created_at, updated_at) VALUES (?, ?, '1', 'x', '1', '1', '1', ?, ?)",
				[]any{b.ID + 100, now, now, now}},
			{"zero liters", "INSERT INTO refuels (vehicle_id, refuel_time, odometer, fuel_type, liters, total_amount, price_per_liter, created_at, updated_at) VALUES (?, ?, '1', 'x', '0', '1', '1', ?, ?)",
				[]any{b.ID, now, now, now}},
		}
		for _, tt := range bad {
			if err := s.write.Exec(tt.sql, tt.args...).Error; err == nil {
				t.Errorf("%s: the schema accepted it", tt.name)
			}
		}
	})
}

// SeedRefuels gives vehicle id n diesel refuels, one a day, every third
// partial, inserted in batches.
func SeedRefuels(tb testing.TB, s *Store, vehicleID uint64, n int) {
	tb.Helper()
	rows := make([]refuelRow, 0, n)
	start := time.Date(2000, 1, 1, 8, 0, 0, 0, time.UTC)
	for i := 0; i < n; i++ {
		r := fuel.Refuel{
			VehicleID:   vehicleID,
			RefuelTime:  start.Add(time.Duration(i) * 24 * time.Hour),
			Odometer:    decimal.NewFromInt(int64(1000 + 550*i)),
			FuelType:    "B7",
			Energy:      fuel.Diesel,
			Liters:      decimal.NewFromInt(int64(30 + i%15)).Add(decimal.New(int64(i%1000), -3)),
			TotalAmount: decimal.NewFromInt(int64(50 + i%20)).Add(decimal.New(int64(i%100), -2)),
			IsFull:      i%3 != 1,
			CreatedAt:   start,
			UpdatedAt:   start,
		}
		r.Normalize()
		rows = append(rows, toRefuelRow(r))
	}
	if err := s.write.CreateInBatches(rows, 500).Error; err != nil {
		tb.Fatal(err)
	}
}

// benchVehicle makes a vehicle with n seeded refuels on a fresh store.
func benchVehicle(b *testing.B, d Dialect, n int) (*Store, uint64) {
	b.Helper()
	s := MustOpen(b, d)
	v := fuel.Vehicle{Name: "bench", FuelType: "diesel"}
	if err := s.CreateVehicle(context.Background(), &v); err != nil {
		b.Fatal(err)
	}
	SeedRefuels(b, s, v.ID, n)
	if d == Postgres {
		if err := s.write.Exec("ANALYZE refuels").Error; err != nil {
			b.Fatal(err)
		}
	}
	return s, v.ID
}

// TestCreateRefuelUnknownVehicle: a refuel naming an absent vehicle is
// refused by the energy lookup, or, when it names its energy, by the
// foreign key.
func TestCreateRefuelUnknownVehicle(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		for _, energy := range []fuel.Energy{"", fuel.Diesel} {
			r := fuel.Refuel{VehicleID: 4242, RefuelTime: base, Odometer: dec("1"), FuelType: "B7", Energy: energy,
				Liters: dec("1"), TotalAmount: dec("1")}
			err := s.CreateRefuel(context.Background(), &r)
			var ae *apperr.Error
			if !errors.As(err, &ae) || ae.Code != apperr.InvalidArgument {
				t.Errorf("energy %q: err = %v, want INVALID_ARGUMENT for the unknown vehicle", energy, err)
			}
		}
	})
}

// TestCheckMigrations: a store that applied its migrations passes; one
// whose record of a migration is gone names it.
func TestCheckMigrations(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		if err := s.CheckMigrations(ctx); err != nil {
			t.Fatalf("fresh store: %v", err)
		}
		if err := s.write.Exec("DELETE FROM schema_migrations WHERE version = 3").Error; err != nil {
			t.Fatal(err)
		}
		if err := s.CheckMigrations(ctx); err == nil || !strings.Contains(err.Error(), "0003_refuel_energy.sql") {
			t.Errorf("missing migration 3: %v", err)
		}
		pools := s.Pools()
		want := map[Dialect][]string{Postgres: {"postgres"}, SQLite: {"sqlite_readers", "sqlite_writer"}}[s.Dialect()]
		if len(pools) != len(want) {
			t.Errorf("pools %v, want %v", pools, want)
		}
		for _, name := range want {
			if pools[name] == nil {
				t.Errorf("pool %s missing", name)
			}
		}
	})
}
