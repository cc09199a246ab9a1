// Package csvfile holds the rules every CSV file of the service is written
// and read by, whatever its records (refuelcsv, expensecsv): RFC 4180 rows
// with CRLF, files for spreadsheets (a byte order mark, semicolons and
// decimal commas), formula neutralising, times in the owner's zone, the
// text encodings of imported files, their delimiters and line ends, and
// the number, date and unit forms of other programs' exports.
package csvfile

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"io"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/shopspring/decimal"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/number"
)

// timeLayout is the JSON answers' layout, up to microseconds: Z in UTC,
// else the zone's offset.
const timeLayout = "2006-01-02T15:04:05.999999Z07:00"

// Writer writes records as CSV rows. Call Flush at the end (and whenever
// the rows so far should reach the client).
//
// Records end with CRLF (RFC 4180), but the bytes inside a field are
// written unchanged: encoding/csv with UseCRLF writes a field's LF as CRLF,
// which every other reader (Python's csv, spreadsheets) then returns as
// CRLF. So each record is encoded with UseCRLF off (LF and CR inside quoted
// fields kept as they are) into buf, and only its final LF becomes CRLF.
// The one change to a text is the apostrophe Neutralize puts before one
// that a spreadsheet would run as a formula.
//
// Our own import is not that exact: the readers, like encoding/csv's
// Reader, return a CRLF inside a quoted field as LF, and trim every value,
// so a remark with CRLF line breaks or with leading or trailing white space
// comes back changed.
type Writer struct {
	out *bufio.Writer
	buf bytes.Buffer // one encoded record, reused
	cw  *csv.Writer  // writes into buf
	// spreadsheet and decimalComma: see NewSpreadsheetWriter.
	spreadsheet, decimalComma bool
	// loc is the zone of the times written (InZone); nil is UTC.
	loc *time.Location
}

// NewWriter returns a Writer on w.
func NewWriter(w io.Writer) *Writer {
	wr := &Writer{out: bufio.NewWriter(w)}
	wr.cw = csv.NewWriter(&wr.buf)
	return wr
}

// NewSpreadsheetWriter returns a Writer for a spreadsheet program, which
// opens a CSV file in the conventions of the system's language: the file
// starts with a UTF-8 byte order mark (without it Excel reads the system's
// legacy code page, and ü becomes Ã¼), and with decimalComma (a language
// that writes 1,5: DecimalComma) fields are separated by semicolons and
// the quantities written with a decimal comma, as Excel there expects.
// Its text fields are neutralised as every Writer's are (Neutralize).
func NewSpreadsheetWriter(w io.Writer, decimalComma bool) *Writer {
	wr := NewWriter(w)
	wr.spreadsheet, wr.decimalComma = true, decimalComma
	if decimalComma {
		wr.cw.Comma = ';'
	}
	return wr
}

// InZone makes w write times as the wall clock of loc with its offset
// (2026-10-05T08:00:00+02:00 for 06:00 UTC in Berlin), as an owner reads
// them; nil or UTC writes them in UTC with Z. Every reader of RFC 3339,
// our import too, finds the same instant in either form. Returns w.
func (w *Writer) InZone(loc *time.Location) *Writer {
	w.loc = loc
	return w
}

// Time is t as w writes times. Where loc's wall clock cannot be written
// in RFC 3339, the time is written in UTC: an offset with seconds (local
// mean time, Amsterdam's +00:19:32 until 1937), which RFC 3339 has no
// form for and Format would cut to whole minutes, or a year beyond 9999
// (the last microsecond of 9999 in UTC is 10000 in Berlin).
func (w *Writer) Time(t time.Time) string {
	if w.loc != nil {
		l := t.In(w.loc)
		if _, off := l.Zone(); off%60 == 0 && l.Year() <= 9999 {
			return l.Format(timeLayout)
		}
	}
	return t.UTC().Format(timeLayout)
}

// DecimalComma reports whether lang writes numbers with a decimal comma,
// by CLDR's number formats (golang.org/x/text/message): German, French,
// Spanish, Russian, Brazilian Portuguese do; English, Chinese, Japanese and
// Swiss German do not.
func DecimalComma(lang language.Tag) bool {
	return strings.Contains(message.NewPrinter(lang).Sprint(number.Decimal(1.5)), ",")
}

// WriteHeader writes header as the first row, after the byte order mark
// of a spreadsheet's file.
func (w *Writer) WriteHeader(header []string) error {
	if w.spreadsheet {
		if _, err := w.out.WriteString("\ufeff"); err != nil {
			return err
		}
	}
	return w.WriteRow(header)
}

// formulaStarts are the characters that make a spreadsheet read a cell as
// a formula when they come first: OWASP's = + - @, and their full-width
// forms, which some spreadsheets are reported to read as the ASCII ones
// (Excel with an East Asian input method). They count after leading white
// space too, in case a program skips it. A leading tab or CR is on
// OWASP's list on its own (formulaControls). An apostrophe before a rare
// harmless text costs less than finding out which program does what.
const (
	formulaStarts   = "=+-@\uff1d\uff0b\uff0d\uff20"
	formulaControls = "\t\r"
)

// Neutralize is a text field as an export writes it: a text that a
// spreadsheet would take for a formula gets a leading apostrophe, which
// keeps it text (OWASP's advice on CSV injection), so that opening the
// file, plain or for a spreadsheet, runs nothing that another member of a
// shared vehicle typed. A text whose first character after white space is
// an apostrophe gets one too: Restore then takes exactly one back off,
// and every text comes back as it was written (but for the trimming the
// readers do anyway). Numbers are never passed through here: a quantity
// stays a number in the spreadsheet.
func Neutralize(s string) string {
	if s == "" {
		return s
	}
	first, _ := utf8.DecodeRuneInString(strings.TrimLeftFunc(s, unicode.IsSpace))
	if strings.ContainsRune(formulaStarts+"'", first) || strings.ContainsRune(formulaControls, rune(s[0])) {
		return "'" + s
	}
	return s
}

// Restore undoes Neutralize on a trimmed text field of this service's own
// export: one leading apostrophe is dropped. Files of other programs are
// read as they are (the readers apply it to their own format only).
func Restore(s string) string { return strings.TrimPrefix(s, "'") }

// Quantity is d as the Writer writes numbers (a decimal comma in a
// spreadsheet file for such a language).
func (w *Writer) Quantity(d decimal.Decimal) string {
	s := d.String()
	if w.decimalComma {
		s = strings.Replace(s, ".", ",", 1)
	}
	return s
}

// WriteRow writes one row; its text fields must have been passed through
// Neutralize.
func (w *Writer) WriteRow(rec []string) error {
	w.buf.Reset()
	if err := w.cw.Write(rec); err != nil {
		return err
	}
	w.cw.Flush() // into buf: cannot fail
	b := w.buf.Bytes()
	b = b[:len(b)-1] // the record's LF
	if _, err := w.out.Write(b); err != nil {
		return err
	}
	_, err := w.out.WriteString("\r\n")
	return err
}

// Flush writes buffered rows to the underlying writer and reports any
// write error so far.
func (w *Writer) Flush() error { return w.out.Flush() }
