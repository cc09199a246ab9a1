// Package pdftext turns an uploaded PDF into the text of each of its pages,
// with the document's title and each page's headings from its outline.
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
//
// With a Recognizer (Config.OCR), a page without a text layer worth the
// name (NeedsOCR) that holds something to read (an image over a good part
// of it, or text drawn as outlines: readContent) is rendered at OCRDPI and
// read by OCR, after the text of every page is read: a scanned manual is
// read, and a document of text and scanned pages gets both. A page with
// nothing on it is reported blank without being drawn.
package pdftext

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"log/slog"
	"runtime"
	"runtime/debug"
	"slices"
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

	"github.com/carhub/backend/services/docqa/internal/ocr"
)

// Document is what Extract reads from a PDF.
type Document struct {
	// Title is the Title of the document information dictionary on one
	// line, at most 300 characters, when it is one (isTitle: not a file
	// name or a producer's placeholder); else the first page's most
	// prominent line (coverTitle); else "", and the caller picks a
	// fallback.
	Title string
	Pages []Page
	// OCRPages counts the pages whose text OCR read.
	OCRPages int
	// Skipped are the pages that needed OCR and got no text from it, in
	// page order: each is logged too, and reported to the uploader.
	Skipped []SkippedPage
}

// SkippedPage is a page that needed OCR and got no text from it.
type SkippedPage struct {
	Page   int        `json:"page"`
	Reason SkipReason `json:"reason"`
}

// SkipReason says why a page was skipped.
type SkipReason string

// The reasons of SkippedPage.
const (
	// SkipOCRTimeout: OCR ran past its time budget for the page.
	SkipOCRTimeout SkipReason = "ocr_timeout"
	// SkipUnreadable: OCR read the page with a mean confidence below its
	// floor: noise, a photograph, a script of a language not installed.
	SkipUnreadable SkipReason = "unreadable"
	// SkipOCRFailed: the page could not be rendered or the OCR command
	// failed on it (the log says how).
	SkipOCRFailed SkipReason = "ocr_failed"
	// SkipBlank: no word on the page and no text layer: a page with
	// nothing on it, or only a drawing or a small picture (not read by
	// OCR: readContent), a scanned sheet without ink (inkless), or one
	// OCR read no word on (noise it does not take for writing).
	SkipBlank SkipReason = "blank"
)

// Page is the text of one page. Number is 1-based. Truncated says that the
// page's text went past a budget (Config) and only its first part is here.
type Page struct {
	Number    int
	Text      string
	Truncated bool
	// Headings are titles of the document's outline (bookmarks): the
	// entry in force at the top of the page, then those that point into
	// it, in outline order; at most 8, of at most 200 characters each.
	// nil when none applies or the document has no outline.
	Headings []string
	// Label is the page's printed label from the document's /PageLabels
	// ("iii", "3-12"), "" when the document has none.
	Label string
	// OCR says that Text was read by OCR from the page's image.
	OCR bool
	// Words are the words OCR kept, with their boxes in the pixels of
	// the page rendered at OCRDPI (origin top left), OCRSize pixels in
	// all; nil without OCR. They live with the extraction only: what is
	// stored is each chunk's lines (OCRRects).
	Words   []ocr.Word
	OCRDPI  int
	OCRSize image.Point
}

// Errors returned by Extract. Their messages are fit to show to the person
// who uploaded the file.
var (
	ErrNotPDF           = errors.New("file is not a PDF (it does not start with %PDF-)")
	ErrEmpty            = errors.New("file is empty")
	ErrCorrupt          = errors.New("PDF is corrupt or truncated and cannot be read")
	ErrPasswordRequired = errors.New("PDF needs a password to open; upload a copy without a user password")
	ErrNoText           = errors.New("PDF has no extractable text (scanned or image-only pages need OCR first)")
	// ErrOCRMissing: the PDF has no text and no Recognizer is configured
	// because OCR is not installed (Config.OCRMissing). It wraps ErrNoText.
	ErrOCRMissing = fmt.Errorf("%w, and OCR (tesseract) is not installed on this server", ErrNoText)
	// ErrOCRNoText: the PDF has no text layer and OCR read no text on any
	// page (Document.Skipped says why, page by page). It wraps ErrNoText.
	ErrOCRNoText = fmt.Errorf("%w: OCR read no text on its scanned pages", ErrNoText)
	// ErrClosed: the engine was closed.
	ErrClosed = errors.New("PDF engine is closed")
)

// Defaults of Config.
const (
	DefaultMaxPageChars     = 1 << 20  // a page of a manual has a few thousand
	DefaultMaxDocumentChars = 64 << 20 // far past what 10 000 chunks of 400 tokens can index
	// OCRDPI is the resolution a page is rendered at for OCR: Tesseract
	// reads best with capital letters of 20 to 30 pixels, which 10 to 12
	// point text has at 300 dpi.
	OCRDPI = 300
	// maxOCRPixels bounds a rendered page (8-bit gray): an A3 page at
	// 300 dpi has 17.4 million; a larger page is rendered at the dpi that
	// fits, so that a hostile page size cannot ask for gigabytes.
	maxOCRPixels = 36_000_000
)

// Recognizer reads the text of a page image (internal/ocr's Engine).
// Errors: ocr.ErrTimeout, ocr.ErrUnreadable, ctx's error, or a failure of
// the OCR itself.
type Recognizer interface {
	Recognize(ctx context.Context, img *image.Gray, dpi int) (ocr.Page, error)
}

// Stage is the part of an extraction a progress call reports.
type Stage string

// The stages, in order: every page's text, then OCR of the pages that need
// it (none when no page does).
const (
	StageText Stage = "text"
	StageOCR  Stage = "ocr"
)

// Config configures the engine.
type Config struct {
	// Instances is how many documents may be read at once (default 1);
	// Extract waits for a free instance.
	Instances int
	// PageInstances is how many single pages (Render, PageLabel, Locate)
	// may be worked on at once (default 1), on instances of their own.
	PageInstances int
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
	// OCR reads the pages that NeedsOCR says have no text layer; nil
	// reads none. OCRMissing says why there is none: OCR is wanted but
	// not installed, so a PDF without text fails with ErrOCRMissing.
	OCR        Recognizer
	OCRMissing bool
	Log        *slog.Logger
}

// Engine reads PDFs. It is safe for concurrent use.
type Engine struct {
	cfg   Config
	ready chan struct{} // closed once start has finished, well or not
	err   error         // start's error, set before ready is closed
	pool  pdfium.Pool
	// extractSlots and pageSlots share the pool's instances out:
	// Config.Instances to Extract, Config.PageInstances to the page
	// methods (pages.go).
	extractSlots chan struct{}
	pageSlots    chan struct{}

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
	if cfg.PageInstances < 1 {
		cfg.PageInstances = 1
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
	e := &Engine{cfg: cfg, ready: make(chan struct{}), closed: make(chan struct{}),
		extractSlots: make(chan struct{}, cfg.Instances), pageSlots: make(chan struct{}, cfg.PageInstances)}
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
	unlockCompile := func() {}
	defer func() { unlockCompile() }()
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
		// One compilation at a time on a cache: whoever waits loads what
		// the first wrote. Without the lock, each compiles on its own.
		if unlock, err := lockCompile(e.cfg.CacheDir); err == nil {
			unlockCompile = unlock
		} else {
			e.cfg.Log.Warn("PDF engine: compilation cache not locked; compiling without waiting for others", "dir", e.cfg.CacheDir, "err", err)
		}
	}
	pool, err := webassembly.Init(webassembly.Config{
		// Each instance's memory is mapped outside the Go heap
		// (memory_unix.go) and returned when the document is done.
		Context:       experimental.WithMemoryAllocator(context.Background(), experimental.MemoryAllocatorFunc(allocateMemory)),
		MinIdle:       0,
		MaxIdle:       e.cfg.Instances + e.cfg.PageInstances,
		MaxTotal:      e.cfg.Instances + e.cfg.PageInstances,
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
	unlockCompile()
	unlockCompile = func() {}
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
// returns the document's title and the text and headings of every page, in
// order. A title or an outline that cannot be read is logged and left out;
// it never fails the extraction. progress (may be nil) is called after each
// page's text with (StageText, done, total), then, when pages need OCR,
// after each of them with (StageOCR, done, total of those pages). ctx is
// checked between pages: a page that has begun runs to its end (see the
// package's decisions: stopping PDFium inside a page costs more than half
// its speed), except its OCR process, which is killed. Errors: ErrEmpty,
// ErrNotPDF, ErrPasswordRequired, ErrCorrupt, ErrNoText (ErrOCRMissing,
// ErrOCRNoText), ErrClosed, or ctx's error.
func (e *Engine) Extract(ctx context.Context, r io.ReaderAt, size int64, progress func(stage Stage, done, total int)) (Document, error) {
	if size <= 0 {
		return Document{}, ErrEmpty
	}
	head := make([]byte, 5)
	if n, _ := r.ReadAt(head, 0); n < 5 || !bytes.Equal(head, []byte("%PDF-")) {
		return Document{}, ErrNotPDF
	}
	if err := e.Wait(ctx); err != nil {
		return Document{}, err
	}
	select {
	case <-e.closed:
		return Document{}, ErrClosed
	default:
	}
	select {
	case e.extractSlots <- struct{}{}:
	case <-e.closed:
		return Document{}, ErrClosed
	case <-ctx.Done():
		return Document{}, ctx.Err()
	}
	defer func() { <-e.extractSlots }()
	inst, err := e.pool.GetInstanceWithContext(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return Document{}, ctx.Err()
		}
		return Document{}, fmt.Errorf("PDF engine: %w", err)
	}

	d, err := e.extract(ctx, inst, r, size, progress)
	_ = inst.Close() // its module, and the memory the document took, go
	return d, err
}

// extract reads the document on inst. PDFium's own errors and any panic in
// the binding become the package's error classes.
func (e *Engine) extract(ctx context.Context, inst pdfium.Pdfium, r io.ReaderAt, size int64, progress func(stage Stage, done, total int)) (d Document, err error) {
	defer func() {
		if p := recover(); p != nil {
			d, err = Document{}, fmt.Errorf("%w: the PDF engine failed on it (%v)", ErrCorrupt, p)
		}
		if err != nil && ctx.Err() != nil {
			d, err = Document{}, ctx.Err()
		}
	}()
	doc, err := inst.OpenDocument(&requests.OpenDocument{
		FileReader:     io.NewSectionReader(r, 0, size),
		FileReaderSize: size,
	})
	switch {
	case errors.Is(err, pdfiumerrors.ErrPassword):
		return Document{}, ErrPasswordRequired
	case errors.Is(err, pdfiumerrors.ErrSecurity):
		return Document{}, fmt.Errorf("%w: its encryption is not supported (%v)", ErrCorrupt, err)
	case err != nil:
		return Document{}, fmt.Errorf("%w (%v)", ErrCorrupt, err)
	}
	defer func() {
		_, _ = inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: doc.Document})
	}()
	count, err := inst.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: doc.Document})
	if err != nil {
		return Document{}, fmt.Errorf("%w (%v)", ErrCorrupt, err)
	}
	if count.PageCount <= 0 {
		return Document{}, fmt.Errorf("%w: it has no pages", ErrCorrupt)
	}

	total := count.PageCount
	title, headings := e.titleAndHeadings(ctx, inst, doc.Document, total)
	pages := make([]Page, 0, total)
	budget := e.cfg.MaxDocumentChars
	cut := 0
	var scanned []int // indexes of the pages that need OCR
	// Numbers of the pages with neither text nor anything OCR could read
	// (readContent): reported blank, as OCR would, without drawing them.
	var blank []int
	for i := range total {
		if err := ctx.Err(); err != nil {
			return Document{}, err
		}
		page := Page{Number: i + 1, Label: pageLabel(inst, doc.Document, i)}
		if headings != nil {
			page.Headings = headings[i]
		}
		if budget > 0 {
			text, cut, cover, err := pageText(inst, doc.Document, i, min(budget, e.cfg.MaxPageChars), i == 0 && title == "")
			if err != nil {
				if ctx.Err() != nil {
					return Document{}, ctx.Err()
				}
				// One unreadable page does not lose the others; the
				// log says which.
				e.cfg.Log.WarnContext(ctx, "PDF page could not be read", "page", i+1, "err", err)
			}
			page.Text, page.Truncated = text, cut
			if i == 0 && title == "" {
				title = cover
			}
			budget -= len([]rune(text))
		} else {
			page.Truncated = true
		}
		if page.Truncated {
			cut++
		}
		if e.cfg.OCR != nil && budget > 0 && NeedsOCR(page.Text) {
			switch {
			case readContent(inst, doc.Document, i).readable():
				scanned = append(scanned, i)
			case countNonSpace(page.Text) == 0:
				blank = append(blank, i+1)
			}
		}
		pages = append(pages, page)
		if progress != nil {
			progress(StageText, i+1, total)
		}
	}
	d = Document{Title: title, Pages: pages}
	if err := e.recognize(ctx, inst, doc.Document, &d, scanned, &budget, progress); err != nil {
		return Document{}, err
	}
	if len(blank) > 0 {
		e.cfg.Log.InfoContext(ctx, "PDF pages with no text and nothing OCR could read reported blank, not drawn", "pages", blank)
		for _, n := range blank {
			d.Skipped = append(d.Skipped, SkippedPage{Page: n, Reason: SkipBlank})
		}
		slices.SortFunc(d.Skipped, func(a, b SkippedPage) int { return cmp.Compare(a.Page, b.Page) })
	}
	if !slices.ContainsFunc(pages, func(p Page) bool { return strings.TrimSpace(p.Text) != "" }) {
		switch {
		case len(scanned) > 0 || len(blank) > 0:
			e.cfg.Log.WarnContext(ctx, "PDF has no text layer and OCR read no text on it", "pages", total, "skipped", d.Skipped)
			return Document{}, ErrOCRNoText
		case e.cfg.OCRMissing:
			return Document{}, ErrOCRMissing
		}
		return Document{}, ErrNoText
	}
	if cut > 0 {
		e.cfg.Log.WarnContext(ctx, "PDF text cut at the extraction budget; the document is stored as truncated",
			"pages_cut", cut, "max_page_chars", e.cfg.MaxPageChars, "max_document_chars", e.cfg.MaxDocumentChars)
	}
	return d, nil
}

// pageText returns the text of page index, at most limit characters of
// PDFium's, and whether it was cut there; with withTitle, also the page's
// most prominent line (coverTitle), read from the same text page, as
// loading a page is the costly part of reading it. PDFium's text page puts
// the characters in reading order, with the spaces and line ends a viewer
// would show; buildText puts accents drawn apart back on their letters and
// adds the word spaces PDFium misses.
func pageText(inst pdfium.Pdfium, doc references.FPDF_DOCUMENT, index, limit int, withTitle bool) (text string, cut bool, title string, err error) {
	tp, err := inst.FPDFText_LoadPage(&requests.FPDFText_LoadPage{
		Page: requests.Page{ByIndex: &requests.PageByIndex{Document: doc, Index: index}},
	})
	if err != nil {
		return "", false, "", err
	}
	defer func() { _, _ = inst.FPDFText_ClosePage(&requests.FPDFText_ClosePage{TextPage: tp.TextPage}) }()
	n, err := inst.FPDFText_CountChars(&requests.FPDFText_CountChars{TextPage: tp.TextPage})
	if err != nil || n.Count <= 0 {
		return "", false, "", err
	}
	count := n.Count
	if count > limit {
		count, cut = limit, true
	}
	gs, measured, err := readGlyphs(inst, tp.TextPage, count)
	if err != nil {
		return "", false, "", err
	}
	text, at := buildText(gs, measured)
	if withTitle {
		title = coverTitle(inst, tp.TextPage, gs, text, at)
	}
	return text, cut, title, nil
}

// Bounds of what the title and the outline may add to a document.
const (
	maxTitleChars   = 300
	maxHeadingChars = 200
	maxPageHeadings = 8
	// The outline walk stops there: a hostile or cyclic outline (entries
	// that are each other's next sibling, or their own descendants; PDFium
	// leaves such loops to its caller) ends at a bound instead of never.
	maxOutlineEntries = 20_000
	maxOutlineDepth   = 32
	// PDFium hands over an entry's whole title, however long, and many
	// entries may share one title object: without this bound on the title
	// text read, an 8 MB file of two looping entries sharing an 8 MB title
	// kept an instance busy for over 20 s (measured). A real outline of
	// 20 000 entries reads about 1 MB.
	maxOutlineTitleBytes = 4 << 20
)

// errNoInfo is the message of go-pdfium's FPDF_GetMetaText when PDFium
// answers 0 bytes, which it does when the file has no document information
// dictionary: a file without a title, not a failure. The binding has no
// sentinel for it.
const errNoInfo = "Could not get metadata"

// titleAndHeadings reads the document's title and, for each of its count
// pages, its headings (nil: none for any page). Neither is needed to index
// the text, so a failure here is logged and the document read without
// what could not be read.
func (e *Engine) titleAndHeadings(ctx context.Context, inst pdfium.Pdfium, doc references.FPDF_DOCUMENT, count int) (title string, headings [][]string) {
	defer func() {
		if p := recover(); p != nil {
			e.cfg.Log.WarnContext(ctx, "PDF title or outline could not be read", "err", p)
		}
	}()
	meta, err := inst.FPDF_GetMetaText(&requests.FPDF_GetMetaText{Document: doc, Tag: "Title"})
	switch {
	case err == nil:
		title = oneLine(meta.Value, maxTitleChars)
	case err.Error() != errNoInfo:
		e.cfg.Log.WarnContext(ctx, "PDF title could not be read", "err", err)
	}
	if !isTitle(title) {
		title = "" // extract looks for one on the first page
	}

	w := outlineWalk{ctx: ctx, inst: inst, doc: doc, pages: count}
	err = w.children(nil, 1)
	switch {
	case ctx.Err() != nil:
		// Extract returns ctx's error before the first page.
		return title, nil
	case err != nil:
		e.cfg.Log.WarnContext(ctx, "PDF outline could not be read whole; its first entries are kept",
			"entries", len(w.entries), "err", err)
	case w.cut:
		e.cfg.Log.WarnContext(ctx, "PDF outline cut at its bounds (a loop in it, or a hostile file)",
			"entries", w.visited, "title_bytes", w.titleBytes, "max_entries", maxOutlineEntries,
			"max_depth", maxOutlineDepth, "max_title_bytes", maxOutlineTitleBytes)
	}
	return title, pageHeadings(w.entries, count)
}

// outlineEntry is an outline entry that points into the document: its
// title and the 0-based index of its page.
type outlineEntry struct {
	title string
	page  int
}

// outlineWalk reads the outline tree depth first, in document order,
// within maxOutlineEntries, maxOutlineDepth and maxOutlineTitleBytes.
type outlineWalk struct {
	ctx        context.Context
	inst       pdfium.Pdfium
	doc        references.FPDF_DOCUMENT
	pages      int
	visited    int
	titleBytes int
	cut        bool // a bound was reached
	entries    []outlineEntry
}

// children reads the entries under parent (nil: the outline's top level),
// which sit at depth, and everything beneath them.
func (w *outlineWalk) children(parent *references.FPDF_BOOKMARK, depth int) error {
	first, err := w.inst.FPDFBookmark_GetFirstChild(&requests.FPDFBookmark_GetFirstChild{Document: w.doc, Bookmark: parent})
	if err != nil {
		return err
	}
	if first.Bookmark != nil && depth > maxOutlineDepth {
		w.cut = true
		return nil
	}
	for b := first.Bookmark; b != nil; {
		if w.visited == maxOutlineEntries || w.titleBytes > maxOutlineTitleBytes {
			w.cut = true
			return nil
		}
		if err := w.ctx.Err(); err != nil {
			return err
		}
		w.visited++
		if err := w.entry(*b); err != nil {
			return err
		}
		if err := w.children(b, depth+1); err != nil {
			return err
		}
		next, err := w.inst.FPDFBookmark_GetNextSibling(&requests.FPDFBookmark_GetNextSibling{Document: w.doc, Bookmark: *b})
		if err != nil {
			return err
		}
		b = next.Bookmark
	}
	return nil
}

// entry keeps b if it has a title and a page of this document.
func (w *outlineWalk) entry(b references.FPDF_BOOKMARK) error {
	t, err := w.inst.FPDFBookmark_GetTitle(&requests.FPDFBookmark_GetTitle{Bookmark: b})
	if err != nil {
		return err
	}
	w.titleBytes += len(t.Title)
	title := oneLine(t.Title, maxHeadingChars)
	if title == "" {
		return nil
	}
	page, err := w.page(b)
	if err != nil || page < 0 || page >= w.pages {
		return err
	}
	w.entries = append(w.entries, outlineEntry{title: title, page: page})
	return nil
}

// page returns the 0-based page index b points at, -1 for none. PDFium's
// FPDFBookmark_GetDest reads the entry's /Dest and, when it has none, the
// destination of its GoTo action (/A), which is how many producers write
// outline entries; other actions (URI, other files) give none.
func (w *outlineWalk) page(b references.FPDF_BOOKMARK) (int, error) {
	d, err := w.inst.FPDFBookmark_GetDest(&requests.FPDFBookmark_GetDest{Document: w.doc, Bookmark: b})
	if err != nil || d.Dest == nil {
		return -1, err
	}
	idx, err := w.inst.FPDFDest_GetDestPageIndex(&requests.FPDFDest_GetDestPageIndex{Document: w.doc, Dest: *d.Dest})
	if err != nil {
		return -1, err
	}
	return idx.Index, nil
}

// pageHeadings gives each of count pages its headings: the title of the
// entry in force at the top of the page (the last, in outline order, of
// the entries pointing at the nearest page before it that has any), then
// the titles of the entries pointing at the page, in outline order. A title
// equal to the one before it is dropped; at most maxPageHeadings a page.
// nil when there are no entries.
func pageHeadings(entries []outlineEntry, count int) [][]string {
	if len(entries) == 0 {
		return nil
	}
	// Outline order is not page order (a table of contents at the end
	// points back to the start): order by page, outline order within one.
	byPage := slices.Clone(entries)
	slices.SortStableFunc(byPage, func(a, b outlineEntry) int { return cmp.Compare(a.page, b.page) })
	out := make([][]string, count)
	inForce, next := "", 0
	for p := range out {
		var hs []string
		add := func(title string) {
			if len(hs) < maxPageHeadings && (len(hs) == 0 || hs[len(hs)-1] != title) {
				hs = append(hs, title)
			}
		}
		if inForce != "" {
			add(inForce)
		}
		for ; next < len(byPage) && byPage[next].page == p; next++ {
			add(byPage[next].title)
			inForce = byPage[next].title
		}
		out[p] = hs
	}
	return out
}

// oneLine is s as one line of at most limit characters: cleaned (clean),
// its runs of white space folded to one space, trimmed.
func oneLine(s string, limit int) string {
	s = strings.Join(strings.Fields(clean(s)), " ")
	if utf8.RuneCountInString(s) > limit {
		s = strings.TrimRight(string([]rune(s)[:limit]), " ")
	}
	return s
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
