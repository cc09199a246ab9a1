package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// backedUpTables are every table of the SQLite schema.
var backedUpTables = []string{"vehicles", "refuels", "expenses", "idempotency_keys", "schema_migrations"}

// DumpTable returns every row of table in rowid order, each column as the
// driver gives it: two databases hold the same data when their dumps are
// equal.
func DumpTable(tb testing.TB, db *sql.DB, table string) [][]any {
	tb.Helper()
	return dumpRows(tb, db, "SELECT * FROM "+table+" ORDER BY rowid")
}

// dumpRows returns every row query reads, each as its columns' values.
func dumpRows(tb testing.TB, db *sql.DB, query string) [][]any {
	tb.Helper()
	rows, err := db.Query(query)
	if err != nil {
		tb.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		tb.Fatal(err)
	}
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			tb.Fatal(err)
		}
		out = append(out, vals)
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

// seedCopies gives vehicle id n more refuels in one statement, copies of
// one created through the store with their own odometers and remarks
// (SeedRefuels' row-by-row inserts take seconds under -race).
func seedCopies(tb testing.TB, s *Store, vehicleID uint64, n int) {
	tb.Helper()
	r := fuel.Refuel{VehicleID: vehicleID, RefuelTime: time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC), Odometer: dec("1000"),
		FuelType: "B7", Liters: dec("41.25"), TotalAmount: dec("72.10"), IsFull: true}
	if err := s.CreateRefuel(context.Background(), &r); err != nil {
		tb.Fatal(err)
	}
	err := s.write.Exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
		INSERT INTO refuels (vehicle_id, refuel_time, odometer, fuel_type, energy, liters, total_amount, price_per_liter,
			station_name, is_full, missed_previous, remark, created_at, updated_at)
		SELECT r.vehicle_id, r.refuel_time, CAST(1000 + n.i AS TEXT), r.fuel_type, r.energy, r.liters, r.total_amount,
			r.price_per_liter, 'station ' || n.i, n.i % 3 <> 1, 0, 'seeded ' || n.i, r.created_at, r.updated_at
		FROM n, refuels r WHERE r.id = ?`, n-1, r.ID).Error
	if err != nil {
		tb.Fatal(err)
	}
}

// mustOpenSQLiteAt opens the fuel store at path, closed when the test ends.
func mustOpenSQLiteAt(tb testing.TB, path string) *Store {
	tb.Helper()
	s, err := OpenSQLite(context.Background(), path)
	if err != nil {
		tb.Fatalf("open %s: %v", path, err)
	}
	tb.Cleanup(func() { _ = s.Close() })
	return s
}

func readDB(tb testing.TB, s *Store) *sql.DB {
	tb.Helper()
	db, err := s.read.DB()
	if err != nil {
		tb.Fatal(err)
	}
	return db
}

// TestBackupSQLiteWhileWriting backs up a database while a writer keeps
// creating refuels through the store, restores the backup into a new
// directory, opens the store on it and compares every row: the restored
// refuels are the first k the writer created (a state the source was in),
// with before <= k <= after, and every restored row equals the source's.
func TestBackupSQLiteWhileWriting(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "data", "fuel.db")
	s := mustOpenSQLiteAt(t, path)
	v := fuel.Vehicle{Name: "backed up", FuelType: "diesel", DefaultVehicle: true}
	if err := s.CreateVehicle(ctx, &v); err != nil {
		t.Fatal(err)
	}
	// A database large enough that the copy takes a while: 1 500
	// refuels took half a second to copy under the race detector, while
	// the writer commits one every few milliseconds (5 000 made the test
	// take 16 s, most of it comparing the rows).
	seedCopies(t, s, v.ID, 1500)

	var created atomic.Int64
	stop := make(chan struct{})
	writerErr := make(chan error, 1)
	go func() {
		start := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
		for i := 0; ; i++ {
			select {
			case <-stop:
				writerErr <- nil
				return
			default:
			}
			r := fuel.Refuel{VehicleID: v.ID, RefuelTime: start.Add(time.Duration(i) * time.Hour),
				Odometer: decimal.NewFromInt(int64(20_000_000 + i)), FuelType: "B7", Liters: dec("40.5"),
				TotalAmount: dec("70.47"), IsFull: true, Remark: fmt.Sprintf("written during the backup %d", i)}
			if err := s.CreateRefuel(ctx, &r); err != nil {
				writerErr <- err
				return
			}
			created.Add(1)
		}
	}()
	for created.Load() < 20 {
		time.Sleep(time.Millisecond)
	}

	count := func(st *Store) int64 {
		n, err := st.CountRows(ctx, "refuels")
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	dst := filepath.Join(t.TempDir(), "backups", "fuel-backup.db")
	before := count(s)
	began := time.Now()
	info, err := BackupSQLite(ctx, path, dst, false)
	took := time.Since(began)
	after := count(s)
	close(stop)
	if err := <-writerErr; err != nil {
		t.Fatalf("writer: %v", err)
	}
	if err != nil {
		t.Fatalf("backup: %v", err)
	}
	t.Logf("backup of %d refuels (%d bytes) in %s; %d refuels written meanwhile", info.Refuels, info.Bytes, took, after-before)
	if after == before {
		t.Fatal("no refuel was written during the backup: the test proves nothing")
	}
	if info.Refuels < before || info.Refuels > after || info.Vehicles != 1 {
		t.Errorf("backup holds %d refuels and %d vehicles, want between %d and %d refuels and 1 vehicle",
			info.Refuels, info.Vehicles, before, after)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(dst), ".*")); len(leftovers) > 0 {
		t.Errorf("temporary files left beside the backup: %v", leftovers)
	}

	restored := filepath.Join(t.TempDir(), "new", "fuel.db")
	if _, err := RestoreSQLite(ctx, dst, restored, false); err != nil {
		t.Fatalf("restore: %v", err)
	}
	r := mustOpenSQLiteAt(t, restored)
	if err := r.CheckMigrations(ctx); err != nil {
		t.Fatal(err)
	}
	src, got := readDB(t, s), readDB(t, r)
	for _, table := range backedUpTables {
		want, have := DumpTable(t, src, table), DumpTable(t, got, table)
		if len(have) > len(want) {
			t.Fatalf("%s: %d rows restored, the source never held more than %d", table, len(have), len(want))
		}
		// Rows are only ever appended: the backup's rows are a prefix.
		if !reflect.DeepEqual(have, want[:len(have)]) {
			for i := range have {
				if !reflect.DeepEqual(have[i], want[i]) {
					t.Fatalf("%s row %d: restored %v, source %v", table, i, have[i], want[i])
				}
			}
		}
		if table == "refuels" && int64(len(have)) != info.Refuels {
			t.Errorf("refuels: %d restored, the backup reported %d", len(have), info.Refuels)
		}
	}
	// The restored store serves: it reads its records and takes new ones.
	rs, err := r.ListRefuels(ctx, fuel.RefuelFilter{VehicleID: v.ID})
	if err != nil || int64(len(rs)) != info.Refuels {
		t.Fatalf("restored store lists %d refuels (%v), want %d", len(rs), err, info.Refuels)
	}
	extra := fuel.Refuel{VehicleID: v.ID, RefuelTime: time.Date(2040, 1, 1, 0, 0, 0, 0, time.UTC),
		Odometer: dec("99999999"), FuelType: "B7", Liters: dec("1"), TotalAmount: dec("2")}
	if err := r.CreateRefuel(ctx, &extra); err != nil {
		t.Fatalf("write to the restored store: %v", err)
	}
}

// mustBackup makes a backup of a small fuel database and returns its path.
func mustBackup(t *testing.T, refuels int) string {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "fuel.db")
	s := mustOpenSQLiteAt(t, path)
	v := fuel.Vehicle{Name: "in the backup", FuelType: "diesel"}
	if err := s.CreateVehicle(ctx, &v); err != nil {
		t.Fatal(err)
	}
	seedCopies(t, s, v.ID, refuels)
	dst := filepath.Join(t.TempDir(), "backup.db")
	if _, err := BackupSQLite(ctx, path, dst, false); err != nil {
		t.Fatal(err)
	}
	return dst
}

// listDir returns the names in dir (none when it does not exist).
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestRestoreSQLiteRefusesDamagedBackups: a backup that does not hold is
// refused before anything is written, with an error that says why.
func TestRestoreSQLiteRefusesDamagedBackups(t *testing.T) {
	good := mustBackup(t, 3000)
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	otherDB := filepath.Join(t.TempDir(), "other.db")
	db, err := sql.Open("sqlite", "file:"+otherDB)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('not fuel')"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	otherBytes, _ := os.ReadFile(otherDB)

	newer := filepath.Join(t.TempDir(), "newer.db")
	if err := os.WriteFile(newer, data, 0o644); err != nil {
		t.Fatal(err)
	}
	db, err = sql.Open("sqlite", "file:"+newer)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, '9999_future.sql', '2030-01-01')"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	newerBytes, _ := os.ReadFile(newer)

	garbled := slices.Clone(data)
	for i := 4096; i < 3*4096; i++ { // pages 2 and 3: the tables' b-trees
		garbled[i] = 0xAB
	}
	tests := []struct {
		name  string
		bytes []byte
		want  string
	}{
		{"truncated", data[:len(data)/2], "not usable"},
		{"garbled pages", garbled, "not usable"},
		{"empty", nil, "not a fuel-service database"},
		{"not sqlite", []byte(strings.Repeat("this is no database ", 300)), "not an SQLite database"},
		{"another program's database", otherBytes, "not a fuel-service database"},
		{"newer fuel-service", newerBytes, "migration 9999"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			from := filepath.Join(t.TempDir(), "backup.db")
			if err := os.WriteFile(from, tt.bytes, 0o644); err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(t.TempDir(), "target")
			_, err := RestoreSQLite(context.Background(), from, filepath.Join(dir, "fuel.db"), false)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "nothing was restored") {
				t.Fatalf("restore: %v, want an error with %q", err, tt.want)
			}
			if names := listDir(t, dir); len(names) > 0 {
				t.Errorf("a refused restore left %v", names)
			}
		})
	}
}

// TestRestoreSQLiteTarget: an occupied location is refused unless asked to
// replace it; a database in use is never replaced; --force replaces.
func TestRestoreSQLiteTarget(t *testing.T) {
	ctx := context.Background()
	backup := mustBackup(t, 50)

	t.Run("occupied without force", func(t *testing.T) {
		for _, name := range []string{"fuel.db", "fuel.db-wal", "fuel.db-journal"} {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, name), []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := RestoreSQLite(ctx, backup, filepath.Join(dir, "fuel.db"), false)
			if !errors.Is(err, ErrNotEmpty) || !strings.Contains(err.Error(), "--force") {
				t.Fatalf("%s present: restore answered %v, want ErrNotEmpty naming --force", name, err)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, name)); string(b) != "old" {
				t.Errorf("%s was changed", name)
			}
			if names := listDir(t, dir); !slices.Equal(names, []string{name}) {
				t.Errorf("directory holds %v after a refused restore", names)
			}
		}
	})

	t.Run("force replaces", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "fuel.db")
		old := mustOpenSQLiteAt(t, path)
		ov := fuel.Vehicle{Name: "only in the old database", FuelType: "gasoline"}
		if err := old.CreateVehicle(ctx, &ov); err != nil {
			t.Fatal(err)
		}
		SeedRefuels(t, old, ov.ID, 7)
		if err := old.Close(); err != nil {
			t.Fatal(err)
		}
		// A stale -shm beside it must not survive either.
		if err := os.WriteFile(path+"-shm", []byte("stale"), 0o644); err != nil {
			t.Fatal(err)
		}
		info, err := RestoreSQLite(ctx, backup, path, true)
		if err != nil {
			t.Fatal(err)
		}
		if names := listDir(t, filepath.Dir(path)); !slices.Equal(names, []string{"fuel.db"}) {
			t.Errorf("directory holds %v after the restore, want fuel.db alone", names)
		}
		r := mustOpenSQLiteAt(t, path)
		vs, err := r.ListVehicles(ctx)
		if err != nil || len(vs) != 1 || vs[0].Name != "in the backup" || info.Refuels != 50 {
			t.Fatalf("restored vehicles %v (%v), %d refuels; want the backup's one vehicle and 50", vs, err, info.Refuels)
		}
		want := DumpTable(t, openRaw(t, backup), "refuels")
		if got := DumpTable(t, readDB(t, r), "refuels"); !reflect.DeepEqual(got, want) {
			t.Errorf("restored refuels differ from the backup's (%d rows, want %d)", len(got), len(want))
		}
	})

	t.Run("force refuses a database in use", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "fuel.db")
		running := mustOpenSQLiteAt(t, path)
		v := fuel.Vehicle{Name: "served right now", FuelType: "diesel"}
		if err := running.CreateVehicle(ctx, &v); err != nil {
			t.Fatal(err)
		}
		_, err := RestoreSQLite(ctx, backup, path, true)
		if !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), "stop it") {
			t.Fatalf("restore over an open database: %v, want ErrInUse", err)
		}
		if _, err := running.Vehicle(ctx, v.ID); err != nil {
			t.Errorf("the running store lost its vehicle: %v", err)
		}
		if leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*")); len(leftovers) > 0 {
			t.Errorf("temporary files left: %v", leftovers)
		}
	})
}

func openRaw(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestBackupSQLiteDestination(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "fuel.db")
	mustOpenSQLiteAt(t, path)

	if _, err := BackupSQLite(ctx, filepath.Join(t.TempDir(), "absent.db"), filepath.Join(t.TempDir(), "b.db"), false); err == nil ||
		!strings.Contains(err.Error(), "no database to back up") {
		t.Errorf("backup of an absent database: %v", err)
	}
	for _, onto := range []string{path, path + "-wal", filepath.Join(filepath.Dir(path), ".", "fuel.db")} {
		if _, err := BackupSQLite(ctx, path, onto, true); err == nil || !strings.Contains(err.Error(), "would replace the database") {
			t.Errorf("backup onto %s: %v", onto, err)
		}
	}
	if _, err := checkCopy(ctx, path); err != nil {
		t.Fatalf("the database after the refused backups: %v", err)
	}
	dst := filepath.Join(t.TempDir(), "b.db")
	if err := os.WriteFile(dst, []byte("an older backup"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := BackupSQLite(ctx, path, dst, false); !errors.Is(err, ErrNotEmpty) {
		t.Fatalf("backup over an existing file: %v, want ErrNotEmpty", err)
	}
	if b, _ := os.ReadFile(dst); string(b) != "an older backup" {
		t.Fatal("the existing file was changed")
	}
	if _, err := BackupSQLite(ctx, path, dst, true); err != nil {
		t.Fatalf("backup with overwrite: %v", err)
	}
	if _, err := checkCopy(ctx, dst); err != nil {
		t.Fatalf("the overwritten backup does not hold: %v", err)
	}
}

// TestBackupSQLiteConcurrentBackups: backups taken at once by several
// processes (here goroutines with their own connections) all hold.
func TestBackupSQLiteConcurrentBackups(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "fuel.db")
	s := mustOpenSQLiteAt(t, path)
	v := fuel.Vehicle{Name: "v", FuelType: "diesel"}
	if err := s.CreateVehicle(ctx, &v); err != nil {
		t.Fatal(err)
	}
	seedCopies(t, s, v.ID, 500)
	dir := t.TempDir()
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			info, err := BackupSQLite(ctx, path, filepath.Join(dir, fmt.Sprintf("b%d.db", i)), false)
			if err == nil && info.Refuels != 500 {
				err = fmt.Errorf("%d refuels, want 500", info.Refuels)
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
}
