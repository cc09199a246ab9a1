// Package gincors is the CORS middleware both services share, on
// gin-contrib/cors, configured as proto-docs/contract.md, "CORS", says: origins from
// CORS_ORIGINS, methods GET POST PUT DELETE OPTIONS, credentials allowed,
// and "any header" granted by echoing Access-Control-Request-Headers.
//
// Two things are added around gin-contrib/cors:
//   - with credentials allowed, browsers read a literal "*" in
//     Access-Control-Allow-Headers as no header at all, so the preflight
//     answer echoes the headers the browser asked for;
//   - gin-contrib/cors answers a disallowed origin with a bare 403. Here such
//     a request goes on without any CORS header (the browser then refuses to
//     hand the answer to the page), and a disallowed preflight is answered 204
//     with no grant, so non-browser clients that send Origin still get the
//     API's JSON answers.
package gincors

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	gincors "github.com/gin-contrib/cors"
	"github.com/gin-gonic/gin"
)

// DefaultOrigins are the two local development origins of the web client.
var DefaultOrigins = []string{"http://localhost:8081", "http://localhost:5173"}

// ParseOrigins reads a comma-separated CORS_ORIGINS value; empty means
// DefaultOrigins. Blank items and trailing slashes are dropped. Each origin
// must be scheme://host[:port] with scheme http or https.
func ParseOrigins(s string) ([]string, error) {
	var out []string
	for _, o := range strings.Split(s, ",") {
		o = strings.TrimRight(strings.TrimSpace(o), "/")
		if o == "" || slices.Contains(out, o) {
			continue
		}
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" || u.RawQuery != "" || u.User != nil {
			return nil, fmt.Errorf("CORS_ORIGINS: %q is not an origin like https://app.example.com", o)
		}
		out = append(out, o)
	}
	if len(out) == 0 {
		return slices.Clone(DefaultOrigins), nil
	}
	return out, nil
}

// Middleware returns the CORS handler for the allowed origins (as
// ParseOrigins returns them; none means DefaultOrigins).
func Middleware(origins []string) gin.HandlerFunc {
	allowed := slices.Clone(origins)
	if len(allowed) == 0 {
		allowed = slices.Clone(DefaultOrigins)
	}
	inner := gincors.New(gincors.Config{
		AllowOrigins:     allowed,
		AllowMethods:     []string{"GET", "POST", "PUT", "DELETE", "OPTIONS"},
		AllowCredentials: true,
		// No AllowHeaders: the echo below sets them per preflight.
		ExposeHeaders:             []string{"X-Request-ID", "Content-Disposition"},
		MaxAge:                    10 * time.Minute,
		OptionsResponseStatusCode: http.StatusNoContent,
	})
	return func(c *gin.Context) {
		origin := c.GetHeader("Origin")
		if origin == "" {
			c.Next()
			return
		}
		preflight := c.Request.Method == http.MethodOptions && c.GetHeader("Access-Control-Request-Method") != ""
		if !slices.Contains(allowed, origin) && !sameOrigin(c.Request, origin) {
			c.Writer.Header().Add("Vary", "Origin")
			if preflight {
				c.AbortWithStatus(http.StatusNoContent)
				return
			}
			c.Next()
			return
		}
		if preflight {
			if h := c.GetHeader("Access-Control-Request-Headers"); h != "" {
				c.Writer.Header().Set("Access-Control-Allow-Headers", h)
			}
		}
		inner(c)
	}
}

// sameOrigin mirrors gin-contrib/cors: a request whose Origin is its own
// host is no cross-origin request.
func sameOrigin(r *http.Request, origin string) bool {
	return origin == "http://"+r.Host || origin == "https://"+r.Host
}
