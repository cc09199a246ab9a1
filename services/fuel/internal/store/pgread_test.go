package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
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

// TestScanRowsRoute: scanRows takes scanRow's routes, and hands over
// every row in the statement's order.
func TestScanRowsRoute(t *testing.T) {
	ctx := context.Background()
	which := func(q *queries, h *gorm.DB) []int {
		t.Helper()
		var got []int
		if err := q.scanRows(ctx, h, "SELECT 10 + n FROM (SELECT 3 AS n UNION ALL SELECT 1 UNION ALL SELECT 2) t WHERE n >= ? ORDER BY n DESC",
			"SELECT 20 + n FROM (SELECT 3 AS n UNION ALL SELECT 1 UNION ALL SELECT 2) t WHERE n >= $1 ORDER BY n DESC", []any{1},
			func(r rowScanner) error {
				var n int
				err := r.Scan(&n)
				got = append(got, n)
				return err
			}); err != nil {
			t.Fatal(err)
		}
		return got
	}
	forEachDialect(t, func(t *testing.T, s *Store) {
		want := "[13 12 11]"
		if s.dialect == Postgres {
			want = "[23 22 21]"
		}
		if got := fmt.Sprint(which(&s.queries, s.read)); got != want {
			t.Errorf("on the pool: rows %s, want %s", got, want)
		}
		err := s.write.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
			if got := fmt.Sprint(which(s.withTx(tx), tx)); got != "[13 12 11]" {
				t.Errorf("in a transaction: rows %s, want GORM's [13 12 11]", got)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}

func TestNumbered(t *testing.T) {
	tests := []struct{ in, want string }{
		{"SELECT 1", "SELECT 1"},
		{"a = ?", "a = $1"},
		{"a = ? AND b IN (?,?) LIMIT ? OFFSET ?", "a = $1 AND b IN ($2,$3) LIMIT $4 OFFSET $5"},
		{strings.Repeat("?,", 11) + "?", "$1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12"},
	}
	for _, tt := range tests {
		if got := numbered(tt.in); got != tt.want {
			t.Errorf("numbered(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
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
