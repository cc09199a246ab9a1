package httpapi

import (
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/pkg/ginauth"
	"github.com/carhub/backend/pkg/ginx"
)

// uploadRetryAfter is what a refused upload is told: uploads take seconds.
const uploadRetryAfter = 5 * time.Second

// limitChat refuses, 429, a question past the caller's ChatPerMinute: each
// one may cost the operator a paid provider call.
func (h *handler) limitChat(c *gin.Context) {
	if ok, wait := h.chatLimit.Allow(userKey(c)); !ok {
		ginx.Fail(c, ginauth.Exhausted("chat", wait))
		return
	}
	c.Next()
}

// limitUploads refuses, 429, an upload while the caller has UploadsPerUser
// running, before its body is read; the slot is held until the handler
// returns.
func (h *handler) limitUploads(c *gin.Context) {
	key := userKey(c)
	if !h.uploads.Acquire(key) {
		ginx.Fail(c, ginauth.Exhausted("uploads", uploadRetryAfter))
		return
	}
	defer h.uploads.Release(key)
	c.Next()
}

func userKey(c *gin.Context) string {
	return strconv.FormatUint(auth.UserID(c.Request.Context()), 10)
}
