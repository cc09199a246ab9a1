package pdftext

import (
	"bytes"
	"compress/zlib"
	"context"
	"fmt"
	"image"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/klippa-app/go-pdfium/requests"

	"github.com/carhub/backend/services/docqa/internal/ocr"
	"github.com/carhub/backend/services/docqa/internal/ocr/ocrtest"
)

// drawnPage is a page of drawnPDF: an A4 page (595 x 842 points) that
// shows text (ASCII, 11 point Helvetica, from the top left), an image at
// a rectangle of the page (the whole page when at is zero), drawn directly
// or inside a form XObject, and paths small filled rectangles in rows, as
// the glyphs of text drawn as outlines.
type drawnPage struct {
	text   string
	image  *image.Gray
	at     [4]float64 // x, y, width, height in points
	inForm bool
	paths  int
}

// drawnPDF writes a PDF of pages.
func drawnPDF(pages ...drawnPage) []byte {
	var b bytes.Buffer
	var offsets []int
	obj := func(body string) int {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offsets), body)
		return len(offsets)
	}
	stream := func(dict string, data []byte) int {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n<< %s /Length %d >>\nstream\n", len(offsets), dict, len(data))
		b.Write(data)
		b.WriteString("\nendstream\nendobj\n")
		return len(offsets)
	}
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	font := obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	pagesNum := obj("") // rewritten at the end: its offset is replaced
	var kids []string
	for _, p := range pages {
		var content bytes.Buffer
		resources := fmt.Sprintf("/Font << /F1 %d 0 R >>", font)
		if p.image != nil {
			w, h := p.image.Rect.Dx(), p.image.Rect.Dy()
			var z bytes.Buffer
			zw := zlib.NewWriter(&z)
			for y := p.image.Rect.Min.Y; y < p.image.Rect.Max.Y; y++ {
				zw.Write(p.image.Pix[p.image.PixOffset(p.image.Rect.Min.X, y):p.image.PixOffset(p.image.Rect.Max.X, y)])
			}
			zw.Close()
			img := stream(fmt.Sprintf("/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode", w, h), z.Bytes())
			at := p.at
			if at == [4]float64{} {
				at = [4]float64{0, 0, 595, 842}
			}
			draw := fmt.Sprintf("q %.2f 0 0 %.2f %.2f %.2f cm /Im1 Do Q", at[2], at[3], at[0], at[1])
			if p.inForm {
				form := stream(fmt.Sprintf("/Type /XObject /Subtype /Form /BBox [0 0 595 842] /Resources << /XObject << /Im1 %d 0 R >> >>", img), []byte(draw))
				resources += fmt.Sprintf(" /XObject << /Fm1 %d 0 R >>", form)
				content.WriteString("/Fm1 Do\n")
			} else {
				resources += fmt.Sprintf(" /XObject << /Im1 %d 0 R >>", img)
				content.WriteString(draw + "\n")
			}
		}
		for i := range p.paths {
			fmt.Fprintf(&content, "%d %d 5 7 re f\n", 60+(i%70)*7, 760-(i/70)*12)
		}
		if p.text != "" {
			content.WriteString("BT /F1 11 Tf 15 TL 60 800 Td\n")
			for _, line := range strings.Split(p.text, "\n") {
				fmt.Fprintf(&content, "(%s) Tj T*\n", line)
			}
			content.WriteString("ET\n")
		}
		c := stream("", content.Bytes())
		kids = append(kids, fmt.Sprintf("%d 0 R", obj(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 595 842] /Resources << %s >> /Contents %d 0 R >>",
			pagesNum, resources, c))))
	}
	offsets[pagesNum-1] = b.Len()
	fmt.Fprintf(&b, "%d 0 obj\n<< /Type /Pages /Kids [%s] /Count %d >>\nendobj\n", pagesNum, strings.Join(kids, " "), len(kids))
	catalog := obj(fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", pagesNum))
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, o := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, catalog, xref)
	return b.Bytes()
}

// white is a blank sheet scanned: paper a little grey, no ink.
func white(w, h int) *image.Gray {
	g := image.NewGray(image.Rect(0, 0, w, h))
	for i := range g.Pix {
		g.Pix[i] = 235
	}
	return g
}

// What readContent sees on each kind of page, and which of them it takes
// for something OCR could read.
func TestReadContent(t *testing.T) {
	photo := ocrtest.Noise(200, 150, 4)
	pages := []struct {
		name     string
		page     drawnPage
		readable bool
		images   int
		cover    float64 // ± 0.01
	}{
		{"nothing", drawnPage{}, false, 0, 0},
		{"page number", drawnPage{text: "12"}, false, 0, 0},
		{"scan", drawnPage{image: photo}, true, 1, 1},
		{"scan in a form", drawnPage{image: photo, inForm: true}, true, 1, 1},
		{"half sheet", drawnPage{image: photo, at: [4]float64{0, 421, 595, 421}}, true, 1, 0.5},
		{"photo", drawnPage{image: photo, at: [4]float64{100, 500, 200, 150}}, false, 1, 30000.0 / (595 * 842)},
		{"photo in a form", drawnPage{image: photo, at: [4]float64{100, 500, 200, 150}, inForm: true}, false, 1, 30000.0 / (595 * 842)},
		{"rule and frame", drawnPage{paths: 3}, false, 0, 0},
		{"text as outlines", drawnPage{paths: 140}, true, 0, 0},
	}
	var drawn []drawnPage
	for _, p := range pages {
		drawn = append(drawn, p.page)
	}
	data := drawnPDF(drawn...)
	inst, err := engine.pool.GetInstanceWithContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	doc, err := inst.OpenDocument(&requests.OpenDocument{FileReader: bytes.NewReader(data), FileReaderSize: int64(len(data))})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: doc.Document})
	for i, p := range pages {
		c := readContent(inst, doc.Document, i)
		t.Logf("%s: %+v", p.name, c)
		if c.readable() != p.readable || c.images != p.images || c.imageCover < p.cover-0.01 || c.imageCover > p.cover+0.01 {
			t.Errorf("%s: %+v, readable %v; want readable %v, %d images covering %.3f", p.name, c, c.readable(), p.readable, p.images, p.cover)
		}
	}
}

// counter answers each page with page, counting the pages it is asked to
// read.
type counter struct {
	mu    sync.Mutex
	page  ocr.Page
	calls int
}

func (c *counter) Recognize(ctx context.Context, img *image.Gray, dpi int) (ocr.Page, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	return c.page, nil
}

// Only the pages that hold something to read are drawn and read by OCR:
// a page with nothing on it, or only a small picture, is reported blank
// without OCR; a scanned sheet without ink is reported blank after its
// render, before OCR (inkless); a page number's text layer is kept; a scan
// and text drawn as outlines are read.
func TestOCRReadsOnlyPagesWithSomethingToRead(t *testing.T) {
	data := drawnPDF(
		drawnPage{text: ocrtest.English}, // 1: text layer
		drawnPage{},                      // 2: nothing
		drawnPage{image: ocrtest.Noise(200, 150, 5), at: [4]float64{100, 500, 200, 150}}, // 3: a small picture
		drawnPage{text: "12"},                        // 4: a page number
		drawnPage{image: white(620, 842)},            // 5: a blank sheet scanned
		drawnPage{image: ocrtest.Noise(620, 842, 6)}, // 6: a scan
		drawnPage{paths: 140},                        // 7: text as outlines
	)
	rec := &counter{page: ocr.Page{Text: "Brake fluid is replaced every two years", Read: 7, MeanConfidence: 90}}
	e, log := startOCR(t, rec)
	var calls []string
	doc, err := extractBytes(t, e, data, func(s Stage, done, total int) {
		if s == StageOCR {
			calls = append(calls, fmt.Sprintf("%d/%d", done, total))
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if rec.calls != 2 {
		t.Errorf("OCR read %d pages, want 2 (the scan and the outlines)", rec.calls)
	}
	if want := []string{"1/3", "2/3", "3/3"}; !slices.Equal(calls, want) {
		t.Errorf("OCR progress %q, want %q (the blank sheet scanned, the scan, the outlines)", calls, want)
	}
	want := []SkippedPage{{Page: 2, Reason: SkipBlank}, {Page: 3, Reason: SkipBlank}, {Page: 5, Reason: SkipBlank}}
	if !slices.Equal(doc.Skipped, want) {
		t.Errorf("skipped %v, want %v", doc.Skipped, want)
	}
	for i, p := range doc.Pages {
		wantOCR := i == 5 || i == 6
		if p.OCR != wantOCR {
			t.Errorf("page %d: OCR %v, want %v", p.Number, p.OCR, wantOCR)
		}
	}
	if doc.OCRPages != 2 || strings.TrimSpace(doc.Pages[3].Text) != "12" || !strings.HasPrefix(doc.Pages[0].Text, "Owner") {
		t.Errorf("%d OCR pages; page 4 %q; page 1 %q", doc.OCRPages, doc.Pages[3].Text, doc.Pages[0].Text[:min(20, len(doc.Pages[0].Text))])
	}
	for _, line := range []string{`"msg":"PDF pages with no text and nothing OCR could read reported blank, not drawn","pages":[2,3]`,
		`"msg":"OCR skipped a page: no ink on it","page":5`} {
		if !strings.Contains(log.String(), line) {
			t.Errorf("not logged: %s\n%s", line, log)
		}
	}

	// A document of nothing but blank pages has no text, as when OCR
	// read them and found none.
	_, err = extractBytes(t, e, drawnPDF(drawnPage{}, drawnPage{}), nil)
	if err != ErrOCRNoText {
		t.Errorf("blank pages only: %v, want ErrOCRNoText", err)
	}
}

// countingOCR counts the pages the real OCR is asked to read.
type countingOCR struct {
	inner *ocr.Engine
	mu    sync.Mutex
	calls int
}

func (c *countingOCR) Recognize(ctx context.Context, img *image.Gray, dpi int) (ocr.Page, error) {
	c.mu.Lock()
	c.calls++
	c.mu.Unlock()
	return c.inner.Recognize(ctx, img, dpi)
}

// A text page, a blank page and a scanned page, with Tesseract: the text
// page is not read by OCR, the blank one is reported blank without being
// drawn for OCR, the scanned one is read as before.
func TestOCRTextBlankAndScannedPages(t *testing.T) {
	tess := ocrtest.Require(t, "pdftoppm")
	german := ocrtest.WriteFile(t, "de.pdf", ocrtest.PDF(ocrtest.Page{Text: ocrtest.German}))
	data := ocrtest.PDF(ocrtest.Page{Text: ocrtest.English}, ocrtest.Page{Text: ""},
		ocrtest.Page{Image: ocrtest.Scan(t, german, 1, 300, false), DPI: 300})
	rec := &countingOCR{inner: newOCR(t, tess, ocr.Config{Languages: []string{"deu"}})}
	e, _ := startOCR(t, rec)
	doc, err := extractBytes(t, e, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rec.calls != 1 {
		t.Errorf("OCR read %d pages, want 1", rec.calls)
	}
	if want := []SkippedPage{{Page: 2, Reason: SkipBlank}}; !slices.Equal(doc.Skipped, want) {
		t.Errorf("skipped %v, want %v", doc.Skipped, want)
	}
	if doc.Pages[0].OCR || doc.Pages[1].OCR || doc.OCRPages != 1 {
		t.Errorf("OCR on pages 1, 2: %v, %v; %d OCR pages", doc.Pages[0].OCR, doc.Pages[1].OCR, doc.OCRPages)
	}
	p := doc.Pages[2]
	ref, got := words(ocrtest.German), words(p.Text)
	if recall := ratio(matches(ref, got), len(ref)); !p.OCR || recall < 0.95 {
		t.Errorf("scanned page: OCR %v, recall %.3f:\n%s", p.OCR, recall, p.Text)
	}
}

// checkInkless checks inkless on scans at dpi (pdftoppm, turned and noisy
// as a scanner makes them): a blank sheet has no ink, a page of text or of
// a page number alone has; so has a page of noise (OCR reports it
// unreadable). It fails tb on each wrong answer and returns the number of
// pages and of right answers.
func checkInkless(tb testing.TB, dpi int) (pages, right int) {
	tb.Helper()
	blank := ocrtest.WriteFile(tb, "blank.pdf", ocrtest.PDF(ocrtest.Page{Text: ""}))
	number := ocrtest.WriteFile(tb, "number.pdf", ocrtest.PDF(ocrtest.Page{Text: "7"}))
	for _, c := range []struct {
		name string
		img  *image.Gray
		want bool
	}{
		{"blank sheet", ocrtest.Scan(tb, blank, 1, dpi, true), true},
		{"grey sheet", white(dpi*8, dpi*11), true},
		{"page number", ocrtest.Scan(tb, number, 1, dpi, true), false},
		{"text", ocrtest.Scan(tb, "testdata/corpus/pdfcpu-Walden.pdf", 2, dpi, true), false},
		{"noise", ocrtest.Noise(dpi*8, dpi*11, 7), false},
	} {
		pages++
		if got := inkless(c.img, dpi); got != c.want {
			tb.Errorf("%s at %d dpi: inkless %v, want %v", c.name, dpi, got, c.want)
		} else {
			right++
		}
	}
	return pages, right
}

// inkless on scans at 300 dpi, what a scanner is set to for text;
// BenchmarkInkless checks 300 and 200 dpi (make bench).
func TestInkless(t *testing.T) {
	ocrtest.Require(t, "pdftoppm", "convert")
	checkInkless(t, 300)
}

// BenchmarkInkless checks inkless on the scans of checkInkless at 300 and
// 200 dpi, failing on a wrong answer, and reports the share of pages
// answered right (1 when all are). The scans are made once per process.
//
//	go test -run '^$' -bench Inkless -benchtime 1x ./internal/pdftext
func BenchmarkInkless(b *testing.B) {
	ocrtest.Require(b, "pdftoppm", "convert")
	for _, dpi := range []int{300, 200} {
		b.Run(fmt.Sprintf("%ddpi", dpi), func(b *testing.B) {
			var pages, right int
			for b.Loop() {
				pages, right = checkInkless(b, dpi)
			}
			b.ReportMetric(float64(right)/float64(pages), "right")
		})
	}
}
