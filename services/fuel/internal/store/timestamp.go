package store

import (
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
)

// timeColumn is how a timestamp column is selected. On SQLite it is read
// as text, which timestamp parses trying the layout the driver writes
// first (parseStoredUTC): the driver turns a DATETIME column it reads
// directly into a time.Time through time.Parse, the cost the statistics
// measured (glebarez's driver, before, tried time.Time.String's layout
// first and failed, at the cost of an error per value). The value of an
// expression reaches the scanner as the stored text (sqliteTimeParams).
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

// sqliteTimeLayouts are the layouts the SQLite driver reads, the one it
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

// parseSQLiteTime reads a timestamp as the SQLite driver does, trying
// the layout it writes first.
func parseSQLiteTime(s string) (time.Time, error) {
	if t, ok := parseStoredUTC(s); ok {
		return t, nil
	}
	trimmed := strings.TrimSuffix(s, "Z")
	for _, layout := range sqliteTimeLayouts {
		if t, err := time.ParseInLocation(layout, trimmed, time.UTC); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("timestamp %q: not a layout the sqlite driver writes", s)
}

// parseStoredUTC reads the one form every time this service stores takes
// in SQLite, "2006-01-02 15:04:05.999999999-07:00" at offset +00:00 (the
// driver's layout; fuel.NormalizeTime makes every stored time UTC), and
// reports false for any other text, which parseSQLiteTime then hands to
// time.ParseInLocation. time.ParseInLocation interprets its layout
// afresh for every value: for the 10 000 records of a vehicle's
// statistics that was an eighth of the request (3.4 of 28 ms here); this
// reads the fixed places in a tenth of the time. FuzzParseStoredUTC holds
// it to time.ParseInLocation: whatever it accepts, ParseInLocation
// accepts and reads as the same time, in the same location.
//
// It takes the driver's bytes as they are (feedPackedRecord) or a string.
func parseStoredUTC[T string | []byte](s T) (time.Time, bool) {
	const (
		dateTime = len("2006-01-02 15:04:05")
		offset   = len("+00:00")
	)
	if len(s) < dateTime+offset || string(s[len(s)-offset:]) != "+00:00" ||
		s[4] != '-' || s[7] != '-' || s[10] != ' ' || s[13] != ':' || s[16] != ':' {
		return time.Time{}, false
	}
	year, ok1 := digits(s[0:4])
	month, ok2 := digits(s[5:7])
	day, ok3 := digits(s[8:10])
	hour, ok4 := digits(s[11:13])
	minute, ok5 := digits(s[14:16])
	sec, ok6 := digits(s[17:19])
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || !ok6 ||
		month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false
	}
	nsec := 0
	if frac := s[dateTime : len(s)-offset]; len(frac) > 0 {
		// A point and one to nine digits, as the layout's .999999999.
		if len(frac) < 2 || len(frac) > 10 || frac[0] != '.' {
			return time.Time{}, false
		}
		n, ok := digits(frac[1:])
		if !ok {
			return time.Time{}, false
		}
		for i := len(frac) - 1; i < 9; i++ {
			n *= 10
		}
		nsec = n
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.UTC)
	if t.Day() != day { // the 31st of a 30-day month, February's 30th: time.Date moved it on
		return time.Time{}, false
	}
	return t, true
}

// digits reads s, ASCII digits only, as a number.
func digits[T string | []byte](s T) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}
