package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/pkg/ginx"
	"github.com/carhub/backend/services/fuel/internal/notifications"
)

// The routes of issue 57 (proto-docs/fuel-decisions.md, "Notifications"):
// each translates HTTP and calls one use case of notifications.Service.

func (a *API) registerNotifications(api gin.IRouter) {
	api.GET("/notifications/vapid-public-key", a.vapidPublicKey)
	api.GET("/notifications/settings", a.getNotificationSettings)
	api.PUT("/notifications/settings", a.updateNotificationSettings)
	api.POST("/notifications/push-subscriptions", a.addPushSubscription)
	api.DELETE("/notifications/push-subscriptions/:id", a.deletePushSubscription)
	api.POST("/notifications/test", a.testNotifications)
	api.GET("/notifications", a.listNotifications)
}

// notifier is the service, or UNAVAILABLE for an API without one (a
// test's).
func (a *API) notifier() (*notifications.Service, error) {
	if a.notify == nil {
		return nil, apperr.New(apperr.Unavailable, "notifications are not configured on this server")
	}
	return a.notify, nil
}

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

func (a *API) vapidPublicKey(c *gin.Context) {
	n, err := a.notifier()
	if err == nil && n.VAPIDPublicKey() == "" {
		err = apperr.New(apperr.Unavailable, "push is not configured on this server")
	}
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	c.JSON(http.StatusOK, gin.H{"key": n.VAPIDPublicKey()})
}

func (a *API) getNotificationSettings(c *gin.Context) {
	n, err := a.notifier()
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	s, err := n.Settings(c.Request.Context())
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	c.JSON(http.StatusOK, toNotificationSettingsResponse(s, n.Available()))
}

func (a *API) updateNotificationSettings(c *gin.Context) {
	n, err := a.notifier()
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	var req notificationSettingsRequest
	if err := ginx.BindJSON(c, &req); err != nil {
		ginx.Fail(c, err)
		return
	}
	s, err := n.UpdateSettings(c.Request.Context(), req.toUpdate())
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	c.JSON(http.StatusOK, toNotificationSettingsResponse(s, n.Available()))
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

// addPushSubscription answers 201 {id}, the same id for an endpoint
// already subscribed.
func (a *API) addPushSubscription(c *gin.Context) {
	n, err := a.notifier()
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	var req pushSubscriptionRequest
	if err := ginx.BindJSON(c, &req); err != nil {
		ginx.Fail(c, err)
		return
	}
	sub, err := n.Subscribe(c.Request.Context(), notifications.Subscription{Endpoint: req.Endpoint, P256dh: req.Keys.P256dh, Auth: req.Keys.Auth})
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	c.JSON(http.StatusCreated, gin.H{"id": sub.ID})
}

func (a *API) deletePushSubscription(c *gin.Context) {
	n, err := a.notifier()
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	id, err := pathID(c)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	if err := n.Unsubscribe(c.Request.Context(), id); err != nil {
		ginx.Fail(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}

// testResultJSON is one channel's result of POST /api/notifications/test.
type testResultJSON struct {
	Channel string  `json:"channel"`
	Status  string  `json:"status"`
	Error   *string `json:"error"`
}

func (a *API) testNotifications(c *gin.Context) {
	n, err := a.notifier()
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	rs, err := n.SendTest(c.Request.Context())
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	out := make([]testResultJSON, len(rs))
	for i, r := range rs {
		out[i] = testResultJSON{Channel: string(r.Channel), Status: r.State, Error: nullIfEmpty(r.Error)}
	}
	c.JSON(http.StatusOK, gin.H{"results": out})
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

func (a *API) listNotifications(c *gin.Context) {
	n, err := a.notifier()
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	ds, err := n.Deliveries(c.Request.Context())
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	out := make([]deliveryJSON, len(ds))
	for i, d := range ds {
		out[i] = deliveryJSON{
			ID: d.ID, Kind: d.Kind, ReminderStatus: nullIfEmpty(string(d.ReminderStatus)), Title: d.Title, Vehicle: nullIfEmpty(d.Vehicle),
			Channel: string(d.Channel), Status: d.State, Attempts: d.Attempts, Error: nullIfEmpty(d.Error),
			CreatedAt: formatTime(d.CreatedAt), Time: formatTime(d.UpdatedAt),
		}
		if d.ReminderID != 0 {
			id := d.ReminderID
			out[i].ReminderID = &id
		}
	}
	c.JSON(http.StatusOK, out)
}
