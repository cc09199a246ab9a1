package pdftext

import (
	"math"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/enums"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
)

// pageContent is what a page draws, from its page objects: how many there
// are, how many are paths, and how much of the page its images cover. It is
// read without drawing the page, so that a page without a text layer goes
// to OCR only when it holds something OCR could read (readable).
type pageContent struct {
	// objects counts the page's objects, those inside form XObjects
	// included; paths those of them that are paths.
	objects, paths int
	// images counts its image objects; imageCover is the sum of their
	// areas (a form XObject that holds an image counts with its own
	// bounds) over the page's, capped at 1: a scan is one image over the
	// whole page (1), or strips or layers of one (their sum).
	images     int
	imageCover float64
}

// Bounds of the walk through a page's objects: a real scanned page has a
// handful, a page of vector text or drawing some thousands; a hostile
// page's millions, or forms nested without end, stop there and the page
// counts as holding an image over the whole page (OCR decides, as before).
const (
	maxContentObjects = 100_000
	maxFormDepth      = 16
)

// What a page without a text layer must hold to be read by OCR
// (proto-docs/docqa-pdf-decisions.md, "Which pages OCR reads").
const (
	// minScanCover: the share of the page its images cover. A scan
	// covers the whole page (1.0); a scanned half sheet or a receipt on
	// an A4 page a third or more. Below it the images are a logo, an
	// icon or a photo with white around it, where OCR reads no word or
	// noise it reports unreadable.
	minScanCover = 0.25
	// minOutlinePaths: the paths of text drawn as outlines (a producer's
	// "convert text to curves", Ghostscript's -dNoOutputFonts): one path
	// a glyph, some 1 900 on a page of a manual, 31 on a title page of
	// three words. A blank page has none; a page of a rule, a frame or a
	// page number has a few.
	minOutlinePaths = 24
)

// readable reports whether a page that needs OCR by its text layer holds
// something OCR could read there: an image large enough to be a scan, or
// enough paths to be text drawn as outlines.
func (c pageContent) readable() bool {
	return c.imageCover >= minScanCover || c.paths >= minOutlinePaths
}

// readContent walks the objects of page index (PDFium has it loaded
// already when its text was just read: the engine keeps the last page
// open). An error leaves the answer "an image over the whole page", so
// that a page PDFium cannot walk is still read by OCR as before.
func readContent(inst pdfium.Pdfium, doc references.FPDF_DOCUMENT, index int) pageContent {
	page := requests.Page{ByIndex: &requests.PageByIndex{Document: doc, Index: index}}
	whole := pageContent{objects: 1, images: 1, imageCover: 1}
	size, err := inst.GetPageSize(&requests.GetPageSize{Page: page})
	if err != nil || size.Width <= 0 || size.Height <= 0 {
		return whole
	}
	n, err := inst.FPDFPage_CountObjects(&requests.FPDFPage_CountObjects{Page: page})
	if err != nil {
		return whole
	}
	w := contentWalk{inst: inst}
	for i := range n.Count {
		o, err := inst.FPDFPage_GetObject(&requests.FPDFPage_GetObject{Page: page, Index: i})
		if err != nil || !w.object(o.PageObject, 0) {
			return whole
		}
	}
	w.c.imageCover = math.Min(w.area/(size.Width*size.Height), 1)
	return w.c
}

type contentWalk struct {
	inst pdfium.Pdfium
	c    pageContent
	area float64 // points², of the images
}

// object adds o, drawn at form depth, to the walk; false when a bound was
// passed or PDFium failed on it.
func (w *contentWalk) object(o references.FPDF_PAGEOBJECT, depth int) bool {
	if w.c.objects++; w.c.objects > maxContentObjects {
		return false
	}
	t, err := w.inst.FPDFPageObj_GetType(&requests.FPDFPageObj_GetType{PageObject: o})
	if err != nil {
		return false
	}
	switch t.Type {
	case enums.FPDF_PAGEOBJ_PATH:
		w.c.paths++
	case enums.FPDF_PAGEOBJ_IMAGE:
		w.c.images++
		if depth == 0 {
			w.area += w.bounds(o)
		}
	case enums.FPDF_PAGEOBJ_FORM:
		if depth == maxFormDepth {
			return false
		}
		n, err := w.inst.FPDFFormObj_CountObjects(&requests.FPDFFormObj_CountObjects{PageObject: o})
		if err != nil {
			return false
		}
		images := w.c.images
		for i := range n.Count {
			in, err := w.inst.FPDFFormObj_GetObject(&requests.FPDFFormObj_GetObject{PageObject: o, Index: uint64(i)})
			if err != nil || !w.object(in.PageObject, depth+1) {
				return false
			}
		}
		// The bounds of objects inside a form are in the form's space:
		// the form's own bounds, on the page, stand for its images.
		if depth == 0 && w.c.images > images {
			w.area += w.bounds(o)
		}
	}
	return true
}

// bounds is the area of o's bounding box on the page, in points².
func (w *contentWalk) bounds(o references.FPDF_PAGEOBJECT) float64 {
	b, err := w.inst.FPDFPageObj_GetBounds(&requests.FPDFPageObj_GetBounds{PageObject: o})
	if err != nil {
		return 0
	}
	return math.Max(float64(b.Right-b.Left), 0) * math.Max(float64(b.Top-b.Bottom), 0)
}
