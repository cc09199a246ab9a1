package pdftext

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"log/slog"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/carhub/backend/services/docqa/internal/ocr"
	"github.com/carhub/backend/services/docqa/internal/ocr/ocrtest"
	"github.com/carhub/backend/services/docqa/internal/pdftext/pdftexttest"
)

// recorder reads pages with floors off, keeps every word read (for the
// measurement of the floors), then judges the page with the shipped
// floors, as the service does.
type recorder struct {
	inner *ocr.Engine
	mu    sync.Mutex
	pages []ocr.Page // every word read, page by page
}

func (r *recorder) Recognize(ctx context.Context, img *image.Gray, dpi int) (ocr.Page, error) {
	p, err := r.inner.Recognize(ctx, img, dpi)
	if err != nil {
		return p, err
	}
	r.mu.Lock()
	r.pages = append(r.pages, p)
	r.mu.Unlock()
	return ocr.Judge(p.Words, ocr.DefaultMinWordConfidence, ocr.DefaultMinPageConfidence)
}

func newOCR(tb testing.TB, command string, cfg ocr.Config) *ocr.Engine {
	tb.Helper()
	cfg.Command = command
	e, err := ocr.New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

// startOCR starts an engine that reads scanned pages with rec.
func startOCR(tb testing.TB, rec Recognizer) (*Engine, *bytes.Buffer) {
	tb.Helper()
	var log bytes.Buffer
	e := Start(Config{CacheDir: pdftexttest.CacheDir(), OCR: rec, Log: slog.New(slog.NewJSONHandler(&log, nil))})
	tb.Cleanup(func() { e.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), pdftexttest.StartTimeout)
	defer cancel()
	if err := e.Wait(ctx); err != nil {
		tb.Fatal(err)
	}
	return e, &log
}

func extractBytes(tb testing.TB, e *Engine, data []byte, progress func(Stage, int, int)) (Document, error) {
	tb.Helper()
	return e.Extract(context.Background(), bytes.NewReader(data), int64(len(data)), progress)
}

// recallCase is a page scanned at one resolution and the bar of OCR's
// recall on it.
type recallCase struct {
	name, path string
	page       int
	lang       string
	cjk        bool
	dpi        int
	bar        float64
}

// recallCases are the recall bars of OCR against the original page's
// pdftotext, on scans made from real text PDFs (pdftoppm, turned by 1.5
// degrees, Gaussian noise), rebuilt as image-only PDFs: words for English
// and German, characters for Chinese. 300 dpi is what a scanner is set to
// for text; 200 dpi is read too, at a lower bar (the engine renders both at
// 300).
func recallCases(tb testing.TB) []recallCase {
	tb.Helper()
	german := ocrtest.WriteFile(tb, "de-manual.pdf", ocrtest.PDF(ocrtest.Page{Text: ocrtest.German}))
	var cases []recallCase
	for _, c := range []struct {
		name, path string
		page       int
		lang       string
		cjk        bool
		bars       map[int]float64 // by dpi
	}{
		{"en-walden", "testdata/corpus/pdfcpu-Walden.pdf", 2, "eng", false, map[int]float64{300: 0.90, 200: 0.85}},
		{"de-manual", german, 1, "deu", false, map[int]float64{300: 0.90, 200: 0.85}},
		{"zh-maintenance", "testdata/corpus/zh-maintenance.pdf", 1, "chi_sim", true, map[int]float64{300: 0.85, 200: 0.80}},
	} {
		for _, dpi := range []int{300, 200} {
			cases = append(cases, recallCase{fmt.Sprintf("%s-%ddpi", c.name, dpi), c.path, c.page, c.lang, c.cjk, dpi, c.bars[dpi]})
		}
	}
	return cases
}

// recallOnScan reads c's scan by OCR through the engine and returns its
// recall and precision against the page's text layer, and the page read;
// it fails tb when the page was not read as one OCR page.
func recallOnScan(tb testing.TB, tess string, c recallCase) (recall, precision float64, text string) {
	tb.Helper()
	rec := &recorder{inner: newOCR(tb, tess, ocr.Config{Languages: []string{c.lang}, MinWordConfidence: -1, MinPageConfidence: -1})}
	e, _ := startOCR(tb, rec)
	scan := ocrtest.PDF(ocrtest.Page{Image: ocrtest.Scan(tb, c.path, c.page, c.dpi, true), DPI: c.dpi})
	doc, err := extractBytes(tb, e, scan, nil)
	if err != nil {
		tb.Fatal(err)
	}
	p := doc.Pages[0]
	if !p.OCR || doc.OCRPages != 1 || p.OCRDPI != OCRDPI || len(p.Words) == 0 || len(doc.Skipped) != 0 {
		tb.Fatalf("page: OCR %v, dpi %d, %d words; document: %d OCR pages, skipped %v", p.OCR, p.OCRDPI, len(p.Words), doc.OCRPages, doc.Skipped)
	}
	split := words
	if c.cjk {
		split = chars
	}
	ref, got := split(ocrtest.PageText(tb, c.path, c.page)), split(p.Text)
	recall, precision = ratio(matches(ref, got), len(ref)), ratio(matches(ref, got), len(got))
	tb.Logf("%s: recall %.3f, precision %.3f (%d reference items); %s; recall by word floor: %s",
		c.name, recall, precision, len(ref), confidences(rec.pages, ref, split), recallByFloor(rec.pages, ref, split))
	return recall, precision, p.Text
}

// OCR's recall on a scan of a real English page at 300 dpi reaches its
// bar. This is one of recallCases; BenchmarkOCRRecallOnScans holds every
// language at both resolutions to the same bars (make bench).
func TestOCRRecallOnScans(t *testing.T) {
	tess := ocrtest.Require(t, "pdftoppm", "pdftotext", "convert")
	c := recallCases(t)[0]
	if c.name != "en-walden-300dpi" {
		t.Fatalf("the first case is %s, want en-walden-300dpi", c.name)
	}
	if recall, _, text := recallOnScan(t, tess, c); recall < c.bar {
		t.Errorf("recall %.3f < %.2f\ngot:\n%s", recall, c.bar, text)
	}
}

// BenchmarkOCRRecallOnScans reads every scan of recallCases (English,
// German and Chinese, at 300 and 200 dpi) once per iteration and fails
// below its bar; it reports the recall and precision of each.
//
//	go test -run '^$' -bench OCRRecallOnScans -benchtime 1x ./internal/pdftext
func BenchmarkOCRRecallOnScans(b *testing.B) {
	tess := ocrtest.Require(b, "pdftoppm", "pdftotext", "convert")
	for _, c := range recallCases(b) {
		b.Run(c.name, func(b *testing.B) {
			var recall, precision float64
			var text string
			for b.Loop() {
				recall, precision, text = recallOnScan(b, tess, c)
			}
			b.ReportMetric(recall, "recall")
			b.ReportMetric(precision, "precision")
			if recall < c.bar {
				b.Errorf("recall %.3f < %.2f\ngot:\n%s", recall, c.bar, text)
			}
		})
	}
}

// confidences describes the confidence of the words read: the mean over
// the page, and the 5th percentile of the words the reference has (real
// text) against the 95th of those it has not (misreadings, specks). These
// are the numbers the floors were set from.
func confidences(pages []ocr.Page, ref []string, split func(string) []string) string {
	in := map[string]bool{}
	for _, r := range ref {
		in[r] = true
	}
	var real, other []float64
	for _, p := range pages {
		for _, w := range p.Words {
			items := split(w.Text)
			hit := len(items) > 0
			for _, it := range items {
				hit = hit && in[it]
			}
			if hit {
				real = append(real, w.Confidence)
			} else {
				other = append(other, w.Confidence)
			}
		}
	}
	mean := 0.0
	if len(pages) > 0 {
		mean = pages[0].MeanConfidence
	}
	return fmt.Sprintf("mean confidence %.1f; real words %d, p5 %.1f; other words %d, p50 %.1f, p95 %.1f",
		mean, len(real), percentile(real, 5), len(other), percentile(other, 50), percentile(other, 95))
}

// recallByFloor is the recall and precision the page would have with
// other word floors.
func recallByFloor(pages []ocr.Page, ref []string, split func(string) []string) string {
	var out []string
	for _, floor := range []float64{0, 20, 30, 40, 50, 60, 70} {
		var got []string
		for _, p := range pages {
			kept, _ := ocr.Judge(p.Words, floor, -1)
			got = append(got, split(kept.Text)...)
		}
		out = append(out, fmt.Sprintf("%.0f: %.3f/%.3f", floor, ratio(matches(ref, got), len(ref)), ratio(matches(ref, got), len(got))))
	}
	return strings.Join(out, ", ")
}

func percentile(v []float64, p int) float64 {
	if len(v) == 0 {
		return 0
	}
	v = slices.Clone(v)
	slices.Sort(v)
	return v[min(len(v)-1, len(v)*p/100)]
}

// A document of a text page and a scanned page gets both: the first from
// its text layer, the second by OCR, with progress through both stages.
func TestOCRMixedDocument(t *testing.T) {
	tess := ocrtest.Require(t, "pdftoppm", "pdftotext")
	german := ocrtest.WriteFile(t, "de.pdf", ocrtest.PDF(ocrtest.Page{Text: ocrtest.German}))
	mixed := ocrtest.PDF(ocrtest.Page{Text: ocrtest.English}, ocrtest.Page{Image: ocrtest.Scan(t, german, 1, 300, false), DPI: 300})
	e, _ := startOCR(t, newOCR(t, tess, ocr.Config{Languages: []string{"deu"}}))
	var calls []string
	doc, err := extractBytes(t, e, mixed, func(s Stage, done, total int) {
		calls = append(calls, fmt.Sprintf("%s %d/%d", s, done, total))
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"text 1/2", "text 2/2", "ocr 1/1"}; !slices.Equal(calls, want) {
		t.Fatalf("progress %q, want %q", calls, want)
	}
	if len(doc.Pages) != 2 || doc.OCRPages != 1 || len(doc.Skipped) != 0 {
		t.Fatalf("%d pages, %d by OCR, skipped %v", len(doc.Pages), doc.OCRPages, doc.Skipped)
	}
	if p := doc.Pages[0]; p.OCR || p.Words != nil || !strings.HasPrefix(p.Text, "Owner's Manual - Chapter 6: Engine Oil\n") {
		t.Fatalf("text page: OCR %v, %d words, text %q", p.OCR, len(p.Words), p.Text[:min(60, len(p.Text))])
	}
	p := doc.Pages[1]
	ref, got := words(ocrtest.German), words(p.Text)
	if recall := ratio(matches(ref, got), len(ref)); !p.OCR || recall < 0.95 {
		t.Fatalf("scanned page: OCR %v, recall %.3f:\n%s", p.OCR, recall, p.Text)
	}
}

// A page past OCR's time budget is skipped, reported and logged; the rest
// of the document is kept.
func TestOCRPageTimeoutSkipsThePage(t *testing.T) {
	tess := ocrtest.Require(t, "pdftoppm")
	text := ocrtest.WriteFile(t, "en.pdf", ocrtest.PDF(ocrtest.Page{Text: ocrtest.English}))
	scan := ocrtest.Scan(t, text, 1, 200, false)
	mixed := ocrtest.PDF(ocrtest.Page{Text: ocrtest.English}, ocrtest.Page{Image: scan, DPI: 200}, ocrtest.Page{Text: ocrtest.German})
	e, log := startOCR(t, newOCR(t, tess, ocr.Config{Languages: []string{"eng"}, PageTimeout: 5 * time.Millisecond}))
	start := time.Now()
	doc, err := extractBytes(t, e, mixed, nil)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("took %s: the page's process was not stopped at its budget", took)
	}
	if want := []SkippedPage{{Page: 2, Reason: SkipOCRTimeout}}; !slices.Equal(doc.Skipped, want) {
		t.Fatalf("skipped %v, want %v", doc.Skipped, want)
	}
	if doc.OCRPages != 0 || doc.Pages[1].Text != "" || doc.Pages[1].OCR || doc.Pages[0].Text == "" || doc.Pages[2].Text == "" {
		t.Fatalf("pages: %+v", doc.Pages)
	}
	if !strings.Contains(log.String(), `"msg":"OCR skipped a page: past its time budget","page":2`) {
		t.Fatalf("not logged:\n%s", log)
	}

	// A document of nothing but such pages has no text: a 400 that says
	// OCR read none of them.
	_, err = extractBytes(t, e, ocrtest.PDF(ocrtest.Page{Image: scan, DPI: 200}), nil)
	if !errors.Is(err, ErrOCRNoText) || !errors.Is(err, ErrNoText) {
		t.Fatalf("scanned only, every page past its budget: %v", err)
	}
}

// Cancelling stops between pages: the pages after are not read.
func TestOCRCancelBetweenPages(t *testing.T) {
	tess := ocrtest.Require(t, "pdftoppm")
	text := ocrtest.WriteFile(t, "en.pdf", ocrtest.PDF(ocrtest.Page{Text: ocrtest.English}))
	scan := ocrtest.Page{Image: ocrtest.Scan(t, text, 1, 200, false), DPI: 200}
	rec := &recorder{inner: newOCR(t, tess, ocr.Config{Languages: []string{"eng"}})}
	e, _ := startOCR(t, rec)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	data := ocrtest.PDF(scan, scan, scan)
	var calls []string
	doc, err := e.Extract(ctx, bytes.NewReader(data), int64(len(data)), func(s Stage, done, total int) {
		calls = append(calls, fmt.Sprintf("%s %d/%d", s, done, total))
		if s == StageOCR && done == 1 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || doc.Pages != nil {
		t.Fatalf("cancelled after OCR of page 1: %d pages, err %v", len(doc.Pages), err)
	}
	if want := []string{"text 1/3", "text 2/3", "text 3/3", "ocr 1/3"}; !slices.Equal(calls, want) {
		t.Fatalf("progress %q, want %q", calls, want)
	}
	if len(rec.pages) != 1 {
		t.Fatalf("OCR read %d pages after the cancel, want 1", len(rec.pages))
	}
}

// A page of pure noise is reported unreadable, not indexed; the text
// pages beside it are kept.
func TestOCRNoisePageIsUnreadable(t *testing.T) {
	tess := ocrtest.Require(t)
	e, log := startOCR(t, newOCR(t, tess, ocr.Config{Languages: []string{"eng"}}))
	data := ocrtest.PDF(ocrtest.Page{Text: ocrtest.English}, ocrtest.Page{Image: ocrtest.Noise(2480, 3508, 1), DPI: 300})
	doc, err := extractBytes(t, e, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []SkippedPage{{Page: 2, Reason: SkipUnreadable}}; !slices.Equal(doc.Skipped, want) {
		t.Fatalf("skipped %v, want %v\n%s", doc.Skipped, want, log)
	}
	if doc.Pages[1].Text != "" || doc.OCRPages != 0 {
		t.Fatalf("noise page indexed: %q", doc.Pages[1].Text)
	}
	t.Logf("log: %s", log)
}

// Without a recognizer because OCR is not installed, a scanned PDF says
// so; with none configured (OCR=off) it is today's ErrNoText.
func TestScannedPDFWithoutOCR(t *testing.T) {
	data := ocrtest.PDF(ocrtest.Page{Image: ocrtest.Noise(400, 500, 2), DPI: 72})
	missing := Start(Config{CacheDir: pdftexttest.CacheDir(), OCRMissing: true})
	defer missing.Close()
	_, err := missing.Extract(context.Background(), bytes.NewReader(data), int64(len(data)), nil)
	if !errors.Is(err, ErrOCRMissing) || !errors.Is(err, ErrNoText) {
		t.Fatalf("OCR missing: %v", err)
	}
	_, err = engine.Extract(context.Background(), bytes.NewReader(data), int64(len(data)), nil)
	if !errors.Is(err, ErrNoText) || errors.Is(err, ErrOCRMissing) || errors.Is(err, ErrOCRNoText) {
		t.Fatalf("OCR off: %v", err)
	}
}

func TestNeedsOCR(t *testing.T) {
	for text, want := range map[string]bool{
		"":                              true,
		" \n 12 \n":                     true,
		"Scanned by CamScanner":         true, // 3 words
		"Page 7 of 40":                  true,
		"Chapter 3 Brakes and Steering": false, // a run of 4 words
		"第三章 刹车系统":                      false, // 4 ideographs in a row
		"第三章":                           true,
		strings.Repeat("x ", 40):        false, // 40 characters
		"a b c d e f g h":               true,  // one-letter words are no run
		"12345 67890 12345 67890 12345 67890 1234": true,
	} {
		if got := NeedsOCR(text); got != want {
			t.Errorf("NeedsOCR(%q) = %v, want %v", text, got, want)
		}
	}
}

// BenchmarkOCRPage reads one scanned page (English, 300 dpi, noisy) by OCR
// per iteration, one tesseract process at a time on one thread: PDFium
// renders it, tesseract reads it. pages/s is wall time, which a busy
// machine stretches; pages/cpu-s counts the CPU time this process (PDFium's
// render) and its children (tesseract) spent, which is what a page costs a
// core: the number to size OCR_CONCURRENCY by.
func BenchmarkOCRPage(b *testing.B) {
	tess := ocrtest.Require(b, "pdftoppm", "convert")
	data := ocrtest.PDF(ocrtest.Page{Image: ocrtest.Scan(b, "testdata/corpus/pdfcpu-Walden.pdf", 2, 300, true), DPI: 300})
	e, _ := startOCR(b, newOCR(b, tess, ocr.Config{Languages: []string{"eng"}}))
	cpu0 := cpuTime()
	b.ResetTimer()
	for b.Loop() {
		doc, err := extractBytes(b, e, data, nil)
		if err != nil || doc.OCRPages != 1 {
			b.Fatalf("%d OCR pages, %v", doc.OCRPages, err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pages/s")
	b.ReportMetric(float64(b.N)/(cpuTime()-cpu0).Seconds(), "pages/cpu-s")
}

// stubRecognizer answers every page with page or err, counting calls.
type stubRecognizer struct {
	page  ocr.Page
	err   error
	calls int
}

func (s *stubRecognizer) Recognize(ctx context.Context, img *image.Gray, dpi int) (ocr.Page, error) {
	s.calls++
	if img.Rect.Dx() == 0 || dpi != OCRDPI {
		return ocr.Page{}, fmt.Errorf("image %v at %d dpi", img.Rect, dpi)
	}
	return s.page, s.err
}

// Without tesseract: which pages go to OCR, and what becomes of them.
func TestOCRPagesAndTheirOutcome(t *testing.T) {
	data := ocrtest.PDF(ocrtest.Page{Text: ocrtest.English}, ocrtest.Page{Text: "12"}, ocrtest.Page{Image: ocrtest.Noise(300, 400, 3), DPI: 72})

	// OCR failing is reported for each page it was asked to read. The
	// page of a page number alone holds nothing else to read
	// (readContent): it is not asked, and its text layer is kept.
	failing := &stubRecognizer{err: errors.New("tesseract crashed")}
	e, log := startOCR(t, failing)
	doc, err := extractBytes(t, e, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []SkippedPage{{Page: 3, Reason: SkipOCRFailed}}
	if failing.calls != 1 || !slices.Equal(doc.Skipped, want) || strings.TrimSpace(doc.Pages[1].Text) != "12" {
		t.Fatalf("%d calls, skipped %v, page 2 %q", failing.calls, doc.Skipped, doc.Pages[1].Text)
	}
	if !strings.Contains(log.String(), `"msg":"OCR skipped a page: it failed","page":3,"err":"tesseract crashed"`) {
		t.Fatalf("log:\n%s", log)
	}

	// OCR that reads more than the layer replaces it; one that reads
	// nothing leaves a blank page reported.
	reading := &stubRecognizer{page: ocr.Page{Text: "Chapter 12 Tyres and wheels", Read: 5, MeanConfidence: 90,
		Words: []ocr.Word{{Text: "Chapter", Confidence: 90}}}}
	e, _ = startOCR(t, reading)
	doc, err = extractBytes(t, e, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	if doc.OCRPages != 1 || doc.Pages[2].Text != "Chapter 12 Tyres and wheels" || !doc.Pages[2].OCR || doc.Pages[2].OCRDPI != OCRDPI ||
		len(doc.Pages[2].Words) != 1 || doc.Pages[0].OCR || doc.Pages[1].OCR || len(doc.Skipped) != 0 {
		t.Fatalf("%d OCR pages, pages %+v, skipped %v", doc.OCRPages, doc.Pages, doc.Skipped)
	}
	blank := &stubRecognizer{}
	e, _ = startOCR(t, blank)
	doc, err = extractBytes(t, e, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []SkippedPage{{Page: 3, Reason: SkipBlank}}; !slices.Equal(doc.Skipped, want) || doc.Pages[1].Text != "12" {
		t.Fatalf("skipped %v, page 2 %q", doc.Skipped, doc.Pages[1].Text)
	}
}

// The highlights of a chunk of a scanned page come from OCR's word boxes
// and land on the words of the original text page the scan was made of
// (pdftotext -bbox of that page), one rectangle per line.
func TestOCRRectsLandOnThePhrase(t *testing.T) {
	tess := ocrtest.Require(t, "pdftoppm", "pdftotext")
	original := ocrtest.PDF(ocrtest.Page{Text: ocrtest.German})
	path := ocrtest.WriteFile(t, "de.pdf", original)
	scanned := ocrtest.PDF(ocrtest.Page{Image: ocrtest.Scan(t, path, 1, 300, false), DPI: 300})
	e, _ := startOCR(t, newOCR(t, tess, ocr.Config{Languages: []string{"deu"}}))
	doc, err := extractBytes(t, e, scanned, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := doc.Pages[0]
	if !p.OCR || p.OCRSize.X < 2480 || p.OCRSize.X > 2481 || p.OCRSize.Y < 3508 || p.OCRSize.Y > 3509 {
		t.Fatalf("page: OCR %v, rendered %v; want OCR at A4's 2480x3508 px, give or take one", p.OCR, p.OCRSize)
	}
	// A chunk from "Die Profiltiefe" (a line's start) to "vier Millimeter,"
	// (inside the next line), as the splitter would cut it.
	from := strings.Index(p.Text, "Die Profiltiefe")
	to := strings.Index(p.Text, "vier Millimeter,")
	if from < 0 || to < from {
		t.Fatalf("OCR misread the phrase:\n%s", p.Text)
	}
	phrase := p.Text[from : to+len("vier Millimeter,")]
	rects := p.OCRRects([]string{phrase, "nicht auf der Seite"})
	if rects[1] != nil {
		t.Errorf("a text not on the page got %v", rects[1])
	}
	got := rects[0]
	if len(got) != 2 {
		t.Fatalf("%d rectangles %v, want 2 (one per line)", len(got), got)
	}
	words := bboxWords(t, original, 1)
	const tol = 0.01 // of the page: about 6 points across, 8 down
	for i, line := range []string{
		"Die Profiltiefe muss mindestens 1,6 Millimeter betragen. Für Winterreifen",
		"empfehlen wir jedoch mindestens vier Millimeter,",
	} {
		box, ok := leadingWordsBox(words, line)
		if !ok {
			t.Fatalf("no line starting %q in pdftotext's boxes", line)
		}
		r := got[i]
		if math.Abs(r.Left-box.left) > tol || math.Abs(r.Right-box.right) > tol ||
			math.Abs(r.Top-box.top) > tol || math.Abs(r.Bottom-box.bottom) > tol {
			t.Errorf("line %d: rectangle %+v, pdftotext's words %q span %+v (tolerance %g)", i, r, line, box, tol)
		}
	}
}

// leadingWordsBox is the box of the words of a line of pdftotext's boxes
// that starts with the words of prefix.
func leadingWordsBox(words []word, prefix string) (word, bool) {
	want := strings.Fields(prefix)
	for i := range words {
		if i+len(want) > len(words) {
			break
		}
		box, ok := words[i], true
		for k, text := range want {
			w := words[i+k]
			if w.text != text || w.top != words[i].top {
				ok = false
				break
			}
			box.left, box.right = math.Min(box.left, w.left), math.Max(box.right, w.right)
			box.top, box.bottom = math.Min(box.top, w.top), math.Max(box.bottom, w.bottom)
		}
		if ok {
			return box, true
		}
	}
	return word{}, false
}

// OCRRects maps a chunk's bytes to the words they overlap and merges the
// words of each line Tesseract read; a page OCR did not read, or a text
// the page does not hold, gets none; a page cut at the budget still maps.
func TestOCRRectsFromWords(t *testing.T) {
	words := []ocr.Word{
		{Text: "Check", Left: 100, Top: 100, Width: 200, Height: 40, Block: 1, Paragraph: 1, Line: 1},
		{Text: "the", Left: 320, Top: 104, Width: 100, Height: 36, Block: 1, Paragraph: 1, Line: 1},
		{Text: "oil.", Left: 100, Top: 160, Width: 120, Height: 40, Block: 1, Paragraph: 1, Line: 2},
		{Text: "Level", Left: 100, Top: 300, Width: 180, Height: 40, Block: 2, Paragraph: 1, Line: 1},
		{Text: "low", Left: 900, Top: 300, Width: 140, Height: 50, Block: 3, Paragraph: 1, Line: 1}, // a column beside
	}
	text, _ := ocr.Layout(words)
	p := Page{Text: text, OCR: true, Words: words, OCRSize: image.Point{X: 1000, Y: 2000}}
	got := p.OCRRects([]string{"Check the\noil.", "oil.\n\nLevel", "  the  ", "Level\n\nlow", "absent", ""})
	want := [][]Rect{
		{{0.1, 0.05, 0.42, 0.07}, {0.1, 0.08, 0.22, 0.1}},
		{{0.1, 0.08, 0.22, 0.1}, {0.1, 0.15, 0.28, 0.17}},
		{{0.32, 0.052, 0.42, 0.07}},
		{{0.1, 0.15, 0.28, 0.17}, {0.9, 0.15, 1, 0.175}}, // cut at the page's edge
		nil, nil,
	}
	for i := range want {
		if !slices.EqualFunc(got[i], want[i], func(a, b Rect) bool {
			return math.Abs(a.Left-b.Left) < 1e-9 && math.Abs(a.Top-b.Top) < 1e-9 && math.Abs(a.Right-b.Right) < 1e-9 && math.Abs(a.Bottom-b.Bottom) < 1e-9
		}) {
			t.Errorf("text %d: %v, want %v", i, got[i], want[i])
		}
	}
	// Cut at the budget in the middle of "Level": what is left maps.
	cut := p
	cut.Text = text[:strings.Index(text, "Level")+3]
	if got := cut.OCRRects([]string{"Lev"}); len(got[0]) != 1 || got[0][0].Left != 0.1 {
		t.Errorf("cut page: %v", got)
	}
	// A page that kept its text layer, or whose text is not its words'.
	for _, q := range []Page{{Text: text, Words: words, OCRSize: p.OCRSize}, {Text: "other text", OCR: true, Words: words, OCRSize: p.OCRSize}} {
		if got := q.OCRRects([]string{"Check"}); got[0] != nil {
			t.Errorf("page %+v: %v, want none", q.Text, got)
		}
	}
}
