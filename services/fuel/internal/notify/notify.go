// Package notify delivers one notification over one channel: Web Push
// (RFC 8030/8291/8292), e-mail over SMTP, and webhooks (generic JSON, ntfy,
// Gotify). It knows nothing of reminders' rules, the database or HTTP
// handlers: package notifications decides what to send and when, records
// what was sent, retries what failed (Permanent says when not to) and calls
// these senders.
//
// No error of this package carries a secret: no SMTP password, no webhook
// token, no push endpoint path (whose last segment is the subscription's
// capability) and no VAPID private key.
package notify

// Message is one notification: what a reminder, a digest or a test says.
type Message struct {
	// Title is the e-mail subject and the push or webhook title, e.g.
	// "Oil change is overdue - Golf".
	Title string
	// Body is the plain-text body.
	Body string
	// URL is the link to open (PUBLIC_URL plus a path); may be "".
	URL string
	// Reminder is the one reminder this message is about, for the generic
	// webhook's JSON and the ntfy/Gotify priority; nil for a digest or a test.
	Reminder *ReminderInfo
	// Digest lists the reminders a daily digest is about; nil otherwise.
	Digest []ReminderInfo
}

// ReminderInfo is what a webhook receiver gets to know of one reminder.
// Optional values are pointers so that JSON carries null for "none".
type ReminderInfo struct {
	// Status is StatusSoon or StatusOverdue.
	Status string
	// Title is the reminder's own title ("Oil change"), Vehicle the
	// vehicle's name ("Golf").
	Title, Vehicle string
	// DueDate is YYYY-MM-DD.
	DueDate *string
	// DueOdometer and DueInKm are decimal strings, never floats.
	DueOdometer *string
	DueInKm     *string
	DueInDays   *int
}

// Reminder statuses that are notified.
const (
	StatusSoon    = "soon"
	StatusOverdue = "overdue"
)

// overdue tells whether m is about something overdue, which the channels
// that have priorities send as more urgent.
func (m Message) overdue() bool {
	if m.Reminder != nil {
		return m.Reminder.Status == StatusOverdue
	}
	for _, r := range m.Digest {
		if r.Status == StatusOverdue {
			return true
		}
	}
	return false
}
