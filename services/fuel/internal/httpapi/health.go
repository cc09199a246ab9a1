package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/pkg/ginx"
	"github.com/gin-gonic/gin"
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

// healthResponse is the body of GET /health; Code and Message are set
// when the database does not answer, as in every error body.
type healthResponse struct {
	Status  string `json:"status"`
	Time    string `json:"time"`
	Code    string `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
}
