package embedded

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/services/docqa/internal/docqa"
	"github.com/carhub/backend/services/docqa/internal/docqa/storetest"
)

const (
	md5A = "0cc175b9c0f1b6a831c399e269772661"
	md5B = "92eb5ffee6ae2fec3ad71c777531578f"
	md5C = "4a8a08f09d37b73795649038408b5f33"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 123456789, time.UTC)

// vec returns a docqa.Dimension vector whose first components are given.
func vec(head ...float32) []float32 {
	v := make([]float32, docqa.Dimension)
	copy(v, head)
	return v
}

func mustOpen(tb testing.TB, dir string) *Store {
	tb.Helper()
	s, err := Open(dir, nil)
	if err != nil {
		tb.Fatalf("Open(%s): %v", dir, err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

func newDoc(md5, name string, created time.Time, chunks int) docqa.Document {
	return docqa.Document{Owner: 1, FileName: name, FileMD5: md5, Size: 1000, Pages: 2, Chunks: chunks, CreatedAt: created}
}

func chunk(md5 string, index, page int, text string, v []float32) docqa.Chunk {
	return docqa.Chunk{ID: docqa.ChunkID(md5, index), Page: page, Index: index, Text: text, Embedding: v}
}

func mustUpsert(tb testing.TB, s *Store, doc docqa.Document, chunks []docqa.Chunk, embedder string) {
	tb.Helper()
	if err := s.Upsert(context.Background(), doc, chunks, embedder); err != nil {
		tb.Fatalf("Upsert(%s): %v", doc.FileMD5, err)
	}
}

// seed stores two documents: A with chunks along x and between x and y, B
// with chunks along y and -x.
func seed(tb testing.TB, s *Store) {
	tb.Helper()
	mustUpsert(tb, s, newDoc(md5A, "a.pdf", t0, 2), []docqa.Chunk{
		chunk(md5A, 0, 1, "along x", vec(2, 0)), // length 2: scores must not depend on it
		chunk(md5A, 1, 2, "between x and y", vec(1, 1)),
	}, "lexical:v1")
	mustUpsert(tb, s, newDoc(md5B, "b.pdf", t0.Add(time.Hour), 2), []docqa.Chunk{
		chunk(md5B, 0, 1, "along y", vec(0, 3)),
		chunk(md5B, 1, 1, "against x", vec(-1, 0)),
	}, "lexical:v1")
}

type want struct {
	text  string
	score float32
}

func hitsOf(got []docqa.ScoredChunk) []want {
	out := make([]want, len(got))
	for i, g := range got {
		out[i] = want{g.Chunk.Text, g.Score}
	}
	return out
}

func sameHits(got, exp []want) bool {
	if len(got) != len(exp) {
		return false
	}
	for i := range got {
		if got[i].text != exp[i].text || math.Abs(float64(got[i].score-exp[i].score)) > 1e-5 {
			return false
		}
	}
	return true
}

var (
	r2 = float32(math.Sqrt2 / 2)
	r5 = float32(1 / math.Sqrt(5))
)

// searchCases hold for the store after seed.
var searchCases = []struct {
	name  string
	query []float32
	topK  int
	want  []want
}{
	{"x first", vec(1, 0), 4, []want{{"along x", 1}, {"between x and y", r2}, {"along y", 0}, {"against x", -1}}},
	{"y first", vec(0, 5), 2, []want{{"along y", 1}, {"between x and y", r2}}},
	{"diagonal", vec(1, 1), 1, []want{{"between x and y", 1}}},
	{"topK above count", vec(2, 1), 10, []want{
		{"between x and y", 3 * r5 * r2}, {"along x", 2 * r5}, {"along y", r5}, {"against x", -2 * r5},
	}},
	{"orthogonal ties keep document then chunk order", vec(0, 0, 1), 4, []want{
		{"along x", 0}, {"between x and y", 0}, {"along y", 0}, {"against x", 0},
	}},
	{"zero query matches nothing", vec(), 3, []want{}},
}

func TestSearchOrderAndScores(t *testing.T) {
	s := mustOpen(t, t.TempDir())
	seed(t, s)
	for _, tc := range searchCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.Search(context.Background(), tc.query, docqa.Query{TopK: tc.topK})
			if err != nil {
				t.Fatal(err)
			}
			if !sameHits(hitsOf(got), tc.want) {
				t.Fatalf("got %v, want %v", hitsOf(got), tc.want)
			}
		})
	}
}

func TestSearchReturnsDocumentAndChunk(t *testing.T) {
	s := mustOpen(t, t.TempDir())
	seed(t, s)
	got, err := s.Search(context.Background(), vec(0, 1), docqa.Query{TopK: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("got %d hits, want 1", len(got))
	}
	h := got[0]
	wantChunk := docqa.Chunk{ID: docqa.ChunkID(md5B, 0), Page: 1, Index: 0, Text: "along y"}
	if !chunkEqual(h.Chunk, wantChunk) {
		t.Fatalf("chunk %+v, want %+v", h.Chunk, wantChunk)
	}
	if h.Chunk.Embedding != nil {
		t.Fatal("search hit carries its embedding")
	}
	if h.Document != newDoc(md5B, "b.pdf", t0.Add(time.Hour), 2) {
		t.Fatalf("document %+v", h.Document)
	}
}

func chunkEqual(a, b docqa.Chunk) bool {
	return a.ID == b.ID && a.Page == b.Page && a.Index == b.Index && a.Text == b.Text && slices.Equal(a.Embedding, b.Embedding)
}

func TestUpsertIsIdempotent(t *testing.T) {
	s := mustOpen(t, t.TempDir())
	seed(t, s)
	seed(t, s)
	got, err := s.Search(context.Background(), vec(1, 0), docqa.Query{TopK: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 {
		t.Fatalf("after writing the same chunks twice: %d hits, want 4", len(got))
	}
	docs, err := s.Documents(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 {
		t.Fatalf("%d documents, want 2", len(docs))
	}
}

func TestUpsertReplacesChunkAndKeepsOthers(t *testing.T) {
	s := mustOpen(t, t.TempDir())
	seed(t, s)
	// A second batch of the same document: chunk 1 changes, chunk 2 is new,
	// chunk 0 stays.
	doc := newDoc(md5A, "a.pdf", t0, 3)
	mustUpsert(t, s, doc, []docqa.Chunk{
		chunk(md5A, 1, 2, "now along z", vec(0, 0, 1)),
		chunk(md5A, 2, 2, "third", vec(0, 0, 0, 1)),
	}, "lexical:v1")
	got, err := s.Search(context.Background(), vec(0, 0, 1), docqa.Query{TopK: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Chunk.Text != "now along z" || got[0].Document.Chunks != 3 {
		t.Fatalf("got %+v", got[0])
	}
	all, err := s.Search(context.Background(), vec(1, 0), docqa.Query{TopK: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 5 {
		t.Fatalf("%d chunks, want 5", len(all))
	}
}

func TestDocumentsDocumentAndDelete(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, t.TempDir())

	docs, err := s.Documents(ctx)
	if err != nil || len(docs) != 0 {
		t.Fatalf("empty store: %v, %v", docs, err)
	}
	seed(t, s)
	// C has the same creation time as A: ties are ordered by MD5.
	mustUpsert(t, s, newDoc(md5C, "c.pdf", t0, 1), []docqa.Chunk{chunk(md5C, 0, 1, "c", vec(0, 0, 1))}, "lexical:v1")

	docs, err = s.Documents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, d := range docs {
		order = append(order, d.FileMD5)
	}
	if wantOrder := []string{md5B, md5A, md5C}; !slices.Equal(order, wantOrder) {
		t.Fatalf("order %v, want newest first %v", order, wantOrder)
	}

	got, err := s.Document(ctx, md5A)
	if err != nil {
		t.Fatal(err)
	}
	if got != newDoc(md5A, "a.pdf", t0, 2) {
		t.Fatalf("Document = %+v", got)
	}

	tests := []struct {
		name string
		md5  string
		err  error
	}{
		{"present", md5A, nil},
		{"already deleted", md5A, docqa.ErrNotFound},
		{"never stored", "ffffffffffffffffffffffffffffffff", docqa.ErrNotFound},
		{"not an md5", `x" || true`, docqa.ErrNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := s.Delete(ctx, 1, tc.md5)
			if !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
				t.Fatalf("Delete(%q) = %v, want %v", tc.md5, err, tc.err)
			}
		})
	}
	if _, err := s.Document(ctx, md5A); !errors.Is(err, docqa.ErrNotFound) {
		t.Fatalf("Document after Delete: %v, want ErrNotFound", err)
	}
	hits, err := s.Search(ctx, vec(1, 0), docqa.Query{TopK: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		if h.Document.FileMD5 == md5A {
			t.Fatalf("deleted document still found: %+v", h)
		}
	}
	if len(hits) != 3 {
		t.Fatalf("%d hits after delete, want 3", len(hits))
	}
}

func TestEmbedderIsRecordedAndNeverMixed(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, t.TempDir())
	if name, err := s.Embedder(ctx); err != nil || name != "" {
		t.Fatalf("empty store Embedder = %q, %v", name, err)
	}
	seed(t, s)
	if name, err := s.Embedder(ctx); err != nil || name != "lexical:v1" {
		t.Fatalf("Embedder = %q, %v", name, err)
	}
	err := s.Upsert(ctx, newDoc(md5C, "c.pdf", t0, 1), []docqa.Chunk{chunk(md5C, 0, 1, "c", vec(1))}, "openai:bge-m3")
	if !errors.Is(err, docqa.ErrEmbedderMismatch) {
		t.Fatalf("upsert by another embedder: %v, want ErrEmbedderMismatch", err)
	}
	if _, err := s.Document(ctx, md5C); !errors.Is(err, docqa.ErrNotFound) {
		t.Fatalf("refused upsert was stored: %v", err)
	}
	// Once empty, the store takes any embedder.
	for _, md5 := range []string{md5A, md5B} {
		if err := s.Delete(ctx, 1, md5); err != nil {
			t.Fatal(err)
		}
	}
	if name, _ := s.Embedder(ctx); name != "" {
		t.Fatalf("emptied store Embedder = %q", name)
	}
	mustUpsert(t, s, newDoc(md5C, "c.pdf", t0, 1), []docqa.Chunk{chunk(md5C, 0, 1, "c", vec(1))}, "openai:bge-m3")
	if name, _ := s.Embedder(ctx); name != "openai:bge-m3" {
		t.Fatalf("Embedder = %q", name)
	}
}

func TestInvalidInput(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, t.TempDir())
	good := []docqa.Chunk{chunk(md5A, 0, 1, "x", vec(1))}
	nan := vec(1)
	nan[7] = float32(math.NaN())
	tests := []struct {
		name     string
		doc      docqa.Document
		chunks   []docqa.Chunk
		embedder string
		is       error
	}{
		{"md5 not hex", newDoc(`abc"def`, "a.pdf", t0, 1), good, "e", nil},
		{"md5 upper case", newDoc("0CC175B9C0F1B6A831C399E269772661", "a.pdf", t0, 1), good, "e", nil},
		{"no embedder", newDoc(md5A, "a.pdf", t0, 1), good, " ", nil},
		{"no chunks", newDoc(md5A, "a.pdf", t0, 0), nil, "e", nil},
		{"short vector", newDoc(md5A, "a.pdf", t0, 1), []docqa.Chunk{chunk(md5A, 0, 1, "x", []float32{1, 2})}, "e", docqa.ErrDimension},
		{"NaN", newDoc(md5A, "a.pdf", t0, 1), []docqa.Chunk{chunk(md5A, 0, 1, "x", nan)}, "e", nil},
		{"negative index", newDoc(md5A, "a.pdf", t0, 1), []docqa.Chunk{{ID: "id", Index: -1, Embedding: vec(1)}}, "e", nil},
		{"duplicate id", newDoc(md5A, "a.pdf", t0, 2), []docqa.Chunk{chunk(md5A, 0, 1, "x", vec(1)), chunk(md5A, 0, 1, "y", vec(1))}, "e", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := s.Upsert(ctx, tc.doc, tc.chunks, tc.embedder)
			if err == nil {
				t.Fatal("accepted")
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Fatalf("error %v does not wrap %v", err, tc.is)
			}
		})
	}
	if docs, _ := s.Documents(ctx); len(docs) != 0 {
		t.Fatalf("refused upserts stored %v", docs)
	}
	if _, err := s.Search(ctx, []float32{1}, docqa.Query{TopK: 3}); !errors.Is(err, docqa.ErrDimension) {
		t.Fatalf("short query: %v, want ErrDimension", err)
	}
	if _, err := s.Search(ctx, vec(1), docqa.Query{TopK: 0}); err == nil {
		t.Fatal("topK 0 accepted")
	}
}

func TestChunkWithoutIDGetsChunkID(t *testing.T) {
	s := mustOpen(t, t.TempDir())
	mustUpsert(t, s, newDoc(md5A, "a.pdf", t0, 1), []docqa.Chunk{{Page: 1, Index: 4, Text: "t", Embedding: vec(1)}}, "e")
	got, err := s.Search(context.Background(), vec(1), docqa.Query{TopK: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Chunk.ID != docqa.ChunkID(md5A, 4) {
		t.Fatalf("id %q, want ChunkID", got[0].Chunk.ID)
	}
}

func TestSurvivesRestart(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	seed(t, s)
	mustUpsert(t, s, newDoc(md5C, "c.pdf", t0, 1), []docqa.Chunk{chunk(md5C, 0, 1, "c", vec(0, 0, 1))}, "lexical:v1")
	if err := s.Delete(ctx, 1, md5C); err != nil {
		t.Fatal(err)
	}
	before, err := s.Documents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = mustOpen(t, dir)
	after, err := s.Documents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(before, after) {
		t.Fatalf("documents before restart %v, after %v", before, after)
	}
	for _, tc := range searchCases {
		got, err := s.Search(ctx, tc.query, docqa.Query{TopK: tc.topK})
		if err != nil {
			t.Fatal(err)
		}
		if !sameHits(hitsOf(got), tc.want) {
			t.Fatalf("%s after restart: got %v, want %v", tc.name, hitsOf(got), tc.want)
		}
	}
	if name, _ := s.Embedder(ctx); name != "lexical:v1" {
		t.Fatalf("embedder after restart %q", name)
	}
}

func TestConcurrentUpsertsAndSearches(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	const writers, docsEach, chunksEach = 4, 5, 3
	md5Of := func(w, d int) string { return fmt.Sprintf("%030x%02x", w, d) }
	var wg sync.WaitGroup
	errs := make(chan error, writers*docsEach*2)
	for w := range writers {
		wg.Go(func() {
			for d := range docsEach {
				md5 := md5Of(w, d)
				chunks := make([]docqa.Chunk, chunksEach)
				for i := range chunks {
					chunks[i] = chunk(md5, i, 1, md5, vec(float32(w+1), float32(d+1), float32(i+1)))
				}
				// Each document twice, racing with the others: no duplicates.
				for range 2 {
					if err := s.Upsert(ctx, newDoc(md5, "f.pdf", t0.Add(time.Duration(w*docsEach+d)*time.Second), chunksEach), chunks, "e"); err != nil {
						errs <- err
					}
				}
			}
		})
		wg.Go(func() {
			for range docsEach {
				if _, err := s.Search(ctx, vec(1, 1, 1), docqa.Query{TopK: 5}); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	check := func(s *Store) {
		t.Helper()
		docs, err := s.Documents(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(docs) != writers*docsEach {
			t.Fatalf("%d documents, want %d", len(docs), writers*docsEach)
		}
		if !sort.SliceIsSorted(docs, func(i, j int) bool { return docs[i].CreatedAt.After(docs[j].CreatedAt) }) {
			t.Fatal("documents not newest first")
		}
		hits, err := s.Search(ctx, vec(1), docqa.Query{TopK: 1000})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != writers*docsEach*chunksEach {
			t.Fatalf("%d chunks, want %d", len(hits), writers*docsEach*chunksEach)
		}
	}
	check(s)
	s.Close()
	check(mustOpen(t, dir))
}

func TestClosedStoreRefuses(t *testing.T) {
	ctx := context.Background()
	s, err := Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Ping(ctx); err != nil {
		t.Fatalf("Ping on an open store: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	checks := map[string]error{
		"Ping":     s.Ping(ctx),
		"Upsert":   s.Upsert(ctx, newDoc(md5A, "a", t0, 1), []docqa.Chunk{chunk(md5A, 0, 1, "x", vec(1))}, "e"),
		"Delete":   s.Delete(ctx, 1, md5A),
		"Search":   second(s.Search(ctx, vec(1), docqa.Query{TopK: 1})),
		"Document": second(s.Document(ctx, md5A)),
		"Embedder": second(s.Embedder(ctx)),
	}
	for name, err := range checks {
		if !errors.Is(err, ErrClosed) {
			t.Errorf("%s after Close: %v, want ErrClosed", name, err)
		}
	}
}

func TestCancelledContext(t *testing.T) {
	s := mustOpen(t, t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Search(ctx, vec(1), docqa.Query{TopK: 1}); !errors.Is(err, context.Canceled) {
		t.Fatalf("Search: %v", err)
	}
	if err := s.Upsert(ctx, newDoc(md5A, "a", t0, 1), []docqa.Chunk{chunk(md5A, 0, 1, "x", vec(1))}, "e"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Upsert: %v", err)
	}
}

func second[T any](_ T, err error) error { return err }

// fill stores docs documents of perDoc random chunks each.
func fill(b testing.TB, s *Store, docs, perDoc int) *rand.Rand {
	rng := rand.New(rand.NewPCG(1, 2))
	for d := range docs {
		md5 := fmt.Sprintf("%032x", d)
		chunks := make([]docqa.Chunk, perDoc)
		for i := range chunks {
			chunks[i] = chunk(md5, i, 1+i/10, "some chunk text of a few hundred characters", randVec(rng))
		}
		mustUpsert(b, s, newDoc(md5, "f.pdf", t0, perDoc), chunks, "e")
	}
	return rng
}

func randVec(rng *rand.Rand) []float32 {
	v := make([]float32, docqa.Dimension)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	return v
}

// BenchmarkOpen: loading a store of 10 000 chunks from its database (a
// restart), quick_check included.
//
//	go test ./internal/embedded -run '^$' -bench Open -benchtime 5x
func BenchmarkOpen(b *testing.B) {
	dir := b.TempDir()
	s, err := Open(dir, nil)
	if err != nil {
		b.Fatal(err)
	}
	fill(b, s, 10, 1000)
	s.Close()
	for b.Loop() {
		s, err := Open(dir, nil)
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

// BenchmarkSearch: topK 10 over 10 000 chunks of 1024 floats, the contract's
// largest document. Reports the median latency as p50-ms.
//
//	go test ./internal/embedded -run '^$' -bench Search -benchtime 200x
//
// BenchmarkUpsert: one document of 10 000 chunks in one transaction (what a
// 100 MB manual becomes), into an empty store each time.
//
//	go test ./internal/embedded -run '^$' -bench Upsert -benchtime 5x
func BenchmarkUpsert(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	chunks := make([]docqa.Chunk, docqa.MaxChunks)
	for i := range chunks {
		chunks[i] = chunk(md5A, i, 1+i/10, "some chunk text of a few hundred characters", randVec(rng))
	}
	for b.Loop() {
		b.StopTimer()
		s := mustOpen(b, b.TempDir())
		b.StartTimer()
		mustUpsert(b, s, newDoc(md5A, "big.pdf", t0, len(chunks)), chunks, "e")
		b.StopTimer()
		s.Close()
		b.StartTimer()
	}
}

func BenchmarkSearch(b *testing.B) {
	s := mustOpen(b, b.TempDir())
	rng := fill(b, s, 10, 1000)
	queries := make([][]float32, 64)
	for i := range queries {
		queries[i] = randVec(rng)
	}
	ctx := context.Background()
	times := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		hits, err := s.Search(ctx, queries[i%len(queries)], docqa.Query{TopK: 10})
		times = append(times, time.Since(start))
		if err != nil || len(hits) != 10 {
			b.Fatalf("%d hits, %v", len(hits), err)
		}
	}
	b.StopTimer()
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2])/1e6, "p50-ms")
	b.ReportMetric(float64(times[len(times)*99/100])/1e6, "p99-ms")
}

func TestOwners(t *testing.T) {
	storetest.Owners(t, func(t *testing.T) docqa.VectorStore { return mustOpen(t, t.TempDir()) })
}

func TestPageLabels(t *testing.T) {
	dir := t.TempDir()
	storetest.PageLabels(t, func(t *testing.T) docqa.VectorStore { return mustOpen(t, dir) },
		func(t *testing.T, s docqa.VectorStore) docqa.VectorStore {
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			return mustOpen(t, dir)
		})
}

// A database written before page labels (schema 3) opens with its chunks
// unlabelled.
func TestChunksBeforePageLabelsHaveNone(t *testing.T) {
	dir := t.TempDir()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, DBName)+"?_pragma=foreign_keys(ON)")
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{migrations[0], migrations[1], migrations[2], `PRAGMA user_version = 3`,
		`INSERT INTO documents (owner, md5, file_name, size, pages, chunks, truncated, created_at, embedder, title)
			VALUES (1, '` + md5A + `', 'a.pdf', 10, 1, 1, 0, '2026-01-01T00:00:00Z', 'e', '')`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec(`INSERT INTO chunks (id, owner, md5, page, idx, text, vector, heading) VALUES (?, 1, ?, 4, 0, 'oil change interval', ?, '')`,
		docqa.OwnedChunkID(1, md5A, 0), md5A, encodeVector(vec(1, 0))); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s := mustOpen(t, dir)
	hits, err := s.Search(context.Background(), vec(1, 0), docqa.Query{TopK: 1})
	if err != nil || len(hits) != 1 || hits[0].Chunk.Page != 4 || hits[0].Chunk.PageLabel != "" {
		t.Fatalf("Search = %+v, %v; want page 4 without a label", hits, err)
	}
}

// A database written before documents had owners (schema 2) opens with its
// documents the built-in user's, their chunk ids unchanged, and the
// rebuilt tables keep the cascade from a document to its chunks.
func TestDocumentsBeforeOwnersAreTheBuiltinUsers(t *testing.T) {
	dir := t.TempDir()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, DBName)+"?_pragma=foreign_keys(ON)")
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{migrations[0], migrations[1], `PRAGMA user_version = 2`,
		`INSERT INTO documents (md5, file_name, size, pages, chunks, truncated, created_at, embedder, title)
			VALUES ('` + md5A + `', 'a.pdf', 10, 1, 2, 0, '2026-01-01T00:00:00Z', 'e', 'Owner''s Manual')`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 2 {
		if _, err := db.Exec(`INSERT INTO chunks (id, md5, page, idx, text, vector, heading) VALUES (?, ?, 1, ?, 'oil change interval', ?, 'Oil')`,
			docqa.ChunkID(md5A, i), md5A, i, encodeVector(vec(1, float32(i)))); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	s := mustOpen(t, dir)
	d, err := s.Document(context.Background(), md5A)
	if err != nil || d.Owner != auth.BuiltinUserID || d.Shared || d.Title != "Owner's Manual" || d.Chunks != 2 {
		t.Fatalf("Document of the built-in user = %+v, %v", d, err)
	}
	other := auth.WithIdentity(context.Background(), auth.Identity{UserID: 2})
	if _, err := s.Document(other, md5A); !errors.Is(err, docqa.ErrNotFound) {
		t.Fatalf("Document of another user = %v, want ErrNotFound", err)
	}
	hits, err := s.Search(context.Background(), vec(1, 0), docqa.Query{TopK: 5})
	if err != nil || len(hits) != 2 || hits[0].Chunk.ID != docqa.ChunkID(md5A, 0) || hits[0].Chunk.Heading != "Oil" {
		t.Fatalf("Search = %+v, %v", hits, err)
	}
	// Chunks stored before OCR existed were read from a text layer; before
	// navigation was detected, none is marked as a contents or index page.
	if hits[0].Chunk.OCR || hits[1].Chunk.OCR || hits[0].Chunk.Navigation || hits[1].Chunk.Navigation {
		t.Fatalf("chunks of an older store read as OCR or navigation: %+v", hits)
	}
	if err := s.Delete(context.Background(), auth.BuiltinUserID, md5A); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := s.DB().QueryRow(`SELECT count(*) FROM chunks`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d chunks left after the delete (%v): the cascade was lost", n, err)
	}
}

// Whether a chunk was read by OCR, and whether its page is a table of
// contents or an index, are stored with it: searches say so, and so does
// the store opened again.
func TestOCRFlagIsStored(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	text, scanned := chunk(md5A, 0, 1, "engine oil level", vec(1, 0)), chunk(md5A, 1, 2, "engine oil grade", vec(0, 1))
	scanned.OCR = true
	text.Navigation = true
	scanned.Rects = []docqa.Rect{{X: 0.08174, Y: 0.1, W: 0.5, H: 0.012}, {X: 0.08, Y: 0.115, W: 0.3, H: 0.012}}
	// Kept to four decimals.
	wantRects := []docqa.Rect{{X: 0.0817, Y: 0.1, W: 0.5, H: 0.012}, {X: 0.08, Y: 0.115, W: 0.3, H: 0.012}}
	mustUpsert(t, s, newDoc(md5A, "a.pdf", t0, 2), []docqa.Chunk{text, scanned}, "lexical:v1")
	check := func(when string, s *Store) {
		t.Helper()
		for _, search := range []func() ([]docqa.ScoredChunk, error){
			func() ([]docqa.ScoredChunk, error) { return s.Search(ctx, vec(1, 0), docqa.Query{TopK: 5}) },
			func() ([]docqa.ScoredChunk, error) { return s.SearchText(ctx, "engine oil", docqa.Query{TopK: 5}) },
		} {
			hits, err := search()
			if err != nil || len(hits) != 2 {
				t.Fatalf("%s: %d hits, %v", when, len(hits), err)
			}
			for _, h := range hits {
				if h.Chunk.OCR != (h.Chunk.Index == 1) || h.Chunk.Navigation != (h.Chunk.Index == 0) {
					t.Fatalf("%s: chunk %d has OCR %v, navigation %v", when, h.Chunk.Index, h.Chunk.OCR, h.Chunk.Navigation)
				}
				if want := map[int][]docqa.Rect{1: wantRects}[h.Chunk.Index]; !rectsNear(h.Chunk.Rects, want) {
					t.Fatalf("%s: chunk %d has rects %v, want %v", when, h.Chunk.Index, h.Chunk.Rects, want)
				}
			}
		}
	}
	var stored string
	if err := s.DB().QueryRow(`SELECT rects FROM chunks WHERE idx = 1`).Scan(&stored); err != nil || stored != `[[817,1000,5000,120],[800,1150,3000,120]]` {
		t.Fatalf("rects column %q (%v)", stored, err)
	}
	check("after the upsert", s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	check("after a restart", mustOpen(t, dir))
}

// rectsNear: the same rectangles, to a millionth (what a decimal fraction
// read back from ten-thousandths differs by).
func rectsNear(a, b []docqa.Rect) bool {
	return slices.EqualFunc(a, b, func(x, y docqa.Rect) bool {
		return math.Abs(x.X-y.X) < 1e-6 && math.Abs(x.Y-y.Y) < 1e-6 && math.Abs(x.W-y.W) < 1e-6 && math.Abs(x.H-y.H) < 1e-6
	})
}

// A database written before chunks kept their rectangles (schema 5) opens
// with its OCR chunks without any; a rects value that does not parse
// reads as none too.
func TestChunksBeforeRectsHaveNone(t *testing.T) {
	dir := t.TempDir()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, DBName)+"?_pragma=foreign_keys(ON)")
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range append(slices.Clone(migrations[:5]), `PRAGMA user_version = 5`,
		`INSERT INTO documents (owner, md5, file_name, size, pages, chunks, truncated, created_at, embedder, title)
			VALUES (1, '`+md5A+`', 'scan.pdf', 10, 1, 1, 0, '2026-01-01T00:00:00Z', 'e', '')`) {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec(`INSERT INTO chunks (id, owner, md5, page, idx, text, vector, heading, ocr) VALUES (?, 1, ?, 1, 0, 'oil change interval', ?, '', 1)`,
		docqa.OwnedChunkID(1, md5A, 0), md5A, encodeVector(vec(1, 0))); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s := mustOpen(t, dir)
	hits, err := s.Search(context.Background(), vec(1, 0), docqa.Query{TopK: 1})
	if err != nil || len(hits) != 1 || !hits[0].Chunk.OCR || hits[0].Chunk.Rects != nil {
		t.Fatalf("Search = %+v, %v; want an OCR chunk without rects", hits, err)
	}
	if _, err := s.DB().Exec(`UPDATE chunks SET rects = '{"not":"rects"}'`); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	hits, err = mustOpen(t, dir).Search(context.Background(), vec(1, 0), docqa.Query{TopK: 1})
	if err != nil || len(hits) != 1 || hits[0].Chunk.Rects != nil {
		t.Fatalf("Search with a foreign rects value = %+v, %v; want the chunk without rects", hits, err)
	}
}

// TestDocFreq: how many stored chunks hold each term (docqa.TermCounter),
// counting a deleted document's chunks out.
func TestDocFreq(t *testing.T) {
	s := mustOpen(t, t.TempDir())
	seed(t, s)
	ctx := context.Background()
	df, n, err := s.DocFreq(ctx, []string{"along", "x", "between", "nowher"})
	if err != nil || n != 4 || !slices.Equal(df, []int{2, 3, 1, 0}) {
		t.Fatalf("DocFreq = %v, %d, %v; want [2 3 1 0], 4", df, n, err)
	}
	if err := s.Delete(ctx, 1, md5B); err != nil {
		t.Fatal(err)
	}
	if df, n, err = s.DocFreq(ctx, []string{"along", "x"}); err != nil || n != 2 || !slices.Equal(df, []int{1, 2}) {
		t.Fatalf("after deleting b.pdf: DocFreq = %v, %d, %v; want [1 2], 2", df, n, err)
	}
}
