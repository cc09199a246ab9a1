package store

import (
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// TestParseSQLiteTime reads the layouts the SQLite drivers write.
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

// FuzzParseStoredUTC holds parseStoredUTC to time.ParseInLocation with
// the driver's layout: every text it accepts, ParseInLocation accepts too
// and reads as the same instant in the same location; and every time the
// service stores, formatted as the driver formats it, it accepts.
func FuzzParseStoredUTC(f *testing.F) {
	const layout = "2006-01-02 15:04:05.999999999-07:00"
	for _, s := range []string{
		"2024-01-01 08:00:00+00:00", "2024-01-01 08:00:00.5+00:00", "2024-02-29 23:59:59.123456789+00:00",
		"2023-02-29 08:00:00+00:00", "2024-04-31 08:00:00+00:00", "2024-01-01 08:00:00.+00:00",
		"2024-01-01 08:00:00.1234567891+00:00", "2024-01-01 08:00:00+01:00", "0000-01-01 00:00:00+00:00",
		"2024-1-01 08:00:00+00:00", "2024-01-01 08:00:60+00:00", "+024-01-01 08:00:00+00:00",
	} {
		f.Add(s, int64(0))
	}
	f.Add("", int64(1732800000123456789))
	f.Fuzz(func(t *testing.T, s string, unixNano int64) {
		stored := fuel.NormalizeTime(time.Unix(0, unixNano)).Format(layout)
		if _, ok := parseStoredUTC(stored); !ok {
			t.Errorf("parseStoredUTC(%q) refused a stored time", stored)
		}
		for _, in := range []string{s, stored} {
			got, ok := parseStoredUTC(in)
			if b, bok := parseStoredUTC([]byte(in)); bok != ok || b != got {
				t.Fatalf("parseStoredUTC(%q) = %v, %v from a string, %v, %v from bytes", in, got, ok, b, bok)
			}
			if !ok {
				continue
			}
			want, err := time.ParseInLocation(layout, in, time.UTC)
			if err != nil {
				t.Fatalf("parseStoredUTC(%q) = %v; time.ParseInLocation refuses it: %v", in, got, err)
			}
			if !got.Equal(want) || got.Location() != want.Location() {
				t.Fatalf("parseStoredUTC(%q) = %v (%v), time.ParseInLocation %v (%v)", in, got, got.Location(), want, want.Location())
			}
		}
	})
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
