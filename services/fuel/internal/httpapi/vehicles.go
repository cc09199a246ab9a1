package httpapi

import (
	"context"
	"io"
	"net/http"

	"github.com/carhub/backend/pkg/ginx"
	"github.com/carhub/backend/services/fuel/internal/fuel"
	"github.com/gin-gonic/gin"
)

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
