package httpapi

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"slices"

	"github.com/gin-gonic/gin"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/pkg/ginx"
	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// reminderOut reads the reminder id as of now with its facts and renders
// it: the answer of every write.
func (a *API) reminderOut(ctx context.Context, st fuel.Store, id uint64) (reminderResponse, error) {
	now := a.now()
	r, err := st.Reminder(ctx, id, now)
	if err != nil {
		return reminderResponse{}, err
	}
	return toReminderResponse(r, r.Due(now)), nil
}

func (a *API) createReminder(c *gin.Context) {
	a.create(c, func(body io.Reader) (creator, error) {
		var req reminderRequest
		if err := ginx.DecodeJSON(body, &req); err != nil {
			return nil, err
		}
		u, err := req.toReminderUpdate(true)
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context, st fuel.Store) (any, error) {
			r := newReminder(u)
			if err := st.CreateReminder(ctx, &r); err != nil {
				return nil, err
			}
			return a.reminderOut(ctx, st, r.ID)
		}, nil
	})
}

func (a *API) getReminder(c *gin.Context) {
	id, err := pathID(c)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	out, err := a.reminderOut(c.Request.Context(), a.store, id)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	c.JSON(http.StatusOK, out)
}

func (a *API) updateReminder(c *gin.Context) {
	id, err := pathID(c)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	var req reminderRequest
	if err := ginx.BindJSON(c, &req); err != nil {
		ginx.Fail(c, err)
		return
	}
	u, err := req.toReminderUpdate(false)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	ctx := c.Request.Context()
	if _, err := a.store.UpdateReminder(ctx, id, u); err != nil {
		ginx.Fail(c, err)
		return
	}
	out, err := a.reminderOut(ctx, a.store, id)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	c.JSON(http.StatusOK, out)
}

func (a *API) deleteReminder(c *gin.Context) {
	id, err := pathID(c)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	if err := a.store.DeleteReminder(c.Request.Context(), id); err != nil {
		ginx.Fail(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}

// dueReminder is a reminder with what is due of it.
type dueReminder struct {
	fuel.Reminder
	Due fuel.ReminderDue
}

// listDue reads the reminders f selects as of now, computes them, keeps
// those of status (all when "") and orders them by urgency: overdue,
// soon, ok; within each, by the day they are due (NextDate; none last),
// then by id.
func (a *API) listDue(ctx context.Context, f fuel.ReminderFilter, status fuel.ReminderStatus) ([]dueReminder, error) {
	now := a.now()
	f.AsOf = now
	rs, err := a.store.ListReminders(ctx, f)
	if err != nil {
		return nil, err
	}
	out := make([]dueReminder, 0, len(rs))
	for _, r := range rs {
		d := r.Due(now)
		if status == "" || d.Status == status {
			out = append(out, dueReminder{r, d})
		}
	}
	// Ties keep the store's order: by id.
	slices.SortStableFunc(out, func(x, y dueReminder) int { return fuel.CompareUrgency(x.Due, y.Due) })
	return out, nil
}

func (a *API) listReminders(c *gin.Context) {
	f, status, err := reminderFilter(c.Request.URL.Query())
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	rs, err := a.listDue(c.Request.Context(), f, status)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	out := make([]reminderResponse, len(rs))
	for i, r := range rs {
		out[i] = toReminderResponse(r.Reminder, r.Due)
	}
	c.JSON(http.StatusOK, out)
}

// reminderFilter reads the query of GET /api/reminders: vehicle_id and
// status, both optional, each at most once; every bad one is named.
func reminderFilter(q url.Values) (fuel.ReminderFilter, fuel.ReminderStatus, error) {
	var (
		f      fuel.ReminderFilter
		status fuel.ReminderStatus
		errs   []error
	)
	for _, name := range []string{"vehicle_id", "status"} {
		vs, ok := q[name]
		switch {
		case !ok:
			continue
		case len(vs) > 1:
			errs = append(errs, apperr.Invalid(name, "must be given at most once"))
			continue
		}
		var err error
		if name == "vehicle_id" {
			f.VehicleID, err = parseID(name, vs[0])
		} else {
			status, err = fuel.ParseReminderStatus(name, vs[0])
		}
		errs = append(errs, err)
	}
	return f, status, apperr.Join(errs...)
}
