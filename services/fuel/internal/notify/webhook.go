package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"
)

// Webhook formats.
const (
	// FormatGeneric POSTs a JSON document describing the reminder.
	FormatGeneric = "generic"
	// FormatNtfy POSTs the text to an ntfy topic URL.
	FormatNtfy = "ntfy"
	// FormatGotify POSTs to a Gotify server's /message.
	FormatGotify = "gotify"
)

// Formats are the webhook formats there are, for validating settings.
var Formats = []string{FormatGeneric, FormatNtfy, FormatGotify}

// userAgent names the sender to webhook receivers.
const userAgent = "CarHub-notify"

// WebhookTarget is where a user's webhook goes.
type WebhookTarget struct {
	// URL is the receiver: the generic endpoint, the ntfy topic URL
	// (https://ntfy.sh/my-topic) or the Gotify server's base URL.
	URL string
	// Format is FormatGeneric, FormatNtfy or FormatGotify; "" is generic.
	Format string
	// Token is sent as "Authorization: Bearer" (generic, ntfy) or as
	// X-Gotify-Key (Gotify, where it is the application token); optional
	// but for Gotify.
	Token string
}

// Webhook sends webhook notifications.
type Webhook struct {
	// Client sends the POST; nil is NewHTTPClient(false, 30s).
	Client *http.Client
}

// Send posts m to t in t's format. Non-2xx answers are a *StatusError.
// Errors name the receiver's host only: the path of an ntfy topic is its
// password, and the token is never repeated.
func (w Webhook) Send(ctx context.Context, t WebhookTarget, m Message) error {
	u, err := parseTarget(t.URL)
	if err != nil {
		return fmt.Errorf("webhook: URL %w", err)
	}
	if !validToken(t.Token) {
		return permanent(errors.New("webhook: the token has characters a header cannot carry"))
	}
	var req *http.Request
	switch t.Format {
	case FormatGeneric, "":
		req, err = genericRequest(ctx, u, t.Token, m)
	case FormatNtfy:
		req, err = ntfyRequest(ctx, u, t.Token, m)
	case FormatGotify:
		req, err = gotifyRequest(ctx, u, t.Token, m)
	default:
		return permanent(fmt.Errorf("webhook: unknown format %q", t.Format))
	}
	if err != nil {
		return permanent(fmt.Errorf("webhook to %s: %w", u.Host, err))
	}
	req.Header.Set("User-Agent", userAgent)
	client := w.Client
	if client == nil {
		client = defaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return sendError("webhook", u, err)
	}
	defer drain(resp)
	if resp.StatusCode/100 != 2 {
		return statusError("webhook", u, resp)
	}
	return nil
}

// kind is the generic webhook's "type".
func (m Message) kind() string {
	switch {
	case m.Reminder != nil:
		return "reminder"
	case m.Digest != nil:
		return "digest"
	default:
		return "test"
	}
}

// reminderJSON is a reminder in the generic webhook's JSON: every key is
// there, null when it has no value.
func reminderJSON(r ReminderInfo) map[string]any {
	return map[string]any{
		"status":       r.Status,
		"title":        r.Title,
		"vehicle":      r.Vehicle,
		"due_date":     r.DueDate,
		"due_odometer": r.DueOdometer,
		"due_in_km":    r.DueInKm,
		"due_in_days":  r.DueInDays,
	}
}

// genericRequest is the generic webhook: a JSON document
// {type: "reminder", status, title, vehicle, due_date, due_odometer,
// due_in_km, due_in_days, url, message}; a digest has type "digest",
// the message's title and its reminders in "reminders"; a test has type
// "test" and the message's title.
func genericRequest(ctx context.Context, u *url.URL, token string, m Message) (*http.Request, error) {
	doc := map[string]any{"title": m.Title}
	switch {
	case m.Reminder != nil:
		doc = reminderJSON(*m.Reminder)
	case m.Digest != nil:
		list := make([]map[string]any, len(m.Digest))
		for i, r := range m.Digest {
			list[i] = reminderJSON(r)
		}
		doc["reminders"] = list
	}
	doc["type"] = m.kind()
	doc["message"] = m.Body
	doc["url"] = nil
	if m.URL != "" {
		doc["url"] = m.URL
	}
	body, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, errors.New("cannot make the request")
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return req, nil
}

// ntfyRequest publishes to an ntfy topic: the body as text, the title in
// Title (RFC 2047-encoded when it is not ASCII, which ntfy decodes), emoji
// tags, the link in Click, high priority when something is overdue
// (https://docs.ntfy.sh/publish/).
func ntfyRequest(ctx context.Context, u *url.URL, token string, m Message) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), strings.NewReader(m.Body))
	if err != nil {
		return nil, errors.New("cannot make the request")
	}
	req.Header.Set("Content-Type", "text/plain; charset=utf-8")
	req.Header.Set("Title", mime.BEncoding.Encode("utf-8", oneLine(m.Title)))
	tags := []string{"car"}
	if m.overdue() {
		tags = append(tags, "warning")
		req.Header.Set("Priority", "high")
	} else if m.Reminder != nil || m.Digest != nil {
		tags = append(tags, "hourglass_flowing_sand")
	}
	req.Header.Set("Tags", strings.Join(tags, ","))
	if m.URL != "" {
		req.Header.Set("Click", m.URL)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return req, nil
}

// Gotify priorities: the Android app alerts with sound from 4 on, and
// shows 8 and above as urgent.
const (
	gotifyPriority        = 5
	gotifyPriorityOverdue = 8
)

// gotifyRequest posts to a Gotify server's /message with the application
// token in X-Gotify-Key and {title, message, priority}, the link as the
// notification's click URL (https://gotify.net/docs/msgextras).
func gotifyRequest(ctx context.Context, u *url.URL, token string, m Message) (*http.Request, error) {
	if token == "" {
		return nil, errors.New("gotify needs the application's token")
	}
	doc := map[string]any{"title": m.Title, "message": m.Body, "priority": gotifyPriority}
	if m.overdue() {
		doc["priority"] = gotifyPriorityOverdue
	}
	if m.URL != "" {
		doc["extras"] = map[string]any{
			"client::notification": map[string]any{"click": map[string]string{"url": m.URL}},
		}
	}
	body, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.JoinPath("message").String(), bytes.NewReader(body))
	if err != nil {
		return nil, errors.New("cannot make the request")
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Gotify-Key", token)
	return req, nil
}

// validToken tells whether a token can be sent in a header: visible ASCII
// only, so that it can neither break the request nor be refused by the
// transport with an error that is hard to read.
func validToken(token string) bool {
	for i := 0; i < len(token); i++ {
		if token[i] < 0x21 || token[i] > 0x7e {
			return false
		}
	}
	return true
}
