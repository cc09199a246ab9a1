package notifications

import (
	"fmt"
	"strings"

	"github.com/shopspring/decimal"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/number"

	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// Wording is how one owner reads a message: in the language of their app
// (en, de, zh), numbers and dates in their locale, distances in their
// unit. The machine-readable parts (a webhook's due_odometer, due_date)
// stay in km and ISO dates whatever it says.
type Wording struct {
	lang    string
	region  string
	printer *message.Printer
	miles   bool
}

// kmPerMile converts the stored kilometres for an owner who reads miles.
var kmPerMile = decimal.RequireFromString("1.609344")

// WordingOf is the wording of an owner's preferences; without them,
// English with en-US numbers and dates and kilometres.
func WordingOf(p fuel.Preferences) Wording {
	lang := p.Language
	switch lang {
	case "de", "zh":
	default:
		lang = "en"
	}
	tag, err := language.Parse(p.Locale)
	if p.Locale == "" || err != nil {
		tag = language.Make(map[string]string{"en": "en-US", "de": "de-DE", "zh": "zh-CN"}[lang])
	}
	region, _ := tag.Region()
	return Wording{lang: lang, region: region.String(), printer: message.NewPrinter(tag), miles: p.DistanceUnit == "mi"}
}

// words are the sentences of messages in each language; %[1]s and the
// like are filled in by fmt.
var words = map[string]map[string]string{
	"en": {
		"soon": "%s is due soon - %s", "overdue": "%s is overdue - %s",
		"status.soon": "due soon", "status.overdue": "overdue",
		"due": "due", "at": "at %s", "on": "on %s", "or": " or ",
		"left": "%s left", "past": "%s past", "today": "today", "tomorrow": "tomorrow",
		"inDays": "in %d days", "dayAgo": "1 day ago", "daysAgo": "%d days ago",
		"digest1": "1 reminder needs attention", "digest": "%d reminders need attention",
		"testTitle": "CarHub test notification",
		"testBody":  "Notifications reach you here. Reminders that are soon or overdue will arrive like this one.",
	},
	"de": {
		"soon": "%s ist bald fällig – %s", "overdue": "%s ist überfällig – %s",
		"status.soon": "bald fällig", "status.overdue": "überfällig",
		"due": "fällig", "at": "bei %s", "on": "am %s", "or": " oder ",
		"left": "noch %s", "past": "%s darüber", "today": "heute", "tomorrow": "morgen",
		"inDays": "in %d Tagen", "dayAgo": "vor 1 Tag", "daysAgo": "vor %d Tagen",
		"digest1": "1 Erinnerung ist fällig", "digest": "%d Erinnerungen sind fällig",
		"testTitle": "CarHub-Testbenachrichtigung",
		"testBody":  "Benachrichtigungen erreichen Sie hier. Bald fällige und überfällige Erinnerungen kommen so an wie diese.",
	},
	"zh": {
		"soon": "%s即将到期 - %s", "overdue": "%s已逾期 - %s",
		"status.soon": "即将到期", "status.overdue": "已逾期",
		"due": "到期", "at": "于 %s", "on": "于 %s", "or": "或",
		"left": "还剩 %s", "past": "已超出 %s", "today": "今天", "tomorrow": "明天",
		"inDays": "%d 天后", "dayAgo": "1 天前", "daysAgo": "%d 天前",
		"digest1": "1 项提醒需要处理", "digest": "%d 项提醒需要处理",
		"testTitle": "CarHub 测试通知",
		"testBody":  "通知会送达这里。即将到期或已逾期的提醒会像这条一样送达。",
	},
}

func (w Wording) word(key string) string { return words[w.lang][key] }

// title is a reminder message's subject: "Oil change is overdue - Golf".
func (w Wording) title(d Due) string {
	key := "soon"
	if d.Due.Status == fuel.StatusOverdue {
		key = "overdue"
	}
	return fmt.Sprintf(w.word(key), d.Reminder.Title, d.Vehicle)
}

// status is a status in words: "overdue", "überfällig".
func (w Wording) status(s fuel.ReminderStatus) string { return w.word("status." + string(s)) }

// distance writes km in the owner's unit, whole, grouped in their locale:
// "14,000 km", "14.000 km", "8,699 mi".
func (w Wording) distance(km decimal.Decimal) string {
	unit := map[string]string{"en": "km", "de": "km", "zh": "公里"}[w.lang]
	if w.miles {
		km = km.Div(kmPerMile)
		unit = map[string]string{"en": "mi", "de": "mi", "zh": "英里"}[w.lang]
	}
	n := km.Round(0).IntPart()
	return w.printer.Sprint(number.Decimal(n)) + " " + unit
}

// date writes a day as the owner's locale does: 03/01/2026 (en-US),
// 01/03/2026 (other English), 01.03.2026, 2026年3月1日.
func (w Wording) date(d fuel.Date) string {
	switch {
	case w.lang == "zh":
		return fmt.Sprintf("%d年%d月%d日", d.Year, int(d.Month), d.Day)
	case w.lang == "de":
		return fmt.Sprintf("%02d.%02d.%04d", d.Day, int(d.Month), d.Year)
	case w.region == "US" || w.region == "ZZ":
		return fmt.Sprintf("%02d/%02d/%04d", int(d.Month), d.Day, d.Year)
	}
	return fmt.Sprintf("%02d/%02d/%04d", d.Day, int(d.Month), d.Year)
}

// dueText says when a reminder is due, by distance and by date, whichever
// it has: "due at 15,000 km (500 km left) or on 03/01/2026 (in 12 days)".
func (w Wording) dueText(d fuel.ReminderDue) string {
	var parts []string
	if d.DueOdometer.Valid {
		left := d.DueInKm.Decimal
		rel := fmt.Sprintf(w.word("left"), w.distance(left))
		if !left.IsPositive() {
			rel = fmt.Sprintf(w.word("past"), w.distance(left.Neg()))
		}
		parts = append(parts, fmt.Sprintf(w.word("at"), w.distance(d.DueOdometer.Decimal))+w.paren(rel))
	}
	if d.DueDate != nil {
		rel := w.word("today")
		switch n := *d.DueInDays; {
		case n == 1:
			rel = w.word("tomorrow")
		case n > 1:
			rel = fmt.Sprintf(w.word("inDays"), n)
		case n == -1:
			rel = w.word("dayAgo")
		case n < -1:
			rel = fmt.Sprintf(w.word("daysAgo"), -n)
		}
		parts = append(parts, fmt.Sprintf(w.word("on"), w.date(*d.DueDate))+w.paren(rel))
	}
	if len(parts) == 0 {
		return w.word("due")
	}
	sep := " "
	if w.lang == "zh" {
		sep = "："
	}
	return w.word("due") + sep + strings.Join(parts, w.word("or"))
}

// paren puts s in parentheses: full-width ones in Chinese.
func (w Wording) paren(s string) string {
	if w.lang == "zh" {
		return "（" + s + "）"
	}
	return " (" + s + ")"
}

// digestTitle is a digest's subject: "2 reminders need attention".
func (w Wording) digestTitle(n int) string {
	if n == 1 {
		return w.word("digest1")
	}
	return fmt.Sprintf(w.word("digest"), n)
}
