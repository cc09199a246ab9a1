package ginx

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
)

// UnmatchedRoute is the route label of every request no route matched, so
// that arbitrary paths never become label values.
const UnmatchedRoute = "unmatched"

// requestMetrics records every request: a count and a duration histogram
// by method, route template and status, and the requests in flight.
type requestMetrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	inFlight prometheus.Gauge

	// series caches the two children of a label set: the vectors' own
	// lookup hashes the labels under a lock on every request, a sync.Map
	// read takes no lock once a label set has been seen.
	series sync.Map // seriesKey -> *series
}

type seriesKey struct {
	method, route string
	status        int
}

type series struct {
	requests prometheus.Counter
	duration prometheus.Observer
}

func newRequestMetrics(reg prometheus.Registerer) *requestMetrics {
	labels := []string{"method", "route", "status"}
	m := &requestMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "http_requests_total",
			Help: "HTTP requests answered, by method, route template and status.",
		}, labels),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "http_request_duration_seconds",
			Help: "Time from the request reaching the service to the end of its answer (streams included), by method, route template and status.",
			// The default buckets end at 10 s; uploads and streamed
			// answers run longer.
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 120},
		}, labels),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "http_requests_in_flight",
			Help: "HTTP requests being served now.",
		}),
	}
	reg.MustRegister(m.requests, m.duration, m.inFlight)
	return m
}

func (m *requestMetrics) middleware() gin.HandlerFunc {
	return func(c *gin.Context) {
		start := time.Now()
		m.inFlight.Inc()
		c.Next()
		m.inFlight.Dec()
		route := c.FullPath()
		if route == "" {
			route = UnmatchedRoute
		}
		k := seriesKey{method: methodLabel(c.Request.Method), route: route, status: c.Writer.Status()}
		s, ok := m.series.Load(k)
		if !ok {
			status := strconv.Itoa(k.status)
			s, _ = m.series.LoadOrStore(k, &series{
				requests: m.requests.WithLabelValues(k.method, k.route, status),
				duration: m.duration.WithLabelValues(k.method, k.route, status),
			})
		}
		ser := s.(*series)
		ser.requests.Inc()
		ser.duration.Observe(time.Since(start).Seconds())
	}
}

// methodLabel keeps the method label to the standard methods: a client
// may send any token as a method.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "OTHER"
}
