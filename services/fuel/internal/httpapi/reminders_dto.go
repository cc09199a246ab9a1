package httpapi

import (
	"encoding/json"
	"reflect"
	"strconv"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/services/fuel/internal/fuel"
	"github.com/shopspring/decimal"
)

// reminderRequest is the body of POST and PUT /api/reminders[/:id]; the
// computed and read-only members are ignored.
type reminderRequest struct {
	VehicleID   optNumber `json:"vehicle_id"`
	Title       optString `json:"title"`
	Category    optString `json:"category"`
	Match       optString `json:"match"`
	EveryKm     optNumber `json:"every_km"`
	EveryMonths optNumber `json:"every_months"`
	LastDone    optDone   `json:"last_done"`
	Notes       optString `json:"notes"`
	SoonKm      optNumber `json:"soon_km"`
	SoonDays    optNumber `json:"soon_days"`
}

// optDone is the last_done member: an object {time, odometer} or null.
type optDone struct {
	Set, Null bool
	Time      optString `json:"time"`
	Odometer  optNumber `json:"odometer"`
}

var objectType = reflect.TypeFor[map[string]any]()

func (o *optDone) UnmarshalJSON(b []byte) error {
	*o = optDone{Set: true}
	if isNull(b) {
		o.Null = true
		return nil
	}
	if b[0] != '{' {
		return typeError(b, objectType)
	}
	var v struct {
		Time     optString `json:"time"`
		Odometer optNumber `json:"odometer"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	o.Time, o.Odometer = v.Time, v.Odometer
	return nil
}

// reminderResponse is a reminder with its computed fields.
type reminderResponse struct {
	ID          uint64        `json:"id"`
	VehicleID   uint64        `json:"vehicle_id"`
	Title       string        `json:"title"`
	Category    string        `json:"category"`
	Match       string        `json:"match"`
	EveryKm     *json.Number  `json:"every_km"`
	EveryMonths *int          `json:"every_months"`
	LastDone    *doneResponse `json:"last_done"`
	Notes       string        `json:"notes"`
	SoonKm      json.Number   `json:"soon_km"`
	SoonDays    int           `json:"soon_days"`
	// The computed fields (fuel.ReminderDue).
	DueOdometer      *json.Number `json:"due_odometer"`
	DueInKm          *json.Number `json:"due_in_km"`
	DueDate          *string      `json:"due_date"`
	DueInDays        *int         `json:"due_in_days"`
	DistancePerDay   *json.Number `json:"distance_per_day"`
	EstimatedDueDate *string      `json:"estimated_due_date"`
	Status           string       `json:"status"`
	Revision         int          `json:"revision"`
	CreatedAt        string       `json:"created_at"`
	UpdatedAt        string       `json:"updated_at"`
}

// doneResponse is the last_done in effect: the user's or, when newer, the
// newest matching expense's (expense_id set). Time is null for the user's
// reading given without its day.
type doneResponse struct {
	Time      *string      `json:"time"`
	Odometer  *json.Number `json:"odometer"`
	ExpenseID *uint64      `json:"expense_id"`
}

func dateString(d *fuel.Date) *string {
	if d == nil {
		return nil
	}
	s := d.String()
	return &s
}

func toReminderResponse(r fuel.Reminder, due fuel.ReminderDue) reminderResponse {
	out := reminderResponse{
		ID: r.ID, VehicleID: r.VehicleID, Title: r.Title, Category: r.Category, Match: r.Match,
		EveryKm: nullNumber(r.EveryKm), Notes: r.Notes, SoonKm: number(r.SoonKm), SoonDays: r.SoonDays,
		DueOdometer: nullNumber(due.DueOdometer), DueInKm: nullNumber(due.DueInKm), DueDate: dateString(due.DueDate),
		DueInDays: due.DueInDays, DistancePerDay: nullNumber(due.DistancePerDay), EstimatedDueDate: dateString(due.EstimatedDueDate),
		Status: string(due.Status), Revision: r.Revision, CreatedAt: formatTime(r.CreatedAt), UpdatedAt: formatTime(r.UpdatedAt),
	}
	if r.EveryMonths != 0 {
		n := r.EveryMonths
		out.EveryMonths = &n
	}
	if d := due.LastDone; d != nil {
		out.LastDone = &doneResponse{Odometer: nullNumber(d.Odometer)}
		if !d.Time.IsZero() {
			at := formatTime(d.Time)
			out.LastDone.Time = &at
		}
		if d.ExpenseID != 0 {
			id := d.ExpenseID
			out.LastDone.ExpenseID = &id
		}
	}
	return out
}

// toReminderUpdate turns a body into a patch, as toExpenseUpdate does,
// naming every bad member at once. On create, soon_km and soon_days
// absent are their defaults (newReminder); null resets them to the
// defaults on PUT too.
func (req reminderRequest) toReminderUpdate(create bool) (fuel.ReminderUpdate, error) {
	b := members{create: create}
	u := fuel.ReminderUpdate{
		VehicleID:   b.id("vehicle_id", req.VehicleID),
		Title:       b.str("title", req.Title, true),
		Category:    b.str("category", req.Category, true),
		Match:       b.str("match", req.Match, false),
		EveryKm:     b.nullDecimal("every_km", req.EveryKm),
		EveryMonths: b.integer("every_months", req.EveryMonths, 0, 1, fuel.MaxEveryMonths),
	}
	var errs []error
	u.SetLastDone, u.LastDone, errs = doneField("last_done", req.LastDone)
	b.errs = append(b.errs, errs...)
	u.Notes = b.str("notes", req.Notes, false)
	u.SoonKm = b.decimalOr("soon_km", req.SoonKm, fuel.DefaultSoonKm)
	u.SoonDays = b.integer("soon_days", req.SoonDays, fuel.DefaultSoonDays, 0, fuel.MaxSoonDays)
	// The rules of the members read, as toExpenseUpdate checks them; a
	// patch's rules that read a stored member too are the store's.
	var r fuel.Reminder
	if create {
		r = newReminder(u)
	} else {
		u.Apply(&r)
	}
	r.Normalize()
	b.errs = append(b.errs, r.ValidateFields(b.known(u.Sets))...)
	inMemberOrder[reminderRequest](b.errs)
	return u, b.err()
}

// newReminder is the reminder a create's patch u makes: soon_km and
// soon_days default.
func newReminder(u fuel.ReminderUpdate) fuel.Reminder {
	r := fuel.Reminder{SoonKm: fuel.DefaultSoonKm, SoonDays: fuel.DefaultSoonDays}
	u.Apply(&r)
	return r
}

// integer reads an optional integer member between lo and hi; null is
// def.
func (m *members) integer(field string, o optNumber, def, lo, hi int) *int {
	use, reset, err := presence(field, o.Set, o.Null, false, m.create)
	if err != nil || (!use && !reset) {
		m.errs = append(m.errs, err)
		return nil
	}
	if reset {
		return &def
	}
	n, err := strconv.Atoi(o.Raw)
	if err != nil || len(o.Raw) > 9 || n < lo || n > hi {
		m.errs = append(m.errs, apperr.Invalid(field, "must be an integer between %d and %d", lo, hi))
		return nil
	}
	return &n
}

// decimalOr reads an optional quantity member; null is def.
func (m *members) decimalOr(field string, o optNumber, def decimal.Decimal) *decimal.Decimal {
	use, reset, err := presence(field, o.Set, o.Null, false, m.create)
	if err != nil || (!use && !reset) {
		m.errs = append(m.errs, err)
		return nil
	}
	if reset {
		return &def
	}
	d, err := parseDecimal(field, o.Raw)
	m.errs = append(m.errs, err)
	return &d
}

// doneField reads last_done: absent leaves it, null clears it; in an
// object, time and odometer absent or null are unknown (Validate requires
// the time with every_months, the odometer with every_km).
func doneField(field string, o optDone) (set bool, d *fuel.Done, errs []error) {
	if !o.Set {
		return false, nil, nil
	}
	if o.Null {
		return true, nil, nil
	}
	d = &fuel.Done{}
	if o.Time.Set && !o.Time.Null {
		var err error
		d.Time, err = parseTime(field+".time", o.Time.V)
		errs = append(errs, err)
	}
	odo, err := nullDecimalField(field+".odometer", o.Odometer)
	errs = append(errs, err)
	if odo != nil {
		d.Odometer = *odo
	}
	return true, d, errs
}
