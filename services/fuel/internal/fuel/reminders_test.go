package fuel

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/carhub/backend/pkg/apperr"
)

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func zone(tb testing.TB, name string) *time.Location {
	tb.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		tb.Fatal(err)
	}
	return loc
}

func km(s string) decimal.NullDecimal { return decimal.NewNullDecimal(decimal.RequireFromString(s)) }

func done(at, odo string) *Done {
	d := &Done{Time: utc(at)}
	if odo != "" {
		d.Odometer = km(odo)
	}
	return d
}

// renderDue writes every computed field of d on one line, "-" for none, so a
// golden case states them all.
func renderDue(d ReminderDue) string {
	str := func(n decimal.NullDecimal) string {
		if !n.Valid {
			return "-"
		}
		return n.Decimal.String()
	}
	date := func(d *Date) string {
		if d == nil {
			return "-"
		}
		return d.String()
	}
	days := "-"
	if d.DueInDays != nil {
		days = fmt.Sprint(*d.DueInDays)
	}
	return fmt.Sprintf("due_odometer=%s due_in_km=%s due_date=%s due_in_days=%s per_day=%s estimated=%s status=%s",
		str(d.DueOdometer), str(d.DueInKm), date(d.DueDate), days, str(d.DistancePerDay), date(d.EstimatedDueDate), d.Status)
}

// reminder is the reminder of a golden case with the defaults of the API.
func reminder(everyKm string, everyMonths int, last *Done, current string) Reminder {
	r := Reminder{
		VehicleID: 1, Title: "Oil", Category: "service", EveryMonths: everyMonths,
		LastDone: last, SoonKm: DefaultSoonKm, SoonDays: DefaultSoonDays,
		CreatedAt: utc("2025-01-01T00:00:00Z"), StartOdometer: decimal.RequireFromString("1000"),
	}
	if everyKm != "" {
		r.EveryKm = km(everyKm)
	}
	r.Facts.CurrentOdometer = decimal.RequireFromString(current)
	return r
}

// The golden cases, each worked by hand in its comment.
func TestReminderDueGolden(t *testing.T) {
	berlin, shanghai, newYork := zone(t, "Europe/Berlin"), zone(t, "Asia/Shanghai"), zone(t, "America/New_York")
	threeReadings := []Reading{ // 30 days apart, 1500 km: 50 km a day (given out of order)
		{utc("2026-03-15T00:00:00Z"), decimal.RequireFromString("10700")},
		{utc("2026-03-31T00:00:00Z"), decimal.RequireFromString("11500")},
		{utc("2026-03-01T00:00:00Z"), decimal.RequireFromString("10000")},
	}
	cases := []struct {
		name string
		r    Reminder
		loc  *time.Location
		read []Reading
		now  string
		want string
	}{
		// By km: 40000 + 15000 = 55000; 55000 - 53800 = 1200 > 1000: ok.
		{"km ok", reminder("15000", 0, done("2026-01-10T08:00:00Z", "40000"), "53800"), nil, nil, "2026-06-01T12:00:00Z",
			"due_odometer=55000 due_in_km=1200 due_date=- due_in_days=- per_day=- estimated=- status=ok"},
		// 1000 left is within soon_km (<=).
		{"km soon at the bound", reminder("15000", 0, done("2026-01-10T08:00:00Z", "40000"), "54000"), nil, nil, "2026-06-01T12:00:00Z",
			"due_odometer=55000 due_in_km=1000 due_date=- due_in_days=- per_day=- estimated=- status=soon"},
		// Reached: overdue, estimated today whatever the pace.
		{"km reached", reminder("15000", 0, done("2026-01-10T08:00:00Z", "40000"), "55000"), nil, nil, "2026-06-01T12:00:00Z",
			"due_odometer=55000 due_in_km=0 due_date=- due_in_days=- per_day=- estimated=2026-06-01 status=overdue"},
		{"km passed", reminder("15000", 0, done("2026-01-10T08:00:00Z", "40000"), "55000.5"), nil, nil, "2026-06-01T12:00:00Z",
			"due_odometer=55000 due_in_km=-0.5 due_date=- due_in_days=- per_day=- estimated=2026-06-01 status=overdue"},
		// By months: 2025-06-15 + 12 = 2026-06-15; May 1 to Jun 15 is
		// 30 + 15 = 45 days: ok.
		{"months ok", reminder("", 12, done("2025-06-15T10:00:00Z", ""), "0"), nil, nil, "2026-05-01T00:00:00Z",
			"due_odometer=- due_in_km=- due_date=2026-06-15 due_in_days=45 per_day=- estimated=- status=ok"},
		// May 20 to Jun 15: 11 + 15 = 26 <= 30: soon.
		{"months soon", reminder("", 12, done("2025-06-15T10:00:00Z", ""), "0"), nil, nil, "2026-05-20T00:00:00Z",
			"due_odometer=- due_in_km=- due_date=2026-06-15 due_in_days=26 per_day=- estimated=- status=soon"},
		// On the due day: overdue.
		{"months on the day", reminder("", 12, done("2025-06-15T10:00:00Z", ""), "0"), nil, nil, "2026-06-15T23:59:59Z",
			"due_odometer=- due_in_km=- due_date=2026-06-15 due_in_days=0 per_day=- estimated=- status=overdue"},
		// Both: 20000 + 10000 = 30000, 1500 left; 2026-01-01 + 6 =
		// 2026-07-01, Mar 1 to Jul 1 = 31 + 30 + 31 + 30 = 122 days: ok.
		{"both ok", reminder("10000", 6, done("2026-01-01T09:00:00Z", "20000"), "28500"), nil, nil, "2026-03-01T12:00:00Z",
			"due_odometer=30000 due_in_km=1500 due_date=2026-07-01 due_in_days=122 per_day=- estimated=- status=ok"},
		// Distance first: 800 km left, 122 days.
		{"both, distance first", reminder("10000", 6, done("2026-01-01T09:00:00Z", "20000"), "29200"), nil, nil, "2026-03-01T12:00:00Z",
			"due_odometer=30000 due_in_km=800 due_date=2026-07-01 due_in_days=122 per_day=- estimated=- status=soon"},
		// Time first: 5000 km left, Jun 10 to Jul 1 = 21 days.
		{"both, time first", reminder("10000", 6, done("2026-01-01T09:00:00Z", "20000"), "25000"), nil, nil, "2026-06-10T12:00:00Z",
			"due_odometer=30000 due_in_km=5000 due_date=2026-07-01 due_in_days=21 per_day=- estimated=- status=soon"},
		{"both, time passed", reminder("10000", 6, done("2026-01-01T09:00:00Z", "20000"), "25000"), nil, nil, "2026-07-02T12:00:00Z",
			"due_odometer=30000 due_in_km=5000 due_date=2026-07-01 due_in_days=-1 per_day=- estimated=- status=overdue"},
		// Month ends: Jan 31 + 1 month = Feb 28 (2026 is no leap year);
		// Jan 30 to Feb 28 = 29 days.
		{"Jan 31 + 1", reminder("", 1, done("2026-01-31T12:00:00Z", ""), "0"), nil, nil, "2026-01-30T12:00:00Z",
			"due_odometer=- due_in_km=- due_date=2026-02-28 due_in_days=29 per_day=- estimated=- status=soon"},
		// 2024 is a leap year: Feb 29.
		{"Jan 31 + 1, leap year", reminder("", 1, done("2024-01-31T12:00:00Z", ""), "0"), nil, nil, "2024-02-01T00:00:00Z",
			"due_odometer=- due_in_km=- due_date=2024-02-29 due_in_days=28 per_day=- estimated=- status=soon"},
		// Feb 29 + 12 months = Feb 28, 2025; Jan 1 to Feb 28 = 31 + 27.
		{"Feb 29 + 12", reminder("", 12, done("2024-02-29T12:00:00Z", ""), "0"), nil, nil, "2025-01-01T00:00:00Z",
			"due_odometer=- due_in_km=- due_date=2025-02-28 due_in_days=58 per_day=- estimated=- status=ok"},
		// Feb 29 + 48 months = Feb 29, 2028.
		{"Feb 29 + 48", reminder("", 48, done("2024-02-29T12:00:00Z", ""), "0"), nil, nil, "2028-02-01T00:00:00Z",
			"due_odometer=- due_in_km=- due_date=2028-02-29 due_in_days=28 per_day=- estimated=- status=soon"},
		// Time zones: 2026-01-31T23:30Z is Jan 31 in UTC and New York
		// (18:30) but Feb 1 in Shanghai (07:30): due Feb 28, Feb 28, Mar 1.
		// Now, 2026-02-28T03:00Z, is Feb 28 in UTC and Shanghai (11:00) but
		// Feb 27 in New York (22:00).
		{"zone UTC", reminder("", 1, done("2026-01-31T23:30:00Z", ""), "0"), time.UTC, nil, "2026-02-28T03:00:00Z",
			"due_odometer=- due_in_km=- due_date=2026-02-28 due_in_days=0 per_day=- estimated=- status=overdue"},
		{"zone Shanghai", reminder("", 1, done("2026-01-31T23:30:00Z", ""), "0"), shanghai, nil, "2026-02-28T03:00:00Z",
			"due_odometer=- due_in_km=- due_date=2026-03-01 due_in_days=1 per_day=- estimated=- status=soon"},
		{"zone New York", reminder("", 1, done("2026-01-31T23:30:00Z", ""), "0"), newYork, nil, "2026-02-28T03:00:00Z",
			"due_odometer=- due_in_km=- due_date=2026-02-28 due_in_days=1 per_day=- estimated=- status=soon"},
		// Across the start of summer time: 2026-03-28T23:30Z is Mar 29
		// 00:30 in Berlin (CET): due Apr 29; now, 2026-04-28T21:30Z, is Apr 28
		// 23:30 there (CEST): 1 day. In UTC: due Apr 28, that day: 0.
		{"zone Berlin, DST", reminder("", 1, done("2026-03-28T23:30:00Z", ""), "0"), berlin, nil, "2026-04-28T21:30:00Z",
			"due_odometer=- due_in_km=- due_date=2026-04-29 due_in_days=1 per_day=- estimated=- status=soon"},
		{"zone UTC, DST", reminder("", 1, done("2026-03-28T23:30:00Z", ""), "0"), nil, nil, "2026-04-28T21:30:00Z",
			"due_odometer=- due_in_km=- due_date=2026-04-28 due_in_days=0 per_day=- estimated=- status=overdue"},
		// The estimate: 1500 km in 30 days is 50 a day; 8000 + 5000 = 13000,
		// 1500 left: 30 days after Apr 1 is May 1, within soon_days: soon
		// although 1500 km > soon_km.
		{"estimate", reminder("5000", 0, done("2026-01-05T00:00:00Z", "8000"), "11500"), nil, threeReadings, "2026-04-01T10:00:00Z",
			"due_odometer=13000 due_in_km=1500 due_date=- due_in_days=- per_day=50 estimated=2026-05-01 status=soon"},
		// 1510 left: 30.2 days, rounded up to 31: May 2, 31 > 30: ok.
		{"estimate rounds up", reminder("5010", 0, done("2026-01-05T00:00:00Z", "8000"), "11500"), nil, threeReadings, "2026-04-01T10:00:00Z",
			"due_odometer=13010 due_in_km=1510 due_date=- due_in_days=- per_day=50 estimated=2026-05-02 status=ok"},
		// 1000 km in 10.5 days: 95.238095... a day (95.238 shown); 2000 left
		// takes 2000 * 10.5 / 1000 = 21 days exactly: Apr 22, within
		// soon_days.
		{"estimate, uneven pace", reminder("12000", 0, done("2026-01-05T00:00:00Z", "8000"), "18000"), nil,
			[]Reading{{utc("2026-03-01T00:00:00Z"), decimal.RequireFromString("10000")}, {utc("2026-03-11T12:00:00Z"), decimal.RequireFromString("11000")}},
			"2026-04-01T10:00:00Z",
			"due_odometer=20000 due_in_km=2000 due_date=- due_in_days=- per_day=95.238 estimated=2026-04-22 status=soon"},
		// Readings 6 days apart say nothing: no pace, no estimate.
		{"estimate, readings too close", reminder("5000", 0, done("2026-01-05T00:00:00Z", "8000"), "11500"), nil,
			[]Reading{{utc("2026-03-01T00:00:00Z"), decimal.RequireFromString("10000")}, {utc("2026-03-07T00:00:00Z"), decimal.RequireFromString("11500")}},
			"2026-04-01T10:00:00Z",
			"due_odometer=13000 due_in_km=1500 due_date=- due_in_days=- per_day=- estimated=- status=ok"},
		// Both with an estimate: the months give Jul 5 (95 days), the
		// estimate May 1: due_in_days stays the months'.
		{"both with estimate", reminder("5000", 6, done("2026-01-05T00:00:00Z", "8000"), "11500"), nil, threeReadings, "2026-04-01T10:00:00Z",
			"due_odometer=13000 due_in_km=1500 due_date=2026-07-05 due_in_days=95 per_day=50 estimated=2026-05-01 status=soon"},
		// Never done: counts from the creation (2025-01-01, odometer 1000).
		{"never done", reminder("10000", 12, nil, "2000"), nil, nil, "2025-06-01T00:00:00Z",
			"due_odometer=11000 due_in_km=9000 due_date=2026-01-01 due_in_days=214 per_day=- estimated=- status=ok"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := c.r
			r.Facts.Location, r.Facts.Readings = c.loc, c.read
			if got := renderDue(r.Due(utc(c.now))); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

func TestAddMonthsClampsToTheMonthsEnd(t *testing.T) {
	for _, c := range []struct {
		from string
		n    int
		want string
	}{
		{"2026-01-31", 1, "2026-02-28"},
		{"2024-01-31", 1, "2024-02-29"},
		{"2026-08-31", 1, "2026-09-30"},
		{"2025-12-31", 2, "2026-02-28"},
		{"2023-03-31", 11, "2024-02-29"},
		{"2025-10-31", 4, "2026-02-28"},
		{"2026-01-15", 1, "2026-02-15"},
		{"2026-11-30", 3, "2027-02-28"},
		{"2026-12-31", 12, "2027-12-31"},
		{"2026-05-31", 1200, "2126-05-31"},
	} {
		from, err := time.Parse(time.DateOnly, c.from)
		if err != nil {
			t.Fatal(err)
		}
		if got := DateOf(from, time.UTC).AddMonths(c.n).String(); got != c.want {
			t.Errorf("%s + %d months = %s, want %s", c.from, c.n, got, c.want)
		}
	}
}

func TestDaysUntilFarApart(t *testing.T) {
	// 20 Gregorian cycles of 146 097 days take 2000 to 10000; 10000 to
	// 10100 has 25 leap years (10000 is one): 36 525 days. 2 958 465.
	if got := (Date{2000, 1, 1}).DaysUntil(Date{10100, 1, 1}); got != 2958465 {
		t.Fatalf("2000-01-01 to 10100-01-01: %d days", got)
	}
	if got := (Date{2026, 3, 1}).DaysUntil(Date{2026, 2, 1}); got != -28 {
		t.Fatalf("backwards: %d", got)
	}
}

func TestLastDoneIsTheNewerOfUserAndExpense(t *testing.T) {
	base := reminder("10000", 0, done("2026-01-01T00:00:00Z", "20000"), "21000")
	now := utc("2026-04-01T00:00:00Z")

	newer := base
	newer.Facts.LastExpense = &Done{Time: utc("2026-03-01T00:00:00Z"), Odometer: km("25000"), ExpenseID: 7}
	d := newer.Due(now)
	if d.LastDone == nil || d.LastDone.ExpenseID != 7 || d.DueOdometer.Decimal.String() != "35000" {
		t.Errorf("newer expense: last done %+v, due %s; want the expense's, 35000", d.LastDone, d.DueOdometer.Decimal)
	}

	older := base
	older.Facts.LastExpense = &Done{Time: utc("2025-12-01T00:00:00Z"), Odometer: km("15000"), ExpenseID: 8}
	if d := older.Due(now); d.LastDone.ExpenseID != 0 || d.DueOdometer.Decimal.String() != "30000" {
		t.Errorf("older expense: last done %+v, due %s; want the user's, 30000", d.LastDone, d.DueOdometer.Decimal)
	}

	same := base
	same.Facts.LastExpense = &Done{Time: utc("2026-01-01T00:00:00Z"), Odometer: km("20500"), ExpenseID: 9}
	if d := same.Due(now); d.LastDone.ExpenseID != 0 {
		t.Errorf("same instant: %+v, want the user's", d.LastDone)
	}

	only := base
	only.LastDone = nil
	only.Facts.LastExpense = &Done{Time: utc("2026-02-01T00:00:00Z"), Odometer: km("22000"), ExpenseID: 10}
	if d := only.Due(now); d.LastDone.ExpenseID != 10 || d.DueOdometer.Decimal.String() != "32000" {
		t.Errorf("expense only: %+v %s", d.LastDone, d.DueOdometer.Decimal)
	}

	// An expense without a known odometer: the distance is unknown, the
	// months still count.
	unknown := reminder("10000", 12, nil, "21000")
	unknown.Facts.LastExpense = &Done{Time: utc("2026-02-01T00:00:00Z"), ExpenseID: 11}
	if got := renderDue(unknown.Due(now)); got != "due_odometer=- due_in_km=- due_date=2027-02-01 due_in_days=306 per_day=- estimated=- status=ok" {
		t.Errorf("expense without odometer: %s", got)
	}
}

// A distance reminder whose last job the owner knows only by its reading
// ("oil changed at 15 000 km", no date) counts from that reading; a
// matching expense takes its place only at a higher known reading, as it
// has no day to be compared by.
func TestLastDoneWithoutTimeCountsFromItsReading(t *testing.T) {
	now := utc("2026-04-01T00:00:00Z")
	reading := &Done{Odometer: km("15000")}
	r := reminder("15000", 0, reading, "29500")
	if got := renderDue(r.Due(now)); got != "due_odometer=30000 due_in_km=500 due_date=- due_in_days=- per_day=- estimated=- status=soon" {
		t.Errorf("reading only: %s", got)
	}
	r.Facts.CurrentOdometer = decimal.RequireFromString("30100")
	if got := r.Due(now); got.Status != StatusOverdue || got.DueInKm.Decimal.String() != "-100" {
		t.Errorf("reading only, passed: %s", renderDue(got))
	}
	if err := r.Validate(); err != nil {
		t.Errorf("distance reminder with a reading alone: %v", err)
	}

	lower := reminder("15000", 0, reading, "20000")
	lower.Facts.LastExpense = &Done{Time: utc("2026-03-01T00:00:00Z"), Odometer: km("14000"), ExpenseID: 3}
	if d := lower.Due(now); d.LastDone.ExpenseID != 0 || d.DueOdometer.Decimal.String() != "30000" {
		t.Errorf("expense at a lower reading: %+v, due %s; want the owner's, 30000", d.LastDone, d.DueOdometer.Decimal)
	}
	higher := reminder("15000", 0, reading, "20000")
	higher.Facts.LastExpense = &Done{Time: utc("2026-03-01T00:00:00Z"), Odometer: km("16000"), ExpenseID: 4}
	if d := higher.Due(now); d.LastDone.ExpenseID != 4 || d.DueOdometer.Decimal.String() != "31000" {
		t.Errorf("expense at a higher reading: %+v, due %s; want the expense's, 31000", d.LastDone, d.DueOdometer.Decimal)
	}
	unread := reminder("15000", 0, reading, "20000")
	unread.Facts.LastExpense = &Done{Time: utc("2026-03-01T00:00:00Z"), ExpenseID: 5}
	if d := unread.Due(now); d.LastDone.ExpenseID != 0 {
		t.Errorf("expense without a reading: %+v, want the owner's", d.LastDone)
	}

	// Months count from a day: a reading alone is refused, by name.
	months := reminder("15000", 12, reading, "20000")
	assertFields(t, months.Validate(), []string{"last_done.time:"})
	if msg := apperr.From(months.Validate()).Message; msg != "last_done.time: is required when every_months is set" {
		t.Errorf("message %q", msg)
	}
}

func TestNextDateIsTheEarlier(t *testing.T) {
	may, jul := Date{2026, 5, 1}, Date{2026, 7, 1}
	for _, c := range []struct {
		due, est *Date
		want     string
	}{
		{nil, nil, "-"}, {&jul, nil, "2026-07-01"}, {nil, &may, "2026-05-01"},
		{&jul, &may, "2026-05-01"}, {&may, &jul, "2026-05-01"}, {&may, &may, "2026-05-01"},
	} {
		got := "-"
		if d := (ReminderDue{DueDate: c.due, EstimatedDueDate: c.est}).NextDate(); d != nil {
			got = d.String()
		}
		if got != c.want {
			t.Errorf("due %v, estimate %v: %s, want %s", c.due, c.est, got, c.want)
		}
	}
}

func TestDistancePerDay(t *testing.T) {
	r := func(at, odo string) Reading { return Reading{utc(at), decimal.RequireFromString(odo)} }
	for _, c := range []struct {
		name string
		in   []Reading
		want string
	}{
		{"none", nil, "-"},
		{"one", []Reading{r("2026-03-01T00:00:00Z", "100")}, "-"},
		{"7 days, 700 km", []Reading{r("2026-03-01T00:00:00Z", "100"), r("2026-03-08T00:00:00Z", "800")}, "100"},
		{"just under 7 days", []Reading{r("2026-03-01T00:00:01Z", "100"), r("2026-03-08T00:00:00Z", "800")}, "-"},
		{"odometer went down", []Reading{r("2026-03-01T00:00:00Z", "900"), r("2026-03-20T00:00:00Z", "800")}, "-"},
		// Only the earliest and the latest count: 30 km over 9 days.
		{"first and last", []Reading{r("2026-03-10T00:00:00Z", "130"), r("2026-03-01T00:00:00Z", "100"), r("2026-03-05T00:00:00Z", "500")}, "3.333333"},
	} {
		got := "-"
		if d, ok := DistancePerDay(c.in); ok {
			got = d.String()
		}
		if got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

func TestExpenseMatches(t *testing.T) {
	for _, c := range []struct {
		cat, match, expCat, title string
		want                      bool
	}{
		{"service", "oil", "service", "Oil change + filter", true},
		{"service", "oil", "service", "Brake pads", false},
		{"service", "oil", "repair", "Oil leak", false},
		{"service", "", "service", "Anything at all", true},
		{"service", "ÖL", "service", "Motoröl gewechselt", true},
		{"inspection", "", "service", "Inspection", false},
	} {
		if got := ExpenseMatches(c.cat, c.match, c.expCat, c.title); got != c.want {
			t.Errorf("%+v: %v", c, got)
		}
	}
}

func TestReminderValidateNamesEveryField(t *testing.T) {
	r := Reminder{Category: "oil", EveryMonths: 0, SoonKm: decimal.NewFromInt(-1), SoonDays: 4000, Title: " "}
	err := r.Validate()
	want := []string{"vehicle_id:", "title:", "category:", "every_km:", "soon_km:", "soon_days:"}
	assertFields(t, err, want)

	r = Reminder{VehicleID: 1, Title: "Oil", Category: "service", EveryKm: km("0"), EveryMonths: 1201,
		LastDone: &Done{}, Notes: strings.Repeat("n", 1001)}
	assertFields(t, r.Validate(), []string{"every_km:", "every_months:", "last_done.time:", "last_done.odometer:", "notes:"})

	ok := Reminder{VehicleID: 1, Title: "Oil", Category: "service", EveryMonths: 12, SoonKm: DefaultSoonKm, SoonDays: 30}
	if err := ok.Validate(); err != nil {
		t.Fatalf("valid reminder: %v", err)
	}
}

func assertFields(t *testing.T, err error, fields []string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %v", fields)
	}
	parts := strings.Split(apperr.From(err).Message, "; ")
	if len(parts) != len(fields) {
		t.Fatalf("error %q, want one part for each of %v", err, fields)
	}
	for i, f := range fields {
		if !strings.HasPrefix(parts[i], f) {
			t.Errorf("part %d %q, want it to start with %q", i, parts[i], f)
		}
	}
}
