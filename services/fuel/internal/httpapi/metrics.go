package httpapi

import "github.com/prometheus/client_golang/prometheus"

// serviceMetrics are the fuel service's own counters, beside the request
// metrics of ginx. They exist, unregistered, when the service runs without
// metrics, so the handlers never check.
type serviceMetrics struct {
	refuelsCreated  prometheus.Counter
	refuelsImported prometheus.Counter
}

func newServiceMetrics(reg *prometheus.Registry) serviceMetrics {
	m := serviceMetrics{
		refuelsCreated: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "fuel_refuels_created_total",
			Help: "Refuel records created by POST /api/refuels (idempotent replays not counted).",
		}),
		refuelsImported: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "fuel_refuels_imported_total",
			Help: "Refuel records stored by CSV imports (dry runs and skipped rows not counted).",
		}),
	}
	if reg != nil {
		reg.MustRegister(m.refuelsCreated, m.refuelsImported)
	}
	return m
}
