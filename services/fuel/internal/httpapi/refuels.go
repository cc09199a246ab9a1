package httpapi

import (
	"context"
	"io"
	"net/http"
	"net/url"

	"github.com/carhub/backend/pkg/ginx"
	"github.com/carhub/backend/services/fuel/internal/fuel"
	"github.com/gin-gonic/gin"
)

func (a *API) listRefuels(c *gin.Context) {
	f, err := refuelFilter(c.Request.URL.Query())
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	rs, err := a.store.ListRefuels(c.Request.Context(), f)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	out := make([]refuelResponse, len(rs))
	for i, r := range rs {
		out[i] = toRefuelResponse(r)
	}
	c.JSON(http.StatusOK, out)
}

func (a *API) createRefuel(c *gin.Context) {
	a.create(c, func(body io.Reader) (creator, error) {
		var req refuelRequest
		if err := ginx.DecodeJSON(body, &req); err != nil {
			return nil, err
		}
		u, err := req.toRefuelUpdate(true)
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context, st fuel.Store) (any, error) {
			var r fuel.Refuel
			u.Apply(&r)
			if err := st.CreateRefuel(ctx, &r); err != nil {
				return nil, err
			}
			return toRefuelResponse(r), nil
		}, nil
	})
	// Counted once the answer is out: a failed transaction and a replay
	// created nothing.
	if len(c.Errors) == 0 && c.Writer.Written() && c.Writer.Header().Get("Idempotent-Replayed") == "" {
		a.metrics.refuelsCreated.Inc()
	}
}

func (a *API) getRefuel(c *gin.Context) {
	id, err := pathID(c)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	r, err := a.store.Refuel(c.Request.Context(), id)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	c.JSON(http.StatusOK, toRefuelResponse(r))
}

func (a *API) updateRefuel(c *gin.Context) {
	id, err := pathID(c)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	var req refuelRequest
	if err := ginx.BindJSON(c, &req); err != nil {
		ginx.Fail(c, err)
		return
	}
	u, err := req.toRefuelUpdate(false)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	r, err := a.store.UpdateRefuel(c.Request.Context(), id, u)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	c.JSON(http.StatusOK, toRefuelResponse(r))
}

func (a *API) deleteRefuel(c *gin.Context) {
	id, err := pathID(c)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	if err := a.store.DeleteRefuel(c.Request.Context(), id); err != nil {
		ginx.Fail(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}

// refuelFilter reads the query of GET /api/refuels.
func refuelFilter(q url.Values) (fuel.RefuelFilter, error) {
	l, err := readListQuery(q)
	return fuel.RefuelFilter{VehicleID: l.vehicleID, Start: l.start, End: l.end, Limit: l.limit, Offset: l.offset}, err
}
