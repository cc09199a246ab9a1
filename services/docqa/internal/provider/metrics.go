package provider

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Request kinds of the metrics.
const (
	KindEmbedding = "embedding"
	KindChat      = "chat"
	KindRerank    = "rerank"
)

// Metrics records the calls of the remote providers: requests and their
// latency by kind and outcome, and the tokens the provider reports using,
// by model (what the operator pays for). A nil *Metrics records nothing.
// The labels are the kind, the outcome, the configured model name and the
// token type: never anything of a user's question or document.
type Metrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	tokens   *prometheus.CounterVec
}

// NewMetrics registers the provider metrics with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "docqa_provider_requests_total",
			Help: "Calls of the remote providers, by kind (embedding, chat, rerank) and outcome (ok, error, canceled); the client library's retries are inside one call.",
		}, []string{"kind", "outcome"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "docqa_provider_request_duration_seconds",
			Help:    "Duration of the calls of the remote providers (a chat call lasts until its stream ends), by kind and outcome.",
			Buckets: []float64{.025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300},
		}, []string{"kind", "outcome"}),
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "docqa_provider_tokens_total",
			Help: "Tokens the providers reported using, by model and type (prompt, completion).",
		}, []string{"model", "type"}),
	}
	reg.MustRegister(m.requests, m.duration, m.tokens)
	return m
}

// done records one call that began at start. ctx is the caller's: an error
// after it ended is the caller's departure, not the provider's failure.
func (m *Metrics) done(ctx context.Context, kind string, start time.Time, err error) {
	if m == nil {
		return
	}
	outcome := "ok"
	switch {
	case err == nil:
	case ctx.Err() != nil:
		outcome = "canceled"
	default:
		outcome = "error"
	}
	m.requests.WithLabelValues(kind, outcome).Inc()
	m.duration.WithLabelValues(kind, outcome).Observe(time.Since(start).Seconds())
}

// usage adds the tokens a provider reported.
func (m *Metrics) usage(model string, prompt, completion int64) {
	if m == nil {
		return
	}
	if prompt > 0 {
		m.tokens.WithLabelValues(model, "prompt").Add(float64(prompt))
	}
	if completion > 0 {
		m.tokens.WithLabelValues(model, "completion").Add(float64(completion))
	}
}
