package httpapi_test

import (
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/carhub/backend/services/docqa/internal/ingest/ingesttest"
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

// cpuTime is the process's user and system CPU time so far: the server
// runs in the benchmark's process, so its work on a request is in it.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// historyRuns are history contents that cost the tokenizer most per byte:
// one unbroken run of a kind of character, as long as an item may be. The
// spaces end in a letter, or the turn would be blank and skipped.
var historyRuns = map[string]func(n int) string{
	"letters":  func(n int) string { return ingesttest.Run(ingesttest.Letters, n) },
	"a":        func(n int) string { return strings.Repeat("a", n) },
	"punct":    func(n int) string { return ingesttest.Run(ingesttest.Punctuation, n) },
	"spaces":   func(n int) string { return strings.Repeat(" ", n-1) + "x" },
	"newlines": func(n int) string { return strings.Repeat("\n", n-1) + "x" },
	"cjk":      func(n int) string { return ingesttest.Run(ingesttest.CJK, n) },
	"fffd":     func(n int) string { return strings.Repeat("\uFFFD", n) },
	"words":    func(n int) string { return strings.Repeat("Check the tyre pressure monthly. ", n/33+1)[:n] },
}

// chatBody is a chat request whose history is items turns of content.
func chatBody(b *testing.B, items int, content string) []byte {
	type turn struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	history := make([]turn, items)
	for i := range history {
		history[i] = turn{Role: [2]string{"user", "assistant"}[i%2], Content: content}
	}
	body, err := json.Marshal(map[string]any{"question": "oil change interval?", "topK": 3, "history": history})
	if err != nil {
		b.Fatal(err)
	}
	return body
}

// BenchmarkChatHistoryCPU measures the CPU time of the whole service
// process per chat request (decode, validate, retrieve, count the
// history's tokens for the prompt, answer with the local extractive model
// standing in for a writing one: a quoting model gets no prompt, so its
// requests count no history) when the history is as large as the limits
// allow: maxHistoryItems turns of
// maxHistoryChars characters, each one unbroken run of a kind. "none" is
// the same request without history. Reported as cpu-ms/op.
//
//	go test -run '^$' -bench ChatHistoryCPU -benchtime 5x ./internal/httpapi
func BenchmarkChatHistoryCPU(b *testing.B) {
	s := newService(b, options{local: true, writing: true})
	s.uploadPDF(b, "manual.pdf", manual("bench"))
	kinds := slices.Sorted(maps.Keys(historyRuns))
	for _, kind := range append([]string{"none"}, kinds...) {
		body := chatBody(b, 0, "")
		if kind != "none" {
			body = chatBody(b, 40, historyRuns[kind](16000))
		}
		b.Run(kind, func(b *testing.B) {
			start := cpuTime(b)
			for b.Loop() {
				resp := s.chat(b, string(body))
				if resp.StatusCode != http.StatusOK {
					msg, _ := io.ReadAll(resp.Body)
					b.Fatalf("status %d: %s", resp.StatusCode, msg)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			b.ReportMetric(float64((cpuTime(b)-start).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}

// BenchmarkUploadUnbrokenRunPDF measures the CPU time of the service
// process per upload of a one-page PDF whose page is one unbroken run of
// 100 000 letters (extracted as one run: the splitter encodes it in
// segments), with the lexical embedder. Each iteration uploads a new file
// (the run differs). Reported as cpu-ms/op.
//
//	go test -run '^$' -bench UploadUnbrokenRunPDF -benchtime 3x ./internal/httpapi
func BenchmarkUploadUnbrokenRunPDF(b *testing.B) {
	s := newService(b, options{local: true})
	n, cpu := 0, time.Duration(0)
	for b.Loop() {
		b.StopTimer()
		n++
		pdf := ingesttest.PDF(ingesttest.Run(ingesttest.Letters, 100_000-len(strconv.Itoa(n))) + strconv.Itoa(n))
		start := cpuTime(b)
		b.StartTimer()
		if res := s.uploadPDF(b, "run.pdf", pdf); res.Duplicate || res.Chunks < 2 {
			b.Fatalf("stored %+v", res)
		}
		cpu += cpuTime(b) - start
	}
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
}
