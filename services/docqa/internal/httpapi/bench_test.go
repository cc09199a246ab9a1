package httpapi_test

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/carhub/backend/services/docqa/internal/httpapi"

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

// countingCache counts the page cache's hits and misses.
type countingCache struct {
	httpapi.PageCache
	hits, misses atomic.Int64
}

func (c *countingCache) Get(key string) ([]byte, bool) {
	data, ok := c.PageCache.Get(key)
	if ok {
		c.hits.Add(1)
	} else {
		c.misses.Add(1)
	}
	return data, ok
}

// BenchmarkPageViews replays a day of page views against the page-image
// disk cache (internal/pagecache, its default bound) in front of PDFium's
// renderer, over HTTP: 24 users ask 3 questions each about one real
// 18-page manual; each answer cites 3 of its pages, the popular ones more
// often (Zipf, s = 1.2: the maintenance pages everyone asks about), and
// the user opens each cited page at the width of their screen as the web
// client asks for it (pageview.ts PAGE_WIDTHS: a phone at 3x 1200 px, at
// 2x 800, zoomed 2000; a desktop 1000 or, on a 2x screen, 1600). No
// If-None-Match: each view is a first open on its device. Reported: the
// cache's hit ratio, the p50 of a view the cache served and of one that
// had to render, and of all views. The sequence is fixed (seeded); each
// iteration starts with an empty cache.
//
//	go test -run '^$' -bench PageViews -benchtime 1x ./internal/httpapi
func BenchmarkPageViews(b *testing.B) {
	data, err := os.ReadFile("../pdftext/testdata/corpus/pdfcpu-adobe_errata.pdf")
	if err != nil {
		b.Fatal(err)
	}
	var cache *countingCache
	s := newService(b, options{local: true, wrapPageCache: func(c httpapi.PageCache) httpapi.PageCache {
		cache = &countingCache{PageCache: c}
		return cache
	}})
	doc := s.uploadPDF(b, "errata.pdf", data)
	if doc.Pages != 18 {
		b.Fatalf("%d pages, want 18", doc.Pages)
	}
	type view struct{ page, width int }
	rng := rand.New(rand.NewPCG(7, 11))
	zipf := rand.NewZipf(rng, 1.2, 1, uint64(doc.Pages-1))
	devices := []struct {
		width  int
		weight float64
	}{{1200, 0.45}, {800, 0.2}, {2000, 0.05}, {1000, 0.2}, {1600, 0.1}}
	var views []view
	for range 24 {
		width, x := devices[len(devices)-1].width, rng.Float64()
		for _, d := range devices {
			if x < d.weight {
				width = d.width
				break
			}
			x -= d.weight
		}
		for range 3 {
			for range 3 {
				views = append(views, view{page: int(zipf.Uint64()) + 1, width: width})
			}
		}
	}
	var hitTimes, missTimes, all []time.Duration
	var hits, total int64
	for b.Loop() {
		s.pages.RemovePrefix(doc.FileMD5)
		cache.hits.Store(0)
		cache.misses.Store(0)
		for _, v := range views {
			before := cache.hits.Load()
			start := time.Now()
			resp, err := s.client.Get(fmt.Sprintf("%s/api/documents/%s/pages/%d.png?width=%d", s.URL, doc.FileMD5, v.page, v.width))
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			took := time.Since(start)
			if resp.StatusCode != http.StatusOK {
				b.Fatalf("page %d at %d: status %d", v.page, v.width, resp.StatusCode)
			}
			if cache.hits.Load() > before {
				hitTimes = append(hitTimes, took)
			} else {
				missTimes = append(missTimes, took)
			}
			all = append(all, took)
		}
		hits, total = cache.hits.Load(), cache.hits.Load()+cache.misses.Load()
		if total != int64(len(views)) {
			b.Fatalf("%d cache lookups for %d views: the ratio would not be per view", total, len(views))
		}
	}
	p50 := func(d []time.Duration) float64 {
		if len(d) == 0 {
			return 0
		}
		d = slices.Clone(d)
		slices.Sort(d)
		return float64(d[len(d)/2].Microseconds()) / 1000
	}
	b.ReportMetric(float64(len(views)), "views")
	b.ReportMetric(float64(hits)/float64(total), "hit-ratio")
	b.ReportMetric(p50(hitTimes), "hit-p50-ms")
	b.ReportMetric(p50(missTimes), "render-p50-ms")
	b.ReportMetric(p50(all), "view-p50-ms")
}
