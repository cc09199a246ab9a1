// Package metrics holds what both services share for Prometheus: a
// registry per service instance (never the global default one, so tests
// can run several services in one process), the Go runtime and process
// collectors, the database pool collector, and the /metrics handler. The
// request metrics are ginx's middleware (ginx.Options.Metrics).
//
// Names and labels never carry a user's data: routes are templates
// ("/api/vehicles/:id"), never paths, and no id, file name or question is
// a label value.
package metrics

import (
	"database/sql"
	"fmt"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// NewRegistry returns a registry holding the Go runtime and process
// collectors.
func NewRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	return reg
}

// RegisterDB adds the connection-pool statistics of db to reg, labelled
// db_name=name ("postgres", "sqlite_writer", ...).
func RegisterDB(reg prometheus.Registerer, name string, db *sql.DB) error {
	return reg.Register(collectors.NewDBStatsCollector(db, name))
}

// Handler serves the metrics of reg in the Prometheus exposition format
// (content negotiated: text or OpenMetrics).
func Handler(reg *prometheus.Registry) http.Handler {
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		// A collector that fails leaves its metrics out; the rest is served.
		ErrorHandling:     promhttp.ContinueOnError,
		Registry:          reg, // counts failed scrapes in promhttp_metric_handler_errors_total
		EnableOpenMetrics: true,
	})
}

// Enabled parses a METRICS setting: "on" (or empty) or "off".
func Enabled(s string) (bool, error) {
	switch s {
	case "on", "":
		return true, nil
	case "off":
		return false, nil
	}
	return false, fmt.Errorf("%q is neither on nor off", s)
}
