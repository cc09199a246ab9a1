package httpapi

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	ics "github.com/arran4/golang-ical"
	"github.com/gin-gonic/gin"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/pkg/ginauth"
	"github.com/carhub/backend/pkg/ginx"
	"github.com/carhub/backend/services/fuel/internal/accounts"
	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// FeedTokenParam is the query parameter of GET /api/reminders.ics that
// may carry a read-only personal access token: calendar apps subscribe to
// a URL and cannot send an Authorization header.
const FeedTokenParam = "token"

// authenticateFeed is authenticate for the calendar feed: a bearer token
// in the Authorization header as everywhere, or, without one, a read-only
// personal access token in the token query parameter
// (proto-docs/auth-decisions.md, "The calendar feed's token"). Only this
// route reads the query; a session token or a write token there is
// refused, so that what a URL leaks can only read.
func (a *accountRoutes) authenticateFeed(c *gin.Context) {
	vs, inQuery := c.Request.URL.Query()[FeedTokenParam]
	if a.opts.Mode != auth.ModeLocal || !inQuery || c.GetHeader("Authorization") != "" {
		a.authenticate(c)
		return
	}
	if len(vs) != 1 {
		ginx.Fail(c, apperr.Invalid(FeedTokenParam, "must be given once"))
		return
	}
	token := vs[0]
	if kind, ok := auth.ParseToken(token); !ok || kind != auth.KindToken {
		ginx.Fail(c, ginauth.ErrUnauthorized())
		return
	}
	id, err := a.tokens.Verify(c.Request.Context(), auth.HashToken(token), a.opts.Accounts.VerifyToken)
	if errors.Is(err, accounts.ErrInvalidToken) {
		ginx.Fail(c, ginauth.ErrUnauthorized())
		return
	}
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	if id.Scope != auth.ScopeRead {
		ginx.Fail(c, apperr.New(apperr.Forbidden, "token: only a read-only access token may be given in a URL; create one with scope read"))
		return
	}
	c.Request = c.Request.WithContext(auth.WithIdentity(c.Request.Context(), id))
	c.Next()
}

// reminderFeed serves GET /api/reminders.ics: the caller's reminders as
// an RFC 5545 calendar, one all-day event per reminder on the day it is
// due (the earlier of due_date and estimated_due_date); a reminder with
// neither has no event.
func (a *API) reminderFeed(c *gin.Context) {
	ctx := c.Request.Context()
	rs, err := a.listDue(ctx, fuel.ReminderFilter{}, "")
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	vs, err := a.store.ListVehicles(ctx)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	names := make(map[uint64]string, len(vs))
	for _, v := range vs {
		names[v.ID] = v.Name
	}
	body := reminderCalendar(rs, names, a.now())
	c.Header("Cache-Control", "private, no-store")
	c.Data(http.StatusOK, "text/calendar; charset=utf-8", []byte(body))
}

// reminderCalendar writes the calendar of rs: a VEVENT per reminder with
// a day, its UID stable (the reminder's id), its SEQUENCE the reminder's
// revision, DTSTAMP now.
func reminderCalendar(rs []dueReminder, vehicleNames map[uint64]string, now time.Time) string {
	cal := ics.NewCalendarFor("CarHub//fuel-service reminders")
	cal.SetMethod(ics.MethodPublish)
	cal.SetCalscale("GREGORIAN")
	cal.SetXWRCalName("CarHub reminders")
	cal.SetRefreshInterval("PT12H")
	cal.SetXPublishedTTL("PT12H")
	for _, r := range rs {
		day := r.Due.NextDate()
		if day == nil {
			continue
		}
		start := time.Date(day.Year, day.Month, day.Day, 0, 0, 0, 0, time.UTC)
		e := cal.AddEvent(reminderUID(r.ID))
		e.SetDtStampTime(now)
		e.SetCreatedTime(r.CreatedAt)
		e.SetLastModifiedAt(r.UpdatedAt)
		e.SetSequence(r.Revision)
		e.SetAllDayStartAt(start)
		e.SetAllDayEndAt(start.AddDate(0, 0, 1))
		e.SetTimeTransparency(ics.TransparencyTransparent)
		e.SetSummary(eventSummary(r, vehicleNames[r.VehicleID]))
		e.SetDescription(eventDescription(r))
		e.SetProperty(ics.ComponentPropertyCategories, r.Category)
	}
	return cal.Serialize(ics.WithNewLineWindows)
}

// reminderUID is the stable UID of a reminder's event.
func reminderUID(id uint64) string { return "reminder-" + strconv.FormatUint(id, 10) + "@carhub" }

func eventSummary(r dueReminder, vehicle string) string {
	s := r.Title
	if vehicle != "" {
		s += " – " + vehicle
	}
	if r.Due.Status == fuel.StatusOverdue {
		s += " (overdue)"
	}
	return oneLineBreaks(s)
}

// eventDescription says why the event is on its day: the due odometer and
// date, the estimate and its pace, then the notes.
func eventDescription(r dueReminder) string {
	var lines []string
	d := r.Due
	if d.DueOdometer.Valid {
		lines = append(lines, fmt.Sprintf("Due at %s km (%s km to go).", d.DueOdometer.Decimal, d.DueInKm.Decimal))
	}
	if d.DueDate != nil {
		lines = append(lines, fmt.Sprintf("Due on %s.", d.DueDate))
	}
	if d.EstimatedDueDate != nil && d.DistancePerDay.Valid {
		lines = append(lines, fmt.Sprintf("Expected on %s at %s km a day.", d.EstimatedDueDate, d.DistancePerDay.Decimal))
	}
	if r.Notes != "" {
		lines = append(lines, "", r.Notes)
	}
	return oneLineBreaks(strings.Join(lines, "\n"))
}

// oneLineBreaks turns CR LF and lone CRs into LF, the one line break the
// TEXT escaping knows (\n): a raw CR would end the content line. Other
// control characters, which RFC 5545 TEXT may not hold (a title may),
// become spaces.
func oneLineBreaks(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	return strings.Map(func(r rune) rune {
		if r != '\n' && r != '\t' && (r < 0x20 || r == 0x7f) {
			return ' '
		}
		return r
	}, s)
}
