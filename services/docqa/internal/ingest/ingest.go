// Package ingest turns PDF files into stored, embedded chunks: it receives an
// upload into a temporary file while hashing it, de-duplicates by MD5 before
// any embedding call, extracts the text per page, splits it, embeds the pieces
// in batches and writes them to the vector store. It also imports every PDF
// of the data directory the same way.
//
// At most Config.Concurrency documents are extracted and embedded at once,
// across every caller; a bounded number more wait in line (see Admit).
//
// Errors about the received file are *apperr.Error values naming the field
// "file"; everything else (pdftext's error classes, the store's and the
// embedder's errors, ErrBusy, context errors) is returned as it is, for the
// HTTP layer's one error map.
//
// With Config.Originals set, the bytes of every stored document are kept
// too (see Process and Delete).
package ingest

import (
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/pkg/tracing"
	"github.com/carhub/backend/services/docqa/internal/docqa"
	"github.com/carhub/backend/services/docqa/internal/furniture"
	"github.com/carhub/backend/services/docqa/internal/originals"
	"github.com/carhub/backend/services/docqa/internal/pdftext"
)

// MaxFileBytes is the largest file accepted (100 MB, as 100 MiB).
const MaxFileBytes = 100 << 20

// Stage names a step of an ingestion, as reported in progress events.
type Stage string

// The stages, in the order they are reported.
const (
	StageReceived  Stage = "received"
	StageQueued    Stage = "queued" // waiting for a slot; Current is the place in line (1 = next)
	StageParsing   Stage = "parsing"
	StageOCR       Stage = "ocr" // pages without a text layer read by OCR; Current/Total count those pages
	StageSplitting Stage = "splitting"
	StageEmbedding Stage = "embedding"
	StageStoring   Stage = "storing"
)

// Progress is one FileUploadProgress item. Percent covers the whole
// ingestion (0..100, never decreasing); Current and Total count the units of
// the stage (bytes, pages, chunks).
type Progress struct {
	Stage   Stage  `json:"stage"`
	Percent int    `json:"percent"`
	Current int64  `json:"current"`
	Total   int64  `json:"total"`
	Message string `json:"message"`
}

// Result is the FileUploadResponse: the stored document and whether it was
// already stored before this request.
type Result struct {
	docqa.Document
	Duplicate bool `json:"duplicate"`
	// OCRPages counts the pages this ingestion read by OCR, and
	// SkippedPages lists those that needed OCR and got no text from it.
	// Both describe the ingestion, not the stored document: a duplicate
	// and the document list leave them out.
	OCRPages     int                   `json:"ocrPages,omitempty"`
	SkippedPages []pdftext.SkippedPage `json:"skippedPages,omitempty"`
}

// Splitter cuts one page's text into chunk texts (internal/splitter).
type Splitter interface {
	Split(pageText string) []string
}

// Extractor reads the text of each page of a PDF (internal/pdftext's Engine).
// Its errors are pdftext's classes (ErrNotPDF, ErrCorrupt, ...).
type Extractor interface {
	Extract(ctx context.Context, r io.ReaderAt, size int64, progress func(stage pdftext.Stage, done, total int)) (pdftext.Document, error)
}

// Originals keeps the original bytes of ingested files (internal/originals'
// Dir). Calls for one MD5 are serialized by the pipeline's per-MD5 lock.
type Originals interface {
	// Keep stores the first size bytes of f, a complete file whose
	// SHA-256 is sum, as md5's original; keeping an original already kept
	// does nothing. An original of other bytes under md5 is left as it is
	// and answered with an error wrapping originals.ErrDifferentFile.
	Keep(md5 string, sum [sha256.Size]byte, f *os.File, size int64) error
	// Replace stores f as md5's original whatever is kept under md5.
	Replace(md5 string, f *os.File, size int64) error
	// Remove deletes md5's original; one not kept is no error.
	Remove(md5 string) error
}

// Defaults of Config.
const (
	DefaultConcurrency = 2
	DefaultQueueLength = 16
)

// Config wires a Pipeline.
type Config struct {
	Store     docqa.VectorStore
	Embedder  docqa.Embedder
	Splitter  Splitter
	Extractor Extractor
	// Concurrency is the most documents extracted and embedded at once in
	// the whole service (default DefaultConcurrency); QueueLength the most
	// admitted documents waiting beyond those (default DefaultQueueLength;
	// negative: none wait).
	Concurrency int
	QueueLength int
	// DataDir is the directory Import reads; nothing outside it is opened.
	DataDir string
	// TempDir holds uploads while they are processed ("" = os.TempDir()).
	// A directory of its own lets SweepTemp remove what a killed process
	// left there.
	TempDir string
	// Originals keeps each stored document's file (nil: none are kept).
	// With TempDir and its directory on one file system, keeping is a hard
	// link of the upload's temporary file: no byte is copied.
	Originals Originals
	// MaxBytes caps one file (default MaxFileBytes).
	MaxBytes int64
	// EmbedBatch is the number of texts per Embed call, which is also the
	// granularity of embedding progress (default 256; the provider splits
	// further into its own concurrent requests).
	EmbedBatch int
	Now        func() time.Time
	Log        *slog.Logger
	// Metrics, when set, receives the pipeline's metrics (documents, pages
	// and chunks ingested, extraction time, the queue).
	Metrics prometheus.Registerer
}

// Pipeline ingests files. It is safe for concurrent use.
type Pipeline struct {
	cfg Config
	// maxChunks is the most chunks stored of one document: docqa.MaxChunks
	// (the tests of this package set fewer, to reach it with a few pages).
	maxChunks int
	locks     keyLock
	queue     *queue
	metrics   *metrics
}

// New returns a Pipeline; Store, Embedder, Splitter and Extractor are required.
func New(cfg Config) (*Pipeline, error) {
	if cfg.Store == nil || cfg.Embedder == nil || cfg.Splitter == nil || cfg.Extractor == nil {
		return nil, errors.New("ingest: Store, Embedder, Splitter and Extractor are required")
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = DefaultConcurrency
	}
	switch {
	case cfg.QueueLength == 0:
		cfg.QueueLength = DefaultQueueLength
	case cfg.QueueLength < 0:
		cfg.QueueLength = 0
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = MaxFileBytes
	}
	if cfg.EmbedBatch <= 0 {
		cfg.EmbedBatch = 256
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	q := newQueue(cfg.Concurrency, cfg.QueueLength)
	return &Pipeline{cfg: cfg, maxChunks: docqa.MaxChunks, queue: q, metrics: newMetrics(cfg.Metrics, q)}, nil
}

// Admit reserves a place for one ingestion (or, for Import, one after the
// other): a slot at once or a place in line. It never blocks; past the
// queue's length it fails with ErrBusy. Reserve before reading an upload's
// body, and Release the ticket when the request is done.
func (p *Pipeline) Admit() (*Ticket, error) {
	t, err := p.queue.admit()
	if err != nil {
		p.metrics.refused.Inc()
	}
	return t, err
}

// tempPattern names upload files in TempDir.
const tempPattern = "docqa-upload-*.pdf"

// SweepTemp removes upload files that a process killed mid-upload left in
// TempDir (Close never ran for them) and returns how many it removed. Call
// it at start-up, before serving, and only when TempDir belongs to this
// service alone: another process's upload in progress would be removed too.
func (p *Pipeline) SweepTemp() (int, error) {
	if p.cfg.TempDir == "" {
		return 0, errors.New("ingest: SweepTemp needs a TempDir of the service's own, not the shared system one")
	}
	names, err := filepath.Glob(filepath.Join(p.cfg.TempDir, tempPattern))
	if err != nil {
		return 0, err
	}
	removed := 0
	for _, name := range names {
		if err := os.Remove(name); err != nil && !errors.Is(err, os.ErrNotExist) {
			return removed, fmt.Errorf("remove leftover upload: %w", err)
		}
		removed++
	}
	return removed, nil
}

// Upload is a received file held in a temporary file until Close.
type Upload struct {
	FileName string
	MD5      string
	// SHA256 is what the file's original is compared by: the MD5 names a
	// document (the contract's fileMd5) but two files may share one.
	SHA256 [sha256.Size]byte
	Size   int64
	file   *os.File
}

// Close removes the temporary file.
func (u *Upload) Close() error {
	name := u.file.Name()
	cerr := u.file.Close()
	if err := os.Remove(name); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return cerr
}

// Receive copies r into a temporary file while computing its MD5 and
// SHA-256, so the
// bytes are held once, on disk. It checks the size limit, emptiness and the
// %PDF- magic. The caller must Close the returned Upload.
func (p *Pipeline) Receive(r io.Reader, fileName string) (*Upload, error) {
	f, err := os.CreateTemp(p.cfg.TempDir, tempPattern)
	if err != nil {
		return nil, fmt.Errorf("create temporary file: %w", err)
	}
	up := &Upload{FileName: cleanName(fileName), file: f}
	ok := false
	defer func() {
		if !ok {
			_ = up.Close()
		}
	}()

	h, sh := md5.New(), sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h, sh), io.LimitReader(r, p.cfg.MaxBytes+1))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge) || n > p.cfg.MaxBytes:
		return nil, apperr.New(apperr.PayloadTooLarge, "file: larger than the limit of %s", sizeText(p.cfg.MaxBytes))
	case err != nil:
		return nil, apperr.InvalidCause(err, "file", "the upload could not be read to its end")
	case n == 0:
		return nil, apperr.Invalid("file", "is empty")
	}
	up.Size = n
	up.MD5 = hex.EncodeToString(h.Sum(nil))
	up.SHA256 = [sha256.Size]byte(sh.Sum(nil))

	magic := make([]byte, 5)
	if _, err := f.ReadAt(magic, 0); err != nil || string(magic) != "%PDF-" {
		return nil, apperr.Invalid("file", "is not a PDF (it does not start with %%PDF-)")
	}
	ok = true
	return up, nil
}

// sizeText writes a limit for people: "100 MB" (MiB, as the contract's
// 100 MB is meant), or bytes for small test limits.
func sizeText(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// cleanName keeps the base name a client sent, bounded, never empty.
func cleanName(name string) string {
	name = strings.TrimSpace(filepath.Base(strings.ReplaceAll(name, "\\", "/")))
	if name == "" || name == "." || name == "/" {
		return "document.pdf"
	}
	for len(name) > 255 {
		_, size := utf8.DecodeLastRuneInString(name)
		name = name[:len(name)-size]
	}
	return name
}

// Process ingests a received upload under t (from Admit). A file whose MD5
// is already stored answers the stored document with Duplicate set, without
// waiting for a slot or any embedding call. Otherwise it waits for a slot
// (reporting StageQueued with its place in line), then extracts, splits,
// embeds and stores. Concurrent calls for the same MD5 run one after the
// other, so the second one finds the first one's document. progress may be
// nil. The slot stays t's until t is released.
//
// With Config.Originals, the file is kept once it is embedded and just
// before the store write, and removed again when that write fails: a
// failed ingestion leaves no original behind, and a stored document has
// its original (a crash between the two leaves an original without a
// document, which is never served and is reused by the next upload). A
// duplicate keeps the file too when its original is missing, so uploading
// again repairs a document stored before originals were kept.
func (p *Pipeline) Process(ctx context.Context, t *Ticket, up *Upload, progress func(Progress)) (Result, error) {
	if progress == nil {
		progress = func(Progress) {}
	}
	progress(Progress{Stage: StageReceived, Percent: 5, Current: up.Size, Total: up.Size,
		Message: fmt.Sprintf("received %s (%d bytes)", up.FileName, up.Size)})

	unlock, err := p.locks.lock(ctx, up.MD5)
	if err != nil {
		return Result{}, err
	}
	defer unlock()

	// The document is docqa.Reader(ctx)'s; one that the owner can read
	// already (theirs, or the shared library's) is a duplicate.
	owner := docqa.Reader(ctx)
	stored, err := p.cfg.Store.Document(ctx, up.MD5)
	switch {
	case err == nil:
		if err := p.keep(ctx, up); err != nil {
			return Result{}, err
		}
		return Result{Document: stored, Duplicate: true}, nil
	case !errors.Is(err, docqa.ErrNotFound):
		return Result{}, err
	}

	err = t.wait(ctx, func(place int) {
		progress(Progress{Stage: StageQueued, Percent: 5, Current: int64(place), Total: int64(place),
			Message: fmt.Sprintf("queued: place %d in line", place)})
	})
	if err != nil {
		return Result{}, err
	}

	extractStart := time.Now()
	sctx, span := tracing.Start(ctx, "ingest.extract", trace.SpanKindInternal, attribute.Int64("docqa.document.size", up.Size))
	// Percent: parsing 5..30, then, when pages need OCR (which takes
	// seconds a page where parsing takes milliseconds), ocr 30..60 and
	// the rest of the stages start from 60 instead of 35.
	base := 35
	extracted, err := p.cfg.Extractor.Extract(sctx, up.file, up.Size, func(stage pdftext.Stage, done, total int) {
		if stage == pdftext.StageOCR {
			base = 60
			progress(Progress{Stage: StageOCR, Percent: 30 + scale(done, total, 30), Current: int64(done), Total: int64(total),
				Message: fmt.Sprintf("read page %d of %d by OCR", done, total)})
			return
		}
		progress(Progress{Stage: StageParsing, Percent: 5 + scale(done, total, 25), Current: int64(done), Total: int64(total),
			Message: fmt.Sprintf("extracted page %d of %d", done, total)})
	})
	span.SetAttributes(attribute.Int("docqa.document.pages", len(extracted.Pages)), attribute.Int("docqa.document.ocr_pages", extracted.OCRPages))
	span.End(&err)
	p.metrics.extraction.Observe(time.Since(extractStart).Seconds())
	if err != nil {
		return Result{}, err
	}
	pages := extracted.Pages

	_, span = tracing.Start(ctx, "ingest.split", trace.SpanKindInternal)
	chunks, truncated := p.split(pages)
	span.SetAttributes(attribute.Int("docqa.document.chunks", len(chunks)))
	span.End(nil)
	progress(Progress{Stage: StageSplitting, Percent: base, Current: int64(len(chunks)), Total: int64(len(chunks)),
		Message: fmt.Sprintf("split %d pages into %d chunks", len(pages), len(chunks))})
	if len(chunks) == 0 {
		return Result{}, apperr.Invalid("file", "the PDF has no text long enough to index")
	}
	for i := range chunks {
		chunks[i].ID = docqa.OwnedChunkID(owner, up.MD5, i)
	}

	doc := docqa.Document{
		FileName:  up.FileName,
		Title:     extracted.Title,
		FileMD5:   up.MD5,
		Size:      up.Size,
		Pages:     len(pages),
		Chunks:    len(chunks),
		Truncated: truncated,
		CreatedAt: p.cfg.Now().UTC(),
	}.Owned(owner)
	if err := p.embed(ctx, doc, chunks, base, progress); err != nil {
		return Result{}, err
	}
	progress(Progress{Stage: StageStoring, Percent: 90, Current: 0, Total: int64(len(chunks)),
		Message: fmt.Sprintf("storing %d chunks", len(chunks))})
	if err := p.store(ctx, up, doc, chunks); err != nil {
		return Result{}, err
	}
	progress(Progress{Stage: StageStoring, Percent: 100, Current: int64(len(chunks)), Total: int64(len(chunks)),
		Message: fmt.Sprintf("stored %d chunks", len(chunks))})
	p.metrics.documents.Inc()
	p.metrics.pages.Add(float64(doc.Pages))
	p.metrics.chunks.Add(float64(doc.Chunks))
	p.cfg.Log.InfoContext(ctx, "document ingested", "file", doc.FileName, "md5", doc.FileMD5,
		"size", doc.Size, "pages", doc.Pages, "chunks", doc.Chunks, "truncated", doc.Truncated,
		"ocr_pages", extracted.OCRPages, "skipped_pages", len(extracted.Skipped))
	return Result{Document: doc, OCRPages: extracted.OCRPages, SkippedPages: extracted.Skipped}, nil
}

// store keeps the original and writes the document with its chunks (the
// ingest.store span); the original goes again when the write fails.
func (p *Pipeline) store(ctx context.Context, up *Upload, doc docqa.Document, chunks []docqa.Chunk) (err error) {
	ctx, span := tracing.Start(ctx, "ingest.store", trace.SpanKindInternal, attribute.Int("docqa.document.chunks", len(chunks)))
	defer span.End(&err)
	if err := p.keep(ctx, up); err != nil {
		return err
	}
	if err := p.cfg.Store.Upsert(ctx, doc, chunks, p.cfg.Embedder.Name()); err != nil {
		p.forget(ctx, up.MD5)
		return err
	}
	return nil
}

// keep keeps up's file as its document's original, when originals are
// kept. Another file kept under the same MD5 is replaced only when no
// document uses it (a crash left it); while one does, the upload is refused
// with CONFLICT: the contract names a document by its MD5, so two files
// with one MD5 cannot both be stored, and neither may be served for the
// other. Called under up.MD5's lock.
func (p *Pipeline) keep(ctx context.Context, up *Upload) error {
	if p.cfg.Originals == nil {
		return nil
	}
	err := p.cfg.Originals.Keep(up.MD5, up.SHA256, up.file, up.Size)
	if errors.Is(err, originals.ErrDifferentFile) {
		var owners []uint64
		owners, err = p.cfg.Store.Owners(ctx, up.MD5)
		switch {
		case err == nil && len(owners) > 0:
			p.cfg.Log.WarnContext(ctx, "upload refused: another file with the same MD5 is stored", "md5", up.MD5, "sha256", hex.EncodeToString(up.SHA256[:]))
			return apperr.New(apperr.Conflict, "file: a different file with the same MD5 (%s) is already stored; "+
				"documents are named by their MD5, so this one cannot be stored beside it", up.MD5)
		case err == nil:
			err = p.cfg.Originals.Replace(up.MD5, up.file, up.Size)
		}
	}
	if err != nil {
		return fmt.Errorf("keep the original of %s: %w", up.MD5, err)
	}
	return nil
}

// forget removes the original of a document that was not stored after all,
// unless another owner's document of the same file uses it.
func (p *Pipeline) forget(ctx context.Context, md5 string) {
	if err := p.removeUnused(ctx, md5); err != nil {
		p.cfg.Log.ErrorContext(ctx, "remove the original of a document that was not stored", "md5", md5, "err", err)
	}
}

// removeUnused removes md5's original when no owner holds a document of
// it: the copies of one file share one original. Called under md5's lock.
func (p *Pipeline) removeUnused(ctx context.Context, md5 string) error {
	if p.cfg.Originals == nil {
		return nil
	}
	owners, err := p.cfg.Store.Owners(ctx, md5)
	if err != nil {
		return err
	}
	if len(owners) > 0 {
		return nil
	}
	return p.cfg.Originals.Remove(md5)
}

// Delete removes the document with that MD5 (lower-case hex) that the
// caller reads (their own copy before the shared one) from the store, and
// its kept original when no other owner's document uses it, under the MD5's
// lock, so it never interleaves with an ingestion of the same file. An
// error wrapping docqa.ErrNotFound answers an MD5 the caller cannot read
// (an original without any document is removed even then), one wrapping
// docqa.ErrForbidden a shared document and a caller who is no
// administrator.
func (p *Pipeline) Delete(ctx context.Context, md5 string) error {
	unlock, err := p.locks.lock(ctx, md5)
	if err != nil {
		return err
	}
	defer unlock()
	doc, err := p.cfg.Store.Document(ctx, md5)
	switch {
	case err == nil && !docqa.MayDelete(ctx, doc.Owner):
		return fmt.Errorf("document %s is in the shared library: only an administrator deletes it: %w", md5, docqa.ErrForbidden)
	case err == nil:
		err = p.cfg.Store.Delete(ctx, doc.Owner, md5)
	}
	if err != nil && !errors.Is(err, docqa.ErrNotFound) {
		return err
	}
	if rerr := p.removeUnused(ctx, md5); rerr != nil {
		return fmt.Errorf("remove the original of %s: %w", md5, rerr)
	}
	return err
}

// split cuts each page into chunks, keeping page numbers, at most
// docqa.MaxChunks (p.maxChunks) in all. The pages' furniture (running heads and feet,
// printed page numbers: internal/furniture) is left out of the chunks'
// text; a page's running heads (its chapter's, and the book's title where
// the page prints one) go before its outline headings in its chunks'
// heading, and the chunks of a table of contents or an index page
// are marked Navigation. truncated also says that the extractor cut a
// page's text at its budget: the document is then stored, but not whole.
func (p *Pipeline) split(pages []pdftext.Page) (chunks []docqa.Chunk, truncated bool) {
	in := make([]furniture.Page, len(pages))
	for i, page := range pages {
		in[i] = furniture.Page{Number: page.Number, Label: page.Label, Text: page.Text}
	}
	stripped := furniture.Strip(in)
	for i, page := range pages {
		truncated = truncated || page.Truncated
		heads := page.Headings
		for _, h := range []string{stripped[i].RunningHead, stripped[i].BookHead} {
			if h != "" && !slices.Contains(heads, h) {
				heads = append([]string{h}, heads...)
			}
		}
		heading := strings.Join(heads, " / ")
		texts := p.cfg.Splitter.Split(stripped[i].Text)
		// A scanned page's chunks keep their lines from OCR's word boxes
		// (the page's text layer cannot place them at answer time); a
		// chunk is found in the page's text, furniture left out around it.
		var rects [][]pdftext.Rect
		if page.OCR {
			rects = page.OCRRects(texts)
		}
		for k, text := range texts {
			if len(chunks) == p.maxChunks {
				return chunks, true
			}
			c := docqa.Chunk{Page: page.Number, PageLabel: page.Label, Index: len(chunks), Heading: heading,
				Text: text, OCR: page.OCR, Navigation: stripped[i].Navigation}
			if rects != nil {
				c.Rects = toRects(rects[k])
			}
			chunks = append(chunks, c)
		}
	}
	return chunks, truncated
}

// toRects turns pdftext's edges into docqa's rectangles; nil for none.
func toRects(rects []pdftext.Rect) []docqa.Rect {
	if len(rects) == 0 {
		return nil
	}
	out := make([]docqa.Rect, len(rects))
	for i, r := range rects {
		out[i] = docqa.Rect{X: r.Left, Y: r.Top, W: r.Right - r.Left, H: r.Bottom - r.Top}
	}
	return out
}

// embed fills every chunk's Embedding, one batch at a time. What is
// embedded is the chunk as retrieval.Passage shows it: its document's title
// and its heading before its text, so that a question naming the manual or
// the section finds it.
func (p *Pipeline) embed(ctx context.Context, doc docqa.Document, chunks []docqa.Chunk, base int, progress func(Progress)) (err error) {
	ctx, span := tracing.Start(ctx, "ingest.embed", trace.SpanKindInternal, attribute.Int("docqa.document.chunks", len(chunks)))
	defer span.End(&err)
	total := len(chunks)
	progress(Progress{Stage: StageEmbedding, Percent: base, Current: 0, Total: int64(total),
		Message: fmt.Sprintf("embedding %d chunks", total)})
	texts := make([]string, 0, p.cfg.EmbedBatch)
	for start := 0; start < total; start += p.cfg.EmbedBatch {
		end := min(start+p.cfg.EmbedBatch, total)
		texts = texts[:0]
		for _, c := range chunks[start:end] {
			texts = append(texts, docqa.ScoredChunk{Chunk: c, Document: doc}.Passage())
		}
		vectors, err := p.cfg.Embedder.Embed(ctx, texts)
		if err != nil {
			return err
		}
		if len(vectors) != len(texts) {
			return fmt.Errorf("embedder answered %d vectors for %d texts: %w", len(vectors), len(texts), docqa.ErrUnavailable)
		}
		for i, v := range vectors {
			if len(v) != docqa.Dimension {
				return fmt.Errorf("vector of %d floats: %w", len(v), docqa.ErrDimension)
			}
			chunks[start+i].Embedding = v
		}
		progress(Progress{Stage: StageEmbedding, Percent: base + scale(end, total, 90-base), Current: int64(end), Total: int64(total),
			Message: fmt.Sprintf("embedded %d of %d chunks", end, total)})
	}
	return nil
}

// scale maps done/total onto 0..span.
func scale(done, total, span int) int {
	if total <= 0 {
		return span
	}
	return min(done, total) * span / total
}
