package retrieval

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/carhub/backend/services/docqa/internal/docqa"
	"github.com/carhub/backend/services/docqa/internal/embedded"
	"github.com/carhub/backend/services/docqa/internal/provider"
)

// zipfText writes n words drawn from a vocabulary of 20 000 by Zipf's law,
// the way words of a manual are spread (a few very common, most rare).
func zipfText(z *rand.Zipf, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "w%x", z.Uint64())
	}
	return b.String()
}

// BenchmarkRetrieve: one question of 12 words, topK 10, over 10 000 chunks
// of 300 words (10 documents of 1 000), embedded store and local embedder,
// the service's defaults. Reports the median and 99th percentile per mode.
//
//	go test ./internal/retrieval -run '^$' -bench Retrieve -benchtime 300x
func BenchmarkRetrieve(b *testing.B) {
	s, err := embedded.Open(b.TempDir(), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	z := rand.NewZipf(rng, 1.1, 1, 20000)
	emb := provider.NewLexicalEmbedder()
	ctx := context.Background()
	for d := range 10 {
		md5 := fmt.Sprintf("%032x", d+1)
		chunks := make([]docqa.Chunk, 1000)
		for i := range chunks {
			text := zipfText(z, 300)
			chunks[i] = docqa.Chunk{ID: docqa.ChunkID(md5, i), Page: 1 + i/3, Index: i, Text: text, Embedding: emb.Vector(text)}
		}
		doc := docqa.Document{Owner: 1, FileName: fmt.Sprintf("manual-%d.pdf", d), FileMD5: md5, Size: 1, Pages: 334, Chunks: 1000, CreatedAt: time.Unix(0, 0)}
		if err := s.Upsert(ctx, doc, chunks, emb.Name()); err != nil {
			b.Fatal(err)
		}
	}
	questions := make([]string, 64)
	for i := range questions {
		questions[i] = zipfText(z, 12)
	}
	for _, mode := range Modes {
		b.Run(string(mode), func(b *testing.B) {
			r, err := New(Config{Store: s, Embedder: emb, Mode: mode})
			if err != nil {
				b.Fatal(err)
			}
			times := make([]time.Duration, 0, b.N)
			for i := 0; b.Loop(); i++ {
				start := time.Now()
				hits, err := r.Retrieve(ctx, questions[i%len(questions)], docqa.Query{TopK: 10})
				times = append(times, time.Since(start))
				if err != nil || len(hits) != 10 {
					b.Fatalf("%d hits, %v", len(hits), err)
				}
			}
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)/2])/1e6, "p50-ms")
			b.ReportMetric(float64(times[len(times)*99/100])/1e6, "p99-ms")
		})
	}
}
