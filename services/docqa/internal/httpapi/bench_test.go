package httpapi_test

import (
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/carhub/backend/services/docqa/internal/openaifake"
)

// BenchmarkChatFirstTokenLatency measures what the service adds between the
// provider flushing its first delta and the client receiving the first
// content event, end to end over real HTTP: the fake provider stamps the
// moment it writes the first delta; the client stamps the moment it has
// parsed the first unnamed event. Reported as p50/p90/p99 in µs.
//
//	go test -run '^$' -bench ChatFirstTokenLatency -benchtime 2000x ./internal/httpapi
func BenchmarkChatFirstTokenLatency(b *testing.B) {
	s := newService(b, options{fake: []openaifake.Option{openaifake.WithScript(openaifake.Script{
		Deltas: openaifake.Text("The first token", " and the rest."),
	})}})
	s.uploadPDF(b, "manual.pdf", manual("bench"))
	client := &http.Client{}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for b.Loop() {
		resp, err := client.Post(s.URL+"/api/chat/stream", "application/json", strings.NewReader(`{"question":"oil change interval?","topK":3}`))
		if err != nil {
			b.Fatal(err)
		}
		r := newEventReader(resp.Body)
		var got time.Time
		for {
			ev, err := r.next()
			if err != nil {
				b.Fatal(err)
			}
			if ev.Name == "" && ev.Comment == "" {
				got = time.Now()
				break
			}
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		req, _ := s.fake.LastChatRequest()
		if req.FirstDeltaAt.IsZero() {
			b.Fatal("the fake sent no delta")
		}
		lat = append(lat, got.Sub(req.FirstDeltaAt))
	}
	b.StopTimer()
	slices.Sort(lat)
	pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) }
	b.ReportMetric(pct(0.50), "p50-µs")
	b.ReportMetric(pct(0.90), "p90-µs")
	b.ReportMetric(pct(0.99), "p99-µs")
}

// BenchmarkUploadSmallPDF measures a whole small upload (two pages) through
// the HTTP layer with the lexical embedder: receive, hash, extract, split,
// embed, store. Each iteration uploads a new file (no duplicates).
//
//	go test -run '^$' -bench UploadSmallPDF ./internal/httpapi
func BenchmarkUploadSmallPDF(b *testing.B) {
	s := newService(b, options{local: true})
	n := 0
	for b.Loop() {
		b.StopTimer()
		n++
		pdf := manual("bench " + strconv.Itoa(n))
		b.StartTimer()
		if res := s.uploadPDF(b, "bench.pdf", pdf); res.Duplicate {
			b.Fatal("duplicate")
		}
	}
}
