package httpapi

import (
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
