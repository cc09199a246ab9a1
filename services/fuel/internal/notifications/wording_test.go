package notifications_test

import (
	"testing"

	"github.com/shopspring/decimal"

	"github.com/carhub/backend/services/fuel/internal/fuel"
	"github.com/carhub/backend/services/fuel/internal/notifications"
)

// TestMessagesInTheOwnersWording: a message speaks the owner's app
// language, writes numbers and dates in their locale and distances in
// their unit; the webhook's machine fields stay in km and ISO dates.
func TestMessagesInTheOwnersWording(t *testing.T) {
	days := 12
	due := notifications.Due{
		Reminder: fuel.Reminder{ID: 7, VehicleID: 3, Title: "Ölwechsel"},
		Vehicle:  "Golf",
		Due: fuel.ReminderDue{
			Status:      fuel.StatusSoon,
			DueOdometer: decimal.NewNullDecimal(decimal.NewFromInt(15000)),
			DueInKm:     decimal.NewNullDecimal(decimal.NewFromInt(500)),
			DueDate:     &fuel.Date{Year: 2026, Month: 3, Day: 1},
			DueInDays:   &days,
		},
	}
	overdue := due
	overdue.Due.Status = fuel.StatusOverdue
	overdue.Due.DueInKm = decimal.NewNullDecimal(decimal.NewFromInt(-1609))
	minus := -3
	overdue.Due.DueInDays = &minus
	for _, tc := range []struct {
		name        string
		prefs       fuel.Preferences
		d           notifications.Due
		title, body string
	}{
		{"no preferences: English, en-US", fuel.Preferences{}, due,
			"Ölwechsel is due soon - Golf", "due at 15,000 km (500 km left) or on 03/01/2026 (in 12 days)"},
		{"British English", fuel.Preferences{Language: "en", Locale: "en-GB"}, due,
			"Ölwechsel is due soon - Golf", "due at 15,000 km (500 km left) or on 01/03/2026 (in 12 days)"},
		{"German", fuel.Preferences{Language: "de", Locale: "de-DE"}, overdue,
			"Ölwechsel ist überfällig – Golf", "fällig bei 15.000 km (1.609 km darüber) oder am 01.03.2026 (vor 3 Tagen)"},
		{"English words, German numbers", fuel.Preferences{Language: "en", Locale: "de-DE"}, due,
			"Ölwechsel is due soon - Golf", "due at 15.000 km (500 km left) or on 01/03/2026 (in 12 days)"},
		{"miles", fuel.Preferences{Language: "en", Locale: "en-US", DistanceUnit: "mi"}, overdue,
			"Ölwechsel is overdue - Golf", "due at 9,321 mi (1,000 mi past) or on 03/01/2026 (3 days ago)"},
		{"Chinese", fuel.Preferences{Language: "zh", Locale: "zh-CN"}, due,
			"Ölwechsel即将到期 - Golf", "到期：于 15,000 公里（还剩 500 公里）或于 2026年3月1日（12 天后）"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := notifications.ReminderMessage(tc.d, notifications.WordingOf(tc.prefs), "https://car.example")
			if m.Title != tc.title || m.Body != tc.body {
				t.Errorf("got %q / %q\nwant %q / %q", m.Title, m.Body, tc.title, tc.body)
			}
			if *m.Reminder.DueOdometer != "15000" || *m.Reminder.DueDate != "2026-03-01" {
				t.Errorf("machine fields %q %q", *m.Reminder.DueOdometer, *m.Reminder.DueDate)
			}
		})
	}
	de := notifications.WordingOf(fuel.Preferences{Language: "de"})
	d := notifications.DigestMessage([]notifications.Due{overdue, due}, de, "")
	if d.Title != "2 Erinnerungen sind fällig" ||
		d.Body != "- Ölwechsel - Golf: überfällig, fällig bei 15.000 km (1.609 km darüber) oder am 01.03.2026 (vor 3 Tagen)\n"+
			"- Ölwechsel - Golf: bald fällig, fällig bei 15.000 km (noch 500 km) oder am 01.03.2026 (in 12 Tagen)" {
		t.Errorf("digest %q\n%s", d.Title, d.Body)
	}
	if m := notifications.TestMessage(notifications.WordingOf(fuel.Preferences{Language: "zh"}), ""); m.Title != "CarHub 测试通知" || m.URL != "/settings" {
		t.Errorf("test message %+v", m)
	}
}
