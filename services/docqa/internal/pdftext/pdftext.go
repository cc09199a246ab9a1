// Package pdftext turns an uploaded PDF into the text of each of its pages.
//
// The text comes from PDFium, the PDF engine of Chromium, compiled to
// WebAssembly and run by wazero inside this process
// (github.com/klippa-app/go-pdfium/webassembly): no cgo, one static binary,
// and the engine ships inside the Go module, so nothing is downloaded at run
// time. PDFium reads what real producers write (ligatures, every stream
// filter, broken cross-reference tables it repairs, CJK fonts without a
// ToUnicode map through their predefined CMaps, /ActualText, rotated and
// fake-bold text) the way a viewer shows it.
//
// The engine compiles once, in the background (Start); each Extract borrows
// one engine instance for one document, on a fresh WebAssembly module whose
// memory is released when the document is done. The instance runs without
// any file system: the document is read through the caller's io.ReaderAt.
package pdftext

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/klippa-app/go-pdfium"
	pdfiumerrors "github.com/klippa-app/go-pdfium/errors"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// Page is the text of one page. Number is 1-based. Truncated says that the
// page's text went past a budget (Config) and only its first part is here.
type Page struct {
	Number    int
	Text      string
	Truncated bool
}

// Errors returned by Extract. Their messages are fit to show to the person
// who uploaded the file.
var (
	ErrNotPDF           = errors.New("file is not a PDF (it does not start with %PDF-)")
	ErrEmpty            = errors.New("file is empty")
	ErrCorrupt          = errors.New("PDF is corrupt or truncated and cannot be read")
	ErrPasswordRequired = errors.New("PDF needs a password to open; upload a copy without a user password")
	ErrNoText           = errors.New("PDF has no extractable text (scanned or image-only pages need OCR first)")
	// ErrClosed: the engine was closed.
	ErrClosed = errors.New("PDF engine is closed")
)

// Defaults of Config.
const (
	DefaultMaxPageChars     = 1 << 20  // a page of a manual has a few thousand
	DefaultMaxDocumentChars = 64 << 20 // far past what 10 000 chunks of 400 tokens can index
)

// Config configures the engine.
type Config struct {
	// Instances is how many documents may be read at once (default 1);
	// Extract waits for a free instance.
	Instances int
	// CacheDir keeps the engine's compiled machine code between starts
	// (wazero's compilation cache): a restart then takes about a tenth of
	// a second instead of several, and skips compilation's memory peak.
	// "" compiles at every start.
	CacheDir string
	// MaxPageChars and MaxDocumentChars bound the text kept (characters),
	// so that a hostile file cannot make the service hold gigabytes of
	// text. Text past them is cut, the page is marked Truncated and a
	// warning is logged. Zero takes the defaults.
	MaxPageChars     int
	MaxDocumentChars int
	Log              *slog.Logger
}

// Engine reads PDFs. It is safe for concurrent use.
type Engine struct {
	cfg   Config
	ready chan struct{} // closed once start has finished, well or not
	err   error         // start's error, set before ready is closed
	pool  pdfium.Pool

	closeOnce sync.Once
	closed    chan struct{}
}

// maxMemoryPages bounds one instance's WebAssembly memory (64 KiB pages):
// a 100 MB text-heavy PDF needs about 130 MiB.
const maxMemoryPages = 1 << 14

// Start begins compiling the engine in the background and returns at once.
func Start(cfg Config) *Engine {
	if cfg.Instances < 1 {
		cfg.Instances = 1
	}
	if cfg.MaxPageChars <= 0 {
		cfg.MaxPageChars = DefaultMaxPageChars
	}
	if cfg.MaxDocumentChars <= 0 {
		cfg.MaxDocumentChars = DefaultMaxDocumentChars
	}

	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	e := &Engine{cfg: cfg, ready: make(chan struct{}), closed: make(chan struct{})}
	go e.start()
	return e
}

func (e *Engine) start() {
	defer close(e.ready)
	defer func() {
		if p := recover(); p != nil {
			e.err = fmt.Errorf("PDF engine: start: %v", p)
		}
	}()
	rc := wazero.NewRuntimeConfig().
		// The bundled module lowers setjmp/longjmp to exception handling.
		WithCoreFeatures(api.CoreFeaturesV2 | experimental.CoreFeaturesExceptionHandling).
		// A document may grow its instance's memory to 1 GiB at most;
		// past that PDFium fails on it (ErrCorrupt) instead of the
		// service running out of memory.
		WithMemoryLimitPages(maxMemoryPages)
	if e.cfg.CacheDir != "" {
		cache, err := wazero.NewCompilationCacheWithDir(e.cfg.CacheDir)
		if err != nil {
			e.err = fmt.Errorf("PDF engine: compilation cache %s: %w", e.cfg.CacheDir, err)
			return
		}
		rc = rc.WithCompilationCache(cache)
	}
	pool, err := webassembly.Init(webassembly.Config{
		// Each instance's memory is mapped outside the Go heap
		// (memory_unix.go) and returned when the document is done.
		Context:       experimental.WithMemoryAllocator(context.Background(), experimental.MemoryAllocatorFunc(allocateMemory)),
		MinIdle:       0,
		MaxIdle:       e.cfg.Instances,
		MaxTotal:      e.cfg.Instances,
		RuntimeConfig: rc,
		// No directory is mounted: the engine reads documents only
		// through the reader Extract hands it.
		FSConfig: wazero.NewFSConfig(),
		Stdout:   io.Discard,
		Stderr:   io.Discard,
		// A new module per document (ReuseWorkers false): its memory,
		// which WebAssembly can only grow, goes away with the document.
		ReuseWorkers: false,
	})
	if err != nil {
		e.err = fmt.Errorf("PDF engine: %w", err)
		return
	}
	// One instance proves the module instantiates and initialises.
	inst, err := pool.GetInstanceWithContext(context.Background())
	if err != nil {
		_ = pool.Close()
		e.err = fmt.Errorf("PDF engine: first instance: %w", err)
		return
	}
	_ = inst.Close()
	e.pool = pool
	// Compiling leaves some 300 MB of garbage on the Go heap; without a
	// collection now, the heap's next target is set from it and the first
	// documents add their memory on top (measured: peak RSS of a first
	// 100 MB upload 622 MiB instead of about 250). Once, at start-up.
	runtime.GC()
	debug.FreeOSMemory()
}

// Wait blocks until the engine is ready (nil), failed to start (its
// error), or ctx ends (ctx's error).
func (e *Engine) Wait(ctx context.Context) error {
	select {
	case <-e.ready:
		return e.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Ready reports, without blocking, whether the engine is ready, and its
// start error if it failed.
func (e *Engine) Ready() (bool, error) {
	select {
	case <-e.ready:
		return e.err == nil, e.err
	default:
		return false, nil
	}
}

// Close stops the engine once running extractions have given their
// instances back; later Extract calls fail with ErrClosed.
func (e *Engine) Close() error {
	var err error
	e.closeOnce.Do(func() {
		close(e.closed)
		<-e.ready
		if e.pool != nil {
			err = e.pool.Close()
		}
	})
	return err
}

// Extract waits for the engine (bounded by ctx) and a free instance, then
// returns the text of every page, in order. progress (may be nil) is called
// after each page with (done, total). ctx is checked between pages: a page
// that has begun runs to its end (see the package's decisions: stopping
// PDFium inside a page costs more than half its speed). Errors: ErrEmpty,
// ErrNotPDF, ErrPasswordRequired, ErrCorrupt, ErrNoText, ErrClosed, or
// ctx's error.
func (e *Engine) Extract(ctx context.Context, r io.ReaderAt, size int64, progress func(done, total int)) ([]Page, error) {
	if size <= 0 {
		return nil, ErrEmpty
	}
	head := make([]byte, 5)
	if n, _ := r.ReadAt(head, 0); n < 5 || !bytes.Equal(head, []byte("%PDF-")) {
		return nil, ErrNotPDF
	}
	if err := e.Wait(ctx); err != nil {
		return nil, err
	}
	select {
	case <-e.closed:
		return nil, ErrClosed
	default:
	}
	inst, err := e.pool.GetInstanceWithContext(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("PDF engine: %w", err)
	}

	pages, err := e.extract(ctx, inst, r, size, progress)
	_ = inst.Close() // its module, and the memory the document took, go
	return pages, err
}

// extract reads the document on inst. PDFium's own errors and any panic in
// the binding become the package's error classes.
func (e *Engine) extract(ctx context.Context, inst pdfium.Pdfium, r io.ReaderAt, size int64, progress func(done, total int)) (pages []Page, err error) {
	defer func() {
		if p := recover(); p != nil {
			pages, err = nil, fmt.Errorf("%w: the PDF engine failed on it (%v)", ErrCorrupt, p)
		}
		if err != nil && ctx.Err() != nil {
			pages, err = nil, ctx.Err()
		}
	}()
	doc, err := inst.OpenDocument(&requests.OpenDocument{
		FileReader:     io.NewSectionReader(r, 0, size),
		FileReaderSize: size,
	})
	switch {
	case errors.Is(err, pdfiumerrors.ErrPassword):
		return nil, ErrPasswordRequired
	case errors.Is(err, pdfiumerrors.ErrSecurity):
		return nil, fmt.Errorf("%w: its encryption is not supported (%v)", ErrCorrupt, err)
	case err != nil:
		return nil, fmt.Errorf("%w (%v)", ErrCorrupt, err)
	}
	defer func() {
		_, _ = inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: doc.Document})
	}()
	count, err := inst.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: doc.Document})
	if err != nil {
		return nil, fmt.Errorf("%w (%v)", ErrCorrupt, err)
	}
	if count.PageCount <= 0 {
		return nil, fmt.Errorf("%w: it has no pages", ErrCorrupt)
	}

	total := count.PageCount
	pages = make([]Page, 0, total)
	budget := e.cfg.MaxDocumentChars
	anyText, cut := false, 0
	for i := range total {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		page := Page{Number: i + 1}
		if budget > 0 {
			text, cut, err := pageText(inst, doc.Document, i, min(budget, e.cfg.MaxPageChars))
			if err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				// One unreadable page does not lose the others; the
				// log says which.
				e.cfg.Log.WarnContext(ctx, "PDF page could not be read", "page", i+1, "err", err)
			}
			page.Text, page.Truncated = text, cut
			budget -= len([]rune(text))
		} else {
			page.Truncated = true
		}
		if page.Truncated {
			cut++
		}
		anyText = anyText || strings.TrimSpace(page.Text) != ""
		pages = append(pages, page)
		if progress != nil {
			progress(i+1, total)
		}
	}
	if !anyText {
		return nil, ErrNoText
	}
	if cut > 0 {
		e.cfg.Log.WarnContext(ctx, "PDF text cut at the extraction budget; the document is stored as truncated",
			"pages_cut", cut, "max_page_chars", e.cfg.MaxPageChars, "max_document_chars", e.cfg.MaxDocumentChars)
	}
	return pages, nil
}

// pageText returns the text of page index, at most limit characters, and
// whether it was cut there. PDFium's text page puts the characters in
// reading order, with the spaces and line ends a viewer would show.
func pageText(inst pdfium.Pdfium, doc references.FPDF_DOCUMENT, index, limit int) (string, bool, error) {
	tp, err := inst.FPDFText_LoadPage(&requests.FPDFText_LoadPage{
		Page: requests.Page{ByIndex: &requests.PageByIndex{Document: doc, Index: index}},
	})
	if err != nil {
		return "", false, err
	}
	defer func() { _, _ = inst.FPDFText_ClosePage(&requests.FPDFText_ClosePage{TextPage: tp.TextPage}) }()
	n, err := inst.FPDFText_CountChars(&requests.FPDFText_CountChars{TextPage: tp.TextPage})
	if err != nil || n.Count <= 0 {
		return "", false, err
	}
	count, cut := n.Count, false
	if count > limit {
		count, cut = limit, true
	}
	text, err := inst.FPDFText_GetText(&requests.FPDFText_GetText{TextPage: tp.TextPage, StartIndex: 0, Count: count})
	if err != nil {
		return "", false, err
	}
	return clean(text.Text), cut, nil
}

// clean turns PDFium's text into plain text: "\r\n" line ends become "\n";
// the mark PDFium leaves where it joined a word hyphenated at a line end
// (U+FFFE, in place of the hyphen and the line break) is dropped, so that
// "po-/tential" reads "potential", as pdftotext writes it; other control
// and non-characters are dropped too (tabs stay).
func clean(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == '\r':
			if strings.HasPrefix(s[i:], "\n") {
				i++
			}
			b.WriteByte('\n')
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case unicode.IsControl(r), r == 0xFFFE, r == 0xFFFF, r == 0xFEFF:
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
