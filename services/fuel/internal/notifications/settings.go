package notifications

import (
	"net/mail"
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/carhub/backend/pkg/apperr"
)

// SettingsUpdate is a patch of Settings: a nil field is left unchanged.
// A pointer to "" clears Email, WebhookURL and WebhookToken and restores
// the default of WebhookFormat, When and DigestTime.
type SettingsUpdate struct {
	Email, WebhookURL, WebhookFormat, WebhookToken *string
	Push, EmailOn, WebhookOn                       *bool
	When, DigestTime                               *string
	ViewerReminders                                *bool
}

// Apply copies the set fields of u onto s. A webhook URL that changes
// without a token given drops the stored token: a token must never reach
// a URL it was not given for (whoever may change the URL cannot read the
// token, and must not receive it at a server of theirs).
func (u SettingsUpdate) Apply(s *Settings) {
	def := DefaultSettings()
	setText := func(dst *string, src *string, fallback string) {
		if src == nil {
			return
		}
		*dst = strings.TrimSpace(*src)
		if *dst == "" {
			*dst = fallback
		}
	}
	oldURL := s.WebhookURL
	setText(&s.Email, u.Email, "")
	setText(&s.WebhookURL, u.WebhookURL, "")
	setText(&s.WebhookFormat, u.WebhookFormat, def.WebhookFormat)
	if u.WebhookToken != nil {
		s.WebhookToken = *u.WebhookToken // a token is taken as it is written
	} else if s.WebhookURL != oldURL {
		s.WebhookToken = ""
	}
	setBool := func(dst *bool, src *bool) {
		if src != nil {
			*dst = *src
		}
	}
	setBool(&s.Channels.Push, u.Push)
	setBool(&s.Channels.Email, u.EmailOn)
	setBool(&s.Channels.Webhook, u.WebhookOn)
	setText(&s.When, u.When, def.When)
	setText(&s.DigestTime, u.DigestTime, def.DigestTime)
	setBool(&s.ViewerReminders, u.ViewerReminders)
}

// Validate reports every field of s that breaks a rule, in the order of
// the API's members, as one INVALID_ARGUMENT error: email (an address),
// webhook_url (an http or https URL), webhook_format, webhook_token (a
// header's value), channels.push, channels.email and channels.webhook (a
// channel this server cannot send on, or without its address or URL),
// when and digest_time ("HH:MM"). available says which channels the
// server can send on (e-mail needs SMTP_URL). checkURL, when not nil, is
// asked whether a well-formed webhook URL may be called (the URLChecker:
// its refusal names webhook_url too).
func (s Settings) Validate(available ChannelSet, checkURL func(string) error) error {
	var errs []error
	errs = append(errs, validEmail(s.Email), validWebhookURL(s.WebhookURL, checkURL))
	if !slices.Contains(WebhookFormats, s.WebhookFormat) {
		errs = append(errs, apperr.Invalid("webhook_format", "must be one of %s", strings.Join(WebhookFormats, ", ")))
	}
	errs = append(errs, validToken(s.WebhookToken))
	if s.Channels.Push && !available.Push {
		errs = append(errs, apperr.Invalid("channels.push", "push is not configured on this server (VAPID_SUBJECT or NOTIFY_FROM)"))
	}
	switch {
	case s.Channels.Email && !available.Email:
		errs = append(errs, apperr.Invalid("channels.email", "e-mail is not configured on this server (SMTP_URL)"))
	case s.Channels.Email && s.Email == "":
		errs = append(errs, apperr.Invalid("channels.email", "needs an email address"))
	}
	if s.Channels.Webhook && s.WebhookURL == "" {
		errs = append(errs, apperr.Invalid("channels.webhook", "needs a webhook_url"))
	}
	if s.When != WhenDue && s.When != WhenDigest {
		errs = append(errs, apperr.Invalid("when", "must be one of due, digest"))
	}
	if _, ok := ParseClock(s.DigestTime); !ok {
		errs = append(errs, apperr.Invalid("digest_time", "must be a time of day as HH:MM, from 00:00 to 23:59"))
	}
	return apperr.Join(errs...)
}

// ParseClock reads "HH:MM" (24 hours, two digits each) as minutes after
// midnight.
func ParseClock(s string) (int, bool) {
	if len(s) != 5 || s[2] != ':' {
		return 0, false
	}
	digit := func(b byte) (int, bool) { return int(b - '0'), b >= '0' && b <= '9' }
	h1, ok1 := digit(s[0])
	h2, ok2 := digit(s[1])
	m1, ok3 := digit(s[3])
	m2, ok4 := digit(s[4])
	h, m := h1*10+h2, m1*10+m2
	if !ok1 || !ok2 || !ok3 || !ok4 || h > 23 || m > 59 {
		return 0, false
	}
	return h*60 + m, true
}

func validEmail(s string) error {
	if s == "" {
		return nil
	}
	if len(s) > MaxEmailLen || strings.ContainsAny(s, "\r\n") {
		return apperr.Invalid("email", "must be an address of at most %d characters", MaxEmailLen)
	}
	// The bare address only: a display name ("Ann <ann@example.com>")
	// would be a second way to write the same.
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || a.Name != "" {
		return apperr.Invalid("email", "must be an e-mail address like name@example.com")
	}
	return nil
}

func validWebhookURL(s string, checkURL func(string) error) error {
	if s == "" {
		return nil
	}
	if len(s) > MaxWebhookURLLen {
		return apperr.Invalid("webhook_url", "must be at most %d characters", MaxWebhookURLLen)
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Hostname() == "" {
		return apperr.Invalid("webhook_url", "must be an http or https URL")
	}
	if u.Fragment != "" {
		return apperr.Invalid("webhook_url", "must not have a #fragment")
	}
	if checkURL != nil {
		if err := checkURL(s); err != nil {
			return apperr.Invalid("webhook_url", "%s", err.Error())
		}
	}
	return nil
}

// validToken refuses what cannot be an HTTP header's value.
func validToken(s string) error {
	switch {
	case utf8.RuneCountInString(s) > MaxWebhookTokenLen:
		return apperr.Invalid("webhook_token", "must be at most %d characters", MaxWebhookTokenLen)
	case !utf8.ValidString(s) || strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) || r > unicode.MaxASCII }) >= 0:
		return apperr.Invalid("webhook_token", "must be printable ASCII")
	}
	return nil
}
