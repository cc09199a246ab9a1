package fuel

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/carhub/backend/pkg/apperr"
)

// Bounds of a reminder's fields (proto-docs/fuel-decisions.md, "Reminders").
const (
	MaxReminderTitleLen = 200
	MaxReminderMatchLen = 200
	MaxReminderNotesLen = 1000
	MaxEveryMonths      = 1200 // a century
	MaxSoonDays         = 3650
	DefaultSoonDays     = 30

	// EstimateWindow is how far back the odometer readings of the distance
	// estimate go, and MinEstimateSpan how far apart its first and last
	// reading must be: closer ones say little about a car's use.
	EstimateWindow  = 90 * 24 * time.Hour
	MinEstimateSpan = 7 * 24 * time.Hour

	// maxEstimateDays bounds an estimated due date: beyond a century the
	// estimate says nothing, and no date type holds the year 10000.
	maxEstimateDays = 36525
)

// DefaultSoonKm is the soon_km of a reminder that names none.
var DefaultSoonKm = decimal.NewFromInt(1000)

// ReminderCategories are the allowed values of Reminder.Category: the
// expenses', whose category a matching expense shares.
var ReminderCategories = ExpenseCategories

// ErrReminderNotFound is the error for an absent reminder or one of a
// vehicle the caller may not see.
var ErrReminderNotFound = apperr.New(apperr.NotFound, "reminder not found")

// ReminderStatus says how close a reminder is to being due.
type ReminderStatus string

// The statuses: ok, soon (within soon_km or soon_days), overdue (the due
// odometer or date reached or passed).
const (
	StatusOK      ReminderStatus = "ok"
	StatusSoon    ReminderStatus = "soon"
	StatusOverdue ReminderStatus = "overdue"
)

// ParseReminderStatus reads a status filter.
func ParseReminderStatus(field, s string) (ReminderStatus, error) {
	switch ReminderStatus(s) {
	case StatusOK, StatusSoon, StatusOverdue:
		return ReminderStatus(s), nil
	}
	return "", apperr.Invalid(field, "must be one of ok, soon, overdue")
}

// Date is a calendar day, without a time or a zone: due dates are days in
// the owner's time zone.
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// DateOf is the day t falls on in loc.
func DateOf(t time.Time, loc *time.Location) Date {
	y, m, d := t.In(loc).Date()
	return Date{y, m, d}
}

// String writes the date as RFC 3339's full-date (2026-01-31).
func (d Date) String() string { return fmt.Sprintf("%04d-%02d-%02d", d.Year, int(d.Month), d.Day) }

// midnight is the date as a time at 00:00 UTC, for day arithmetic (UTC
// days all have 24 hours).
func (d Date) midnight() time.Time { return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, time.UTC) }

// AddDays returns the date n days later.
func (d Date) AddDays(n int) Date { return DateOf(d.midnight().AddDate(0, 0, n), time.UTC) }

// AddMonths returns the date n months later, on the same day of the month
// or, when that month is shorter, on its last day: Jan 31 + 1 month is
// Feb 28 (Feb 29 in a leap year), Feb 29 + 12 months is Feb 28. (Go's
// AddDate would overflow into March instead.)
func (d Date) AddMonths(n int) Date {
	first := time.Date(d.Year, d.Month+time.Month(n), 1, 0, 0, 0, 0, time.UTC)
	last := first.AddDate(0, 1, -1).Day()
	return Date{first.Year(), first.Month(), min(d.Day, last)}
}

// DaysUntil is the number of days from d to e: negative when e is before d.
// (Unix seconds, not time.Sub, whose Duration ends after 292 years.)
func (d Date) DaysUntil(e Date) int {
	return int((e.midnight().Unix() - d.midnight().Unix()) / 86400)
}

// Before reports whether d is a day before e.
func (d Date) Before(e Date) bool { return d.DaysUntil(e) > 0 }

// Done is when a reminder's job was last done (zero when unknown) and at
// which odometer reading (not valid when unknown). ExpenseID is the
// expense it comes from, 0 for one the user gave. The user may give only
// the reading ("oil changed at 15 000 km") for a reminder without
// EveryMonths; an expense always has its time.
type Done struct {
	Time      time.Time
	Odometer  decimal.NullDecimal
	ExpenseID uint64
}

// Reading is an odometer reading of a vehicle: a refuel's or an expense's.
type Reading struct {
	Time     time.Time
	Odometer decimal.Decimal
}

// Reminder is a recurring job of a vehicle, due every EveryKm kilometres
// and/or every EveryMonths months after it was last done.
type Reminder struct {
	ID        uint64
	VehicleID uint64
	Title     string
	// Category is an expense category; with Match, it says which expenses
	// are this job done (ExpenseMatches).
	Category string
	// Match, when not "", must occur in a matching expense's title
	// (case-insensitively).
	Match string
	// EveryKm is the distance between two jobs (not valid: none);
	// EveryMonths the months between them (0: none). At least one is set.
	EveryKm     decimal.NullDecimal
	EveryMonths int
	// LastDone is when the user says the job was last done (nil: not
	// said). A matching expense that is newer takes its place (Due).
	LastDone *Done
	Notes    string
	SoonKm   decimal.Decimal
	SoonDays int
	// StartOdometer is the vehicle's odometer when the reminder was made:
	// with CreatedAt, the start a reminder never done counts from.
	StartOdometer decimal.Decimal
	// Revision counts the reminder's changes: 0 when created, one more on
	// every update (the calendar feed's SEQUENCE).
	Revision  int
	CreatedAt time.Time
	UpdatedAt time.Time

	// Facts are what the store's reads add for the computed fields.
	Facts ReminderFacts
}

// ReminderFacts are what a reminder's computed fields depend on beside
// the reminder itself, read by the store as of a given time.
type ReminderFacts struct {
	// CurrentOdometer is the vehicle's current odometer.
	CurrentOdometer decimal.Decimal
	// Location is the time zone of the vehicle's owner (UTC when the owner
	// chose none): the zone of the reminder's days.
	Location *time.Location
	// LastExpense is the newest matching expense (nil: none).
	LastExpense *Done
	// Readings are the vehicle's odometer readings within EstimateWindow
	// before the time of the read, in any order.
	Readings []Reading
}

// Normalize brings the values to their stored scale and precision.
func (r *Reminder) Normalize() {
	if r.EveryKm.Valid {
		r.EveryKm.Decimal = RoundQuantity(r.EveryKm.Decimal)
	}
	r.SoonKm = RoundQuantity(r.SoonKm)
	r.StartOdometer = RoundQuantity(r.StartOdometer)
	if r.LastDone != nil {
		r.LastDone.Time = NormalizeTime(r.LastDone.Time)
		if r.LastDone.Odometer.Valid {
			r.LastDone.Odometer.Decimal = RoundQuantity(r.LastDone.Odometer.Decimal)
		}
	}
}

// Validate reports every field that breaks a rule, as Vehicle.Validate
// does.
func (r *Reminder) Validate() error { return apperr.Join(r.ValidateFields(everyField)...) }

// ValidateFields is Validate restricted to the rules whose members known
// reports (JSON member names: title, last_done.time), as
// Expense.ValidateFields. A rule that reads two members (every_km or
// every_months; last_done.odometer with every_km) is checked only when
// both are known: with one of them unreadable or left as stored, it is
// the store's to check on the whole record.
func (r *Reminder) ValidateFields(known func(field string) bool) []error {
	var errs []error
	check := func(field string, err error) {
		if known(field) {
			errs = append(errs, err)
		}
	}
	check("vehicle_id", refuelVehicleID(r.VehicleID))
	check("title", requiredString("title", r.Title, MaxReminderTitleLen))
	check("category", reminderCategory(r.Category))
	check("match", optionalString("match", r.Match, MaxReminderMatchLen))
	errs = append(errs, r.validateEvery(known)...)
	errs = append(errs, r.validateLastDone(known)...)
	check("notes", optionalString("notes", r.Notes, MaxReminderNotesLen))
	check("soon_km", quantity("soon_km", r.SoonKm, false))
	check("soon_days", boundedInt("soon_days", r.SoonDays, 0, MaxSoonDays))
	return errs
}

func reminderCategory(c string) error {
	for _, k := range ReminderCategories {
		if c == k {
			return nil
		}
	}
	if strings.TrimSpace(c) == "" {
		return apperr.Invalid("category", "is required")
	}
	return apperr.Invalid("category", "must be one of %s", strings.Join(ReminderCategories, ", "))
}

func (r *Reminder) validateEvery(known func(string) bool) []error {
	km, months := known("every_km"), known("every_months")
	var errs []error
	if km && r.EveryKm.Valid {
		errs = append(errs, quantity("every_km", r.EveryKm.Decimal, true))
	}
	if months && r.EveryMonths != 0 {
		errs = append(errs, boundedInt("every_months", r.EveryMonths, 1, MaxEveryMonths))
	}
	if km && months && !r.EveryKm.Valid && r.EveryMonths == 0 {
		errs = append(errs, apperr.Invalid("every_km", "or every_months is required (at least one of them)"))
	}
	return errs
}

func (r *Reminder) validateLastDone(known func(string) bool) []error {
	d := r.LastDone
	if d == nil {
		return nil
	}
	var errs []error
	switch {
	case !known("last_done.time"):
	case d.Time.IsZero():
		// Only the months count from the day: a distance's reminder
		// needs just the reading.
		if r.EveryMonths != 0 && known("every_months") {
			errs = append(errs, apperr.Invalid("last_done.time", "is required when every_months is set"))
		}
	case d.Time.Before(MinTime) || d.Time.After(MaxTime):
		errs = append(errs, apperr.Invalid("last_done.time", "must lie between 1900-01-01T00:00:00Z and 9999-12-31T23:59:59.999999Z"))
	}
	switch {
	case !known("last_done.odometer"):
	case d.Odometer.Valid:
		errs = append(errs, quantity("last_done.odometer", d.Odometer.Decimal, false))
	case r.EveryKm.Valid && known("every_km"):
		errs = append(errs, apperr.Invalid("last_done.odometer", "is required when every_km is set"))
	}
	return errs
}

func boundedInt(field string, n, lo, hi int) error {
	if n < lo || n > hi {
		return apperr.Invalid(field, "must be an integer between %d and %d", lo, hi)
	}
	return nil
}

// ReminderUpdate is a patch: nil fields are left unchanged.
type ReminderUpdate struct {
	VehicleID *uint64
	Title     *string
	Category  *string
	Match     *string
	// EveryKm not valid clears the distance; EveryMonths 0 the months.
	EveryKm     *decimal.NullDecimal
	EveryMonths *int
	// SetLastDone sets LastDone (nil clears it).
	SetLastDone bool
	LastDone    *Done
	Notes       *string
	SoonKm      *decimal.Decimal
	SoonDays    *int
}

// Sets reports whether u changes the member field (a JSON member name).
func (u ReminderUpdate) Sets(field string) bool {
	switch field {
	case "vehicle_id":
		return u.VehicleID != nil
	case "title":
		return u.Title != nil
	case "category":
		return u.Category != nil
	case "match":
		return u.Match != nil
	case "every_km":
		return u.EveryKm != nil
	case "every_months":
		return u.EveryMonths != nil
	case "last_done":
		return u.SetLastDone
	case "notes":
		return u.Notes != nil
	case "soon_km":
		return u.SoonKm != nil
	case "soon_days":
		return u.SoonDays != nil
	}
	return false
}

// Apply copies the set fields of u onto r.
func (u ReminderUpdate) Apply(r *Reminder) {
	set(&r.VehicleID, u.VehicleID)
	set(&r.Title, u.Title)
	set(&r.Category, u.Category)
	set(&r.Match, u.Match)
	set(&r.EveryKm, u.EveryKm)
	set(&r.EveryMonths, u.EveryMonths)
	if u.SetLastDone {
		r.LastDone = nil
		if u.LastDone != nil {
			d := *u.LastDone
			r.LastDone = &d
		}
	}
	set(&r.Notes, u.Notes)
	set(&r.SoonKm, u.SoonKm)
	set(&r.SoonDays, u.SoonDays)
}

// ReminderFilter selects the reminders of GET /api/reminders: of one
// vehicle (0: every vehicle the caller may see). AsOf is the time their
// facts are read at (the estimate's window ends there; zero: now).
type ReminderFilter struct {
	VehicleID uint64
	AsOf      time.Time
}

// ReminderStore keeps reminders, with the access rules of the refuels
// (see Store): reads need any role on the vehicle, writes owner or editor.
// Methods return ErrReminderNotFound for an absent id or one the caller
// may not see, ErrUnknownVehicle for a reminder naming such a vehicle,
// ErrForbidden for a write the caller's role does not allow, the error of
// Validate for an invalid value (nothing is written then), and other
// errors only for failures of the database.
type ReminderStore interface {
	// CreateReminder normalizes and validates r, sets its StartOdometer to
	// the vehicle's current odometer and stores it.
	CreateReminder(ctx context.Context, r *Reminder) error
	// Reminder returns the reminder with its Facts as of asOf.
	Reminder(ctx context.Context, id uint64, asOf time.Time) (Reminder, error)
	// UpdateReminder applies u in one transaction and raises the revision;
	// the vehicle of a reminder does not change (a different vehicle_id is
	// INVALID_ARGUMENT). The result carries no Facts.
	UpdateReminder(ctx context.Context, id uint64, u ReminderUpdate) (Reminder, error)
	DeleteReminder(ctx context.Context, id uint64) error
	// ListReminders returns the reminders matching f with their Facts, by
	// id; none for a vehicle the caller may not see.
	ListReminders(ctx context.Context, f ReminderFilter) ([]Reminder, error)
}

// ReminderDue is what is computed of a reminder on every read, never
// stored.
type ReminderDue struct {
	// LastDone is the later of the user's last_done and the newest
	// matching expense (nil: neither, and the reminder counts from its
	// creation).
	LastDone *Done
	// DueOdometer and DueInKm are set for a distance reminder whose last
	// odometer is known; DueInKm is negative once passed.
	DueOdometer decimal.NullDecimal
	DueInKm     decimal.NullDecimal
	// DueDate and DueInDays are set for a reminder in months; DueInDays is
	// negative once passed.
	DueDate   *Date
	DueInDays *int
	// DistancePerDay is the vehicle's recent distance a day (not valid:
	// too few readings); EstimatedDueDate the day the due odometer is
	// expected then (today once it is reached).
	DistancePerDay   decimal.NullDecimal
	EstimatedDueDate *Date
	Status           ReminderStatus
}

// NextDate is the day the reminder is due by whichever of distance and
// time comes first (nil when neither is known): the day of its calendar
// event.
func (d ReminderDue) NextDate() *Date {
	switch {
	case d.DueDate == nil:
		return d.EstimatedDueDate
	case d.EstimatedDueDate == nil || !d.EstimatedDueDate.Before(*d.DueDate):
		return d.DueDate
	}
	return d.EstimatedDueDate
}

// CompareUrgency orders two reminders' dues by urgency: overdue, soon,
// ok; within each, by the day they are due (NextDate; none last). 0 when
// they are as urgent: the caller breaks the tie.
func CompareUrgency(x, y ReminderDue) int {
	rank := map[ReminderStatus]int{StatusOverdue: 0, StatusSoon: 1, StatusOK: 2}
	if c := rank[x.Status] - rank[y.Status]; c != 0 {
		return c
	}
	dx, dy := x.NextDate(), y.NextDate()
	switch {
	case dx != nil && dy == nil:
		return -1
	case dx == nil && dy != nil:
		return 1
	case dx != nil && *dx != *dy:
		return -dx.DaysUntil(*dy)
	}
	return 0
}

// Due computes the reminder's computed fields as of now from the reminder
// and its Facts (proto-docs/fuel-decisions.md, "Reminders").
func (r *Reminder) Due(now time.Time) ReminderDue {
	loc := r.Facts.Location
	if loc == nil {
		loc = time.UTC
	}
	out := ReminderDue{LastDone: r.lastDone()}
	base := Done{Time: r.CreatedAt, Odometer: decimal.NewNullDecimal(r.StartOdometer)}
	if out.LastDone != nil {
		base = *out.LastDone
	}
	today := DateOf(now, loc)
	if r.EveryKm.Valid && base.Odometer.Valid {
		due := base.Odometer.Decimal.Add(r.EveryKm.Decimal)
		left := due.Sub(r.Facts.CurrentOdometer)
		out.DueOdometer = decimal.NewNullDecimal(due)
		out.DueInKm = decimal.NewNullDecimal(left)
		if rate, ok := DistancePerDay(r.Facts.Readings); ok {
			out.DistancePerDay = decimal.NewNullDecimal(rate.Round(QuantityScale))
		}
		out.EstimatedDueDate = estimateDueDate(today, left, r.Facts.Readings)
	}
	// A last_done without its day (Validate allows it only without
	// months) has no due date.
	if r.EveryMonths > 0 && !base.Time.IsZero() {
		due := DateOf(base.Time, loc).AddMonths(r.EveryMonths)
		days := today.DaysUntil(due)
		out.DueDate, out.DueInDays = &due, &days
	}
	out.Status = r.status(out, today)
	return out
}

// lastDone is the later of the user's LastDone and the newest matching
// expense; on the same instant the user's. A LastDone without its time
// is compared by odometer: the expense takes its place only at a higher
// known reading.
func (r *Reminder) lastDone() *Done {
	d, e := r.LastDone, r.Facts.LastExpense
	switch {
	case e == nil && d == nil:
		return nil
	case e == nil || (d != nil && !e.after(*d)):
		out := *d
		return &out
	}
	out := *e
	return &out
}

// after reports whether the expense e was done after the user's d: by
// time, or by odometer when d has no time.
func (e *Done) after(d Done) bool {
	if d.Time.IsZero() {
		return e.Odometer.Valid && d.Odometer.Valid && e.Odometer.Decimal.GreaterThan(d.Odometer.Decimal)
	}
	return e.Time.After(d.Time)
}

// status is overdue when the due odometer or date is reached, soon when
// either is within soon_km or soon_days (the estimated date counts as a
// date), else ok.
func (r *Reminder) status(d ReminderDue, today Date) ReminderStatus {
	overdue := d.DueInKm.Valid && !d.DueInKm.Decimal.IsPositive() || d.DueInDays != nil && *d.DueInDays <= 0
	if overdue {
		return StatusOverdue
	}
	soon := d.DueInKm.Valid && d.DueInKm.Decimal.LessThanOrEqual(r.SoonKm) ||
		d.DueInDays != nil && *d.DueInDays <= r.SoonDays ||
		d.EstimatedDueDate != nil && today.DaysUntil(*d.EstimatedDueDate) <= r.SoonDays
	if soon {
		return StatusSoon
	}
	return StatusOK
}

// DistancePerDay is a vehicle's distance a day from its readings: between
// the earliest and the latest reading (by time), the difference of their
// odometers over the days between them. Not ok when there are fewer than
// two readings, they lie less than MinEstimateSpan apart, or the odometer
// did not grow.
func DistancePerDay(readings []Reading) (decimal.Decimal, bool) {
	first, last, ok := span(readings)
	if !ok {
		return decimal.Zero, false
	}
	dist := last.Odometer.Sub(first.Odometer)
	secs := decimal.NewFromInt(int64(last.Time.Sub(first.Time) / time.Second))
	return dist.Mul(decimal.NewFromInt(86400)).DivRound(secs, 6), true
}

func span(readings []Reading) (first, last Reading, ok bool) {
	if len(readings) < 2 {
		return first, last, false
	}
	first, last = readings[0], readings[0]
	for _, r := range readings[1:] {
		if r.Time.Before(first.Time) || r.Time.Equal(first.Time) && r.Odometer.LessThan(first.Odometer) {
			first = r
		}
		if r.Time.After(last.Time) || r.Time.Equal(last.Time) && r.Odometer.GreaterThan(last.Odometer) {
			last = r
		}
	}
	if last.Time.Sub(first.Time) < MinEstimateSpan || !last.Odometer.GreaterThan(first.Odometer) {
		return first, last, false
	}
	return first, last, true
}

// estimateDueDate is the day the distance left is driven at the
// readings' pace: today plus left / (distance per day), rounded up to
// whole days (computed from the readings exactly, not from the rounded
// pace); today once nothing is left; nil without a pace.
func estimateDueDate(today Date, left decimal.Decimal, readings []Reading) *Date {
	if !left.IsPositive() {
		return &today
	}
	first, last, ok := span(readings)
	if !ok {
		return nil
	}
	secs := decimal.NewFromInt(int64(last.Time.Sub(first.Time) / time.Second))
	dist := last.Odometer.Sub(first.Odometer)
	// days = left / (dist / (secs / 86400)) = left * secs / (dist * 86400)
	days := left.Mul(secs).DivRound(dist.Mul(decimal.NewFromInt(86400)), 9).Ceil()
	if days.GreaterThan(decimal.NewFromInt(maxEstimateDays)) {
		return nil
	}
	d := today.AddDays(int(days.IntPart()))
	return &d
}

// ExpenseMatches reports whether an expense of category with title is the
// job of a reminder of category and match: the same category and, when
// match is not "", match within the title, both in lower case
// (strings.ToLower: Unicode, so "ÖL" matches "Motoröl").
func ExpenseMatches(reminderCategory, match, category, title string) bool {
	if category != reminderCategory {
		return false
	}
	return match == "" || strings.Contains(strings.ToLower(title), strings.ToLower(match))
}
