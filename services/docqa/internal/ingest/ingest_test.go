package ingest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/services/docqa/internal/docqa"
	"github.com/carhub/backend/services/docqa/internal/embedded"
	"github.com/carhub/backend/services/docqa/internal/ingest"
	"github.com/carhub/backend/services/docqa/internal/ingest/ingesttest"
	"github.com/carhub/backend/services/docqa/internal/ocr"
	"github.com/carhub/backend/services/docqa/internal/openaifake"
	"github.com/carhub/backend/services/docqa/internal/pdftext"
	"github.com/carhub/backend/services/docqa/internal/pdftext/pdftexttest"
	"github.com/carhub/backend/services/docqa/internal/provider"
	"github.com/carhub/backend/services/docqa/internal/retrieval"
	"github.com/carhub/backend/services/docqa/internal/splitter"
)

var now = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// engine is the PDF engine every test shares: it compiles once.
var engine *pdftext.Engine

func TestMain(m *testing.M) {
	engine = pdftext.Start(pdftext.Config{Instances: 2, CacheDir: pdftexttest.CacheDir()})
	code := m.Run()
	engine.Close()
	os.Exit(code)
}

type env struct {
	pipe    *ingest.Pipeline
	store   *embedded.Store
	fake    *openaifake.Server
	dataDir string
	tempDir string
}

// newEnv wires a pipeline to a real embedded store, the real splitter and
// the remote embedder talking to the fake provider over HTTP.
func newEnv(t *testing.T, mod ...func(*ingest.Config)) *env {
	t.Helper()
	return newEnvWith(t, nil, mod...)
}

func newEnvWith(t *testing.T, fakeOpts []openaifake.Option, mod ...func(*ingest.Config)) *env {
	t.Helper()
	store, err := embedded.Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	fake := openaifake.New(t, fakeOpts...)
	emb, err := provider.NewEmbedder(provider.EmbedderConfig{
		BaseURL: fake.URL, APIKey: openaifake.APIKey, Model: "bge-m3", MaxRetries: -1,
	})
	if err != nil {
		t.Fatal(err)
	}
	split, err := splitter.New()
	if err != nil {
		t.Fatal(err)
	}
	e := &env{store: store, fake: fake, dataDir: t.TempDir(), tempDir: t.TempDir()}
	cfg := ingest.Config{
		Store: store, Embedder: emb, Splitter: split, Extractor: engine,
		DataDir: e.dataDir, TempDir: e.tempDir,
		Now: func() time.Time { return now },
	}
	for _, m := range mod {
		m(&cfg)
	}
	e.pipe, err = ingest.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// ingestBytes admits, receives and processes b as fileName.
func (e *env) ingestBytes(t *testing.T, fileName string, b []byte, progress func(ingest.Progress)) (ingest.Result, error) {
	t.Helper()
	return ingestWith(context.Background(), e.pipe, fileName, b, progress)
}

func ingestWith(ctx context.Context, pipe *ingest.Pipeline, fileName string, b []byte, progress func(ingest.Progress)) (ingest.Result, error) {
	tk, err := pipe.Admit()
	if err != nil {
		return ingest.Result{}, err
	}
	defer tk.Release()
	up, err := pipe.Receive(bytes.NewReader(b), fileName)
	if err != nil {
		return ingest.Result{}, err
	}
	defer up.Close()
	return pipe.Process(ctx, tk, up, progress)
}

// embeddedTexts counts the texts the fake provider was asked to embed.
func (e *env) embeddedTexts() int {
	n := 0
	for _, r := range e.fake.EmbeddingRequests() {
		n += len(r.Input)
	}
	return n
}

func (e *env) assertTempEmpty(t *testing.T) {
	t.Helper()
	left, err := os.ReadDir(e.tempDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

func code(err error) apperr.Code {
	if err == nil {
		return ""
	}
	return apperr.From(err).Code
}

func invalidFile(prefix string) func(error) bool {
	return func(err error) bool {
		e := apperr.From(err)
		return e.Code == apperr.InvalidArgument && e.Field == "file" && strings.HasPrefix(e.Message, prefix)
	}
}

func is(target error) func(error) bool {
	return func(err error) bool { return errors.Is(err, target) }
}

func samplePDF(tag string) []byte {
	return ingesttest.PDF(
		"Chapter one of the "+tag+" manual.\nChange the engine oil every 15000 kilometres or once a year.",
		"",
		"Chapter three of the "+tag+" manual.\nTyre pressure is 2.4 bar at the front and 2.2 bar at the rear.",
	)
}

func TestProcessStoresDocumentWithPages(t *testing.T) {
	e := newEnv(t)
	pdf := samplePDF("alpha")
	res, err := e.ingestBytes(t, "dir/alpha.pdf", pdf, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Duplicate || res.FileName != "alpha.pdf" || res.Size != int64(len(pdf)) || res.Pages != 3 ||
		res.Chunks != 2 || res.Truncated || !res.CreatedAt.Equal(now) || len(res.FileMD5) != 32 {
		t.Fatalf("result = %+v", res)
	}
	stored, err := e.store.Document(context.Background(), res.FileMD5)
	if err != nil || stored.Chunks != 2 {
		t.Fatalf("stored = %+v, %v", stored, err)
	}
	// The chunks keep their page numbers and deterministic ids.
	hits, err := e.store.Search(context.Background(), openaifake.Vector("x", docqa.Dimension), docqa.Query{TopK: 10})
	if err != nil {
		t.Fatal(err)
	}
	pages := map[int]string{}
	for _, h := range hits {
		pages[h.Chunk.Page] = h.Chunk.Text
		if h.Chunk.ID != docqa.ChunkID(res.FileMD5, h.Chunk.Index) {
			t.Errorf("chunk %d id = %s", h.Chunk.Index, h.Chunk.ID)
		}
	}
	if !strings.Contains(pages[1], "engine oil") || !strings.Contains(pages[3], "Tyre pressure") || len(pages) != 2 {
		t.Errorf("chunks by page = %v", pages)
	}
	e.assertTempEmpty(t)
}

// A PDF whose metadata title is the file it was made from is stored under
// its cover's title, or without one (then named by its upload's file
// name), never as "manual_en.html".
func TestStoredTitleIsNoFileName(t *testing.T) {
	const body = "Read this manual before driving.\nChange the engine oil every 15000 kilometres or once a year."
	for _, tc := range []struct {
		name         string
		cover        string
		title, shown string
	}{
		{"the cover's title", "Owner's Manual\nGolf 8", "Owner's Manual Golf 8", "Owner's Manual Golf 8"},
		{"no cover title: the file name", "", "", "golf-8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			pdf := ingesttest.Titled("manual_en.html", ingesttest.Page{Heading: tc.cover, Text: body})
			res, err := e.ingestBytes(t, "golf-8.pdf", pdf, nil)
			if err != nil {
				t.Fatal(err)
			}
			stored, err := e.store.Document(context.Background(), res.FileMD5)
			if err != nil {
				t.Fatal(err)
			}
			if stored.Title != tc.title || stored.DisplayTitle() != tc.shown {
				t.Errorf("stored title %q, shown as %q; want %q, %q", stored.Title, stored.DisplayTitle(), tc.title, tc.shown)
			}
		})
	}
}

func TestDuplicateEmbedsAndStoresNothing(t *testing.T) {
	e := newEnv(t)
	pdf := samplePDF("beta")
	first, err := e.ingestBytes(t, "beta.pdf", pdf, nil)
	if err != nil {
		t.Fatal(err)
	}
	calls := len(e.fake.EmbeddingRequests())
	var stages []ingest.Stage
	second, err := e.ingestBytes(t, "renamed.pdf", pdf, func(p ingest.Progress) { stages = append(stages, p.Stage) })
	if err != nil {
		t.Fatal(err)
	}
	if !second.Duplicate || second.Document != first.Document {
		t.Errorf("second = %+v, want the stored %+v with duplicate", second, first)
	}
	if got := len(e.fake.EmbeddingRequests()); got != calls {
		t.Errorf("embedding calls went from %d to %d on a duplicate", calls, got)
	}
	if !slices.Equal(stages, []ingest.Stage{ingest.StageReceived}) {
		t.Errorf("duplicate stages = %v", stages)
	}
	e.assertTempEmpty(t)
}

func TestConcurrentIdenticalUploadsEmbedOnce(t *testing.T) {
	// Slow embeddings make the uploads overlap inside the pipeline.
	e := newEnvWith(t, []openaifake.Option{openaifake.WithEmbeddingDelay(50 * time.Millisecond)})
	pipe := e.pipe
	pdf := samplePDF("gamma")
	const n = 8
	results := make([]ingest.Result, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			results[i], errs[i] = ingestWith(context.Background(), pipe, "gamma.pdf", pdf, nil)
		})
	}
	wg.Wait()
	fresh := 0
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("upload %d: %v", i, errs[i])
		}
		if !results[i].Duplicate {
			fresh++
		}
	}
	if fresh != 1 {
		t.Errorf("%d uploads stored the file, want 1", fresh)
	}
	if texts := e.embeddedTexts(); texts != results[0].Chunks {
		t.Errorf("embedded %d texts for a document of %d chunks", e.embeddedTexts(), results[0].Chunks)
	}
	docs, _ := e.store.Documents(context.Background())
	if len(docs) != 1 {
		t.Errorf("store holds %d documents", len(docs))
	}
	e.assertTempEmpty(t)
}

// TestBadFiles: what the receiver refuses is INVALID_ARGUMENT naming the
// file; what the extractor refuses keeps pdftext's class, for the HTTP
// layer's error map.
func TestBadFiles(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		is   func(error) bool
	}{
		{"empty", nil, invalidFile("file: is empty")},
		{"not a PDF", []byte("hello, this is text"), invalidFile("file: is not a PDF")},
		{"corrupt", []byte("%PDF-1.4\n1 0 obj << /Type /Catalog garbage"), is(pdftext.ErrCorrupt)},
		{"text-less", ingesttest.PDF("", ""), is(pdftext.ErrNoText)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			_, err := e.ingestBytes(t, "bad.pdf", tt.data, nil)
			if !tt.is(err) {
				t.Fatalf("err = %v", err)
			}
			if n := len(e.fake.EmbeddingRequests()); n != 0 {
				t.Errorf("%d embedding calls for a bad file", n)
			}
			docs, _ := e.store.Documents(context.Background())
			if len(docs) != 0 {
				t.Errorf("stored %v", docs)
			}
			e.assertTempEmpty(t)
		})
	}
}

func TestTooLarge(t *testing.T) {
	e := newEnv(t, func(c *ingest.Config) { c.MaxBytes = 1000 })
	big := append([]byte("%PDF-1.4\n"), bytes.Repeat([]byte("x"), 1000)...)
	_, err := e.pipe.Receive(bytes.NewReader(big), "big.pdf")
	if code(err) != apperr.PayloadTooLarge {
		t.Fatalf("err = %v, want PAYLOAD_TOO_LARGE", err)
	}
	// A body limit hit while reading is the same error.
	_, err = e.pipe.Receive(http.MaxBytesReader(nil, readerOf(big), 10), "big.pdf")
	if code(err) != apperr.PayloadTooLarge {
		t.Fatalf("err = %v, want PAYLOAD_TOO_LARGE", err)
	}
	e.assertTempEmpty(t)
}

type nopCloser struct{ *bytes.Reader }

func (nopCloser) Close() error { return nil }

func readerOf(b []byte) nopCloser { return nopCloser{bytes.NewReader(b)} }

func TestProviderDownStoresNothing(t *testing.T) {
	tests := []struct {
		name    string
		failure openaifake.Failure
	}{
		{"500", openaifake.Failure{Status: 500}},
		{"503", openaifake.Failure{Status: 503}},
		{"401", openaifake.Failure{Status: 401, Message: "bad key"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			e.fake.FailEmbeddings(tt.failure)
			_, err := e.ingestBytes(t, "a.pdf", samplePDF("delta"), nil)
			if !errors.Is(err, docqa.ErrUnavailable) {
				t.Fatalf("err = %v, want one wrapping docqa.ErrUnavailable", err)
			}
			docs, _ := e.store.Documents(context.Background())
			if len(docs) != 0 {
				t.Errorf("stored %v after a provider failure", docs)
			}
			// The provider is back: the same file now ingests.
			if _, err := e.ingestBytes(t, "a.pdf", samplePDF("delta"), nil); err != nil {
				t.Fatalf("retry: %v", err)
			}
			e.assertTempEmpty(t)
		})
	}
}

func TestProgressOrder(t *testing.T) {
	e := newEnv(t, func(c *ingest.Config) { c.EmbedBatch = 1 })
	var got []ingest.Progress
	res, err := e.ingestBytes(t, "p.pdf", samplePDF("epsilon"), func(p ingest.Progress) { got = append(got, p) })
	if err != nil {
		t.Fatal(err)
	}
	order := map[ingest.Stage]int{ingest.StageReceived: 0, ingest.StageParsing: 1, ingest.StageSplitting: 2, ingest.StageEmbedding: 3, ingest.StageStoring: 4}
	seen := map[ingest.Stage]bool{}
	last := got[0]
	for i, p := range got {
		seen[p.Stage] = true
		if order[p.Stage] < order[last.Stage] || p.Percent < last.Percent || p.Percent < 0 || p.Percent > 100 || p.Message == "" {
			t.Errorf("progress %d = %+v after %+v", i, p, last)
		}
		last = p
	}
	if len(seen) != 5 {
		t.Errorf("stages seen = %v", seen)
	}
	if last.Stage != ingest.StageStoring || last.Percent != 100 || last.Current != int64(res.Chunks) {
		t.Errorf("last progress = %+v", last)
	}
	// One embedding item per batch of one chunk, plus the opening one.
	embedding := 0
	for _, p := range got {
		if p.Stage == ingest.StageEmbedding {
			embedding++
		}
	}
	if embedding != res.Chunks+1 {
		t.Errorf("%d embedding items for %d chunks", embedding, res.Chunks)
	}
}

// countingEmbedder is the local lexical embedder, counting the texts it
// embeds.
type countingEmbedder struct {
	*provider.LexicalEmbedder
	mu    sync.Mutex
	texts int
}

func (c *countingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.mu.Lock()
	c.texts += len(texts)
	c.mu.Unlock()
	return c.LexicalEmbedder.Embed(ctx, texts)
}

// A document of more chunks than the limit is stored truncated to its
// first chunks, and only they are embedded. The limit is docqa.MaxChunks;
// the test lowers it to reach it with a few pages (reaching 10 000 took
// 10 003 pages and half a minute under -race).
func TestTruncatesAtMaxChunks(t *testing.T) {
	const limit = 7
	pages := make([]string, limit+3)
	for i := range pages {
		pages[i] = fmt.Sprintf("Short page number %d.", i+1)
	}
	emb := &countingEmbedder{LexicalEmbedder: provider.NewLexicalEmbedder()}
	e := newEnv(t, func(c *ingest.Config) { c.Embedder = emb })
	if got := ingest.MaxChunks(e.pipe); got != docqa.MaxChunks {
		t.Fatalf("a pipeline stores at most %d chunks of a document, want docqa.MaxChunks (%d)", got, docqa.MaxChunks)
	}
	ingest.SetMaxChunks(e.pipe, limit)
	res, err := e.ingestBytes(t, "long.pdf", ingesttest.PDF(pages...), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Truncated || res.Chunks != limit || res.Pages != len(pages) {
		t.Errorf("result = %+v", res)
	}
	if emb.texts != limit {
		t.Errorf("embedded %d texts", emb.texts)
	}
	stored, err := e.store.Document(context.Background(), res.FileMD5)
	if err != nil || !stored.Truncated || stored.Chunks != limit {
		t.Errorf("stored = %+v, %v", stored, err)
	}
}

func TestCancelledWhileWaitingForLock(t *testing.T) {
	e := newEnv(t)
	pdf := samplePDF("zeta")
	up, err := e.pipe.Receive(bytes.NewReader(pdf), "z.pdf")
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	tk, err := e.pipe.Admit()
	if err != nil {
		t.Fatal(err)
	}
	defer tk.Release()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = e.pipe.Process(ctx, tk, up, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestImport(t *testing.T) {
	e := newEnv(t)
	outside := filepath.Join(t.TempDir(), "secret.pdf")
	writeFile(t, outside, samplePDF("outside"))
	writeFile(t, filepath.Join(e.dataDir, "a.pdf"), samplePDF("one"))
	writeFile(t, filepath.Join(e.dataDir, "sub", "deeper", "B.PDF"), samplePDF("two"))
	writeFile(t, filepath.Join(e.dataDir, "sub", "copy-of-a.pdf"), samplePDF("one"))
	writeFile(t, filepath.Join(e.dataDir, "notes.txt"), []byte("not a pdf"))
	writeFile(t, filepath.Join(e.dataDir, "fake.pdf"), []byte("not a pdf either"))
	if err := os.Symlink(outside, filepath.Join(e.dataDir, "escape.pdf")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Dir(outside), filepath.Join(e.dataDir, "outside-dir")); err != nil {
		t.Fatal(err)
	}

	res, err := importAll(e.pipe)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range res.Documents {
		got = append(got, fmt.Sprintf("%s dup=%v", d.FileName, d.Duplicate))
	}
	// Walk order; a duplicate answers the stored document, named as first stored.
	want := []string{"a.pdf dup=false", "a.pdf dup=true", "B.PDF dup=false"}
	if !slices.Equal(got, want) {
		t.Errorf("documents = %v, want %v", got, want)
	}
	failed := map[string]error{}
	for _, f := range res.Failed {
		failed[f.FileName] = f.Err
	}
	if len(failed) != 2 || !invalidFile("file: cannot be opened inside the data directory")(failed["escape.pdf"]) ||
		!invalidFile("file: is not a PDF")(failed["fake.pdf"]) {
		t.Errorf("failed = %+v", res.Failed)
	}
	docs, _ := e.store.Documents(context.Background())
	for _, d := range docs {
		if strings.Contains(d.FileName, "secret") {
			t.Errorf("imported a file outside the data directory: %+v", d)
		}
	}
	if len(docs) != 2 {
		t.Errorf("store holds %d documents", len(docs))
	}

	// A second import finds everything stored.
	again, err := importAll(e.pipe)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range again.Documents {
		if !d.Duplicate {
			t.Errorf("second import stored %s again", d.FileName)
		}
	}
	e.assertTempEmpty(t)
}

func importAll(pipe *ingest.Pipeline) (ingest.ImportResult, error) {
	tk, err := pipe.Admit()
	if err != nil {
		return ingest.ImportResult{}, err
	}
	defer tk.Release()
	return pipe.Import(context.Background(), tk)
}

func TestImportMissingDirectory(t *testing.T) {
	e := newEnv(t, func(c *ingest.Config) { c.DataDir = filepath.Join(t.TempDir(), "absent") })
	res, err := importAll(e.pipe)
	if err != nil || len(res.Documents) != 0 || len(res.Failed) != 0 {
		t.Fatalf("Import = %+v, %v", res, err)
	}
}

func TestFileNames(t *testing.T) {
	e := newEnv(t)
	for _, tt := range []struct{ sent, want string }{
		{"manual.pdf", "manual.pdf"},
		{"../../etc/passwd.pdf", "passwd.pdf"},
		{`C:\Users\me\Handbuch Öl.pdf`, "Handbuch Öl.pdf"},
		{"", "document.pdf"},
		{"/", "document.pdf"},
		{strings.Repeat("é", 200) + ".pdf", strings.Repeat("é", 127)},
	} {
		up, err := e.pipe.Receive(bytes.NewReader(samplePDF("names")), tt.sent)
		if err != nil {
			t.Fatal(err)
		}
		if up.FileName != tt.want {
			t.Errorf("name %q kept as %q, want %q", tt.sent, up.FileName, tt.want)
		}
		up.Close()
	}
	e.assertTempEmpty(t)
}

// TestInterruptedUpload: a body that fails mid-way is INVALID_ARGUMENT and
// leaves no temporary file.
func TestInterruptedUpload(t *testing.T) {
	e := newEnv(t)
	r := io.MultiReader(bytes.NewReader(samplePDF("cut")[:100]), iotest.ErrReader(errors.New("connection reset")))
	_, err := e.pipe.Receive(r, "cut.pdf")
	if code(err) != apperr.InvalidArgument {
		t.Fatalf("err = %v", err)
	}
	e.assertTempEmpty(t)
}

// furnishedBook is a manual as a book prints it (see the furniture
// package's test): a contents page numbered "i", chapters whose odd pages
// carry "Chapter N: Title <page>" and whose even pages "<page> Car Owner
// Manual", chapter openings with a bare page number at the foot, and an
// index. Physical page n is labelled n-1. Page 2 starts with a line that
// looks like a head once ("1 Introduction") and keeps it.
func furnishedBook() []byte {
	texts := []string{
		"Contents\nIntroduction . . . . . . 1\nEngine oil . . . . . . 2\nCoolant . . . . . . 3\n" +
			"Brake pads . . . . . . 4\nBrake fluid . . . . . . 6\nHandbrake . . . . . . 7\nTyres . . . . . . 8\nIndex . . . . . . 10\ni",
		"1 Introduction\nThis manual explains the care of your car.\nRead it before the first drive.\n1",
		"2 Car Owner Manual\nThe engine needs oil of grade 5W-30.\nCheck the oil level every month.",
		"Chapter 1: Introduction 3\nThe coolant keeps the engine at its temperature.\nTop it up only when the engine is cold.",
		"Brakes\nBrake pads wear with every stop.\nA worn pad squeals.\n4",
		"Chapter 2: Brakes 5\nThe warning light shows when the pads are thin.\nThe pads come in pairs.",
		"6 Car Owner Manual\nBrake fluid absorbs water over the years.\nChange the brake fluid every two years.",
		"Chapter 2: Brakes 7\nThe handbrake holds the car on a slope.\nAdjust its cable when it travels far.",
		"8 Car Owner Manual\nTyres\nTyre pressure is 2.4 bar at the front.",
		"Chapter 3: Tyres 9\nRotate the tyres every 10000 kilometres.\nCheck the tread depth as well.",
		"10 Car Owner Manual\nIndex\nB\nbrake fluid, 6\nbrake pads, 4, 5\nC\ncoolant 3\nE\nengine oil 2\n" +
			"H\nhandbrake 7\nT\ntyre pressure 8\ntyres 8, 9",
	}
	pages := make([]ingesttest.Page, len(texts))
	for i, t := range texts {
		pages[i] = ingesttest.Page{Text: t}
	}
	return ingesttest.Book("<< /Nums [0 << /S /r >> 1 << /S /D >>] >>", pages...)
}

// The running heads, feet and page numbers of a book stay out of its chunks
// (so out of their text and out of quotes); a running head is the heading
// of the pages that print it, a chapter's and the book's title alike; the
// contents and the index pages are marked and rank after a body page that
// shares their words.
func TestFurnitureStaysOutOfChunks(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, func(c *ingest.Config) { c.Embedder = provider.NewLexicalEmbedder() })
	res, err := e.ingestBytes(t, "car.pdf", furnishedBook(), nil)
	if err != nil {
		t.Fatal(err)
	}
	hits, err := e.store.SearchText(ctx, "car manual chapter brakes tyres oil coolant fluid introduction", docqa.Query{TopK: 100})
	if err != nil {
		t.Fatal(err)
	}
	byPage := map[int]docqa.Chunk{}
	for _, h := range hits {
		if _, dup := byPage[h.Chunk.Page]; dup {
			t.Fatalf("page %d split into several chunks", h.Chunk.Page)
		}
		byPage[h.Chunk.Page] = h.Chunk
	}
	if len(byPage) != res.Pages || res.Pages != 11 {
		t.Fatalf("%d pages, chunks of %d: %v", res.Pages, len(byPage), byPage)
	}
	for page, c := range byPage {
		for _, f := range []string{"Car Owner Manual", "Chapter 1", "Chapter 2", "Chapter 3"} {
			if strings.Contains(c.Text, f) {
				t.Errorf("page %d keeps furniture %q: %q", page, f, c.Text)
			}
		}
		if last := c.Text[strings.LastIndexAny(c.Text, " \n")+1:]; page <= 5 && (last == "i" || last == "1" || last == "4") {
			t.Errorf("page %d keeps its page number: %q", page, c.Text)
		}
		if want := page == 1 || page == 11; c.Navigation != want {
			t.Errorf("page %d navigation %v", page, c.Navigation)
		}
	}
	if !strings.HasPrefix(byPage[2].Text, "1 Introduction") {
		t.Errorf("a line that looks like a head once was dropped: %q", byPage[2].Text)
	}
	// The book's title as a running head (on 60 % of the pages or more)
	// heads the pages that print it, as a chapter's head does its pages.
	for page, want := range map[int]string{4: "Chapter 1: Introduction", 6: "Chapter 2: Brakes", 8: "Chapter 2: Brakes", 10: "Chapter 3: Tyres",
		3: "Car Owner Manual", 7: "Car Owner Manual", 2: "", 5: ""} {
		if got := byPage[page].Heading; got != want {
			t.Errorf("page %d heading %q, want %q", page, got, want)
		}
	}

	// The contents page and the index name "brake pads" with page
	// numbers, as body pages do; every body page found comes before them,
	// in every mode, and the quotes of the answer hold no furniture.
	for _, mode := range []retrieval.Mode{retrieval.Lexical, retrieval.Vector, retrieval.Hybrid} {
		r, err := retrieval.New(retrieval.Config{Store: e.store, Embedder: provider.NewLexicalEmbedder(), Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.Retrieve(ctx, "brake pads", docqa.Query{TopK: 11})
		if err != nil {
			t.Fatal(err)
		}
		var order []int
		for _, h := range got {
			order = append(order, h.Chunk.Page)
		}
		n := len(order)
		if n < 4 || order[0] != 5 || !(order[n-2] == 1 && order[n-1] == 11 || order[n-2] == 11 && order[n-1] == 1) {
			t.Errorf("%s: pages in the order %v: page 5 first, the contents (1) and the index (11) last", mode, order)
		}
		if mode != retrieval.Hybrid {
			continue
		}
		var answer strings.Builder
		if _, err := provider.NewExtractiveChat(nil).Stream(ctx, docqa.ChatRequest{Question: "brake pads", Sources: got},
			func(s string) error { answer.WriteString(s); return nil }); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(answer.String(), "p. 5: Brakes Brake pads wear with every stop") {
			t.Errorf("the quotes miss the answer: %q", answer.String())
		}
		for _, f := range []string{"Car Owner Manual", "Chapter 2", "squeals. 4", ". . ."} {
			if strings.Contains(answer.String(), f) {
				t.Errorf("the quotes hold furniture %q: %q", f, answer.String())
			}
		}
	}
	kept, err := retrieval.New(retrieval.Config{Store: e.store, Embedder: provider.NewLexicalEmbedder(), Mode: retrieval.Lexical, KeepNavigation: true})
	if err != nil {
		t.Fatal(err)
	}
	// Without the demotion the contents page comes before body pages
	// (so that the test above means something).
	got, err := kept.Retrieve(ctx, "brake pads", docqa.Query{TopK: 11})
	if err != nil || len(got) < 3 || !got[2].Chunk.Navigation {
		t.Errorf("without the demotion: %+v, %v", got, err)
	}
}

// extracted is an Extractor that answers one document, whatever the file.
type extracted pdftext.Document

func (d extracted) Extract(context.Context, io.ReaderAt, int64, func(pdftext.Stage, int, int)) (pdftext.Document, error) {
	return pdftext.Document(d), nil
}

// Each chunk of a page OCR read is stored with its lines: one rectangle per
// line of its text, from the boxes of the words of that line; a chunk of a
// text layer has none.
func TestOCRChunksKeepTheirLines(t *testing.T) {
	// 60 lines of 12 words: more than one chunk. Line L's words lie at
	// 100+40L px from the top, 30 px high, of a page of 2480 x 3508 px.
	var words []ocr.Word
	for l := range 60 {
		for k := range 12 {
			words = append(words, ocr.Word{Text: fmt.Sprintf("w%dx%d", l, k), Confidence: 95,
				Left: 100 + 150*k, Top: 100 + 40*l, Width: 120, Height: 30, Block: 1, Paragraph: 1, Line: l + 1})
		}
	}
	text, _ := ocr.Layout(words)
	doc := pdftext.Document{Pages: []pdftext.Page{
		{Number: 1, Text: "Chapter one of the manual.\nChange the engine oil every 15000 kilometres."},
		{Number: 2, Text: text, OCR: true, Words: words, OCRDPI: 300, OCRSize: image.Point{X: 2480, Y: 3508}},
	}, OCRPages: 1}
	e := newEnv(t, func(c *ingest.Config) { c.Extractor = extracted(doc) })
	res, err := e.ingestBytes(t, "scan.pdf", samplePDF("scan"), nil)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := e.store.DB().Query(`SELECT page, text, rects, ocr FROM chunks WHERE md5 = ? ORDER BY idx`, res.FileMD5)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	ocrChunks := 0
	for rows.Next() {
		var page int
		var text, rects string
		var isOCR bool
		if err := rows.Scan(&page, &text, &rects, &isOCR); err != nil {
			t.Fatal(err)
		}
		if page == 1 {
			if isOCR || rects != "" {
				t.Fatalf("text chunk: ocr %v, rects %q; want none", isOCR, rects)
			}
			continue
		}
		ocrChunks++
		var want [][4]int
		for _, line := range strings.Split(text, "\n") {
			var l, k0, k1 int
			fields := strings.Fields(line)
			fmt.Sscanf(fields[0], "w%dx%d", &l, &k0)
			fmt.Sscanf(fields[len(fields)-1], "w%dx%d", &l, &k1)
			left, top := math.Round(float64(100+150*k0)/2480*1e4), math.Round(float64(100+40*l)/3508*1e4)
			right, bottom := math.Round(float64(100+150*k1+120)/2480*1e4), math.Round(float64(100+40*l+30)/3508*1e4)
			want = append(want, [4]int{int(left), int(top), int(right - left), int(bottom - top)})
		}
		js, _ := json.Marshal(want)
		if !isOCR || rects != string(js) {
			t.Fatalf("OCR chunk %q: ocr %v, rects %s; want %s", text[:min(40, len(text))], isOCR, rects, js)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if ocrChunks < 2 {
		t.Fatalf("%d chunks of the OCR page, want more than one", ocrChunks)
	}
}
