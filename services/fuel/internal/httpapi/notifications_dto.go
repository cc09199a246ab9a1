package httpapi

import (
	"encoding/json"

	"github.com/carhub/backend/services/fuel/internal/notifications"
)

// The bodies of the notifications' routes (notifications.go) and their
// conversion to and from the use case's types.

// channelsJSON is a set of channels: the ones turned on, or available.
type channelsJSON struct {
	Push    bool `json:"push"`
	Email   bool `json:"email"`
	Webhook bool `json:"webhook"`
}

func toChannelsJSON(c notifications.ChannelSet) channelsJSON {
	return channelsJSON{Push: c.Push, Email: c.Email, Webhook: c.Webhook}
}

// notificationSettingsResponse is the caller's settings. The webhook's
// token is never answered: webhook_token_set says whether one is kept.
// available says which channels this server can send on (e-mail needs
// SMTP_URL).
type notificationSettingsResponse struct {
	Email           *string      `json:"email"`
	WebhookURL      *string      `json:"webhook_url"`
	WebhookFormat   string       `json:"webhook_format"`
	WebhookTokenSet bool         `json:"webhook_token_set"`
	Channels        channelsJSON `json:"channels"`
	When            string       `json:"when"`
	DigestTime      string       `json:"digest_time"`
	ViewerReminders bool         `json:"viewer_reminders"`
	Available       channelsJSON `json:"available"`
	UpdatedAt       *string      `json:"updated_at"`
}

func toNotificationSettingsResponse(s notifications.Settings, available notifications.ChannelSet) notificationSettingsResponse {
	out := notificationSettingsResponse{
		Email: nullIfEmpty(s.Email), WebhookURL: nullIfEmpty(s.WebhookURL), WebhookFormat: s.WebhookFormat,
		WebhookTokenSet: s.WebhookToken != "", Channels: toChannelsJSON(s.Channels), When: s.When, DigestTime: s.DigestTime,
		ViewerReminders: s.ViewerReminders, Available: toChannelsJSON(available),
	}
	if !s.UpdatedAt.IsZero() {
		at := formatTime(s.UpdatedAt)
		out.UpdatedAt = &at
	}
	return out
}

// notificationSettingsRequest is the body of PUT: a patch. An absent
// member is left unchanged; null or "" clears email, webhook_url and
// webhook_token and restores the default of webhook_format, when and
// digest_time; null is false for the booleans. webhook_token absent keeps
// the stored token, unless webhook_url changes (see
// notifications.SettingsUpdate.Apply).
type notificationSettingsRequest struct {
	Email           optString   `json:"email"`
	WebhookURL      optString   `json:"webhook_url"`
	WebhookFormat   optString   `json:"webhook_format"`
	WebhookToken    optString   `json:"webhook_token"`
	Channels        optChannels `json:"channels"`
	When            optString   `json:"when"`
	DigestTime      optString   `json:"digest_time"`
	ViewerReminders optBool     `json:"viewer_reminders"`
}

// optChannels is the channels member: an object of optional booleans.
type optChannels struct {
	Push    optBool `json:"push"`
	Email   optBool `json:"email"`
	Webhook optBool `json:"webhook"`
}

func (o *optChannels) UnmarshalJSON(b []byte) error {
	*o = optChannels{}
	if isNull(b) {
		return nil
	}
	if b[0] != '{' {
		return typeError(b, objectType)
	}
	var v struct {
		Push    optBool `json:"push"`
		Email   optBool `json:"email"`
		Webhook optBool `json:"webhook"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*o = optChannels(v)
	return nil
}

func (req notificationSettingsRequest) toUpdate() notifications.SettingsUpdate {
	text := func(o optString) *string {
		if !o.Set {
			return nil
		}
		v := o.V // "" when null
		return &v
	}
	flag := func(o optBool) *bool {
		if !o.Set {
			return nil
		}
		v := o.V // false when null
		return &v
	}
	return notifications.SettingsUpdate{
		Email: text(req.Email), WebhookURL: text(req.WebhookURL), WebhookFormat: text(req.WebhookFormat),
		WebhookToken: text(req.WebhookToken),
		Push:         flag(req.Channels.Push), EmailOn: flag(req.Channels.Email), WebhookOn: flag(req.Channels.Webhook),
		When: text(req.When), DigestTime: text(req.DigestTime), ViewerReminders: flag(req.ViewerReminders),
	}
}

// pushSubscriptionRequest is a browser's PushSubscription JSON
// (expirationTime and anything else ignored).
type pushSubscriptionRequest struct {
	Endpoint string `json:"endpoint"`
	Keys     struct {
		P256dh string `json:"p256dh"`
		Auth   string `json:"auth"`
	} `json:"keys"`
}

// testResultJSON is one channel's result of POST /api/notifications/test.
type testResultJSON struct {
	Channel string  `json:"channel"`
	Status  string  `json:"status"`
	Error   *string `json:"error"`
}

// deliveryJSON is one entry of GET /api/notifications: what was sent on
// which channel, whether it went, and when (time: when it was sent or
// given up, or claimed while pending).
type deliveryJSON struct {
	ID             uint64  `json:"id"`
	Kind           string  `json:"kind"`
	ReminderID     *uint64 `json:"reminder_id"`
	ReminderStatus *string `json:"reminder_status"`
	Title          string  `json:"title"`
	Vehicle        *string `json:"vehicle"`
	Channel        string  `json:"channel"`
	Status         string  `json:"status"`
	Attempts       int     `json:"attempts"`
	Error          *string `json:"error"`
	CreatedAt      string  `json:"created_at"`
	Time           string  `json:"time"`
}
