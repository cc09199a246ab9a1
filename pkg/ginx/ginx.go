// Package ginx assembles the Gin engine both services use: request ids,
// access logging, panic recovery, CORS, JSON 404s for unmatched routes and
// methods, body limits, the one place where errors become JSON bodies, and
// the operational routes (request metrics and /metrics, /livez, /readyz).
package ginx

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"net/netip"
	"runtime/debug"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/pkg/gincors"
	"github.com/carhub/backend/pkg/ginprobes"
	"github.com/carhub/backend/pkg/logging"
	"github.com/carhub/backend/pkg/metrics"
	"github.com/carhub/backend/pkg/tracing"
)

// HeaderRequestID carries the request id in requests and responses
// (X-Request-ID), spelt as net/http keeps header names: reading and setting
// it then allocate no canonical copy of the name on every request.
const HeaderRequestID = "X-Request-Id"

// Options configure New.
type Options struct {
	// CORSOrigins are the allowed origins (gincors.ParseOrigins of CORS_ORIGINS).
	CORSOrigins []string
	// MaxBodyBytes limits every request body; 0 means no engine-wide limit
	// (routes may still use BodyLimit).
	MaxBodyBytes int64
	// MapError turns a service's domain errors into *apperr.Error values
	// (the service's one error map); nil leaves errors as they are.
	// Whatever it returns goes through apperr.From.
	MapError func(error) error
	// QuietPaths are probed often (health checks): their answers below 500
	// are access-logged at DEBUG, not INFO, so they do not drown the log.
	QuietPaths []string
	// Metrics, when set, receives the request metrics (count and duration
	// by method, route template and status; requests in flight), which
	// GET /metrics serves with the rest of the registry.
	Metrics *prometheus.Registry
	// Probes, when set, serve GET /livez and GET /readyz.
	Probes *ginprobes.Probes
	// TrustedProxies are the peers whose X-Forwarded-For gives a request's
	// client address (ParseTrustedProxies of TRUSTED_PROXIES); from any
	// other peer, and when it is empty, the connection's address is the
	// client's.
	TrustedProxies []netip.Prefix
}

func init() { gin.SetMode(gin.ReleaseMode) }

// New returns an engine with the shared middleware installed. Unmatched
// paths and methods answer 404 NOT_FOUND as JSON.
func New(log *slog.Logger, opts Options) *gin.Engine {
	e := gin.New()
	e.HandleMethodNotAllowed = false // a method a path does not take is a 404 too
	e.ContextWithFallback = true     // c.Done()/c.Value reach the request's context
	trustProxies(e, opts.TrustedProxies)
	mapError := opts.MapError
	if mapError == nil {
		mapError = func(err error) error { return err }
	}
	quiet := opts.QuietPaths
	if opts.Metrics != nil {
		// Outermost: the duration covers the whole chain and the status is
		// the one the error middleware rendered.
		e.Use(newRequestMetrics(opts.Metrics).middleware())
		quiet = append(slices.Clip(quiet), "/metrics")
	}
	if opts.Probes != nil {
		quiet = append(slices.Clip(quiet), "/livez", "/readyz")
	}
	if tracing.Enabled() {
		e.Use(serverSpans(quiet)) // before the request id: every log line gets the trace id
	}
	e.Use(requestID(), accessLog(log, quiet), recovery(log), renderErrors(log, mapError), gincors.Middleware(opts.CORSOrigins))
	if opts.MaxBodyBytes > 0 {
		e.Use(BodyLimit(opts.MaxBodyBytes))
	}
	if opts.Metrics != nil {
		e.GET("/metrics", gin.WrapH(metrics.Handler(opts.Metrics)))
	}
	if opts.Probes != nil {
		opts.Probes.Register(e)
	}
	e.NoRoute(func(c *gin.Context) {
		Fail(c, apperr.New(apperr.NotFound, "no route for %s %s", c.Request.Method, c.Request.URL.Path))
	})
	return e
}

// Fail records err for the error middleware, which renders it as the JSON
// error body, and stops the handler chain. Call it at most once, and not
// after the response has begun (an SSE stream reports errors in-stream).
func Fail(c *gin.Context, err error) {
	_ = c.Error(err)
	c.Abort()
}

func requestID() gin.HandlerFunc {
	return func(c *gin.Context) {
		id := c.GetHeader(HeaderRequestID)
		if !validRequestID(id) {
			id = uuid.NewString()
		}
		c.Header(HeaderRequestID, id)
		c.Request = c.Request.WithContext(logging.WithRequestID(c.Request.Context(), id))
		c.Next()
	}
}

// validRequestID accepts a client's id of 1..128 visible ASCII characters;
// anything else is replaced, so logs never carry control characters.
func validRequestID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if id[i] < 0x21 || id[i] > 0x7e {
			return false
		}
	}
	return true
}

// accessLog logs each request. A quiet path (a probe, a scrape) is logged
// at debug, and a failing one at warn when it starts failing and at info
// when it recovers: a probe asked every few seconds while a dependency
// starts or is down says so once, not at every poll.
func accessLog(log *slog.Logger, quietPaths []string) gin.HandlerFunc {
	failing := make(map[string]*atomic.Bool, len(quietPaths))
	for _, p := range quietPaths {
		failing[p] = new(atomic.Bool)
	}
	return func(c *gin.Context) {
		start := time.Now()
		c.Next()
		status := c.Writer.Status()
		level := slog.LevelInfo
		if was, quiet := failing[c.Request.URL.Path]; quiet {
			failed := status >= 500
			switch changed := was.Swap(failed) != failed; {
			case changed && failed:
				level = slog.LevelWarn
			case changed: // recovered
			default:
				level = slog.LevelDebug
			}
		} else if status >= 500 {
			level = slog.LevelWarn
		}
		// The record is made here and handed to the handler, as
		// slog's documentation shows for wrappers: the Logger's own
		// methods walk the stack for a caller's pc on every call, which
		// the handler (no AddSource) never reads. Attrs, not key-value
		// pairs: no value is boxed in an interface.
		ctx := c.Request.Context()
		h := log.Handler()
		if !h.Enabled(ctx, level) {
			return
		}
		r := slog.NewRecord(time.Now(), level, "request", 0)
		r.AddAttrs(
			slog.String("method", c.Request.Method),
			slog.String("path", c.Request.URL.Path),
			slog.Int("status", status),
			slog.Int("bytes", c.Writer.Size()),
			slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000),
			slog.String("remote", c.ClientIP()),
		)
		_ = h.Handle(ctx, r) // a log line that cannot be written has nowhere to be reported
	}
}

func recovery(log *slog.Logger) gin.HandlerFunc {
	return func(c *gin.Context) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler { //nolint:errorlint // sentinel compared as net/http does
				panic(v) // the server aborts the connection quietly
			}
			log.ErrorContext(c.Request.Context(), "panic", "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			if !c.Writer.Written() {
				status, body := apperr.BodyOf(errors.New("panic"))
				c.AbortWithStatusJSON(status, body)
				return
			}
			c.Abort()
		}()
		c.Next()
	}
}

// renderErrors turns the last error a handler recorded with Fail into the
// response, unless the handler already wrote one. INTERNAL and UNAVAILABLE
// causes are logged in full (INTERNAL answered generically). A request whose
// client went away is logged as such at INFO and answered 499, whatever
// error its cancellation caused below (a driver's "interrupted" included):
// it is no failure of the service.
func renderErrors(log *slog.Logger, mapError func(error) error) gin.HandlerFunc {
	return func(c *gin.Context) {
		c.Next()
		if len(c.Errors) == 0 {
			return
		}
		err := c.Errors.Last().Err
		ctx := c.Request.Context()
		e := apperr.From(mapError(err))
		// A client error (4xx) is answered as such even when the request
		// has ended (a stalled upload cut by its read deadline); anything
		// else of a departed client is its departure, not our failure.
		if ClientGone(ctx) && (apperr.Status(e.Code) >= 500 || e.Code == apperr.ClientClosed) {
			log.InfoContext(ctx, "client went away", "error", err.Error())
			if !c.Writer.Written() {
				c.Status(apperr.StatusClientClosedRequest)
			}
			return
		}
		if e.Code == apperr.ClientClosed {
			// A cancellation that did not come from this request's client
			// is something of ours giving up: a failure like any other.
			e = &apperr.Error{Code: apperr.Internal, Err: err}
		}
		if e.Code == apperr.Internal || e.Code == apperr.Unavailable {
			log.ErrorContext(ctx, "request failed", "code", e.Code, "error", err.Error())
		}
		if c.Writer.Written() {
			return
		}
		if e.Code == apperr.Unauthorized {
			// RFC 6750 3: a refused or missing bearer token says which scheme.
			c.Header("WWW-Authenticate", `Bearer realm="carhub"`)
		}
		if e.RetryAfter > 0 {
			c.Header("Retry-After", strconv.Itoa(int(math.Ceil(e.RetryAfter.Seconds()))))
		}
		status, body := apperr.BodyOf(e)
		c.JSON(status, body)
	}
}

// ClientGone reports whether a request's context was cancelled, which
// net/http does when the client closes the connection (or the server shuts
// down hard). A deadline is not a departure: it stays the error it causes.
func ClientGone(ctx context.Context) bool {
	return errors.Is(ctx.Err(), context.Canceled)
}

// BodyLimit limits the request body to n bytes: a request whose
// Content-Length already says more is answered 413 before its body is read;
// otherwise reading past n fails with *http.MaxBytesError (BindJSON maps it
// to 413).
func BodyLimit(n int64) gin.HandlerFunc {
	return func(c *gin.Context) {
		if c.Request.ContentLength > n {
			// The body stays unread; closing the connection spares the
			// server from draining it.
			c.Header("Connection", "close")
			Fail(c, TooLarge(n))
			return
		}
		if c.Request.Body != http.NoBody { // net/http's body of a request without one: nothing to limit
			c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, n)
		}
		c.Next()
	}
}

// TooLarge is the PAYLOAD_TOO_LARGE error for a limit of n bytes.
func TooLarge(n int64) *apperr.Error {
	return apperr.New(apperr.PayloadTooLarge, "request body is larger than %s", humanBytes(n))
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	default:
		return fmt.Sprintf("%d bytes", n)
	}
}
