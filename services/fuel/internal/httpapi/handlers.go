package httpapi

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/pkg/ginx"
	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// healthTimeout bounds the database ping of /health.
const healthTimeout = 2 * time.Second

func (a *API) health(c *gin.Context) {
	ctx, cancel := context.WithTimeout(c.Request.Context(), healthTimeout)
	defer cancel()
	now := formatTime(a.now())
	if err := a.store.Ping(ctx); err != nil {
		ginx.Fail(c, apperr.Wrap(apperr.Unavailable, err, "database does not answer"))
		// The error is logged by ginx; the body keeps the health shape.
		c.JSON(http.StatusServiceUnavailable, healthResponse{
			Status: "unavailable", Time: now, Code: string(apperr.Unavailable), Message: "database does not answer",
		})
		return
	}
	c.JSON(http.StatusOK, healthResponse{Status: "ok", Time: now})
}

func (a *API) listVehicles(c *gin.Context) {
	vs, err := a.store.ListVehicles(c.Request.Context())
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	out := make([]vehicleResponse, len(vs))
	for i, v := range vs {
		out[i] = toVehicleResponse(v)
	}
	c.JSON(http.StatusOK, out)
}

func (a *API) createVehicle(c *gin.Context) {
	a.create(c, func(body io.Reader) (creator, error) {
		var req vehicleRequest
		if err := ginx.DecodeJSON(body, &req); err != nil {
			return nil, err
		}
		u, err := req.toVehicleUpdate(true)
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context, st fuel.Store) (any, error) {
			var v fuel.Vehicle
			u.Apply(&v)
			if err := st.CreateVehicle(ctx, &v); err != nil {
				return nil, err
			}
			return toVehicleResponse(v), nil
		}, nil
	})
}

func (a *API) getVehicle(c *gin.Context) {
	id, err := pathID(c)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	v, err := a.store.Vehicle(c.Request.Context(), id)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	c.JSON(http.StatusOK, toVehicleResponse(v))
}

func (a *API) updateVehicle(c *gin.Context) {
	id, err := pathID(c)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	var req vehicleRequest
	if err := ginx.BindJSON(c, &req); err != nil {
		ginx.Fail(c, err)
		return
	}
	u, err := req.toVehicleUpdate(false)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	v, err := a.store.UpdateVehicle(c.Request.Context(), id, u)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	c.JSON(http.StatusOK, toVehicleResponse(v))
}

func (a *API) deleteVehicle(c *gin.Context) {
	id, err := pathID(c)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	if err := a.store.DeleteVehicle(c.Request.Context(), id); err != nil {
		ginx.Fail(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}

func (a *API) setDefaultVehicle(c *gin.Context) {
	id, err := pathID(c)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	v, err := a.store.SetDefaultVehicle(c.Request.Context(), id)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	c.JSON(http.StatusOK, toVehicleResponse(v))
}

func (a *API) statistics(c *gin.Context) {
	id, err := pathID(c)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	s, err := a.store.Statistics(c.Request.Context(), id)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	c.JSON(http.StatusOK, toStatisticsResponse(s))
}

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

// pathID reads the :id path parameter (proto-docs/contract.md, "Path ids": 1..MaxUint64).
func pathID(c *gin.Context) (uint64, error) { return parseID("id", c.Param("id")) }

// maxPageSize bounds the limit query parameter.
const maxPageSize = 1000

// refuelFilter reads the query of GET /api/refuels.
func refuelFilter(q url.Values) (fuel.RefuelFilter, error) {
	l, err := readListQuery(q)
	return fuel.RefuelFilter{VehicleID: l.vehicleID, Start: l.start, End: l.end, Limit: l.limit, Offset: l.offset}, err
}

// listQuery is the query every list of a vehicle's records takes: the
// vehicle (required), the inclusive time range and the page.
type listQuery struct {
	vehicleID     uint64
	start, end    *time.Time
	limit, offset int
}

// queryParam reads a query parameter that may be given at most once.
func queryParam(q url.Values, name string) (string, bool, error) {
	vs, ok := q[name]
	switch {
	case !ok:
		return "", false, nil
	case len(vs) > 1:
		return "", false, apperr.Invalid(name, "must be given at most once")
	}
	return vs[0], true, nil
}

// readListQuery reads a listQuery. Each parameter may be given once.
func readListQuery(q url.Values) (listQuery, error) {
	var f listQuery
	get := func(name string) (string, bool, error) { return queryParam(q, name) }
	raw, ok, err := get("vehicle_id")
	if err != nil {
		return f, err
	}
	if !ok {
		return f, apperr.Invalid("vehicle_id", "is required")
	}
	if f.vehicleID, err = parseID("vehicle_id", raw); err != nil {
		return f, err
	}
	if f.start, f.end, err = dateRange(q); err != nil {
		return f, err
	}
	if raw, ok, err = get("limit"); err != nil {
		return f, err
	} else if ok {
		n, err := strconv.Atoi(raw)
		if err != nil || n < 1 || n > maxPageSize || strconv.Itoa(n) != raw {
			return f, apperr.Invalid("limit", "must be an integer between 1 and %d", maxPageSize)
		}
		f.limit = n
	}
	if raw, ok, err = get("offset"); err != nil {
		return f, err
	} else if ok {
		n, err := strconv.ParseInt(raw, 10, 64)
		if err != nil || n < 0 || strconv.FormatInt(n, 10) != raw {
			return f, apperr.Invalid("offset", "must be an integer of at least 0")
		}
		f.offset = int(n)
	}
	return f, nil
}
