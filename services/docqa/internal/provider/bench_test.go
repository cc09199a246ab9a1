package provider_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/carhub/backend/services/docqa/internal/openaifake"
	"github.com/carhub/backend/services/docqa/internal/provider"
)

// BenchmarkChatFirstDeltaLatency measures what the chat client adds between
// the fake provider stamping its first token (just before it encodes and
// flushes the frame) and onDelta receiving it: the frame's trip through the
// loopback socket, the library's SSE decoder and JSON decoding of the chunk.
// It reports the median and 90th percentile over b.N streamed answers.
func BenchmarkChatFirstDeltaLatency(b *testing.B) {
	fake := openaifake.New(b, openaifake.WithScript(openaifake.Script{Deltas: openaifake.Text("Hello", " world")}))
	c := mustChat(b, fake, nil)
	ctx := context.Background()
	lat := make([]time.Duration, 0, b.N)
	for b.Loop() {
		var got time.Time
		if _, err := c.Stream(ctx, chatReq, func(string) error {
			if got.IsZero() {
				got = time.Now()
			}
			return nil
		}); err != nil {
			b.Fatal(err)
		}
		rec, _ := fake.LastChatRequest()
		lat = append(lat, got.Sub(rec.FirstDeltaAt))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*9/10].Microseconds()), "p90-µs")
}

// BenchmarkLexicalEmbed embeds chunk-sized texts (about 400 tokens) in
// English and Chinese and reports texts per second.
func BenchmarkLexicalEmbed(b *testing.B) {
	en := strings.Repeat("Change the engine oil and the oil filter every 15,000 km or once a year, whichever comes first. ", 20)
	zh := strings.Repeat("机油和机油滤清器应每行驶15000公里或每年更换一次，以先到者为准。", 12)
	in := []string{en, zh}
	e := provider.NewLexicalEmbedder()
	ctx := context.Background()
	n := 0
	for b.Loop() {
		if _, err := e.Embed(ctx, in); err != nil {
			b.Fatal(err)
		}
		n += len(in)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "texts/s")
}
