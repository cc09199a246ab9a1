package ingest

import "github.com/prometheus/client_golang/prometheus"

// metrics are the pipeline's Prometheus metrics. They exist, unregistered,
// when Config.Metrics is nil, so the pipeline never checks.
type metrics struct {
	documents  prometheus.Counter
	pages      prometheus.Counter
	chunks     prometheus.Counter
	extraction prometheus.Histogram
	refused    prometheus.Counter
}

func newMetrics(reg prometheus.Registerer, q *queue) *metrics {
	m := &metrics{
		documents: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "docqa_ingest_documents_total",
			Help: "Documents ingested (stored; duplicates of a stored document not counted).",
		}),
		pages: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "docqa_ingest_pages_total",
			Help: "Pages of the documents ingested.",
		}),
		chunks: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "docqa_ingest_chunks_total",
			Help: "Chunks stored for the documents ingested.",
		}),
		extraction: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "docqa_ingest_extraction_seconds",
			Help:    "Time the PDF engine took to extract one document's text (failed extractions included).",
			Buckets: []float64{.05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300},
		}),
		refused: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "docqa_ingest_refused_total",
			Help: "Ingestions refused because every slot and place in the queue was taken (answered 503).",
		}),
	}
	if reg == nil {
		return m
	}
	reg.MustRegister(m.documents, m.pages, m.chunks, m.extraction, m.refused,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "docqa_ingest_queue_running",
			Help: "Ingestions extracting and embedding now.",
		}, func() float64 {
			running, _, _ := q.load()
			return float64(running)
		}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "docqa_ingest_queue_waiting",
			Help: "Ingestions waiting in line for a slot.",
		}, func() float64 {
			_, inLine, _ := q.load()
			return float64(inLine)
		}),
	)
	return m
}
