package store

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/libtnb/sqlite"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"

	"github.com/carhub/backend/pkg/pgtest"
	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// olderDatabase writes a database of dialect d as the migrations before
// version `before` left it. exec runs SQL on it; open closes that
// connection and opens the database as the store does (applying the
// migrations from before on), failing the test if it cannot.
func olderDatabase(t *testing.T, d Dialect, before int) (exec func(sql string, args ...any), open func() *Store) {
	t.Helper()
	ctx := context.Background()
	var (
		dialector gorm.Dialector
		openStore func() (*Store, error)
	)
	if d == Postgres {
		dsn := pgtest.NewDatabase(t)
		dialector, openStore = postgres.Open(dsn), func() (*Store, error) { return OpenPostgres(ctx, dsn) }
	} else {
		path := filepath.Join(t.TempDir(), "fuel.db")
		dialector = sqlite.Open("file:" + path + "?_pragma=foreign_keys(1)")
		openStore = func() (*Store, error) { return OpenSQLite(ctx, path) }
	}
	db, err := gorm.Open(dialector, gormConfig())
	if err != nil {
		t.Fatal(err)
	}
	all, err := loadMigrations(d)
	if err != nil {
		t.Fatal(err)
	}
	exec = func(sql string, args ...any) {
		t.Helper()
		if err := db.Exec(sql, args...).Error; err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	timeType := map[Dialect]string{Postgres: "timestamptz", SQLite: "DATETIME"}[d]
	exec(`CREATE TABLE schema_migrations (version bigint PRIMARY KEY, name text NOT NULL, applied_at ` + timeType + ` NOT NULL)`)
	for _, m := range all {
		if m.version >= before {
			break
		}
		exec(m.sql)
		exec("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)", m.version, m.name, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	}
	open = func() *Store {
		t.Helper()
		sqlDB, _ := db.DB()
		_ = sqlDB.Close()
		s, err := openStore()
		if err != nil {
			t.Fatalf("open the older database: %v", err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	return exec, open
}

// TestEnergyMigrationKeepsOldRecords writes a database as the version
// before migration 0003 left it (migrations 1 and 2, records without an
// energy), then opens it: every record gets its vehicle's default energy
// and nothing else changes.
func TestEnergyMigrationKeepsOldRecords(t *testing.T) {
	for _, d := range []Dialect{Postgres, SQLite} {
		t.Run(string(d), func(t *testing.T) {
			ctx := context.Background()
			exec, open := olderDatabase(t, d, 3)
			now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			types := []string{"gasoline", "diesel", "hybrid", "electric", "plug_in_hybrid"}
			for i, ft := range types {
				exec("INSERT INTO vehicles (id, name, fuel_type, created_at, updated_at) VALUES (?, ?, ?, ?, ?)", i+1, ft, ft, now, now)
				exec(`INSERT INTO refuels (vehicle_id, refuel_time, odometer, fuel_type, liters, total_amount, price_per_liter, is_full, created_at, updated_at)
					VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, i+1, now, "1000.5", "x", "40.125", "60", "1.4953", true, now, now)
			}
			s := open()
			want := map[string]fuel.Energy{"gasoline": fuel.Gasoline, "diesel": fuel.Diesel, "hybrid": fuel.Gasoline,
				"electric": fuel.Electricity, "plug_in_hybrid": fuel.Gasoline}
			for i, ft := range types {
				rs, err := s.ListRefuels(ctx, fuel.RefuelFilter{VehicleID: uint64(i + 1)})
				if err != nil || len(rs) != 1 {
					t.Fatalf("refuels of the %s vehicle: %v %v", ft, rs, err)
				}
				r := rs[0]
				if r.Energy != want[ft] || r.Odometer.String() != "1000.5" || r.Liters.String() != "40.125" || !r.RefuelTime.Equal(now) {
					t.Errorf("%s vehicle's record after the migration: energy %s odometer %s liters %s time %s",
						ft, r.Energy, r.Odometer, r.Liters, r.RefuelTime)
				}
			}
		})
	}
}

// TestStatsLinesMigrationFillsFromTheRefuels writes a SQLite database as
// the version before migration 0014 left it, refuels in two vehicles and
// one paid abroad among them, then opens it: refuel_stats_lines holds each
// record's line, and the statistics read them.
func TestStatsLinesMigrationFillsFromTheRefuels(t *testing.T) {
	ctx := context.Background()
	exec, open := olderDatabase(t, SQLite, 14)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for v := 1; v <= 2; v++ {
		exec("INSERT INTO vehicles (id, name, fuel_type, created_at, updated_at) VALUES (?, ?, 'diesel', ?, ?)", v, fmt.Sprint("car ", v), now, now)
	}
	insert := `INSERT INTO refuels (vehicle_id, refuel_time, odometer, fuel_type, energy, liters, total_amount, price_per_liter,
		is_full, missed_previous, currency, home_amount, created_at, updated_at) VALUES (?, ?, ?, 'B7', 'diesel', ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	exec(insert, 1, now, "1000.5", "40.125", "60", "1.4953", true, false, nil, nil, now, now)
	exec(insert, 1, now.Add(48*time.Hour), "1600", "38", "5000", "131.5789", true, true, "JPY", "33.25", now, now)
	exec(insert, 1, now.Add(24*time.Hour), "1300", "20.5", "30", "1.4634", false, false, nil, nil, now, now)
	exec(insert, 2, now, "10", "12", "18", "1.5", true, false, nil, nil, now, now)
	s := open()
	checkStatsLines(t, s, "after the migration", 4)
	st, err := s.Statistics(ctx, 1)
	if err != nil || st.TotalRecords != 3 || st.TotalLiters.String() != "98.625" {
		t.Errorf("statistics of vehicle 1 after the migration: %d records, %s l, %v; want 3 and 98.625", st.TotalRecords, st.TotalLiters, err)
	}
}
