package pdftext

import (
	"context"
	"errors"
	"image"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"

	"github.com/carhub/backend/services/docqa/internal/ocr"
)

// The rule of NeedsOCR.
const (
	// ocrMaxChars: a page with this many non-space characters or more has
	// a text layer, whatever else it holds.
	ocrMaxChars = 40
	// ocrWordRun: a page with fewer characters has a text layer all the
	// same when it shows this many words in a row (a section's title page:
	// "Chapter 3 Brakes and Steering").
	ocrWordRun = 4
)

// NeedsOCR reports whether a page whose text layer reads text has no text
// layer worth the name, so that its image is read by OCR: fewer than 40
// non-space characters and no run of 4 words (of 2 letters or more; for
// CJK, 4 ideographs in a row). A scanned page carries at most a page
// number, a scanner's stamp ("Scanned by CamScanner": 3 words) or a
// producer's invisible marker; a page of real text, even a section's title
// page, has either. A page that needs OCR and has some text keeps that text
// when OCR reads fewer characters (see recognize).
func NeedsOCR(text string) bool {
	if countNonSpace(text) >= ocrMaxChars {
		return false
	}
	run := 0
	for _, field := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		letters, han := 0, 0
		for _, r := range field {
			switch {
			case unicode.Is(unicode.Han, r):
				letters++
				if han++; han >= ocrWordRun {
					return false
				}
			case unicode.IsLetter(r):
				letters++
				han = 0
			default:
				han = 0
			}
		}
		switch {
		case letters == 0: // a number ("3", "12"): neither a word nor a break
		case letters >= 2:
			run++
		default:
			run = 0
		}
		if run >= ocrWordRun {
			return false
		}
	}
	return true
}

// recognize reads the pages at indexes scanned of d by OCR, one after the
// other on inst (which is the document's), within the document's text
// budget. One without ink (inkless: a blank sheet scanned) is not read,
// and counts as OCR reading no word on it. A page OCR reads more
// characters on than its text layer has takes OCR's text; one past the
// time budget, unreadable, or that failed is logged and added to
// d.Skipped. ctx is checked before each page; its error ends the
// document.
func (e *Engine) recognize(ctx context.Context, inst pdfium.Pdfium, doc references.FPDF_DOCUMENT, d *Document, scanned []int, budget *int, progress func(Stage, int, int)) error {
	for n, i := range scanned {
		if err := ctx.Err(); err != nil {
			return err
		}
		page := &d.Pages[i]
		img, dpi, err := renderGray(inst, doc, i, OCRDPI)
		var read ocr.Page
		blank := false
		if err == nil {
			if blank = inkless(img, dpi); !blank {
				read, err = e.cfg.OCR.Recognize(ctx, img, dpi)
			}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var reason SkipReason
		switch {
		case errors.Is(err, ocr.ErrTimeout):
			reason = SkipOCRTimeout
			e.cfg.Log.WarnContext(ctx, "OCR skipped a page: past its time budget", "page", page.Number)
		case errors.Is(err, ocr.ErrUnreadable):
			reason = SkipUnreadable
			e.cfg.Log.WarnContext(ctx, "OCR skipped a page: unreadable", "page", page.Number,
				"mean_confidence", math.Round(read.MeanConfidence*10)/10, "words", read.Read)
		case err != nil:
			reason = SkipOCRFailed
			e.cfg.Log.ErrorContext(ctx, "OCR skipped a page: it failed", "page", page.Number, "err", err)
		case blank && countNonSpace(page.Text) == 0:
			reason = SkipBlank
			e.cfg.Log.InfoContext(ctx, "OCR skipped a page: no ink on it", "page", page.Number)
		case read.Read == 0 && countNonSpace(page.Text) == 0:
			reason = SkipBlank
			e.cfg.Log.InfoContext(ctx, "OCR found no text on a page", "page", page.Number)
		case countNonSpace(read.Text) > countNonSpace(page.Text):
			text := read.Text
			limit := min(*budget+len([]rune(page.Text)), e.cfg.MaxPageChars)
			if utf8.RuneCountInString(text) > limit {
				text, page.Truncated = string([]rune(text)[:max(limit, 0)]), true
			}
			*budget -= utf8.RuneCountInString(text) - len([]rune(page.Text))
			page.Text, page.OCR, page.Words, page.OCRDPI, page.OCRSize = text, true, read.Words, dpi, img.Rect.Size()
			d.OCRPages++
		}
		if reason != "" {
			d.Skipped = append(d.Skipped, SkippedPage{Page: page.Number, Reason: reason})
		}
		if progress != nil {
			progress(StageOCR, n+1, len(scanned))
		}
	}
	return nil
}

// OCRRects returns, for each of texts (chunks the splitter cut from the
// text of a page OCR read, in page order), the rectangles of its lines on
// the page: the boxes of the words its bytes overlap, merged along each
// line Tesseract read (its block, paragraph and line numbers), as
// fractions of the page rendered for OCR (the page as shown: crop box and
// /Rotate applied), origin top left. A text not found in the page's text,
// and every text of a page OCR did not read, gets nil.
func (p Page) OCRRects(texts []string) [][]Rect {
	out := make([][]Rect, len(texts))
	if !p.OCR || len(p.Words) == 0 || p.OCRSize.X <= 0 || p.OCRSize.Y <= 0 {
		return out
	}
	// The page's text is the words' text, cut at the extraction budget.
	full, starts := ocr.Layout(p.Words)
	if !strings.HasPrefix(full, p.Text) {
		return out
	}
	width, height := float64(p.OCRSize.X), float64(p.OCRSize.Y)
	from := 0
	for k, t := range texts {
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		// As locateOnPage: after the previous chunk first, then anywhere.
		pos := strings.Index(p.Text[from:], t)
		if pos >= 0 {
			pos += from
		} else if pos = strings.Index(p.Text, t); pos < 0 {
			continue
		}
		end := pos + len(t)
		from = end
		var rects []Rect
		last := -1
		for i, w := range p.Words {
			if starts[i] >= end {
				break
			}
			if starts[i]+len(w.Text) <= pos || w.Width <= 0 || w.Height <= 0 {
				continue
			}
			r := Rect{
				Left: clamp01(float64(w.Left) / width), Top: clamp01(float64(w.Top) / height),
				Right: clamp01(float64(w.Left+w.Width) / width), Bottom: clamp01(float64(w.Top+w.Height) / height),
			}
			if n := len(rects); n > 0 && last >= 0 && sameOCRLine(p.Words[last], w) {
				l := &rects[n-1]
				l.Left, l.Top = math.Min(l.Left, r.Left), math.Min(l.Top, r.Top)
				l.Right, l.Bottom = math.Max(l.Right, r.Right), math.Max(l.Bottom, r.Bottom)
			} else {
				rects = append(rects, r)
			}
			last = i
		}
		out[k] = rects
	}
	return out
}

func sameOCRLine(a, b ocr.Word) bool {
	return a.Block == b.Block && a.Paragraph == b.Paragraph && a.Line == b.Line
}

func clamp01(v float64) float64 { return min(max(v, 0), 1) }

func countNonSpace(s string) int {
	n := 0
	for _, r := range s {
		if !unicode.IsSpace(r) {
			n++
		}
	}
	return n
}

// What inkless takes for ink.
const (
	// lookDPI: the resolution the page is looked at, in blocks of pixels
	// of the page rendered for OCR averaged (4 x 4 at 300 dpi: 75 dpi),
	// so that a scanner's noise averages out. The stroke of 8 point text
	// is a block wide or more, dark at its middle.
	lookDPI = 72
	// inkLevel: a block darker than this (of 255) is ink. The paper of a
	// scan is lighter (a grey sheet 200 or more); text, even pencil or a
	// fax's, darker.
	inkLevel = 160
	// minInkBlocks: a page with fewer ink blocks is blank. A speck or two
	// of dust on a scanned sheet is no text; the page number "7" alone
	// has some twenty.
	minInkBlocks = 4
)

// inkless reports whether img, a page rendered at dpi, has fewer than
// minInkBlocks blocks darker than inkLevel: nothing on it for OCR to read.
// It costs a few milliseconds where OCR of a page costs seconds. (A render
// of its own at lookDPI before the one for OCR would spare drawing a blank
// sheet at 300 dpi too, but costs 85-105 ms of CPU on every scanned page,
// most of it decoding the scan's image, against 2.7 s for the page's OCR:
// it pays only when a fifth of the scanned pages are blank.)
func inkless(img *image.Gray, dpi int) bool {
	block := max(dpi/lookDPI, 1)
	r := img.Rect
	ink := 0
	for y := r.Min.Y; y+block <= r.Max.Y; y += block {
		for x := r.Min.X; x+block <= r.Max.X; x += block {
			sum := 0
			for dy := range block {
				for _, v := range img.Pix[img.PixOffset(x, y+dy) : img.PixOffset(x, y+dy)+block] {
					sum += int(v)
				}
			}
			if sum < inkLevel*block*block {
				if ink++; ink >= minInkBlocks {
					return false
				}
			}
		}
	}
	return true
}

// renderGray renders page index in 8-bit gray at dpi, or at the lower
// resolution that keeps it within maxOCRPixels, and returns the image
// (copied out of the engine's memory) and its resolution.
func renderGray(inst pdfium.Pdfium, doc references.FPDF_DOCUMENT, index, dpi int) (*image.Gray, int, error) {
	page := requests.Page{ByIndex: &requests.PageByIndex{Document: doc, Index: index}}
	size, err := inst.GetPageSize(&requests.GetPageSize{Page: page})
	if err != nil {
		return nil, 0, err
	}
	// Points are 1/72 inch.
	if px := size.Width / 72 * size.Height / 72 * float64(dpi*dpi); px > maxOCRPixels {
		dpi = int(float64(dpi) * math.Sqrt(maxOCRPixels/px))
	}
	if dpi < 1 {
		return nil, 0, errors.New("page too large to render")
	}
	res, err := inst.RenderPageInDPI(&requests.RenderPageInDPI{Page: page, DPI: dpi, ImageFormat: requests.RenderImageFormatGrayscale})
	if err != nil {
		return nil, 0, err
	}
	defer res.Cleanup()
	gray, ok := res.Result.RenderedImage.(*image.Gray)
	if !ok {
		return nil, 0, errors.New("the engine rendered no gray image")
	}
	// The pixels live in the engine's memory until Cleanup.
	out := image.NewGray(gray.Rect)
	copy(out.Pix, gray.Pix)
	if gray.Stride != out.Stride {
		for y := gray.Rect.Min.Y; y < gray.Rect.Max.Y; y++ {
			copy(out.Pix[out.PixOffset(gray.Rect.Min.X, y):], gray.Pix[gray.PixOffset(gray.Rect.Min.X, y):gray.PixOffset(gray.Rect.Max.X, y)])
		}
	}
	return out, dpi, nil
}
