package notifications_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/services/fuel/internal/fuel"
	"github.com/carhub/backend/services/fuel/internal/notifications"
)

func TestValidateNamesEveryBadField(t *testing.T) {
	bad := notifications.Settings{
		Email: "not an address", WebhookURL: "ftp://hooks.example/x", WebhookFormat: "slack", WebhookToken: "line\nbreak",
		Channels: notifications.ChannelSet{Email: true}, When: "weekly", DigestTime: "8:00",
	}
	err := bad.Validate(notifications.ChannelSet{Webhook: true}, nil)
	var e *apperr.Error
	if !errors.As(err, &e) || e.Code != apperr.InvalidArgument {
		t.Fatalf("err %v", err)
	}
	fields := []string{"email:", "webhook_url:", "webhook_format:", "webhook_token:", "channels.email:", "when:", "digest_time:"}
	at := 0
	for _, f := range fields {
		i := strings.Index(e.Message[at:], f)
		if i < 0 {
			t.Fatalf("%q missing or out of order in %q", f, e.Message)
		}
		at += i
	}
	if err := notifications.DefaultSettings().Validate(notifications.ChannelSet{}, nil); err != nil {
		t.Fatalf("the defaults: %v", err)
	}
}

func TestValidateRules(t *testing.T) {
	ok := notifications.DefaultSettings()
	for _, c := range []struct {
		name   string
		change func(*notifications.Settings)
		mailer bool   // push and e-mail available
		field  string // "" valid
	}{
		{"address", func(s *notifications.Settings) { s.Email = "ann@example.com" }, false, ""},
		{"display name", func(s *notifications.Settings) { s.Email = "Ann <ann@example.com>" }, false, "email"},
		{"too long", func(s *notifications.Settings) { s.Email = strings.Repeat("a", 250) + "@x.de" }, false, "email"},
		{"email on, no mailer", func(s *notifications.Settings) { s.Email, s.Channels.Email = "a@b.de", true }, false, "channels.email"},
		{"email on, mailer", func(s *notifications.Settings) { s.Email, s.Channels.Email = "a@b.de", true }, true, ""},
		{"email on, no address", func(s *notifications.Settings) { s.Channels.Email = true }, true, "channels.email"},
		{"webhook on, no url", func(s *notifications.Settings) { s.Channels.Webhook = true }, false, "channels.webhook"},
		{"push on, no push", func(s *notifications.Settings) { s.Channels.Push = true }, false, "channels.push"},
		{"push on", func(s *notifications.Settings) { s.Channels.Push = true }, true, ""},
		{"https", func(s *notifications.Settings) { s.WebhookURL = "https://ntfy.sh/cars" }, false, ""},
		{"no host", func(s *notifications.Settings) { s.WebhookURL = "https:///x" }, false, "webhook_url"},
		{"fragment", func(s *notifications.Settings) { s.WebhookURL = "https://a.example/#x" }, false, "webhook_url"},
		{"token non-ASCII", func(s *notifications.Settings) { s.WebhookToken = "tökén" }, false, "webhook_token"},
		{"token long", func(s *notifications.Settings) { s.WebhookToken = strings.Repeat("t", 513) }, false, "webhook_token"},
		{"gotify", func(s *notifications.Settings) { s.WebhookFormat = "gotify" }, false, ""},
		{"digest 23:59", func(s *notifications.Settings) { s.When, s.DigestTime = "digest", "23:59" }, false, ""},
		{"digest 24:00", func(s *notifications.Settings) { s.DigestTime = "24:00" }, false, "digest_time"},
		{"digest 07:60", func(s *notifications.Settings) { s.DigestTime = "07:60" }, false, "digest_time"},
	} {
		s := ok
		c.change(&s)
		err := s.Validate(notifications.ChannelSet{Push: c.mailer, Email: c.mailer, Webhook: true}, nil)
		var e *apperr.Error
		switch {
		case c.field == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.field != "" && (!errors.As(err, &e) || e.Field != c.field):
			t.Errorf("%s: %v, want %s named", c.name, err, c.field)
		}
	}
	refuse := func(string) error { return errors.New("refused: 127.0.0.1 is a loopback address") }
	s := ok
	s.WebhookURL = "http://127.0.0.1/hook"
	if err := s.Validate(notifications.ChannelSet{}, refuse); err == nil || !strings.HasPrefix(err.Error(), "INVALID_ARGUMENT: webhook_url: refused") {
		t.Errorf("checked URL: %v", err)
	}
}

func TestApplyKeepsOrDropsTheToken(t *testing.T) {
	str := func(s string) *string { return &s }
	s := notifications.DefaultSettings()
	notifications.SettingsUpdate{WebhookURL: str(" https://hooks.example/a "), WebhookToken: str("tok")}.Apply(&s)
	if s.WebhookURL != "https://hooks.example/a" || s.WebhookToken != "tok" {
		t.Fatalf("set: %+v", s)
	}
	notifications.SettingsUpdate{Email: str("a@b.de")}.Apply(&s)
	if s.WebhookToken != "tok" {
		t.Fatal("a patch without the token dropped it")
	}
	notifications.SettingsUpdate{WebhookURL: str("https://hooks.example/a")}.Apply(&s)
	if s.WebhookToken != "tok" {
		t.Fatal("the same URL again dropped the token")
	}
	notifications.SettingsUpdate{WebhookURL: str("https://elsewhere.example/")}.Apply(&s)
	if s.WebhookToken != "" {
		t.Fatal("a new URL kept the token of the old one")
	}
	notifications.SettingsUpdate{WebhookFormat: str(""), When: str(""), DigestTime: str("")}.Apply(&s)
	if s.WebhookFormat != "generic" || s.When != "due" || s.DigestTime != "08:00" {
		t.Fatalf("cleared to defaults: %+v", s)
	}
}

func TestDigestDay(t *testing.T) {
	tokyo, _ := time.LoadLocation("Asia/Tokyo")
	for _, c := range []struct {
		now   time.Time
		clock string
		day   string
		due   bool
	}{
		{time.Date(2026, 3, 1, 22, 59, 0, 0, time.UTC), "08:00", "2026-03-02", false}, // 07:59 in Tokyo
		{time.Date(2026, 3, 1, 23, 0, 0, 0, time.UTC), "08:00", "2026-03-02", true},
		{time.Date(2026, 3, 2, 14, 59, 0, 0, time.UTC), "08:00", "2026-03-02", true}, // 23:59
		{time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC), "00:00", "2026-03-03", true},
	} {
		day, due := notifications.DigestDay(c.now, tokyo, c.clock)
		if day.String() != c.day || due != c.due {
			t.Errorf("%s at %s: %s %v, want %s %v", c.clock, c.now, day, due, c.day, c.due)
		}
	}
}

func TestOccurrenceIsTheDuePoint(t *testing.T) {
	date := fuel.Date{Year: 2027, Month: 3, Day: 1}
	r := fuel.Reminder{ID: 7}
	due := fuel.ReminderDue{DueDate: &date}
	if got := notifications.Occurrence(notifications.Due{Reminder: r, Due: due}); got != "reminder:7:-:2027-03-01" {
		t.Fatalf("occurrence %q", got)
	}
}
