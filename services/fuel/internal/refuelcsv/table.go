package refuelcsv

import (
	"bufio"
	"encoding/csv"
	"errors"
	"io"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/carhub/backend/pkg/apperr"
)

// The pieces of this package that files of other records (expensecsv)
// share, so that every CSV file of the service is written and read by one
// set of rules.

// WriteHeaderRow writes header as the first row of a file of other
// records, after a spreadsheet's byte order mark, as WriteHeader does.
func (w *Writer) WriteHeaderRow(header []string) error {
	if w.spreadsheet {
		if _, err := w.out.WriteString("\ufeff"); err != nil {
			return err
		}
	}
	return w.writeRecord(header)
}

// WriteRow writes one row of other records; text fields must have been
// passed through Neutralize.
func (w *Writer) WriteRow(rec []string) error { return w.writeRecord(rec) }

// Quantity is d as the Writer writes numbers (a decimal comma in a
// spreadsheet file for such a language).
func (w *Writer) Quantity(d decimal.Decimal) string { return w.quantity(d) }

// Neutralize is a text field as an export writes it (see neutralize).
func Neutralize(s string) string { return neutralize(s) }

// Restore undoes Neutralize on a trimmed text of the service's own export.
func Restore(s string) string { return restore(s) }

// Record is one row of a CSV file: the line where it begins (the first
// line is 1) and its fields, untrimmed.
type Record struct {
	Line   int
	Fields []string
}

// ReadRecords reads every record of a CSV file as Read reads a file of
// refuels: the delimiter found on its first line (semicolons reports ';',
// whose numbers have a decimal comma), lone CRs as line ends, a leading
// byte order mark dropped, blank lines skipped, records of any length. A
// file that is not CSV is an INVALID_ARGUMENT error on file.
func ReadRecords(r io.Reader) (recs []Record, semicolons bool, err error) {
	br := bufio.NewReaderSize(&loneCRs{r: bufio.NewReader(r)}, 64<<10)
	cr := csv.NewReader(br)
	cr.Comma = delimiter(br)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, false, apperr.Invalid("file", "is not CSV: %s", csvReason(err))
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

// ParseNumber reads a non-negative decimal as the refuel files' numbers
// are read (currency signs, thousands separators, a decimal comma);
// semicolons as ReadRecords reports it. The error starts with name.
func ParseNumber(name, s string, semicolons bool) (decimal.Decimal, error) {
	return parseNumber(name, s, semicolons)
}

// ParseDate reads a date of another program's file: RFC 3339, or a date
// (Y-M-D, or D/M/Y and M/D/Y as order says) with an optional time of day,
// in loc.
func ParseDate(s, order string, loc *time.Location) (time.Time, error) {
	return parseDate(s, "", order, loc)
}

// DetectDateOrder decides day first (dmy) or month first (mdy) over a
// whole column of dates, as Read does.
func DetectDateOrder(dates []string) string { return detectDateOrder(dates) }

// DistanceFactor is the factor from unit (km, mi) to kilometres; false for
// another unit.
func DistanceFactor(unit string) (decimal.Decimal, bool) {
	f, ok := distanceUnits[unit]
	return f, ok
}
