// Package receiptscan reads a photo of a receipt into a record's fields:
// the photo's bytes decoded (JPEG, PNG, WebP, HEIC, told by their content),
// turned upright by their EXIF orientation, the slip cut out of the table
// and levelled, read by Tesseract (internal/ocr, which turns a page lying
// on its side), then by the receipt rules (internal/receipt). It is the
// use case behind POST /api/receipts/scan; nothing here keeps the photo.
package receiptscan

import (
	"context"
	"errors"
	"image"
	"log/slog"
	"time"

	"github.com/carhub/backend/services/docqa/internal/ocr"
	"github.com/carhub/backend/services/docqa/internal/receipt"
)

// DPI is what Tesseract is told of a photo of a receipt: a slip's 80 mm
// over about 800 pixels.
const DPI = 250

// Recognizer reads the text of an image (ocr.Engine).
type Recognizer interface {
	Recognize(ctx context.Context, img *image.Gray, dpi int) (ocr.Page, error)
}

// Config configures a Scanner.
type Config struct {
	// OCR reads the straightened photo (an ocr.Engine, Auto or not).
	OCR Recognizer
	// Han, when set, rereads a photo whose first reading found nothing
	// to record and no Chinese: an engine reading chi_sim with the Latin
	// languages, for the Chinese receipt whose few characters OSD took
	// for Latin (see Scan). Nil: no second reading.
	Han Recognizer
	// Now is the clock bounding plausible dates (default time.Now).
	Now func() time.Time
	Log *slog.Logger
}

// Scanner reads photos of receipts. It is safe for concurrent use.
type Scanner struct{ cfg Config }

// New returns a Scanner; cfg.OCR is required.
func New(cfg Config) *Scanner {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	return &Scanner{cfg: cfg}
}

// Result is what was read from a photo: the fields (receipt.Reading, its
// boxes as fractions of the photo as shown, EXIF orientation applied) and
// the text OCR read.
type Result struct {
	receipt.Reading
	Text string
}

// Scan reads the photo in data. region is the owner's country (ISO
// 3166-1 alpha-2, or empty), used only to order a slashed date's day and
// month when the receipt gives no clue. Errors: Decode's (the photo's
// fault), ocr.ErrTimeout, or ctx's; a photo with no text read is a Result
// of kind unknown with no fields, not an error.
func (s *Scanner) Scan(ctx context.Context, data []byte, region string) (Result, error) {
	photo, format, err := Decode(data)
	if err != nil {
		return Result{}, err
	}
	start := time.Now()
	img, angle, v := straighten(photo)
	opts := receipt.Options{Region: region, Now: s.cfg.Now()}
	res, page, err := s.read(ctx, s.cfg.OCR, img, v, opts)
	if err != nil {
		return Result{}, err
	}
	if s.cfg.Han != nil && !res.found() && !hasHan(page.Words) {
		second, page2, err := s.read(ctx, s.cfg.Han, img, v, opts)
		if err != nil {
			return Result{}, err
		}
		if second.found() {
			res, page = second, page2
		}
	}
	s.cfg.Log.DebugContext(ctx, "receipt read", "format", format, "width", photo.Rect.Dx(), "height", photo.Rect.Dy(),
		"skew", angle, "words", len(page.Words), "kind", res.Kind, "fields", len(res.Fields), "took", time.Since(start))
	return res, nil
}

// read runs one OCR reading and the rules over it.
func (s *Scanner) read(ctx context.Context, r Recognizer, img *image.Gray, v view, opts receipt.Options) (Result, ocr.Page, error) {
	page, err := r.Recognize(ctx, img, DPI)
	if err != nil && !errors.Is(err, ocr.ErrUnreadable) {
		return Result{}, page, err
	}
	if errors.Is(err, ocr.ErrUnreadable) {
		// Words under the page's floor are noise or a photo of no text:
		// nothing is read from them.
		return Result{Reading: receipt.Reading{Kind: receipt.Unknown}}, page, nil
	}
	lines := receipt.FromWords(page.Words, img.Rect.Dx(), img.Rect.Dy())
	reading := receipt.ReadLines(lines, opts)
	reading.Boxes = v.photoBoxes(reading.Boxes, img.Rect.Dx(), img.Rect.Dy())
	return Result{Reading: reading, Text: page.Text}, page, nil
}

// found: the reading has something to record (a total, a quantity).
func (r Result) found() bool {
	return r.Kind != receipt.Unknown
}

func hasHan(words []ocr.Word) bool {
	for _, w := range words {
		for _, c := range w.Text {
			if c >= 0x4e00 && c <= 0x9fff {
				return true
			}
		}
	}
	return false
}

// photoBoxes maps boxes (fractions of the straightened image, w x h) to
// fractions of the photo: each the smallest upright box holding the
// corners of the box turned back.
func (v view) photoBoxes(boxes map[string]receipt.Box, w, h int) map[string]receipt.Box {
	out := make(map[string]receipt.Box, len(boxes))
	for k, b := range boxes {
		if b.IsZero() {
			out[k] = b
			continue
		}
		x0, y0, x1, y1 := 1e18, 1e18, -1e18, -1e18
		for _, c := range [][2]float64{{b.X, b.Y}, {b.X + b.W, b.Y}, {b.X, b.Y + b.H}, {b.X + b.W, b.Y + b.H}} {
			x, y := v.toPhoto(c[0]*float64(w), c[1]*float64(h))
			x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
		}
		pw, ph := float64(v.width), float64(v.heigh)
		x0, y0 = max(0, x0)/pw, max(0, y0)/ph
		x1, y1 = min(pw, x1)/pw, min(ph, y1)/ph
		out[k] = receipt.Box{X: x0, Y: y0, W: max(0, x1-x0), H: max(0, y1-y0)}
	}
	return out
}
