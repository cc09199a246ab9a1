package notifications

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// Due is a reminder the user is to be told of: soon or overdue, with what
// is due of it and its vehicle's name.
type Due struct {
	Reminder fuel.Reminder
	Due      fuel.ReminderDue
	Vehicle  string
}

// Notable reports whether a reminder of this status is notified.
func Notable(s fuel.ReminderStatus) bool { return s == fuel.StatusSoon || s == fuel.StatusOverdue }

// SelectDue is the rule's choice among the reminders the user may read:
// those soon or overdue as of now, of a vehicle the user owns or edits,
// or only views when viewers is set. vehicles are the user's (ListVehicles:
// names and roles); a reminder of a vehicle not among them is skipped.
func SelectDue(reminders []fuel.Reminder, vehicles []fuel.Vehicle, viewers bool, now time.Time) []Due {
	byID := make(map[uint64]fuel.Vehicle, len(vehicles))
	for _, v := range vehicles {
		byID[v.ID] = v
	}
	var out []Due
	for _, r := range reminders {
		v, ok := byID[r.VehicleID]
		if !ok || (v.Role == fuel.RoleViewer && !viewers) {
			continue
		}
		d := r.Due(now)
		if Notable(d.Status) {
			out = append(out, Due{Reminder: r, Due: d, Vehicle: v.Name})
		}
	}
	return out
}

// Occurrence names a reminder's current due point: the due odometer and
// the due date, which move only when the job is done again (a matching
// expense or a new last_done) or the reminder's intervals change. A
// reminder is notified once per occurrence on each channel, whether it was
// soon or already overdue when first seen.
func Occurrence(d Due) string {
	odo, day := "-", "-"
	if d.Due.DueOdometer.Valid {
		odo = d.Due.DueOdometer.Decimal.String() // canonical: no trailing zeros
	}
	if d.Due.DueDate != nil {
		day = d.Due.DueDate.String()
	}
	return fmt.Sprintf("reminder:%d:%s:%s", d.Reminder.ID, odo, day)
}

// DigestOccurrence names the digest of a day.
func DigestOccurrence(day fuel.Date) string { return "digest:" + day.String() }

// DigestDay is the day whose digest is due at now for a user in loc who
// chose clock ("HH:MM"), and whether one is due: from the digest's time
// of the day on, until the day ends. Sent late (the service was down at
// that time) it is still that day's.
func DigestDay(now time.Time, loc *time.Location, clock string) (fuel.Date, bool) {
	minutes, ok := ParseClock(clock)
	if !ok {
		return fuel.Date{}, false
	}
	local := now.In(loc)
	return fuel.DateOf(now, loc), local.Hour()*60+local.Minute() >= minutes
}

// ReminderMessage is the message of one reminder in the owner's wording:
// its subject names the reminder, what it is and the vehicle ("Oil change
// is overdue - Golf", "Ölwechsel ist überfällig – Golf").
func ReminderMessage(d Due, w Wording, publicURL string) Message {
	info := reminderInfo(d)
	return Message{
		Title:    w.title(d),
		Body:     w.dueText(d.Due),
		URL:      ReminderURL(publicURL, d.Reminder),
		Reminder: &info,
	}
}

// DigestMessage lists the reminders of a digest, most urgent first as
// they come.
func DigestMessage(ds []Due, w Wording, publicURL string) Message {
	lines := make([]string, len(ds))
	infos := make([]ReminderInfo, len(ds))
	for i, d := range ds {
		lines[i] = "- " + d.Reminder.Title + " - " + d.Vehicle + ": " + w.status(d.Due.Status) + ", " + w.dueText(d.Due)
		infos[i] = reminderInfo(d)
	}
	return Message{Title: w.digestTitle(len(ds)), Body: strings.Join(lines, "\n"), URL: appURL(publicURL, "/"), Digest: infos}
}

// TestMessage is the message of POST /api/notifications/test.
func TestMessage(w Wording, publicURL string) Message {
	return Message{Title: w.word("testTitle"), Body: w.word("testBody"), URL: appURL(publicURL, "/settings")}
}

// ReminderURL is the link that opens the reminder in the web app: the
// reminders of its vehicle on the costs page, the reminder named.
func ReminderURL(publicURL string, r fuel.Reminder) string {
	q := url.Values{"vehicle": {strconv.FormatUint(r.VehicleID, 10)}, "reminder": {strconv.FormatUint(r.ID, 10)}}
	return appURL(publicURL, "/costs?"+q.Encode())
}

// appURL is path under PUBLIC_URL; path alone without one (a push message
// opens it on the app's own origin; an e-mail then has no working link).
func appURL(publicURL, path string) string {
	return strings.TrimRight(publicURL, "/") + path
}

func reminderInfo(d Due) ReminderInfo {
	info := ReminderInfo{Status: string(d.Due.Status), Title: d.Reminder.Title, Vehicle: d.Vehicle, DueInDays: d.Due.DueInDays}
	if d.Due.DueDate != nil {
		s := d.Due.DueDate.String()
		info.DueDate = &s
	}
	if d.Due.DueOdometer.Valid {
		s := d.Due.DueOdometer.Decimal.String()
		info.DueOdometer = &s
	}
	if d.Due.DueInKm.Valid {
		s := d.Due.DueInKm.Decimal.String()
		info.DueInKm = &s
	}
	return info
}
