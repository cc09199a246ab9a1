package csvfile

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/carhub/backend/pkg/apperr"
)

// MaxRowErrors bounds the bad rows an import's answer lists; the readers
// count them all.
const MaxRowErrors = 1000

// RowError is one bad row: Row is the line of the file where the row
// begins (the header is line 1), as an editor shows it.
type RowError struct {
	Row    int    `json:"row"`
	Reason string `json:"reason"`
}

// NewReader returns a CSV reader of r as every import reads: the delimiter
// found on its first line (Comma is ';' for a file whose numbers have a
// decimal comma, see ParseNumber), lone CRs as line ends, records of any
// length (the caller checks them), and a quoted field allowed after a
// delimiter and spaces ("a, \"b, c\""; values are trimmed anyway).
func NewReader(r io.Reader) *csv.Reader {
	br := bufio.NewReaderSize(&loneCRs{r: bufio.NewReader(r)}, 64<<10)
	cr := csv.NewReader(br)
	cr.Comma = delimiter(br)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	return cr
}

// NotCSV is the INVALID_ARGUMENT error of a file that err, of NewReader's
// reader, says is not CSV.
func NotCSV(err error) error {
	return apperr.Invalid("file", "is not CSV: %s", csvReason(err))
}

// Record is one row of a CSV file: the line where it begins (the first
// line is 1) and its fields, untrimmed.
type Record struct {
	Line   int
	Fields []string
}

// ReadRecords reads every record of a CSV file with NewReader's reader
// (semicolons reports ';', whose numbers have a decimal comma), a leading
// byte order mark dropped, blank lines skipped. A file that is not CSV is
// an INVALID_ARGUMENT error on file.
func ReadRecords(r io.Reader) (recs []Record, semicolons bool, err error) {
	cr := NewReader(r)
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, false, NotCSV(err)
		}
		if len(recs) == 0 && len(rec) > 0 {
			rec[0] = strings.TrimPrefix(rec[0], "\ufeff")
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		line, _ := cr.FieldPos(0)
		recs = append(recs, Record{Line: line, Fields: rec})
	}
	if len(recs) == 0 {
		return nil, false, apperr.Invalid("file", "is empty")
	}
	return recs, cr.Comma == ';', nil
}

// loneCRs reads r with every carriage return that ends a line on its own
// turned into a line feed. Files saved as "CSV (Macintosh)" by Excel, and
// other classic Mac OS exports, end their lines with a lone CR, which
// encoding/csv keeps inside the field: the whole file would be one row,
// refused for a header it does not have. CR LF stays as it is (the CSV
// reader reads it as one line end), and so does a CR inside a quoted field
// (a remark's line break, which our export writes unchanged). A quote
// opens or closes a quoted field; "" inside one closes and reopens it, so
// counting quotes is enough for every file the CSV reader accepts.
type loneCRs struct {
	r      *bufio.Reader
	quoted bool
}

func (l *loneCRs) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	for i := 0; i < n; i++ {
		switch {
		case p[i] == '"':
			l.quoted = !l.quoted
		case p[i] != '\r' || l.quoted:
			// kept as it is
		case i+1 < n:
			if p[i+1] != '\n' {
				p[i] = '\n'
			}
		default: // the last byte read: the next one decides
			if next, perr := l.r.Peek(1); perr != nil || next[0] != '\n' {
				p[i] = '\n'
			}
		}
	}
	return n, err
}

// delimiter is ';' when the header line has semicolons and no commas (the
// list separator of spreadsheets in locales with a decimal comma), else ','.
func delimiter(br *bufio.Reader) rune {
	head, _ := br.Peek(br.Size())
	if i := bytes.IndexByte(head, '\n'); i >= 0 {
		head = head[:i]
	}
	if bytes.IndexByte(head, ';') >= 0 && bytes.IndexByte(head, ',') < 0 {
		return ';'
	}
	return ','
}

func csvReason(err error) string {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Sprintf("line %d: %v", pe.Line, pe.Err)
	}
	return err.Error()
}

// maxNumber bounds a number's text; anything longer is no quantity.
const maxNumber = 40

// ParseNumber reads a non-negative decimal as exported by fuel trackers:
// an optional currency sign ($ € £), thousands separators, and a decimal
// comma when it is the only separator and not followed by exactly three
// digits ("45,67"; "1,234" is one thousand two hundred thirty-four). In a
// semicolon-separated file (semicolons, as NewReader finds it) '.' and
// ',' swap roles ("1.234,5", "1.500"). The error starts with name.
func ParseNumber(name, s string, semicolons bool) (decimal.Decimal, error) {
	if s == "" {
		return decimal.Zero, fmt.Errorf("%s: is required", name)
	}
	if len(s) > maxNumber {
		return decimal.Zero, fmt.Errorf("%s: is longer than %d characters", name, maxNumber)
	}
	t := strings.TrimLeft(s, "$€£ ")
	t = strings.ReplaceAll(t, " ", "")
	if semicolons {
		t = strings.Map(func(r rune) rune {
			switch r {
			case '.':
				return ','
			case ',':
				return '.'
			}
			return r
		}, t)
	}
	if strings.Contains(t, ",") {
		if strings.Contains(t, ".") || strings.Count(t, ",") > 1 || len(t)-strings.LastIndex(t, ",")-1 == 3 {
			t = strings.ReplaceAll(t, ",", "")
		} else {
			t = strings.Replace(t, ",", ".", 1)
		}
	}
	if !plainDecimal.MatchString(t) {
		return decimal.Zero, fmt.Errorf("%s: %q is not a number", name, s)
	}
	d, err := decimal.NewFromString(t)
	if err != nil {
		return decimal.Zero, fmt.Errorf("%s: %q is not a number", name, s)
	}
	return d, nil
}

var plainDecimal = regexp.MustCompile(`^-?[0-9]+(\.[0-9]*)?$|^-?\.[0-9]+$`)

var (
	ymdDate   = regexp.MustCompile(`^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?:[ T]+(.*))?$`)
	otherDate = regexp.MustCompile(`^(\d{1,2})[-/.](\d{1,2})[-/.](\d{4})(?:[ T,]+(.*))?$`)
	clock     = regexp.MustCompile(`^(\d{1,2}):(\d{2})(?::(\d{2}))?\s*([AaPp][Mm])?$`)
)

// DetectDateOrder decides day first or month first over a whole column of
// d/m/y dates: a first part above 12 means day first, a second part above
// 12 month first; a column that says neither is read month first (the
// en-US default of Fuelly and LubeLogger exports). A column that says both
// is left to the rows, which then fail one way or the other.
func DetectDateOrder(dates []string) string {
	var dayFirst, monthFirst bool
	for _, s := range dates {
		m := otherDate.FindStringSubmatch(s)
		if m == nil {
			continue
		}
		a, _ := strconv.Atoi(m[1])
		b, _ := strconv.Atoi(m[2])
		if a > 12 {
			dayFirst = true
		}
		if b > 12 {
			monthFirst = true
		}
	}
	if dayFirst && !monthFirst {
		return "dmy"
	}
	return "mdy"
}

// ParseDate reads a record's time: RFC 3339 with its own offset, or a date
// (Y-M-D, or D/M/Y and M/D/Y as order says: dmy, else month first) with an
// optional time of day in loc; a date alone is midnight in loc.
func ParseDate(s, order string, loc *time.Location) (time.Time, error) {
	if s == "" {
		return time.Time{}, errors.New("is required")
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	var (
		y, m, d int
		rest    string
	)
	if g := ymdDate.FindStringSubmatch(s); g != nil {
		y, _ = strconv.Atoi(g[1])
		m, _ = strconv.Atoi(g[2])
		d, _ = strconv.Atoi(g[3])
		rest = g[4]
	} else if g := otherDate.FindStringSubmatch(s); g != nil {
		a, _ := strconv.Atoi(g[1])
		b, _ := strconv.Atoi(g[2])
		y, _ = strconv.Atoi(g[3])
		rest = g[4]
		if order == "dmy" {
			d, m = a, b
		} else {
			m, d = a, b
		}
	} else {
		return time.Time{}, fmt.Errorf("%q is not a date (RFC 3339, YYYY-MM-DD, or M/D/YYYY and D/M/YYYY with an optional time)", s)
	}
	if m < 1 || m > 12 || d < 1 || d > daysIn(y, time.Month(m)) {
		readAs := order
		if readAs == "" {
			readAs = "mdy"
		}
		return time.Time{}, fmt.Errorf("%q is not a calendar date (read as %s)", s, readAs)
	}
	var h, mi, sec int
	if rest = strings.TrimSpace(rest); rest != "" {
		c := clock.FindStringSubmatch(rest)
		if c == nil {
			return time.Time{}, fmt.Errorf("%q has no time of day this service reads (HH:MM[:SS] [AM|PM])", s)
		}
		h, _ = strconv.Atoi(c[1])
		mi, _ = strconv.Atoi(c[2])
		if c[3] != "" {
			sec, _ = strconv.Atoi(c[3])
		}
		if ampm := strings.ToLower(c[4]); ampm != "" {
			if h < 1 || h > 12 {
				return time.Time{}, fmt.Errorf("%q has an hour outside 1..12 before AM/PM", s)
			}
			h %= 12
			if ampm == "pm" {
				h += 12
			}
		}
		if h > 23 || mi > 59 || sec > 59 {
			return time.Time{}, fmt.Errorf("%q has no valid time of day", s)
		}
	}
	return localTime(y, time.Month(m), d, h, mi, sec, loc), nil
}

// localTime is the instant of a wall-clock time in loc. On the days of a
// DST change time.Date leaves open which offset it uses (and in practice
// reads a midnight that America/Santiago skips as 23:00 of the day
// before), so the choice is made here, as java.time and Python's zoneinfo
// make it: a time the change skips is read with the offset in force before
// it, which moves it forward by the gap (02:30 on the day Europe/Berlin
// jumps from 02:00 to 03:00 is 03:30 CEST, a skipped midnight is 01:00 of
// the same day); a time the change repeats is its first occurrence (the
// earlier instant).
func localTime(y int, mo time.Month, d, h, mi, sec int, loc *time.Location) time.Time {
	if loc == time.UTC {
		return time.Date(y, mo, d, h, mi, sec, 0, time.UTC)
	}
	wall := time.Date(y, mo, d, h, mi, sec, 0, time.UTC).Unix()
	// The offsets in force a day before and a day after: a zone changes
	// its offset at most once in two days.
	_, before := time.Unix(wall-86400, 0).In(loc).Zone()
	_, after := time.Unix(wall+86400, 0).In(loc).Zone()
	var t time.Time
	for _, off := range [2]int{before, after} {
		c := time.Unix(wall-int64(off), 0).In(loc)
		if _, o := c.Zone(); o == off && (t.IsZero() || c.Before(t)) {
			t = c
		}
	}
	if t.IsZero() { // skipped by the change
		t = time.Unix(wall-int64(before), 0).In(loc)
	}
	return t
}

func daysIn(y int, m time.Month) int { return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day() }
