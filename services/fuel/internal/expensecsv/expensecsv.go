// Package expensecsv writes a vehicle's expenses as CSV and reads CSV files
// of expenses: the service's own export, LubeLogger's service, repair,
// upgrade and tax record exports, and the costs of a Fuelio backup. It
// writes and reads with csvfile's rules (RFC 4180, spreadsheet files,
// formula neutralising, delimiters, number and date forms), so every CSV
// file of the service behaves alike.
package expensecsv

import (
	"encoding/json"
	"io"
	"strconv"
	"time"

	"github.com/carhub/backend/services/fuel/internal/csvfile"
	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// Header is the header row of an export: the JSON field names of an
// expense, odometer with its unit. items and tags are JSON arrays (the
// API's shape), so the file goes back in without loss.
var Header = []string{
	"id", "vehicle_id", "time", "odometer_km", "category", "title", "amount", "vendor", "notes", "items", "tags",
	"created_at", "updated_at",
}

// Writer writes expenses as CSV rows. Call Flush at the end.
type Writer struct {
	w   *csvfile.Writer
	rec []string
}

// NewWriter returns a Writer on w.
func NewWriter(w io.Writer) *Writer {
	return &Writer{w: csvfile.NewWriter(w), rec: make([]string, len(Header))}
}

// NewSpreadsheetWriter returns a Writer for a spreadsheet program, as
// csvfile.NewSpreadsheetWriter.
func NewSpreadsheetWriter(w io.Writer, decimalComma bool) *Writer {
	return &Writer{w: csvfile.NewSpreadsheetWriter(w, decimalComma), rec: make([]string, len(Header))}
}

// InZone makes w write times in loc, as csvfile's Writer.InZone.
// Returns w.
func (w *Writer) InZone(loc *time.Location) *Writer {
	w.w.InZone(loc)
	return w
}

// WriteHeader writes the header row.
func (w *Writer) WriteHeader() error { return w.w.WriteHeader(Header) }

// itemJSON is an item in the items column: the API's member names, the
// numbers as JSON numbers written exactly.
type itemJSON struct {
	Name       string      `json:"name"`
	PartNumber string      `json:"part_number"`
	Quantity   json.Number `json:"quantity"`
	UnitPrice  json.Number `json:"unit_price"`
}

// Write writes one expense.
func (w *Writer) Write(e fuel.Expense) error {
	items := make([]itemJSON, len(e.Items))
	for i, it := range e.Items {
		items[i] = itemJSON{Name: it.Name, PartNumber: it.PartNumber, Quantity: json.Number(it.Quantity.String()), UnitPrice: json.Number(it.UnitPrice.String())}
	}
	ib, err := json.Marshal(items)
	if err != nil {
		return err
	}
	tags := e.Tags
	if tags == nil {
		tags = []string{}
	}
	tb, err := json.Marshal(tags)
	if err != nil {
		return err
	}
	rec := w.rec
	rec[0] = strconv.FormatUint(e.ID, 10)
	rec[1] = strconv.FormatUint(e.VehicleID, 10)
	rec[2] = w.w.Time(e.Time)
	rec[3] = ""
	if e.Odometer.Valid {
		rec[3] = w.w.Quantity(e.Odometer.Decimal)
	}
	rec[4] = e.Category
	rec[5] = csvfile.Neutralize(e.Title)
	rec[6] = w.w.Quantity(e.Amount)
	rec[7] = csvfile.Neutralize(e.Vendor)
	rec[8] = csvfile.Neutralize(e.Notes)
	// JSON starts with [ : never a formula.
	rec[9] = string(ib)
	rec[10] = string(tb)
	rec[11] = w.w.Time(e.CreatedAt)
	rec[12] = w.w.Time(e.UpdatedAt)
	return w.w.WriteRow(rec)
}

// Flush writes buffered rows and reports any write error so far.
func (w *Writer) Flush() error { return w.w.Flush() }
