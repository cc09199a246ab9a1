// Package receipt reads the text of a photographed receipt (a fuel
// station's, a charging session's, a workshop's invoice) into the fields of
// a record: date, time, quantity, unit, unit price, total, currency,
// energy, vendor, odometer. It is the rules half of issue 56's scan; the
// OCR half is package ocr, the HTTP half the receipts endpoint.
//
// A field the receipt does not print is absent, never guessed: a wrong
// total is worse than none, since the owner sees a filled field as done.
// So every rule here prefers to give up: an ambiguous date (11/10/2026
// with nothing saying the country) is absent, a total with two candidates
// of equal standing is absent, a missing quantity is only filled from the
// amount and the unit price when the three agree to the cent.
//
// Numbers come back as decimal strings (shopspring/decimal inside, never
// binary floating point), dates as YYYY-MM-DD, times as HH:MM, the unit as
// l, gal (US), kWh or kg, the unit price in major units of the currency per
// unit (152.9p/l reads 1.529 GBP), the currency as ISO 4217, the energy
// with the fuel service's names (gasoline, diesel, lpg, cng, electricity,
// hydrogen).
package receipt

import (
	"strings"
	"time"
)

// Kind is what a receipt records.
type Kind string

// The kinds of receipt.
const (
	Fuel    Kind = "fuel"    // liquid or gaseous fuel at a pump
	Charge  Kind = "charge"  // electricity at a charger (kWh)
	Expense Kind = "expense" // a workshop invoice or any other bill with a total
	Unknown Kind = "unknown" // no total, no fuel: nothing to record
)

// The fields a Reading may hold (the keys of Reading.Fields).
const (
	Date      = "date"
	Time      = "time"
	Quantity  = "quantity"
	Unit      = "unit"
	UnitPrice = "unit_price"
	Total     = "total"
	Currency  = "currency"
	Energy    = "energy"
	Vendor    = "vendor"
	Odometer  = "odometer"
)

// Fields lists every field, in the order the API documents them.
var Fields = []string{Date, Time, Quantity, Unit, UnitPrice, Total, Currency, Energy, Vendor, Odometer}

// Box is a rectangle as fractions of the image (origin top left): X, Y,
// W, H in 0..1. The zero Box means "no box known".
type Box struct{ X, Y, W, H float64 }

// IsZero reports whether b is the zero Box.
func (b Box) IsZero() bool { return b == Box{} }

// union is the smallest box holding a and b (the zero box holds nothing).
func (a Box) union(b Box) Box {
	switch {
	case a.IsZero():
		return b
	case b.IsZero():
		return a
	}
	x0, y0 := min(a.X, b.X), min(a.Y, b.Y)
	x1, y1 := max(a.X+a.W, b.X+b.W), max(a.Y+a.H, b.Y+b.H)
	return Box{X: x0, Y: y0, W: x1 - x0, H: y1 - y0}
}

// Line is one line of the receipt as OCR read it: its text, its box (zero
// when unknown, as for plain text) and the mean confidence of its words
// (0..100; 0 when unknown, which counts as sure).
type Line struct {
	Text       string
	Box        Box
	Confidence float64
}

// Options tell the reader what the receipt cannot.
type Options struct {
	// Region is the owner's country (ISO 3166-1 alpha-2, "DE", "US"),
	// used only to order a date's day and month when the receipt itself
	// gives no clue (no $ with gallons, no language); empty leaves such a
	// date absent.
	Region string
	// Now bounds the plausible dates (none after Now plus a day, none
	// before 2000) and is the century of two-digit years; zero means
	// time.Now().
	Now time.Time
}

// Reading is what was read from a receipt. Fields holds only what the
// receipt prints; Confidence (0..1) and Boxes have an entry for each field
// of Fields (Boxes only when the lines had boxes).
type Reading struct {
	Kind       Kind
	Fields     map[string]string
	Confidence map[string]float64
	Boxes      map[string]Box
}

// Read reads the plain text of a receipt, one line of the receipt a line.
func Read(text string, opts Options) Reading {
	var lines []Line
	for l := range strings.SplitSeq(text, "\n") {
		lines = append(lines, Line{Text: l})
	}
	return ReadLines(lines, opts)
}

// ReadLines reads a receipt given as OCR lines with their boxes (see
// FromWords for Tesseract's words).
func ReadLines(lines []Line, opts Options) Reading {
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	r := newReader(lines, opts)
	return r.read()
}
