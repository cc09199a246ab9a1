package pdftext

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/klippa-app/go-pdfium"
	pdfiumerrors "github.com/klippa-app/go-pdfium/errors"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
)

// This file serves a stored document's single pages: an image of one page
// (Render), a page's printed label (PageLabel) and where passages of its
// text lie on it (Locate). These run on the engine's page instances
// (Config.PageInstances), apart from the extraction's, so a long ingestion
// never holds up a reader's page, nor a burst of page views an ingestion.

// Errors of the page methods.
var (
	// ErrPageRange: the document has no page of that number.
	ErrPageRange = errors.New("the document has no such page")
	// ErrBusy: every page instance stayed busy while the caller's context
	// allowed waiting.
	ErrBusy = errors.New("the PDF engine is busy with other pages")
)

// Bounds of Render.
const (
	MinRenderWidth = 200
	MaxRenderWidth = 2000
	// maxRenderAspect bounds a rendered page's height to this many times
	// its width: a page drawn as a thin strip (a hostile or odd file)
	// would otherwise ask for a bitmap of gigabytes. Such a page is fitted
	// into width x maxRenderAspect*width, narrower than asked.
	maxRenderAspect = 4
)

// Rect is an area of a page in coordinates normalised to the page as it is
// shown (its crop box, turned by its /Rotate): 0..1 each way, origin at the
// top left, Right > Left and Bottom > Top. Multiplied by a rendered image's
// width and height, it lands on the image's pixels.
type Rect struct {
	Left, Top, Right, Bottom float64
}

// Passage is text of one page (1-based) to find on it: a chunk as the
// splitter cut it from the page's extracted text.
type Passage struct {
	Page int
	Text string
}

// withDocument waits for a page instance (bounded by ctx: ErrBusy when it
// ends first), opens the document on it and calls fn. Once the instance is
// held, the work runs to its end whatever ctx does: PDFium cannot be
// stopped inside a page (see Extract), and a caller that stops waiting may
// still want the result (a render fills the cache). fn's errors pass
// through; PDFium's open errors and a panic in the binding become the
// package's classes.
func (e *Engine) withDocument(ctx context.Context, r io.ReaderAt, size int64,
	fn func(inst pdfium.Pdfium, doc references.FPDF_DOCUMENT, pages int) error) (err error) {
	if size <= 0 {
		return ErrEmpty
	}
	if err := e.Wait(ctx); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%w: the engine is still starting (%v)", ErrBusy, err)
		}
		return err
	}
	select {
	case <-e.closed:
		return ErrClosed
	case e.pageSlots <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("%w (%v)", ErrBusy, ctx.Err())
	}
	defer func() { <-e.pageSlots }()
	// The slot guarantees a free instance: the pool holds one per slot.
	inst, err := e.pool.GetInstanceWithContext(context.Background())
	if err != nil {
		return fmt.Errorf("PDF engine: %w", err)
	}
	defer func() { _ = inst.Close() }()
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: the PDF engine failed on it (%v)", ErrCorrupt, p)
		}
	}()
	doc, err := inst.OpenDocument(&requests.OpenDocument{
		FileReader:     io.NewSectionReader(r, 0, size),
		FileReaderSize: size,
	})
	switch {
	case errors.Is(err, pdfiumerrors.ErrPassword):
		return ErrPasswordRequired
	case err != nil:
		return fmt.Errorf("%w (%v)", ErrCorrupt, err)
	}
	defer func() {
		_, _ = inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: doc.Document})
	}()
	count, err := inst.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: doc.Document})
	if err != nil {
		return fmt.Errorf("%w (%v)", ErrCorrupt, err)
	}
	return fn(inst, doc.Document, count.PageCount)
}

// Render draws page (1-based) of the document width pixels wide (clamped
// to MinRenderWidth..MaxRenderWidth), its height in the page's proportion,
// on white. ctx bounds only the wait for a page instance (ErrBusy); a
// render that has begun runs to its end. Errors: ErrPageRange, ErrBusy,
// ErrCorrupt, ErrPasswordRequired, ErrClosed.
func (e *Engine) Render(ctx context.Context, r io.ReaderAt, size int64, page, width int) (*image.RGBA, error) {
	width = min(max(width, MinRenderWidth), MaxRenderWidth)
	var out *image.RGBA
	err := e.withDocument(ctx, r, size, func(inst pdfium.Pdfium, doc references.FPDF_DOCUMENT, pages int) error {
		if page < 1 || page > pages {
			return fmt.Errorf("%w: page %d of %d", ErrPageRange, page, pages)
		}
		res, err := inst.RenderPageInPixels(&requests.RenderPageInPixels{
			Page:   requests.Page{ByIndex: &requests.PageByIndex{Document: doc, Index: page - 1}},
			Width:  width,
			Height: maxRenderAspect * width,
			// Annotations (form fields, stamps, notes) are drawn as a
			// viewer draws them.
			RenderFlags: 0x01, // FPDF_ANNOT
		})
		if err != nil {
			return fmt.Errorf("%w: page %d could not be drawn (%v)", ErrCorrupt, page, err)
		}
		defer res.Cleanup()
		src, ok := res.Result.RenderedImage.(*image.RGBA)
		if !ok {
			return fmt.Errorf("%w: page %d: unexpected image type %T", ErrCorrupt, page, res.Result.RenderedImage)
		}
		// The pixels live in the instance's memory until Cleanup: copy
		// them out, onto white (a page with transparency comes on a
		// transparent background).
		out = image.NewRGBA(src.Bounds())
		if res.Result.HasTransparency {
			draw.Draw(out, out.Bounds(), image.White, image.Point{}, draw.Src)
			draw.Draw(out, out.Bounds(), src, src.Bounds().Min, draw.Over)
		} else {
			draw.Draw(out, out.Bounds(), src, src.Bounds().Min, draw.Src)
		}
		return nil
	})
	return out, err
}

// PageLabel returns the printed label of page (1-based) from the
// document's /PageLabels ("iii", "A-3"), "" when it has none, and the
// document's number of pages. ctx bounds the wait as for Render.
func (e *Engine) PageLabel(ctx context.Context, r io.ReaderAt, size int64, page int) (label string, pages int, err error) {
	err = e.withDocument(ctx, r, size, func(inst pdfium.Pdfium, doc references.FPDF_DOCUMENT, n int) error {
		pages = n
		if page < 1 || page > n {
			return fmt.Errorf("%w: page %d of %d", ErrPageRange, page, n)
		}
		label = pageLabel(inst, doc, page-1)
		return nil
	})
	return label, pages, err
}

// pageLabel is the label of page index, "" when the document has no
// /PageLabels or gives that page an empty one (go-pdfium answers both with
// an error, which is therefore not one here).
func pageLabel(inst pdfium.Pdfium, doc references.FPDF_DOCUMENT, index int) string {
	l, err := inst.FPDF_GetPageLabel(&requests.FPDF_GetPageLabel{Document: doc, Page: index})
	if err != nil {
		return ""
	}
	return oneLine(l.Label, maxLabelChars)
}

// maxLabelChars bounds a page label: a real one is a few characters.
const maxLabelChars = 40

// Locate finds each passage on its page and returns, for each, the areas
// its text covers there: one Rect per line (PDFium's character boxes,
// merged along each line), in reading order; nil for a passage that is not
// found (its page out of range, or text the page does not have, such as
// text that came from elsewhere than the page's own). ctx bounds the wait
// as for Render.
func (e *Engine) Locate(ctx context.Context, r io.ReaderAt, size int64, passages []Passage) ([][]Rect, error) {
	out := make([][]Rect, len(passages))
	err := e.withDocument(ctx, r, size, func(inst pdfium.Pdfium, doc references.FPDF_DOCUMENT, pages int) error {
		byPage := map[int][]int{}
		for i, p := range passages {
			if p.Page >= 1 && p.Page <= pages && strings.TrimSpace(p.Text) != "" {
				byPage[p.Page] = append(byPage[p.Page], i)
			}
		}
		for page, idx := range byPage {
			texts := make([]string, len(idx))
			for k, i := range idx {
				texts[k] = passages[i].Text
			}
			rects, err := locateOnPage(inst, doc, page-1, texts)
			if err != nil {
				return err
			}
			for k, i := range idx {
				out[i] = rects[k]
			}
		}
		return nil
	})
	return out, err
}

// locateOnPage returns the line rectangles of each of texts on page index.
// A text is looked for in the page's text as Extract gives it (buildText) and
// mapped back to PDFium's characters; a text found nowhere gets nil.
func locateOnPage(inst pdfium.Pdfium, doc references.FPDF_DOCUMENT, index int, texts []string) ([][]Rect, error) {
	out := make([][]Rect, len(texts))
	tp, err := inst.FPDFText_LoadPage(&requests.FPDFText_LoadPage{
		Page: requests.Page{ByIndex: &requests.PageByIndex{Document: doc, Index: index}},
	})
	if err != nil {
		return out, nil // a page without a text layer has no passage on it
	}
	defer func() { _, _ = inst.FPDFText_ClosePage(&requests.FPDFText_ClosePage{TextPage: tp.TextPage}) }()
	n, err := inst.FPDFText_CountChars(&requests.FPDFText_CountChars{TextPage: tp.TextPage})
	if err != nil || n.Count <= 0 {
		return out, nil
	}
	gs, measured, err := readGlyphs(inst, tp.TextPage, n.Count)
	if err != nil {
		return nil, fmt.Errorf("%w: page %d text (%v)", ErrCorrupt, index+1, err)
	}
	text, at := buildText(gs, measured)
	toPage, err := pageTransform(inst, doc, index)
	if err != nil {
		return nil, err
	}
	from := 0
	for k, t := range texts {
		t = strings.TrimSpace(t)
		// Chunks come in page order: look after the previous one first,
		// then anywhere (a passage given alone, or out of order).
		pos := strings.Index(text[from:], t)
		if pos >= 0 {
			pos += from
		} else if pos = strings.Index(text, t); pos < 0 {
			continue
		}
		from = pos + len(t)
		// PDFium's characters the passage's bytes came from (an accent
		// moved after its letter comes from before it).
		c0, c1 := slices.Min(at[pos:from]), slices.Max(at[pos:from])
		cr, err := inst.FPDFText_CountRects(&requests.FPDFText_CountRects{TextPage: tp.TextPage, StartIndex: c0, Count: c1 - c0 + 1})
		if err != nil {
			return nil, fmt.Errorf("%w: page %d (%v)", ErrCorrupt, index+1, err)
		}
		rects := make([]Rect, 0, cr.Count)
		for i := range cr.Count {
			g, err := inst.FPDFText_GetRect(&requests.FPDFText_GetRect{TextPage: tp.TextPage, Index: i})
			if err != nil {
				return nil, fmt.Errorf("%w: page %d (%v)", ErrCorrupt, index+1, err)
			}
			rects = append(rects, toPage.rect(g.Left, g.Top, g.Right, g.Bottom))
		}
		out[k] = mergeLines(rects)
	}
	return out, nil
}

// transform maps PDF user space of one page onto the page as shown,
// normalised to 0..1 with the origin at the top left.
type transform struct{ x0, y0, xx, xy, yx, yy float64 }

// deviceSize is the square PDFium maps the page onto to read its
// transform: large, so that its whole-pixel answers are precise.
const deviceSize = 1 << 20

// pageTransform reads the page's transform from FPDF_PageToDevice at three
// points (it accounts for the crop box and /Rotate): the map is affine.
func pageTransform(inst pdfium.Pdfium, doc references.FPDF_DOCUMENT, index int) (transform, error) {
	const unit = 1000.0
	var pts [3][2]float64
	for i, p := range [3][2]float64{{0, 0}, {unit, 0}, {0, unit}} {
		d, err := inst.FPDF_PageToDevice(&requests.FPDF_PageToDevice{
			Page:  requests.Page{ByIndex: &requests.PageByIndex{Document: doc, Index: index}},
			SizeX: deviceSize, SizeY: deviceSize, PageX: p[0], PageY: p[1],
		})
		if err != nil {
			return transform{}, fmt.Errorf("%w: page %d geometry (%v)", ErrCorrupt, index+1, err)
		}
		pts[i] = [2]float64{float64(d.DeviceX) / deviceSize, float64(d.DeviceY) / deviceSize}
	}
	return transform{
		x0: pts[0][0], y0: pts[0][1],
		xx: (pts[1][0] - pts[0][0]) / unit, xy: (pts[1][1] - pts[0][1]) / unit,
		yx: (pts[2][0] - pts[0][0]) / unit, yy: (pts[2][1] - pts[0][1]) / unit,
	}, nil
}

// rect maps a rectangle of user space to a normalised Rect, clamped to the
// page.
func (t transform) rect(left, top, right, bottom float64) Rect {
	xs, ys := make([]float64, 0, 4), make([]float64, 0, 4)
	for _, p := range [4][2]float64{{left, top}, {right, top}, {left, bottom}, {right, bottom}} {
		xs = append(xs, t.x0+p[0]*t.xx+p[1]*t.yx)
		ys = append(ys, t.y0+p[0]*t.xy+p[1]*t.yy)
	}
	clamp := func(v float64) float64 { return math.Min(math.Max(v, 0), 1) }
	return Rect{Left: clamp(slices.Min(xs)), Top: clamp(slices.Min(ys)), Right: clamp(slices.Max(xs)), Bottom: clamp(slices.Max(ys))}
}

// mergeLines merges PDFium's rectangles (one per run of characters of one
// font and baseline) into one per line: a rectangle joins the line before
// it when they sit on one line (sameLine). Empty rectangles are dropped; the order is kept.
func mergeLines(rects []Rect) []Rect {
	var out []Rect
	for _, r := range rects {
		if r.Right <= r.Left || r.Bottom <= r.Top {
			continue
		}
		if n := len(out); n > 0 && sameLine(out[n-1], r) {
			l := &out[n-1]
			l.Left, l.Top = math.Min(l.Left, r.Left), math.Min(l.Top, r.Top)
			l.Right, l.Bottom = math.Max(l.Right, r.Right), math.Max(l.Bottom, r.Bottom)
			continue
		}
		out = append(out, r)
	}
	return out
}

// sameLine: b continues a's line, overlapping it vertically by half the
// smaller height at least, and starting no further than three line heights
// to its right (a column beside it is another line).
func sameLine(a, b Rect) bool {
	h := math.Min(a.Bottom-a.Top, b.Bottom-b.Top)
	overlap := math.Min(a.Bottom, b.Bottom) - math.Max(a.Top, b.Top)
	gap := math.Max(b.Left-a.Right, a.Left-b.Right)
	return overlap >= 0.5*h && gap <= 3*h
}
