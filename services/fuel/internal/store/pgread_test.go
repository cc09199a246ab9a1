package store

import (
	"context"
	"errors"
	"testing"

	"gorm.io/gorm"
)

// TestScanRowRoute: scanRow runs the pgx statement on PostgreSQL's pool,
// and GORM's in a transaction and on SQLite. The two statements differ
// here so the answer says which ran.
func TestScanRowRoute(t *testing.T) {
	ctx := context.Background()
	which := func(q *queries, h *gorm.DB) int {
		t.Helper()
		var n int
		if err := q.scanRow(ctx, h, "SELECT 1 WHERE 1 = ?", "SELECT 2 WHERE 1 = $1", []any{1},
			func(r rowScanner) error { return r.Scan(&n) }); err != nil {
			t.Fatal(err)
		}
		return n
	}
	forEachDialect(t, func(t *testing.T, s *Store) {
		want := 1
		if s.dialect == Postgres {
			want = 2
		}
		if got := which(&s.queries, s.read); got != want {
			t.Errorf("on the pool: statement %d ran, want %d", got, want)
		}
		err := s.write.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
			if got := which(s.withTx(tx), tx); got != 1 {
				t.Errorf("in a transaction: statement %d ran, want GORM's", got)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}

// TestInsertRefuelTranslatesErrors: an insert that breaks the foreign key
// fails with GORM's translated error on both ways to the database, which
// CreateRefuel turns into "unknown vehicle" (a vehicle deleted between its
// read and the insert), and nothing is stored.
func TestInsertRefuelTranslatesErrors(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		row := refuelRow{VehicleID: 987654, RefuelTime: base, Odometer: dec("10"), FuelType: "95", Energy: "gasoline",
			Liters: dec("1"), TotalAmount: dec("2"), PricePerLiter: dec("2"), CreatedAt: base, UpdatedAt: base}
		err := s.insertRefuel(ctx, &row)
		if !errors.Is(err, gorm.ErrForeignKeyViolated) {
			t.Fatalf("insert for a missing vehicle: %v, want gorm.ErrForeignKeyViolated", err)
		}
		var n int64
		if err := s.read.WithContext(ctx).Table("refuels").Count(&n).Error; err != nil || n != 0 {
			t.Errorf("refuels stored: %d (%v), want 0", n, err)
		}
	})
}
