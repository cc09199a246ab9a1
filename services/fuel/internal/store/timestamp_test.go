package store

import (
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
)

// TestParseSQLiteTime reads the layouts of the go-sqlite driver.
func TestParseSQLiteTime(t *testing.T) {
	tests := []struct {
		in   string
		want time.Time
	}{
		{"2024-01-01 08:00:00+00:00", time.Date(2024, 1, 1, 8, 0, 0, 0, time.UTC)},
		{"2024-01-01 08:00:00.5+00:00", time.Date(2024, 1, 1, 8, 0, 0, 5e8, time.UTC)},
		{"2024-01-01 08:00:00.123456+00:00", time.Date(2024, 1, 1, 8, 0, 0, 123456000, time.UTC)},
		{"2024-01-01 08:00:00.123456789+00:00", time.Date(2024, 1, 1, 8, 0, 0, 123456789, time.UTC)},
		{"2024-01-01 08:00:00+02:30", time.Date(2024, 1, 1, 5, 30, 0, 0, time.UTC)},
		{"2024-01-01 01:00:00-03:00", time.Date(2024, 1, 1, 4, 0, 0, 0, time.UTC)},
		{"1900-01-01 00:00:00+00:00", time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"9999-12-31 23:59:59.999999+00:00", time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC)},
		{"2024-03-01T08:00:00Z", time.Date(2024, 3, 1, 8, 0, 0, 0, time.UTC)},
		{"2024-03-01 08:00:00", time.Date(2024, 3, 1, 8, 0, 0, 0, time.UTC)},
		{"2024-03-01", time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)},
		{"2024-03-01 09:00:00.5 +0100 CET", time.Date(2024, 3, 1, 8, 0, 0, 5e8, time.UTC)},
	}
	for _, tt := range tests {
		got, err := parseSQLiteTime(tt.in)
		if err != nil || !got.Equal(tt.want) {
			t.Errorf("parseSQLiteTime(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "2024-02-30 08:00:00+00:00", "2024-01-01 24:00:00+00:00", "yesterday"} {
		if got, err := parseSQLiteTime(bad); err == nil {
			t.Errorf("parseSQLiteTime(%q) = %v, want an error", bad, got)
		}
	}
}

// TestTimestampFromPgx: pgx's timestamp is taken as it is, and a NULL is
// refused as Scan refuses it.
func TestTimestampFromPgx(t *testing.T) {
	want := time.Date(2026, 11, 28, 13, 59, 22, 452869000, time.UTC)
	var ts timestamp
	if err := ts.ScanTimestamptz(pgtype.Timestamptz{Time: want, Valid: true}); err != nil || !time.Time(ts).Equal(want) {
		t.Fatalf("got %v (%v), want %v", time.Time(ts), err, want)
	}
	if err := ts.ScanTimestamptz(pgtype.Timestamptz{}); err == nil {
		t.Fatal("NULL scanned without an error")
	}
	if err := ts.Scan(nil); err == nil {
		t.Fatal("Scan of NULL without an error")
	}
}
