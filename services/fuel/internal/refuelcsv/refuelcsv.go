// Package refuelcsv writes refuel records as CSV (RFC 4180, the JSON field
// names as header) and reads CSV files of refuels: the service's own
// export and the fuel-up exports of Fuelly and LubeLogger, converting their
// units to liters and kilometres.
package refuelcsv

import (
	"encoding/csv"
	"io"
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// Header is the header row of an export: the JSON field names of a
// RefuelRecord, in the order of the JSON answers.
var Header = []string{
	"id", "vehicle_id", "refuel_time", "odometer", "fuel_type", "liters", "total_amount", "price_per_liter",
	"station_name", "is_full", "missed_previous", "remark", "created_at", "updated_at",
}

// timeLayout is the JSON answers' layout: UTC, Z, up to microseconds.
const timeLayout = "2006-01-02T15:04:05.999999Z07:00"

// Writer writes refuels as CSV rows. Call Flush at the end (and whenever
// the rows so far should reach the client).
type Writer struct {
	w   *csv.Writer
	rec []string
}

// NewWriter returns a Writer on w.
func NewWriter(w io.Writer) *Writer {
	cw := csv.NewWriter(w)
	// RFC 4180 ends records with CRLF. encoding/csv then writes line breaks
	// inside quoted text as CRLF too; its reader turns them back into LF,
	// so text keeps its LF line breaks through a round trip.
	cw.UseCRLF = true
	return &Writer{w: cw, rec: make([]string, len(Header))}
}

// WriteHeader writes the header row.
func (w *Writer) WriteHeader() error { return w.w.Write(Header) }

// Write writes one refuel.
func (w *Writer) Write(r fuel.Refuel) error {
	rec := w.rec
	rec[0] = strconv.FormatUint(r.ID, 10)
	rec[1] = strconv.FormatUint(r.VehicleID, 10)
	rec[2] = r.RefuelTime.UTC().Format(timeLayout)
	rec[3] = r.Odometer.String()
	rec[4] = r.FuelType
	rec[5] = r.Liters.String()
	rec[6] = r.TotalAmount.String()
	rec[7] = r.PricePerLiter.String()
	rec[8] = r.StationName
	rec[9] = strconv.FormatBool(r.IsFull)
	rec[10] = strconv.FormatBool(r.MissedPrevious)
	rec[11] = r.Remark
	rec[12] = r.CreatedAt.UTC().Format(timeLayout)
	rec[13] = r.UpdatedAt.UTC().Format(timeLayout)
	return w.w.Write(rec)
}

// Flush writes buffered rows to the underlying writer and reports any
// write error so far.
func (w *Writer) Flush() error {
	w.w.Flush()
	return w.w.Error()
}

// Units of the files read.
var (
	volumeUnits = map[string]decimal.Decimal{
		"l":      decimal.NewFromInt(1),
		"gal_us": decimal.RequireFromString("3.785411784"), // exact by definition
		"gal_uk": decimal.RequireFromString("4.54609"),     // exact by definition
	}
	distanceUnits = map[string]decimal.Decimal{
		"km": decimal.NewFromInt(1),
		"mi": decimal.RequireFromString("1.609344"), // exact by definition
	}
)

// VolumeUnits and DistanceUnits list the accepted unit names.
var (
	VolumeUnits   = []string{"l", "gal_us", "gal_uk"}
	DistanceUnits = []string{"km", "mi"}
	DateFormats   = []string{"mdy", "dmy", "ymd"}
)

// ValidVolumeUnit and friends report whether a query value is known.
func ValidVolumeUnit(u string) bool   { _, ok := volumeUnits[u]; return ok }
func ValidDistanceUnit(u string) bool { _, ok := distanceUnits[u]; return ok }
func ValidDateFormat(f string) bool   { return f == "mdy" || f == "dmy" || f == "ymd" }

// midnight is the time of a date given without one.
func midnight(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
