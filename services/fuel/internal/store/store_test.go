package store

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

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
		s, err = OpenPostgres(ctx, pgtest.NewDatabase(tb))
	case SQLite:
		s, err = OpenSQLite(ctx, filepath.Join(tb.TempDir(), "sub", "fuel.db"))
	}
	if err != nil {
		tb.Fatalf("open %s store: %v", d, err)
	}
	tb.Cleanup(func() { _ = s.Close() })
	return s
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
			if err := s.db.Raw("SELECT version FROM schema_migrations ORDER BY version").Scan(&versions).Error; err != nil {
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
			if err := s.db.Exec(tt.sql, tt.args...).Error; err == nil {
				t.Errorf("%s: the schema accepted it", tt.name)
			}
		}
	})
}
