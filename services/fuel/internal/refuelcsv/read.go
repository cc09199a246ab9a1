package refuelcsv

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
	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// The file formats Read knows, told apart by their header.
const (
	FormatNative     = "native"     // this service's export
	FormatFuelly     = "fuelly"     // Fuelly's fuel-up export
	FormatLubeLogger = "lubelogger" // LubeLogger's gas record export
)

// MaxRowErrors bounds the bad rows an answer lists; Result.BadRows counts
// them all.
const MaxRowErrors = 1000

// Options configure Read.
type Options struct {
	VehicleID    uint64
	FuelType     string // for files without a fuel type column (the vehicle's)
	VolumeUnit   string // l (default), gal_us, gal_uk
	DistanceUnit string // km (default), mi
	DateFormat   string // "" (detect), mdy, dmy, ymd

	// semicolons is set by Read for a semicolon-separated file: its
	// numbers use the decimal comma, so '.' and ',' swap roles.
	semicolons bool
}

// RowError is one bad row: Row is the line of the file where the row
// begins (the header is line 1), as an editor shows it.
type RowError struct {
	Row    int    `json:"row"`
	Reason string `json:"reason"`
}

// Result is what Read found.
type Result struct {
	Format  string
	Rows    int           // data rows read
	Refuels []fuel.Refuel // one per good row, normalized and valid
	Errors  []RowError    // at most MaxRowErrors
	BadRows int
}

// column names per format; each maps a header (lower case) to a role.
type role int

const (
	colNone role = iota
	colTime
	colOdometer
	colFuelType
	colVolume
	colAmount
	colPrice // per volume unit: amount = price × volume
	colStation
	colFull
	colPartial // true: not full
	colMissed
	colRemark
)

// Columns of each format, mapped explicitly. Fuelly's export header is
// car_name,model,mpg,odometer,miles,gallons,price,city_percentage,
// fuelup_date,date_added,tags,notes,missed_fuelup,partial_fuelup,latitude,
// longitude,brand; LubeLogger's gas record export is Date,Odometer,
// FuelConsumed,Cost,FuelEconomy,IsFillToFull,MissedFuelUp,Notes (newer
// versions add Tags, ExtraFields and more). Columns not listed are ignored.
var formats = map[string]map[string]role{
	FormatNative: {
		"refuel_time": colTime, "odometer": colOdometer, "fuel_type": colFuelType, "liters": colVolume,
		"total_amount": colAmount, "station_name": colStation, "is_full": colFull,
		"missed_previous": colMissed, "remark": colRemark,
	},
	FormatFuelly: {
		"fuelup_date": colTime, "odometer": colOdometer, "gallons": colVolume, "price": colPrice,
		"brand": colStation, "partial_fuelup": colPartial, "missed_fuelup": colMissed, "notes": colRemark,
	},
	FormatLubeLogger: {
		"date": colTime, "odometer": colOdometer, "fuelconsumed": colVolume, "cost": colAmount,
		"isfilltofull": colFull, "missedfuelup": colMissed, "notes": colRemark,
	},
}

// required columns per format.
var required = map[string][]role{
	FormatNative:     {colTime, colOdometer, colFuelType, colVolume, colAmount},
	FormatFuelly:     {colTime, colOdometer, colVolume, colPrice},
	FormatLubeLogger: {colTime, colOdometer, colVolume, colAmount},
}

var roleNames = map[role]string{
	colTime: "date", colOdometer: "odometer", colFuelType: "fuel_type", colVolume: "volume",
	colAmount: "total amount", colPrice: "price",
}

// detect tells the format from the header.
func detect(header []string) (string, map[role]int, error) {
	has := make(map[string]int, len(header))
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(h))
		if _, dup := has[h]; !dup {
			has[h] = i
		}
	}
	var format string
	switch {
	case hasAll(has, "refuel_time", "liters"):
		format = FormatNative
	case hasAll(has, "fuelup_date", "gallons"):
		format = FormatFuelly
	case hasAll(has, "date", "fuelconsumed"):
		format = FormatLubeLogger
	default:
		return "", nil, apperr.Invalid("file", "header is not one of this service's export (refuel_time, liters, ...), Fuelly's (fuelup_date, gallons, ...) or LubeLogger's (Date, FuelConsumed, ...)")
	}
	cols := make(map[role]int)
	for name, r := range formats[format] {
		if i, ok := has[name]; ok {
			cols[r] = i
		}
	}
	for _, r := range required[format] {
		if _, ok := cols[r]; !ok {
			return "", nil, apperr.Invalid("file", "%s file lacks its %s column", format, roleNames[r])
		}
	}
	return format, cols, nil
}

func hasAll(has map[string]int, names ...string) bool {
	for _, n := range names {
		if _, ok := has[n]; !ok {
			return false
		}
	}
	return true
}

// Read reads a CSV file of refuels. A file-level problem (not CSV, no
// known header, an unknown unit) is an INVALID_ARGUMENT error; bad rows are
// listed in the Result, and the good rows are returned beside them.
func Read(r io.Reader, opts Options) (Result, error) {
	var res Result
	volume, ok := volumeUnits[orDefault(opts.VolumeUnit, "l")]
	if !ok {
		return res, apperr.Invalid("volume_unit", "must be one of %s", strings.Join(VolumeUnits, ", "))
	}
	distance, ok := distanceUnits[orDefault(opts.DistanceUnit, "km")]
	if !ok {
		return res, apperr.Invalid("distance_unit", "must be one of %s", strings.Join(DistanceUnits, ", "))
	}
	if opts.DateFormat != "" && !ValidDateFormat(opts.DateFormat) {
		return res, apperr.Invalid("date_format", "must be one of %s", strings.Join(DateFormats, ", "))
	}

	br := bufio.NewReaderSize(r, 64<<10)
	cr := csv.NewReader(br)
	cr.Comma = delimiter(br)
	opts.semicolons = cr.Comma == ';'
	cr.FieldsPerRecord = -1 // rows are checked against the header below
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return res, apperr.Invalid("file", "is empty")
	}
	if err != nil {
		return res, apperr.Invalid("file", "is not CSV: %s", csvReason(err))
	}
	if len(header) > 0 {
		header[0] = strings.TrimPrefix(header[0], "\ufeff") // a spreadsheet's byte order mark
	}
	format, cols, err := detect(header)
	if err != nil {
		return res, err
	}
	res.Format = format

	// Dates are read once every row is in: the date order of a file is
	// decided over its whole column.
	type pending struct {
		row   int
		rec   []string
		short bool
	}
	var rows []pending
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			// A broken quote leaves the reader unable to find the rest of
			// the rows: the file is refused as a whole.
			return res, apperr.Invalid("file", "is not CSV: %s", csvReason(err))
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue // a line of spaces
		}
		line, _ := cr.FieldPos(0)
		res.Rows++
		rows = append(rows, pending{row: line, rec: rec, short: len(rec) < len(header)})
	}

	dates := make([]string, len(rows))
	for i, p := range rows {
		dates[i] = field(p.rec, cols, colTime)
	}
	order := opts.DateFormat
	if order == "" && format != FormatNative {
		order = detectDateOrder(dates)
	}

	for _, p := range rows {
		var (
			ref fuel.Refuel
			err error
		)
		if p.short {
			err = fmt.Errorf("has %d fields, the header has %d", len(p.rec), len(header))
		} else {
			ref, err = toRefuel(p.rec, cols, format, order, volume, distance, opts)
		}
		if err != nil {
			res.BadRows++
			if len(res.Errors) < MaxRowErrors {
				res.Errors = append(res.Errors, RowError{Row: p.row, Reason: err.Error()})
			}
			continue
		}
		res.Refuels = append(res.Refuels, ref)
	}
	return res, nil
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

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// field returns the trimmed value of a role's column ("" when absent).
func field(rec []string, cols map[role]int, r role) string {
	i, ok := cols[r]
	if !ok || i >= len(rec) {
		return ""
	}
	return strings.TrimSpace(rec[i])
}

// toRefuel turns one row into a normalized, valid refuel or says why not.
func toRefuel(rec []string, cols map[role]int, format, order string, volume, distance decimal.Decimal, opts Options) (fuel.Refuel, error) {
	r := fuel.Refuel{VehicleID: opts.VehicleID, FuelType: opts.FuelType}
	var err error
	if r.RefuelTime, err = parseDate(field(rec, cols, colTime), format, order); err != nil {
		return r, fmt.Errorf("%s: %w", headerName(format, colTime), err)
	}
	odo, err := parseNumber(headerName(format, colOdometer), field(rec, cols, colOdometer), opts.semicolons)
	if err != nil {
		return r, err
	}
	r.Odometer = odo.Mul(distance)
	vol, err := parseNumber(headerName(format, colVolume), field(rec, cols, colVolume), opts.semicolons)
	if err != nil {
		return r, err
	}
	r.Liters = vol.Mul(volume)
	if _, ok := cols[colPrice]; ok {
		price, err := parseNumber(headerName(format, colPrice), field(rec, cols, colPrice), opts.semicolons)
		if err != nil {
			return r, err
		}
		r.TotalAmount = price.Mul(vol)
	} else {
		if r.TotalAmount, err = parseNumber(headerName(format, colAmount), field(rec, cols, colAmount), opts.semicolons); err != nil {
			return r, err
		}
	}
	if _, ok := cols[colFuelType]; ok {
		r.FuelType = field(rec, cols, colFuelType)
	}
	r.StationName = field(rec, cols, colStation)
	r.Remark = field(rec, cols, colRemark)
	switch format {
	case FormatFuelly:
		// Rows of Fuelly and LubeLogger are full fill-ups unless flagged
		// partial (decisions.md).
		partial, err := parseBool(headerName(format, colPartial), field(rec, cols, colPartial))
		if err != nil {
			return r, err
		}
		r.IsFull = !partial
	case FormatLubeLogger:
		r.IsFull = true
		if _, ok := cols[colFull]; ok && field(rec, cols, colFull) != "" {
			if r.IsFull, err = parseBool(headerName(format, colFull), field(rec, cols, colFull)); err != nil {
				return r, err
			}
		}
	default:
		if r.IsFull, err = parseBool("is_full", field(rec, cols, colFull)); err != nil {
			return r, err
		}
	}
	if r.MissedPrevious, err = parseBool(headerName(format, colMissed), field(rec, cols, colMissed)); err != nil {
		return r, err
	}
	r.Normalize()
	if err := r.Validate(); err != nil {
		var ae *apperr.Error
		if errors.As(err, &ae) {
			return r, errors.New(ae.Message)
		}
		return r, err
	}
	return r, nil
}

// headerName is the file's name of a role's column, for messages.
func headerName(format string, r role) string {
	for name, rr := range formats[format] {
		if rr == r {
			if format == FormatLubeLogger {
				return lubeLoggerNames[name]
			}
			return name
		}
	}
	return roleNames[r]
}

var lubeLoggerNames = map[string]string{
	"date": "Date", "odometer": "Odometer", "fuelconsumed": "FuelConsumed", "cost": "Cost",
	"isfilltofull": "IsFillToFull", "missedfuelup": "MissedFuelUp", "notes": "Notes",
}

// maxNumber bounds a number's text; anything longer is no quantity.
const maxNumber = 40

// parseNumber reads a non-negative decimal as exported by fuel trackers:
// an optional currency sign ($ € £), thousands separators, and a decimal
// comma when it is the only separator and not followed by exactly three
// digits ("45,67"; "1,234" is one thousand two hundred thirty-four). In a
// semicolon-separated file '.' and ',' swap roles ("1.234,5", "1.500").
func parseNumber(name, s string, swap bool) (decimal.Decimal, error) {
	if s == "" {
		return decimal.Zero, fmt.Errorf("%s: is required", name)
	}
	if len(s) > maxNumber {
		return decimal.Zero, fmt.Errorf("%s: is longer than %d characters", name, maxNumber)
	}
	t := strings.TrimLeft(s, "$€£ ")
	t = strings.ReplaceAll(t, " ", "")
	if swap {
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

// parseBool reads true/false, 1/0, yes/no in any case; "" is false.
func parseBool(name, s string) (bool, error) {
	switch strings.ToLower(s) {
	case "", "0", "false", "no", "n", "f":
		return false, nil
	case "1", "true", "yes", "y", "t":
		return true, nil
	}
	return false, fmt.Errorf("%s: %q is not a boolean (true/false, 1/0)", name, s)
}

var (
	ymdDate   = regexp.MustCompile(`^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?:[ T]+(.*))?$`)
	otherDate = regexp.MustCompile(`^(\d{1,2})[-/.](\d{1,2})[-/.](\d{4})(?:[ T,]+(.*))?$`)
	clock     = regexp.MustCompile(`^(\d{1,2}):(\d{2})(?::(\d{2}))?\s*([AaPp][Mm])?$`)
)

// detectDateOrder decides day first or month first over a whole column of
// d/m/y dates: a first part above 12 means day first, a second part above
// 12 month first; a column that says neither is read month first (the
// en-US default of Fuelly and LubeLogger exports). A column that says both
// is left to the rows, which then fail one way or the other.
func detectDateOrder(dates []string) string {
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

// parseDate reads a refuel time: RFC 3339 (any format), or a date with an
// optional time of day in UTC; a date alone is midnight UTC.
func parseDate(s, format, order string) (time.Time, error) {
	if s == "" {
		return time.Time{}, errors.New("is required")
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if format == FormatNative && order == "" {
		return time.Time{}, fmt.Errorf("%q is not an RFC 3339 timestamp with a zone", s)
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
		return time.Time{}, fmt.Errorf("%q is not a calendar date (read as %s)", s, orDefault(order, "mdy"))
	}
	t := midnight(y, time.Month(m), d)
	if rest = strings.TrimSpace(rest); rest != "" {
		c := clock.FindStringSubmatch(rest)
		if c == nil {
			return time.Time{}, fmt.Errorf("%q has no time of day this service reads (HH:MM[:SS] [AM|PM])", s)
		}
		h, _ := strconv.Atoi(c[1])
		mi, _ := strconv.Atoi(c[2])
		sec := 0
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
		t = t.Add(time.Duration(h)*time.Hour + time.Duration(mi)*time.Minute + time.Duration(sec)*time.Second)
	}
	return t, nil
}

func daysIn(y int, m time.Month) int { return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day() }
