package ginx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/pkg/logging"
)

// logLines returns the JSON log lines that contain every one of parts.
func logLines(logs *bytes.Buffer, parts ...string) []string {
	var out []string
	for _, line := range strings.Split(logs.String(), "\n") {
		ok := line != ""
		for _, p := range parts {
			ok = ok && strings.Contains(line, p)
		}
		if ok {
			out = append(out, line)
		}
	}
	return out
}

// A client that goes away is neither a 500 nor an ERROR line, whatever error
// the cancellation caused below (context.Canceled or a driver's own error).
func TestClientGoneIsLoggedAsSuchNot500(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"context error", fmt.Errorf("query: %w", context.Canceled)},
		{"driver error without context", errors.New("interrupted (9)")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			e := New(logging.New(&logs, slog.LevelDebug), Options{})
			ctx, cancel := context.WithCancel(context.Background())
			e.GET("/api/slow", func(c *gin.Context) {
				cancel() // the client hangs up while the handler works
				Fail(c, tc.err)
			})
			req := httptest.NewRequest(http.MethodGet, "/api/slow", nil).WithContext(ctx)
			rec := httptest.NewRecorder()
			e.ServeHTTP(rec, req)
			if rec.Code != apperr.StatusClientClosedRequest {
				t.Fatalf("status %d, want 499", rec.Code)
			}
			if got := logLines(&logs, `"level":"ERROR"`); len(got) != 0 {
				t.Fatalf("client leaving logged as an error: %v", got)
			}
			if got := logLines(&logs, `"level":"WARN"`); len(got) != 0 {
				t.Fatalf("client leaving logged as a warning: %v", got)
			}
			if got := logLines(&logs, `"level":"INFO"`, `"msg":"client went away"`); len(got) != 1 {
				t.Fatalf("want one INFO line saying the client went away, log:\n%s", logs.String())
			}
			if got := logLines(&logs, `"msg":"request"`, `"status":499`, `"level":"INFO"`); len(got) != 1 {
				t.Fatalf("want the access log at INFO with status 499, log:\n%s", logs.String())
			}
		})
	}
}

// A cancellation that is not the client's (the request is still there) is a
// failure of the service: 500, logged as an error.
func TestCancellationOfOursIsInternal(t *testing.T) {
	e, logs := newTestEngine(t, Options{})
	e.GET("/api/gave-up", func(c *gin.Context) { Fail(c, fmt.Errorf("worker: %w", context.Canceled)) })
	rec := do(e, http.MethodGet, "/api/gave-up", "")
	if b := decodeBody(t, rec); rec.Code != http.StatusInternalServerError || b.Code != "INTERNAL" {
		t.Fatalf("%d %+v", rec.Code, b)
	}
	if len(logLines(logs, `"level":"ERROR"`, `"msg":"request failed"`)) != 1 {
		t.Fatalf("not logged as an error: %s", logs)
	}
}

var errDomain = errors.New("the thing is busy")

// MapError is applied before rendering, and Retry-After is sent (whole
// seconds, rounded up) when the mapped error carries one.
func TestMapErrorAndRetryAfter(t *testing.T) {
	e, logs := newTestEngine(t, Options{MapError: func(err error) error {
		if errors.Is(err, errDomain) {
			return &apperr.Error{Code: apperr.Unavailable, Message: "busy: try again", Err: err, RetryAfter: 1500 * time.Millisecond}
		}
		return err
	}})
	e.GET("/api/busy", func(c *gin.Context) { Fail(c, fmt.Errorf("queue: %w", errDomain)) })
	rec := do(e, http.MethodGet, "/api/busy", "")
	if b := decodeBody(t, rec); rec.Code != http.StatusServiceUnavailable || b.Code != "UNAVAILABLE" || b.Message != "busy: try again" {
		t.Fatalf("%d %+v", rec.Code, b)
	}
	if got := rec.Header().Get("Retry-After"); got != "2" {
		t.Fatalf("Retry-After %q, want 2", got)
	}
	// Unmapped errors still render as before, without Retry-After.
	rec = do(e, http.MethodGet, "/api/missing", "")
	if rec.Code != http.StatusNotFound || rec.Header().Get("Retry-After") != "" {
		t.Fatalf("%d %q", rec.Code, rec.Header().Get("Retry-After"))
	}
	if len(logLines(logs, `"level":"ERROR"`, "the thing is busy")) != 1 {
		t.Fatalf("UNAVAILABLE cause not logged: %s", logs)
	}
}

// Health probes answer every few seconds: their successful answers are
// access-logged at DEBUG, other paths as before, and a failing probe at
// WARN when it starts failing and at INFO when it recovers.
func TestQuietPathsLoggedAtDebug(t *testing.T) {
	var logs bytes.Buffer
	e := New(logging.New(&logs, slog.LevelInfo), Options{QuietPaths: []string{"/health"}})
	healthy := true
	e.GET("/health", func(c *gin.Context) {
		if healthy {
			c.JSON(http.StatusOK, gin.H{"status": "ok"})
			return
		}
		c.JSON(http.StatusServiceUnavailable, gin.H{"status": "unavailable"})
	})
	e.GET("/api/ok", func(c *gin.Context) { c.JSON(http.StatusOK, gin.H{"ok": true}) })
	for range 3 {
		do(e, http.MethodGet, "/health", "")
	}
	do(e, http.MethodGet, "/health?x=1", "")
	do(e, http.MethodGet, "/api/ok", "")
	if got := logLines(&logs, `"path":"/health"`); len(got) != 0 {
		t.Fatalf("healthy probes logged at INFO: %v", got)
	}
	if got := logLines(&logs, `"path":"/api/ok"`, `"level":"INFO"`); len(got) != 1 {
		t.Fatalf("other paths must stay at INFO: %s", logs.String())
	}
	healthy = false
	do(e, http.MethodGet, "/health", "")
	if got := logLines(&logs, `"path":"/health"`, `"status":503`, `"level":"WARN"`); len(got) != 1 {
		t.Fatalf("a failing probe must still be logged: %s", logs.String())
	}
	// Asked again while still failing: once is enough (a service that
	// starts, or a dependency that is down, is polled every few seconds).
	for range 5 {
		do(e, http.MethodGet, "/health", "")
	}
	if got := logLines(&logs, `"path":"/health"`, `"status":503`); len(got) != 1 {
		t.Fatalf("a probe failing again was logged %d times: %s", len(got), logs.String())
	}
	// Its recovery is logged once, at INFO; then it is quiet again.
	healthy = true
	for range 3 {
		do(e, http.MethodGet, "/health", "")
	}
	if got := logLines(&logs, `"path":"/health"`, `"status":200`, `"level":"INFO"`); len(got) != 1 {
		t.Fatalf("the recovery was logged %d times at INFO: %s", len(got), logs.String())
	}
	healthy = false
	do(e, http.MethodGet, "/health", "")
	if got := logLines(&logs, `"path":"/health"`, `"status":503`, `"level":"WARN"`); len(got) != 2 {
		t.Fatalf("a second failure after the recovery must be logged: %s", logs.String())
	}

	var debug bytes.Buffer
	e = New(logging.New(&debug, slog.LevelDebug), Options{QuietPaths: []string{"/health"}})
	e.GET("/health", func(c *gin.Context) { c.Status(http.StatusOK) })
	do(e, http.MethodGet, "/health", "")
	if got := logLines(&debug, `"path":"/health"`, `"level":"DEBUG"`); len(got) != 1 {
		t.Fatalf("probe not logged at DEBUG: %s", debug.String())
	}
}

// A client's own error stays its answer when the request has ended (an
// upload cut by the server's read deadline is a 400, not a departure).
func TestClientErrorOfAnEndedRequestIsAnswered(t *testing.T) {
	var logs bytes.Buffer
	e := New(logging.New(&logs, slog.LevelDebug), Options{})
	ctx, cancel := context.WithCancel(context.Background())
	e.POST("/api/upload", func(c *gin.Context) {
		cancel()
		Fail(c, apperr.Invalid("file", "the upload stalled"))
	})
	req := httptest.NewRequest(http.MethodPost, "/api/upload", nil).WithContext(ctx)
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	if b := decodeBody(t, rec); rec.Code != http.StatusBadRequest || b.Message != "file: the upload stalled" {
		t.Fatalf("%d %+v", rec.Code, b)
	}
	if len(logLines(&logs, "client went away")) != 0 {
		t.Fatalf("a client error was logged as a departure: %s", logs.String())
	}
}
