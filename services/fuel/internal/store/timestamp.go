package store

import (
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
)

// timeColumn is how a timestamp column is selected. On SQLite it is read
// as text, which timestamp parses trying the layout the driver writes
// first: the driver turns a DATETIME column it reads directly into a
// time.Time by trying time.Time.String's layout first and failing, at the
// cost of an error per value (see BenchmarkListRefuels100). The value of
// an expression reaches the scanner as the stored text.
func timeColumn(d Dialect, col string) string {
	if d == SQLite {
		return "CAST(" + col + " AS TEXT)"
	}
	return col
}

// timestamp scans a timestamp column: a time.Time from PostgreSQL, the
// text of timeColumn from SQLite.
type timestamp time.Time

// Scan implements sql.Scanner.
func (t *timestamp) Scan(v any) error {
	switch v := v.(type) {
	case time.Time:
		*t = timestamp(v)
		return nil
	case string:
		p, err := parseSQLiteTime(v)
		*t = timestamp(p)
		return err
	}
	return fmt.Errorf("timestamp from %T", v)
}

// ScanTimestamptz implements pgtype.TimestamptzScanner: pgx (pgread.go)
// hands PostgreSQL's timestamp over as it is rather than through
// database/sql's values, as Scan would have it (an allocation a column).
func (t *timestamp) ScanTimestamptz(v pgtype.Timestamptz) error {
	if !v.Valid {
		return fmt.Errorf("timestamp from NULL")
	}
	*t = timestamp(v.Time)
	return nil
}

// sqliteTimeLayouts are the layouts the go-sqlite driver reads, the one it
// writes time.Time values in first.
var sqliteTimeLayouts = []string{
	"2006-01-02 15:04:05.999999999-07:00",
	"2006-01-02T15:04:05.999999999-07:00",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05",
	"2006-01-02T15:04:05",
	"2006-01-02 15:04",
	"2006-01-02T15:04",
	"2006-01-02",
	"2006-01-02 15:04:05.999999999 -0700 MST", // time.Time.String
}

// parseSQLiteTime reads a timestamp as the go-sqlite driver does, trying
// the layout it writes first.
func parseSQLiteTime(s string) (time.Time, error) {
	trimmed := strings.TrimSuffix(s, "Z")
	for _, layout := range sqliteTimeLayouts {
		if t, err := time.ParseInLocation(layout, trimmed, time.UTC); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("timestamp %q: not a layout the sqlite driver writes", s)
}
