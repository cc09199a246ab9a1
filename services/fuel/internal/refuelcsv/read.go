package refuelcsv

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/services/fuel/internal/csvfile"
	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// The file formats Read knows, told apart by their header.
const (
	FormatNative     = "native"     // this service's export
	FormatFuelly     = "fuelly"     // Fuelly's fuel-up export
	FormatLubeLogger = "lubelogger" // LubeLogger's gas record export
)

// Options configure Read.
type Options struct {
	VehicleID uint64
	// FuelType is the vehicle's fuel_type, the fuel type of rows of files
	// without a fuel type column (Fuelly, LubeLogger).
	FuelType string
	// Energy is the energy of rows that name none: every row of Fuelly and
	// LubeLogger files, and rows of ours without an energy column or with
	// an empty one. The caller sets the vehicle's default,
	// fuel.DefaultEnergy(vehicle.FuelType); "" means exactly that, from
	// FuelType.
	Energy fuel.Energy
	// VolumeUnit and DistanceUnit are the units of the file's quantities
	// and odometer readings: l (default), gal_us, gal_uk and km (default),
	// mi. A Fuelly file whose header names metric units (a litres or km
	// column) is read in those; giving another unit for it is an error.
	// VolumeUnit converts only quantities in liters: kWh and kg rows are
	// read as they are.
	VolumeUnit   string
	DistanceUnit string
	DateFormat   string // "" (detect), mdy, dmy, ymd
	// Location is the owner's time zone: dates and times without an
	// offset are read in it, a date alone as its midnight there (see
	// localTime for the days of a DST change). RFC 3339 timestamps keep
	// their own offset. nil means UTC.
	Location *time.Location

	// semicolons is set by Read for a semicolon-separated file: its
	// numbers use the decimal comma, so '.' and ',' swap roles.
	semicolons bool
}

// Check refuses the options a caller may give that are unknown
// (volume_unit, distance_unit, date_format), naming each bad one in one
// error (apperr.Join).
func (o Options) Check() error {
	return apperr.Join(csvfile.CheckVolumeUnit(o.VolumeUnit), csvfile.CheckDistanceUnit(o.DistanceUnit), csvfile.CheckDateFormat(o.DateFormat))
}

// Result is what Read found.
type Result struct {
	Format  string
	Rows    int                // data rows read
	Refuels []fuel.Refuel      // one per good row, normalized and valid
	Errors  []csvfile.RowError // at most csvfile.MaxRowErrors
	BadRows int
}

// column names per format; each maps a header (lower case) to a role.
type role int

const (
	colNone role = iota
	colTime
	colOdometer
	colFuelType
	colEnergy
	colUnit
	colVolume
	colAmount
	colPrice // per volume unit: amount = price × volume
	colStation
	colFull
	colPartial // true: not full
	colMissed
	colRemark
	colCurrency
	colHomeAmount
)

// layout is one file format as told by its header: its columns and the
// units the header itself names ("" when it leaves them to the caller).
type layout struct {
	format string
	cols   map[string]role
	volume string // a VolumeUnit
}

// The columns of each format, mapped explicitly; columns not listed are
// ignored. Ours may lack energy and unit (files exported before they
// existed), and names the odometer "odometer" in files exported before
// the header carried its unit ("odometer_km"). Fuelly's export header is car_name,model,mpg,odometer,miles,
// gallons,price,city_percentage,fuelup_date,date_added,tags,notes,
// missed_fuelup,partial_fuelup,latitude,longitude,brand; a metric
// account's has l/100km (or km/l), km and litres in place of mpg, miles and
// gallons, and price per litre. LubeLogger's gas record export is Date,
// Odometer,FuelConsumed,Cost,FuelEconomy,IsFillToFull,MissedFuelUp,Notes
// (newer versions add Tags, ExtraFields and more).
var (
	nativeLayout = layout{format: FormatNative, cols: map[string]role{
		"refuel_time": colTime, "odometer": colOdometer, "odometer_km": colOdometer, "fuel_type": colFuelType, "energy": colEnergy,
		"unit": colUnit, "liters": colVolume, "total_amount": colAmount, "station_name": colStation,
		"is_full": colFull, "missed_previous": colMissed, "remark": colRemark,
		"currency": colCurrency, "home_amount": colHomeAmount,
	}}
	fuellyLayout = layout{format: FormatFuelly, cols: map[string]role{
		"fuelup_date": colTime, "odometer": colOdometer, "gallons": colVolume, "price": colPrice,
		"brand": colStation, "partial_fuelup": colPartial, "missed_fuelup": colMissed, "notes": colRemark,
	}}
	fuellyMetricLayout = layout{format: FormatFuelly, volume: "l", cols: map[string]role{
		"fuelup_date": colTime, "odometer": colOdometer, "litres": colVolume, "price": colPrice,
		"brand": colStation, "partial_fuelup": colPartial, "missed_fuelup": colMissed, "notes": colRemark,
	}}
	lubeLoggerLayout = layout{format: FormatLubeLogger, cols: map[string]role{
		"date": colTime, "odometer": colOdometer, "fuelconsumed": colVolume, "cost": colAmount,
		"isfilltofull": colFull, "missedfuelup": colMissed, "notes": colRemark,
	}}
)

// required columns per format.
var required = map[string][]role{
	FormatNative:     {colTime, colOdometer, colFuelType, colVolume, colAmount},
	FormatFuelly:     {colTime, colOdometer, colVolume, colPrice},
	FormatLubeLogger: {colTime, colOdometer, colVolume, colAmount},
}

// roleNames name a role in messages when the file has no column for it.
var roleNames = map[role]string{
	colTime: "date", colOdometer: "odometer", colFuelType: "fuel_type", colEnergy: "energy", colUnit: "unit",
	colVolume: "volume", colAmount: "total amount", colPrice: "price", colStation: "station",
	colFull: "is_full", colPartial: "partial", colMissed: "missed", colRemark: "remark",
	colCurrency: "currency", colHomeAmount: "home_amount",
}

// columns is where a file keeps each role, and what its header calls it.
type columns struct {
	at    map[role]int
	names map[role]string // as the file spells them, for messages
	// distance is the DistanceUnit the header names ("" when it leaves it
	// to the caller).
	distance string
}

// name is the file's name of a role's column, for messages.
func (c columns) name(r role) string {
	if n, ok := c.names[r]; ok {
		return n
	}
	return roleNames[r]
}

// detect tells the format from the header.
func detect(header []string) (layout, columns, error) {
	has := make(map[string]int, len(header))
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(h))
		if _, dup := has[h]; !dup {
			has[h] = i
		}
	}
	var l layout
	switch {
	case hasAll(has, "refuel_time", "liters"):
		l = nativeLayout
	case hasAll(has, "fuelup_date", "gallons"):
		l = fuellyLayout
	case hasAll(has, "fuelup_date", "litres"):
		l = fuellyMetricLayout
	case hasAll(has, "date", "fuelconsumed"):
		l = lubeLoggerLayout
	default:
		return l, columns{}, apperr.Invalid("file", "header is not one of this service's export (refuel_time, liters, ...), Fuelly's (fuelup_date, gallons or litres, ...) or LubeLogger's (Date, FuelConsumed, ...)")
	}
	c := columns{at: make(map[role]int), names: make(map[role]string)}
	for name, r := range l.cols {
		if i, ok := has[name]; ok {
			c.at[r] = i
			c.names[r] = strings.TrimSpace(header[i])
		}
	}
	for _, r := range required[l.format] {
		if _, ok := c.at[r]; !ok {
			return l, c, apperr.Invalid("file", "%s file lacks its %s column", l.format, roleNames[r])
		}
	}
	// Our export names its odometer's unit; a file that says km is read
	// in km whatever the caller's distance_unit.
	if _, km := has["odometer_km"]; km && l.format == FormatNative {
		c.distance = "km"
	}
	// Fuelly names the distance unit of a metric account in its trip
	// distance column (km); miles leave it to the caller, as before.
	if _, km := has["km"]; km && l.format == FormatFuelly {
		if _, mi := has["miles"]; !mi {
			c.distance = "km"
		}
	}
	return l, c, nil
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
// known header, an unknown unit or one the header contradicts) is an
// INVALID_ARGUMENT error; bad rows are listed in the Result, and the good
// rows are returned beside them.
func Read(r io.Reader, opts Options) (Result, error) {
	var res Result
	if err := opts.Check(); err != nil {
		return res, err
	}
	if opts.Energy == "" {
		opts.Energy = fuel.DefaultEnergy(opts.FuelType)
	}
	if _, err := fuel.ParseEnergy("energy", string(opts.Energy)); err != nil {
		return res, err
	}
	if opts.Location == nil {
		opts.Location = time.UTC
	}

	cr := csvfile.NewReader(r) // rows are checked against the header below
	opts.semicolons = cr.Comma == ';'
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return res, apperr.Invalid("file", "is empty")
	}
	if err != nil {
		return res, csvfile.NotCSV(err)
	}
	if len(header) > 0 {
		header[0] = strings.TrimPrefix(header[0], "\ufeff") // a spreadsheet's byte order mark
	}
	lay, cols, err := detect(header)
	if err != nil {
		return res, err
	}
	format := lay.format
	res.Format = format
	volume, distance, err := units(lay, cols, opts)
	if err != nil {
		return res, err
	}

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
			return res, csvfile.NotCSV(err)
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
		order = csvfile.DetectDateOrder(dates)
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
			if len(res.Errors) < csvfile.MaxRowErrors {
				res.Errors = append(res.Errors, csvfile.RowError{Row: p.row, Reason: err.Error()})
			}
			continue
		}
		res.Refuels = append(res.Refuels, ref)
	}
	return res, nil
}

// units returns the factors to liters and kilometres of the file's
// quantities and odometer readings: the units its header names, else the
// caller's, else l and km. A caller's unit that contradicts the header
// (gal_us for a Fuelly litres column) is refused rather than obeyed: one
// of the two is wrong, and the numbers would be off by a factor.
func units(l layout, c columns, opts Options) (volume, distance decimal.Decimal, err error) {
	vu := orDefault(opts.VolumeUnit, "l")
	if l.volume != "" {
		if opts.VolumeUnit != "" && opts.VolumeUnit != l.volume {
			return volume, distance, apperr.Invalid("volume_unit", "is %s, but the file's %s column is in %s: leave volume_unit out", opts.VolumeUnit, c.name(colVolume), l.volume)
		}
		vu = l.volume
	}
	du := orDefault(opts.DistanceUnit, "km")
	if c.distance != "" {
		if opts.DistanceUnit != "" && opts.DistanceUnit != c.distance {
			return volume, distance, apperr.Invalid("distance_unit", "is %s, but the file's header counts distances in %s: leave distance_unit out", opts.DistanceUnit, c.distance)
		}
		du = c.distance
	}
	volume, _ = csvfile.VolumeFactor(vu)
	distance, _ = csvfile.DistanceFactor(du)
	return volume, distance, nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// field returns the trimmed value of a role's column ("" when absent).
func field(rec []string, cols columns, r role) string {
	i, ok := cols.at[r]
	if !ok || i >= len(rec) {
		return ""
	}
	return strings.TrimSpace(rec[i])
}

// toRefuel turns one row into a normalized, valid refuel or says why not.
func toRefuel(rec []string, cols columns, format, order string, volume, distance decimal.Decimal, opts Options) (fuel.Refuel, error) {
	r := fuel.Refuel{VehicleID: opts.VehicleID, FuelType: opts.FuelType, Energy: opts.Energy}
	var err error
	if r.RefuelTime, err = parseDate(field(rec, cols, colTime), format, order, opts.Location); err != nil {
		return r, fmt.Errorf("%s: %w", cols.name(colTime), err)
	}
	odo, err := csvfile.ParseNumber(cols.name(colOdometer), field(rec, cols, colOdometer), opts.semicolons)
	if err != nil {
		return r, err
	}
	r.Odometer = odo.Mul(distance)
	// Only our files have energy and unit columns; the other formats'
	// rows all take opts.Energy.
	energyFrom := "the vehicle's energy"
	if s := field(rec, cols, colEnergy); s != "" {
		if r.Energy, err = parseEnergy(cols.name(colEnergy), s); err != nil {
			return r, err
		}
		energyFrom = cols.name(colEnergy)
	}
	// unit is derived from energy and ignored, but one that names another
	// unit than the row's energy means the file was edited inconsistently
	// (energy changed, or a quantity in the wrong unit): which of the two
	// is right cannot be told, so the row is refused. Empty is fine;
	// case is ignored.
	if s := field(rec, cols, colUnit); s != "" && !strings.EqualFold(s, r.Energy.Unit()) {
		return r, fmt.Errorf("%s: %q contradicts %s %s, counted in %s", cols.name(colUnit), s, energyFrom, r.Energy, r.Energy.Unit())
	}
	vol, err := csvfile.ParseNumber(cols.name(colVolume), field(rec, cols, colVolume), opts.semicolons)
	if err != nil {
		return r, err
	}
	r.Liters = vol
	if r.Energy.Unit() == fuel.UnitLiter {
		// volume_unit is a unit of volume: kWh and kg are not converted.
		r.Liters = vol.Mul(volume)
	}
	if _, ok := cols.at[colPrice]; ok {
		price, err := csvfile.ParseNumber(cols.name(colPrice), field(rec, cols, colPrice), opts.semicolons)
		if err != nil {
			return r, err
		}
		r.TotalAmount = price.Mul(vol)
	} else {
		if r.TotalAmount, err = csvfile.ParseNumber(cols.name(colAmount), field(rec, cols, colAmount), opts.semicolons); err != nil {
			return r, err
		}
	}
	// The texts of our export come neutralised (csvfile.Neutralize); other
	// programs' files are read as they are.
	text := func(r role) string {
		if format == FormatNative {
			return csvfile.Restore(field(rec, cols, r))
		}
		return field(rec, cols, r)
	}
	if _, ok := cols.at[colFuelType]; ok {
		r.FuelType = text(colFuelType)
	}
	r.StationName = text(colStation)
	r.Remark = text(colRemark)
	switch format {
	case FormatFuelly:
		// Rows of Fuelly and LubeLogger are full fill-ups unless flagged
		// partial (proto-docs/contract.md, "CSV import").
		partial, err := parseBool(cols.name(colPartial), field(rec, cols, colPartial))
		if err != nil {
			return r, err
		}
		r.IsFull = !partial
	case FormatLubeLogger:
		r.IsFull = true
		if s := field(rec, cols, colFull); s != "" {
			if r.IsFull, err = parseBool(cols.name(colFull), s); err != nil {
				return r, err
			}
		}
	default:
		if r.IsFull, err = parseBool(cols.name(colFull), field(rec, cols, colFull)); err != nil {
			return r, err
		}
	}
	if r.MissedPrevious, err = parseBool(cols.name(colMissed), field(rec, cols, colMissed)); err != nil {
		return r, err
	}
	// Our export's record paid abroad; whether its currency is the home
	// one is the store's to tell (fuel.Refuel.SettleCurrency).
	if c := field(rec, cols, colCurrency); c != "" {
		if r.Currency, err = fuel.ParseCurrency(cols.name(colCurrency), c); err != nil {
			return r, err
		}
	}
	if h := field(rec, cols, colHomeAmount); h != "" {
		home, err := csvfile.ParseNumber(cols.name(colHomeAmount), h, opts.semicolons)
		if err != nil {
			return r, err
		}
		r.HomeAmount = decimal.NullDecimal{Decimal: home, Valid: true}
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

// parseEnergy reads an energy name in any case.
func parseEnergy(name, s string) (fuel.Energy, error) {
	e := fuel.Energy(strings.ToLower(s))
	if e.Valid() {
		return e, nil
	}
	names := make([]string, len(fuel.Energies))
	for i, e := range fuel.Energies {
		names[i] = string(e)
	}
	return "", fmt.Errorf("%s: %q is not an energy (%s)", name, s, strings.Join(names, ", "))
}

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

// parseDate reads a refuel time: RFC 3339 with its own offset, the one
// form of our export without a date_format, or else as csvfile.ParseDate.
func parseDate(s, format, order string, loc *time.Location) (time.Time, error) {
	if format == FormatNative && order == "" && s != "" {
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return t, nil
		}
		return time.Time{}, fmt.Errorf("%q is not an RFC 3339 timestamp with a zone", s)
	}
	return csvfile.ParseDate(s, order, loc)
}
