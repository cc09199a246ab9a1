// Package refuelcsv writes refuel records as CSV (RFC 4180, the JSON field
// names as header) and reads CSV files of refuels: the service's own
// export and the fuel-up exports of Fuelly and LubeLogger, converting their
// units to liters and kilometres and their local times (in the owner's
// zone) to UTC. Every file is written and read by csvfile's rules.
package refuelcsv

import (
	"io"
	"strconv"
	"time"

	"github.com/carhub/backend/services/fuel/internal/csvfile"
	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// Header is the header row of an export: the JSON field names of a
// RefuelRecord, in the order of the JSON answers, but for currency and
// home_amount, which came later and go last (a program that reads the
// columns by position still finds the others where they were). unit is
// the unit of liters and price_per_liter (l, kWh or kg), derived from
// energy; currency is empty for the home currency.
var Header = []string{
	"id", "vehicle_id", "refuel_time", "odometer_km", "fuel_type", "energy", "unit", "liters", "total_amount",
	"price_per_liter", "station_name", "is_full", "missed_previous", "remark", "created_at", "updated_at",
	"currency", "home_amount",
}

// Writer writes refuels as CSV rows (csvfile.Writer). Call Flush at the
// end (and whenever the rows so far should reach the client).
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

// InZone makes w write times in loc, as csvfile.Writer.InZone. Returns w.
func (w *Writer) InZone(loc *time.Location) *Writer {
	w.w.InZone(loc)
	return w
}

// WriteHeader writes the header row (after the byte order mark of a
// spreadsheet's file).
func (w *Writer) WriteHeader() error { return w.w.WriteHeader(Header) }

// Write writes one refuel.
func (w *Writer) Write(r fuel.Refuel) error {
	rec := w.rec
	rec[0] = strconv.FormatUint(r.ID, 10)
	rec[1] = strconv.FormatUint(r.VehicleID, 10)
	rec[2] = w.w.Time(r.RefuelTime)
	rec[3] = w.w.Quantity(r.Odometer)
	rec[4] = csvfile.Neutralize(r.FuelType)
	rec[5] = string(r.Energy)
	rec[6] = r.Energy.Unit()
	rec[7] = w.w.Quantity(r.Liters)
	rec[8] = w.w.Quantity(r.TotalAmount)
	rec[9] = w.w.Quantity(r.PricePerLiter)
	rec[10] = csvfile.Neutralize(r.StationName)
	rec[11] = strconv.FormatBool(r.IsFull)
	rec[12] = strconv.FormatBool(r.MissedPrevious)
	rec[13] = csvfile.Neutralize(r.Remark)
	rec[14] = w.w.Time(r.CreatedAt)
	rec[15] = w.w.Time(r.UpdatedAt)
	rec[16], rec[17] = r.Currency, ""
	if r.HomeAmount.Valid {
		rec[17] = w.w.Quantity(r.HomeAmount.Decimal)
	}
	return w.w.WriteRow(rec)
}

// Flush writes buffered rows to the underlying writer and reports any
// write error so far.
func (w *Writer) Flush() error { return w.w.Flush() }
