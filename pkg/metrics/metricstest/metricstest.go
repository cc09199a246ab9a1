// Package metricstest reads a service's /metrics in tests: it parses the
// Prometheus text exposition (never substring matching) and finds a
// sample by metric name and labels.
package metricstest

import (
	"io"
	"net/http"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Families are the metric families of one scrape, by name.
type Families map[string]*dto.MetricFamily

// MustScrape GETs url (a service's /metrics) and parses the answer.
func MustScrape(tb testing.TB, url string) Families {
	tb.Helper()
	res, err := http.Get(url)
	if err != nil {
		tb.Fatalf("metricstest: %v", err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(res.Body)
		tb.Fatalf("metricstest: GET %s: %d %s", url, res.StatusCode, b)
	}
	return MustParse(tb, res.Body)
}

// MustParse parses the text exposition format.
func MustParse(tb testing.TB, r io.Reader) Families {
	tb.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(r)
	if err != nil {
		tb.Fatalf("metricstest: parse the exposition: %v", err)
	}
	return fams
}

// Value returns the value of the sample of name whose labels include
// labels: a counter's or gauge's value, a histogram's sample count. found
// is false when there is none.
func (f Families) Value(name string, labels map[string]string) (v float64, found bool) {
	fam, ok := f[name]
	if !ok {
		return 0, false
	}
	for _, m := range fam.GetMetric() {
		if !matches(m, labels) {
			continue
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount()), true
		case m.Untyped != nil:
			return m.Untyped.GetValue(), true
		}
	}
	return 0, false
}

// LabelValues returns every value label takes among the samples of name.
func (f Families) LabelValues(name, label string) []string {
	var out []string
	for _, m := range f[name].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == label {
				out = append(out, l.GetValue())
			}
		}
	}
	return out
}

func matches(m *dto.Metric, want map[string]string) bool {
	n := 0
	for _, l := range m.GetLabel() {
		if v, ok := want[l.GetName()]; ok {
			if v != l.GetValue() {
				return false
			}
			n++
		}
	}
	return n == len(want)
}
