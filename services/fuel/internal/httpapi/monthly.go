package httpapi

import (
	"net/http"
	"net/url"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/pkg/ginx"
	"github.com/carhub/backend/services/fuel/internal/fuel"
)

func (a *API) monthlyStatistics(c *gin.Context) {
	id, err := pathID(c)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	ctx := c.Request.Context()
	q, err := monthlyQuery(c.Request.URL.Query(), func() (*time.Location, error) { return a.preferredZone(ctx, a.preferencesOnce(ctx)) })
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	ms, err := a.store.MonthlyStatistics(ctx, id, q)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	out := make([]monthResponse, len(ms.Months))
	for i, m := range ms.Months {
		out[i] = toMonthResponse(ms.Energy, m)
	}
	c.JSON(http.StatusOK, out)
}

// dateRange reads the optional start_date and end_date (inclusive, each at
// most once, start not after end).
func dateRange(q url.Values) (start, end *time.Time, err error) {
	for _, b := range []struct {
		name string
		dst  **time.Time
	}{{"start_date", &start}, {"end_date", &end}} {
		vs, ok := q[b.name]
		if !ok {
			continue
		}
		if len(vs) > 1 {
			return nil, nil, apperr.Invalid(b.name, "must be given at most once")
		}
		t, err := parseTime(b.name, vs[0])
		if err != nil {
			return nil, nil, err
		}
		*b.dst = &t
	}
	if start != nil && end != nil && start.After(*end) {
		return nil, nil, apperr.Invalid("start_date", "must not be after end_date")
	}
	return start, end, nil
}

// monthlyQuery reads the query of the monthly series: the date range, the
// energy (default: the vehicle's main energy) and the owner's zone tz
// (default: the zone defaultZone returns), each at most once.
func monthlyQuery(q url.Values, defaultZone func() (*time.Location, error)) (fuel.MonthlyQuery, error) {
	var (
		mq  fuel.MonthlyQuery
		err error
	)
	if mq.Start, mq.End, err = dateRange(q); err != nil {
		return mq, err
	}
	if vs, ok := q["energy"]; ok {
		if len(vs) > 1 {
			return mq, apperr.Invalid("energy", "must be given at most once")
		}
		if mq.Energy, err = fuel.ParseEnergy("energy", vs[0]); err != nil {
			return mq, err
		}
	}
	mq.Location, err = queryZone(q, defaultZone)
	return mq, err
}
