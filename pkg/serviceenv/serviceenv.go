// Package serviceenv holds the settings of the environment that every
// service reads alike (CORS, trusted proxies, the shutdown drain, metrics,
// the profiler, the log level), with one default and one message per variable, so the services cannot
// drift apart on them. A service's config struct embeds HTTP.
package serviceenv

import (
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"time"

	"github.com/carhub/backend/pkg/gincors"
	"github.com/carhub/backend/pkg/ginx"
	"github.com/carhub/backend/pkg/logging"
	"github.com/carhub/backend/pkg/metrics"
	"github.com/carhub/backend/pkg/profiling"
)

// HTTP is read by config.Load as part of a service's config.
type HTTP struct {
	// CORSOrigins are the origins allowed to read answers (the contract's
	// default: the two local development origins).
	CORSOrigins string `env:"CORS_ORIGINS" default:"http://localhost:8081,http://localhost:5173"`
	// TrustedProxies are the peers (Caddy) whose X-Forwarded-For names the
	// client; empty: loopback and the private ranges
	// (ginx.DefaultTrustedProxies); "none": no one.
	TrustedProxies string `env:"TRUSTED_PROXIES"`
	// ShutdownDrain is how long the service keeps serving after SIGTERM,
	// /readyz answering 503, before it stops accepting connections.
	ShutdownDrain time.Duration `env:"SHUTDOWN_DRAIN" default:"5s"`
	// Metrics: "on" serves GET /metrics and records the metrics; "off"
	// neither (to measure their cost).
	Metrics string `env:"METRICS" default:"on"`
	// PprofAddr turns Go's profiler on, on an address of its own
	// (profiling.Addr: a port alone is loopback); empty: off.
	PprofAddr string `env:"PPROF_ADDR"`
	// LogLevel is the least level of the log lines written: debug, info,
	// warn or error.
	LogLevel string `env:"LOG_LEVEL" default:"info"`
}

// Settings are HTTP's values, checked.
type Settings struct {
	Origins []string
	Proxies []netip.Prefix
	Drain   time.Duration
	Metrics bool
	// Pprof is where the profiler listens ("": off).
	Pprof string
	// LogLevel is LOG_LEVEL's level.
	LogLevel slog.Level
}

// Parse checks every variable and answers all that are wrong at once, one
// line each, each naming its variable.
func (h HTTP) Parse() (Settings, error) {
	var s Settings
	var errs []error
	var err error
	// Their errors name their variables already.
	if s.Origins, err = gincors.ParseOrigins(h.CORSOrigins); err != nil {
		errs = append(errs, err)
	}
	if s.Proxies, err = ginx.ParseTrustedProxies(h.TrustedProxies); err != nil {
		errs = append(errs, err)
	}
	if s.Drain = h.ShutdownDrain; s.Drain < 0 {
		errs = append(errs, fmt.Errorf("SHUTDOWN_DRAIN: %s must not be negative", h.ShutdownDrain))
	}
	if s.Metrics, err = metrics.Enabled(h.Metrics); err != nil {
		errs = append(errs, fmt.Errorf("METRICS: %w", err))
	}
	if s.Pprof, err = profiling.Addr(h.PprofAddr); err != nil {
		errs = append(errs, err)
	}
	if s.LogLevel, err = logging.ParseLevel(h.LogLevel); err != nil {
		errs = append(errs, fmt.Errorf("LOG_LEVEL: %w", err))
	}
	if err := errors.Join(errs...); err != nil {
		return Settings{}, err
	}
	return s, nil
}
