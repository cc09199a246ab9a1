// Package ginauth is the HTTP side of pkg/auth: Gin middleware that sets
// and checks the identity a request acts for, and the limits (rate per key,
// concurrency per key) whose refusals are 429 answers. pkg/auth itself
// (identities, tokens, passwords, signing) knows nothing of HTTP routing, so
// domain and store packages that need an identity do not pull in Gin.
package ginauth

import (
	"time"

	"github.com/gin-gonic/gin"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/pkg/ginx"
)

// ErrUnauthorized is the one answer to a missing, malformed, expired or
// revoked credential: it never says which.
func ErrUnauthorized() *apperr.Error {
	return apperr.New(apperr.Unauthorized, "a valid bearer token is required")
}

// Trusted is docqa-service's authentication: with AUTH_MODE=off every
// request acts as the built-in user; with local, a request must carry the
// identity that fuel-service signed for the gateway (auth.HeaderIdentity),
// else 401. A client that reaches the service directly cannot make one
// without the secret.
func Trusted(mode auth.Mode, secret []byte, now func() time.Time) gin.HandlerFunc {
	if now == nil {
		now = time.Now
	}
	return func(c *gin.Context) {
		id := auth.Builtin()
		if mode == auth.ModeLocal {
			v := c.GetHeader(auth.HeaderIdentity)
			if v == "" {
				ginx.Fail(c, ErrUnauthorized())
				return
			}
			var err error
			if id, err = auth.VerifySigned(secret, v, now()); err != nil {
				e := ErrUnauthorized()
				e.Err = err
				ginx.Fail(c, e)
				return
			}
		}
		c.Request = c.Request.WithContext(auth.WithIdentity(c.Request.Context(), id))
		c.Next()
	}
}

// RequireScope refuses, 403, a request that writes with a read token. It
// runs after the middleware that set the identity.
func RequireScope() gin.HandlerFunc {
	return func(c *gin.Context) {
		id, ok := auth.FromContext(c.Request.Context())
		if !ok {
			ginx.Fail(c, ErrUnauthorized())
			return
		}
		if !auth.IsRead(c.Request.Method) && !id.CanWrite() {
			ginx.Fail(c, apperr.New(apperr.Forbidden, "this token may only read"))
			return
		}
		c.Next()
	}
}

// RequireAdmin refuses, 403, a caller who is not an administrator.
func RequireAdmin() gin.HandlerFunc {
	return func(c *gin.Context) {
		id, ok := auth.FromContext(c.Request.Context())
		if !ok {
			ginx.Fail(c, ErrUnauthorized())
			return
		}
		if !id.Admin {
			ginx.Fail(c, apperr.New(apperr.Forbidden, "only an administrator may do this"))
			return
		}
		c.Next()
	}
}
