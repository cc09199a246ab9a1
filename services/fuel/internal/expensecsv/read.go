package expensecsv

import (
	"encoding/json"
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

// The file formats Read knows, told apart by their first lines.
const (
	FormatNative     = "native"     // this service's export
	FormatLubeLogger = "lubelogger" // LubeLogger's service, repair, upgrade or tax records
	FormatFuelio     = "fuelio"     // a Fuelio backup's Costs section
)

// LubeLoggerRecordTypes are the LubeLogger exports read, and the category
// each one's records take.
var LubeLoggerRecordTypes = map[string]string{
	"service": "service",
	"repair":  "repair",
	"upgrade": "accessory",
	"tax":     "tax",
}

// Options configure Read.
type Options struct {
	VehicleID uint64
	// RecordType is the kind of LubeLogger export (service, repair,
	// upgrade, tax): its file does not say. Required for one.
	RecordType string
	// DateFormat is the order of d/m/y dates: "" (detect over the
	// column), mdy, dmy, ymd.
	DateFormat string
	// DistanceUnit is the unit of the odometer readings of a file that
	// does not name one: km (default) or mi.
	DistanceUnit string
	// Location is the owner's zone, of dates without an offset; nil is UTC.
	Location *time.Location
}

// Check refuses the options a caller may give that are unknown
// (record_type, date_format, distance_unit), naming each bad one in one
// error (apperr.Join). A missing record_type is refused only for a
// LubeLogger file, by Read.
func (o Options) Check() error {
	var recordType error
	if _, ok := LubeLoggerRecordTypes[o.RecordType]; o.RecordType != "" && !ok {
		recordType = apperr.Invalid("record_type", "must be one of service, repair, upgrade, tax")
	}
	return apperr.Join(recordType, csvfile.CheckDateFormat(o.DateFormat), csvfile.CheckDistanceUnit(o.DistanceUnit))
}

// Result is what Read found.
type Result struct {
	Format   string
	Rows     int            // data rows read
	Expenses []fuel.Expense // one per good row, normalized and valid
	Errors   []csvfile.RowError
	BadRows  int
	// Ignored counts the rows that are no expense: Fuelio's income
	// entries and reminder templates.
	Ignored int
}

// Read reads a CSV file of expenses. A file-level problem (not CSV, no
// known layout, a missing record_type) is an INVALID_ARGUMENT error; bad
// rows are listed in the Result beside the good ones.
func Read(r io.Reader, opts Options) (Result, error) {
	var res Result
	if opts.Location == nil {
		opts.Location = time.UTC
	}
	if err := opts.Check(); err != nil {
		return res, err
	}
	distance := decimal.NewFromInt(1)
	if opts.DistanceUnit != "" {
		distance, _ = csvfile.DistanceFactor(opts.DistanceUnit)
	}
	recs, semicolons, err := csvfile.ReadRecords(r)
	if err != nil {
		return res, err
	}
	rd := reader{opts: opts, semicolons: semicolons, distance: distance, res: &res}
	first := lower(recs[0].Fields)
	switch {
	case strings.HasPrefix(first[0], "## "):
		res.Format = FormatFuelio
		err = rd.fuelio(recs)
	case has(first, "category", "title", "amount"):
		res.Format = FormatNative
		err = rd.native(recs)
	case has(first, "date", "description", "cost"):
		res.Format = FormatLubeLogger
		err = rd.lubeLogger(recs)
	default:
		err = apperr.Invalid("file", "has no header this service reads: its own export (time, category, title, amount, ...), "+
			"a LubeLogger service, repair, upgrade or tax record export (Date, Description, Cost, ...) or a Fuelio backup (## Costs)")
	}
	return res, err
}

// reader holds what reading one file needs.
type reader struct {
	opts       Options
	semicolons bool
	distance   decimal.Decimal // to km
	res        *Result
}

// columns maps a header's lower-case names to their index.
type columns map[string]int

func columnsOf(header []string) columns {
	c := columns{}
	for i, h := range lower(header) {
		if _, dup := c[h]; !dup {
			c[h] = i
		}
	}
	return c
}

// get is the trimmed value of column name ("" when absent).
func (c columns) get(rec []string, name string) string {
	i, ok := c[name]
	if !ok || i >= len(rec) {
		return ""
	}
	return strings.TrimSpace(rec[i])
}

func lower(fields []string) []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = strings.ToLower(strings.TrimSpace(f))
	}
	return out
}

func has(fields []string, names ...string) bool {
	for _, n := range names {
		found := false
		for _, f := range fields {
			if f == n {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// add checks e (normalized, then Validate) and keeps it, or records the
// row's error: the cells that could not be read (err), then every rule
// Validate finds broken on a field those did not name already.
func (rd *reader) add(line int, e fuel.Expense, err error) {
	rd.res.Rows++
	e.VehicleID = rd.opts.VehicleID
	e.Normalize()
	var reasons []string
	named := map[string]bool{}
	if err != nil {
		for _, r := range strings.Split(err.Error(), "; ") {
			reasons = append(reasons, r)
			field, _, _ := strings.Cut(r, ":")
			named[strings.ToLower(field)] = true
		}
	}
	var ae *apperr.Error
	if verr := e.Validate(); errors.As(verr, &ae) {
		for _, r := range strings.Split(ae.Message, "; ") {
			field, _, _ := strings.Cut(r, ":")
			if !named[strings.ToLower(field)] && !named[columnOf[field]] {
				reasons = append(reasons, r)
			}
		}
	} else if verr != nil {
		reasons = append(reasons, verr.Error())
	}
	if len(reasons) > 0 {
		rd.res.BadRows++
		if len(rd.res.Errors) < csvfile.MaxRowErrors {
			rd.res.Errors = append(rd.res.Errors, csvfile.RowError{Row: line, Reason: strings.Join(reasons, "; ")})
		}
		return
	}
	rd.res.Expenses = append(rd.res.Expenses, e)
}

// columnOf names, in lower case, the column of another program's file that
// a field of Validate comes from, so that a cell already reported is not
// reported again under the field's name.
var columnOf = map[string]string{"time": "date", "amount": "cost", "odometer": "odo"}

// odometer reads an optional reading in the file's unit: "" (and 0, which
// Fuelio writes for none, when zeroIsNone) is unknown.
func (rd *reader) odometer(name, s string, zeroIsNone bool) (decimal.NullDecimal, error) {
	if s == "" {
		return decimal.NullDecimal{}, nil
	}
	d, err := csvfile.ParseNumber(name, s, rd.semicolons)
	if err != nil {
		return decimal.NullDecimal{}, err
	}
	if zeroIsNone && d.IsZero() {
		return decimal.NullDecimal{}, nil
	}
	return decimal.NewNullDecimal(d.Mul(rd.distance)), nil
}

// dateOrder is the d/m/y order of a file's date column.
func (rd *reader) dateOrder(dates []string) string {
	if rd.opts.DateFormat != "" {
		return rd.opts.DateFormat
	}
	return csvfile.DetectDateOrder(dates)
}

// native reads the service's own export: RFC 3339 times, JSON items and
// tags, texts with their neutralising apostrophe taken off.
func (rd *reader) native(recs []csvfile.Record) error {
	c := columnsOf(recs[0].Fields)
	for _, rec := range recs[1:] {
		f := rec.Fields
		var e fuel.Expense
		err := func() error {
			var errs []error
			t, err := time.Parse(time.RFC3339Nano, c.get(f, "time"))
			if err != nil {
				errs = append(errs, fmt.Errorf("time: %q is not an RFC 3339 timestamp with a zone", c.get(f, "time")))
			}
			e.Time = t
			if e.Odometer, err = rd.odometer("odometer_km", c.get(f, "odometer_km"), false); err != nil {
				errs = append(errs, err)
			}
			e.Category = c.get(f, "category")
			e.Title = csvfile.Restore(c.get(f, "title"))
			amount, err := csvfile.ParseNumber("amount", c.get(f, "amount"), rd.semicolons)
			if err != nil {
				errs = append(errs, err)
			}
			e.Amount = amount
			e.Vendor = csvfile.Restore(c.get(f, "vendor"))
			e.Notes = csvfile.Restore(c.get(f, "notes"))
			if e.Items, err = items(c.get(f, "items")); err != nil {
				errs = append(errs, err)
			}
			if e.Tags, err = tags(c.get(f, "tags")); err != nil {
				errs = append(errs, err)
			}
			return joinReasons(errs)
		}()
		rd.add(rec.Line, e, err)
	}
	return nil
}

// items reads the items column: a JSON array of the API's item objects
// ("" is none).
func items(s string) ([]fuel.ExpenseItem, error) {
	if s == "" {
		return nil, nil
	}
	var raw []itemJSON
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("items: is not a JSON array of {name, part_number, quantity, unit_price}")
	}
	out := make([]fuel.ExpenseItem, len(raw))
	for i, it := range raw {
		q, err1 := decimal.NewFromString(it.Quantity.String())
		p, err2 := decimal.NewFromString(it.UnitPrice.String())
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("items[%d]: quantity and unit_price must be numbers", i)
		}
		out[i] = fuel.ExpenseItem{Name: it.Name, PartNumber: it.PartNumber, Quantity: q, UnitPrice: p}
	}
	return out, nil
}

// tags reads the tags column: a JSON array of strings ("" is none).
func tags(s string) ([]string, error) {
	if s == "" {
		return nil, nil
	}
	var out []string
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		return nil, fmt.Errorf("tags: is not a JSON array of strings")
	}
	return out, nil
}

// joinReasons joins the errors of one row into one reason.
func joinReasons(errs []error) error {
	var msgs []string
	for _, err := range errs {
		if err != nil {
			msgs = append(msgs, err.Error())
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	return errors.New(strings.Join(msgs, "; "))
}

// lubeLogger reads a LubeLogger record export (CsvHelper's header from
// its export model: Date, Odometer, Description, Notes, Cost, Tags, then
// one column per extra field; tax records have no Odometer in some
// versions). Description is the title, Tags are separated by spaces, and
// each extra field's value goes into the notes as "Name: value", so that
// nothing in the file is lost.
func (rd *reader) lubeLogger(recs []csvfile.Record) error {
	category, ok := LubeLoggerRecordTypes[rd.opts.RecordType]
	if !ok {
		return apperr.Invalid("record_type", "is required for a LubeLogger file: one of service, repair, upgrade, tax (the export it came from)")
	}
	header := recs[0].Fields
	c := columnsOf(header)
	known := map[string]bool{"date": true, "odometer": true, "description": true, "notes": true, "cost": true, "tags": true, "id": true, "vehicleid": true}
	dates := make([]string, 0, len(recs)-1)
	for _, rec := range recs[1:] {
		dates = append(dates, c.get(rec.Fields, "date"))
	}
	order := rd.dateOrder(dates)
	for _, rec := range recs[1:] {
		f := rec.Fields
		e := fuel.Expense{Category: category}
		err := func() error {
			var errs []error
			t, err := csvfile.ParseDate(c.get(f, "date"), order, rd.opts.Location)
			if err != nil {
				//lint:ignore ST1005 the message names the column as the file spells it ("Date")
				errs = append(errs, fmt.Errorf("Date: %w", err))
			}
			e.Time = t
			if e.Odometer, err = rd.odometer("Odometer", c.get(f, "odometer"), false); err != nil {
				errs = append(errs, err)
			}
			e.Title = c.get(f, "description")
			e.Notes = c.get(f, "notes")
			if e.Amount, err = csvfile.ParseNumber("Cost", c.get(f, "cost"), rd.semicolons); err != nil {
				errs = append(errs, err)
			}
			e.Tags = strings.Fields(c.get(f, "tags"))
			for i, h := range header {
				name := strings.TrimSpace(h)
				if known[strings.ToLower(name)] || i >= len(f) || strings.TrimSpace(f[i]) == "" {
					continue
				}
				if e.Notes != "" {
					e.Notes += "\n"
				}
				e.Notes += name + ": " + strings.TrimSpace(f[i])
			}
			return joinReasons(errs)
		}()
		rd.add(rec.Line, e, err)
	}
	return nil
}

// fuelioCategories maps Fuelio's default cost categories (lower case) to
// ours; a category of the user's own is other. The Fuelio name is kept as
// a tag where it says more than ours.
var fuelioCategories = map[string]string{
	"service": "service", "maintenance": "repair", "registration": "tax", "parking": "parking", "wash": "wash",
	"tolls": "toll", "tickets/fines": "fine", "tuning": "accessory", "insurance": "insurance",
	"accessories": "accessory", "other": "other", "mot": "inspection", "tax": "tax", "tires": "tyres", "tyres": "tyres",
}

// fuelio reads a Fuelio backup: sections introduced by a "## Name" line,
// each with its own header. The costs are in ## Costs (CostTitle, Date,
// Odo, CostTypeID, Notes, Cost, ..., isTemplate, ..., isIncome), their
// categories' names in ## CostCategories, the unit of Odo in the ## Log
// header ("Odo (mi)") or else ## Vehicle's DistUnit (0 km, 1 miles).
// Income entries and reminder templates are no expenses: counted as
// Ignored. Dates are "yyyy-MM-dd HH:mm" in the owner's zone.
func (rd *reader) fuelio(recs []csvfile.Record) error {
	sections := map[string][]csvfile.Record{}
	name := ""
	for _, rec := range recs {
		if first := strings.TrimSpace(rec.Fields[0]); strings.HasPrefix(first, "## ") && len(rec.Fields) <= 2 {
			name = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(first, "## ")))
			continue
		}
		sections[name] = append(sections[name], rec)
	}
	costs := sections["costs"]
	if len(costs) == 0 {
		return apperr.Invalid("file", "is a Fuelio backup without a ## Costs section")
	}
	if rd.opts.DistanceUnit == "" {
		unit := "km"
		if log := sections["log"]; len(log) > 0 {
			for _, h := range lower(log[0].Fields) {
				if strings.HasPrefix(h, "odo") && strings.Contains(h, "(mi") {
					unit = "mi"
				}
			}
		} else if v := sections["vehicle"]; len(v) > 1 && columnsOf(v[0].Fields).get(v[1].Fields, "distunit") == "1" {
			unit = "mi"
		}
		rd.distance, _ = csvfile.DistanceFactor(unit)
	}
	names := map[string]string{}
	if cats := sections["costcategories"]; len(cats) > 0 {
		cc := columnsOf(cats[0].Fields)
		for _, rec := range cats[1:] {
			names[cc.get(rec.Fields, "costtypeid")] = cc.get(rec.Fields, "name")
		}
	}
	c := columnsOf(costs[0].Fields)
	for _, rec := range costs[1:] {
		f := rec.Fields
		if c.get(f, "isincome") == "1" || c.get(f, "istemplate") == "1" {
			rd.res.Ignored++
			continue
		}
		var e fuel.Expense
		err := func() error {
			var errs []error
			t, err := csvfile.ParseDate(c.get(f, "date"), "ymd", rd.opts.Location)
			if err != nil {
				//lint:ignore ST1005 the message names the column as the file spells it ("Date")
				errs = append(errs, fmt.Errorf("Date: %w", err))
			}
			e.Time = t
			if e.Odometer, err = rd.odometer("Odo", c.get(f, "odo"), true); err != nil {
				errs = append(errs, err)
			}
			fname := names[c.get(f, "costtypeid")]
			e.Category = "other"
			if mapped, ok := fuelioCategories[strings.ToLower(fname)]; ok {
				e.Category = mapped
			}
			if fname != "" && !strings.EqualFold(fname, e.Category) {
				e.Tags = []string{fname}
			}
			e.Title = c.get(f, "costtitle")
			if e.Title == "" {
				e.Title = fname
			}
			e.Notes = c.get(f, "notes")
			if e.Amount, err = csvfile.ParseNumber("Cost", c.get(f, "cost"), rd.semicolons); err != nil {
				errs = append(errs, err)
			}
			return joinReasons(errs)
		}()
		rd.add(rec.Line, e, err)
	}
	return nil
}
