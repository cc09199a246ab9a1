package httpapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/pkg/ginx"
	"github.com/carhub/backend/services/docqa/internal/docqa"
	"github.com/carhub/backend/services/docqa/internal/pagecut"
	"github.com/carhub/backend/services/docqa/internal/pdftext"
)

// Single pages of a document's kept original: GET
// /api/documents/:md5/pages/:n.png (an image of the page) and :n.pdf (a
// one-page PDF). gin cannot put a suffix after a parameter, so one route
// takes "12.png" and "12.pdf" and the handler splits them.

// Defaults of the page routes (Config).
const (
	DefaultPageWidth = 1000
	// DefaultPageWait is how long a page waits for the engine's page
	// instances before 503 with Retry-After.
	DefaultPageWait = 5 * time.Second
	// DefaultPageBudget bounds a whole render or cut; past it the answer
	// is 503 while the work finishes and fills the cache for the retry.
	DefaultPageBudget = 20 * time.Second
	// pageRetryAfter is what a client refused a page is told to wait.
	pageRetryAfter = 3 * time.Second
	// renderVersion is in every page's ETag and cache key: a change to
	// how pages are drawn or encoded changes it, so that no client or
	// cache keeps an image of the old kind.
	renderVersion = "r1"
)

// PageEngine draws and reads single pages of a PDF (pdftext's Engine).
type PageEngine interface {
	Render(ctx context.Context, r io.ReaderAt, size int64, page, width int) (*image.RGBA, error)
	PageLabel(ctx context.Context, r io.ReaderAt, size int64, page int) (label string, pages int, err error)
	Locate(ctx context.Context, r io.ReaderAt, size int64, passages []pdftext.Passage) ([][]pdftext.Rect, error)
}

// PageCache keeps rendered pages and cut PDFs (internal/pagecache).
type PageCache interface {
	Get(key string) ([]byte, bool)
	Put(key string, data []byte) error
	RemovePrefix(prefix string)
}

// noCache stands for a PageCache when none is configured.
type noCache struct{}

func (noCache) Get(string) ([]byte, bool) { return nil, false }
func (noCache) Put(string, []byte) error  { return nil }
func (noCache) RemovePrefix(string)       {}

// errPageNotFound is the 404 of a page the document does not have.
func errPageNotFound(md5, n string, err error) error {
	return apperr.Wrap(apperr.NotFound, err, "document %s has no page %s", md5, n)
}

// pageParam splits ":n.ext": the page number (1-based) and the extension.
// A number that is not one is 400 naming n; 0 (and anything past the last
// page) is a page the document does not have: 404, as for any missing
// resource.
func pageParam(c *gin.Context, md5 string) (int, string, error) {
	raw := c.Param("page")
	dot := strings.LastIndexByte(raw, '.')
	if dot < 0 {
		return 0, "", apperr.New(apperr.NotFound, "no such resource: pages are served as N.png or N.pdf")
	}
	num, ext := raw[:dot], raw[dot+1:]
	if ext != "png" && ext != "pdf" {
		return 0, "", apperr.New(apperr.NotFound, "no such resource: pages are served as N.png or N.pdf")
	}
	n, err := strconv.Atoi(num)
	if err != nil || strings.HasPrefix(num, "+") {
		return 0, "", apperr.Invalid("n", "must be a page number (1 for the first page)")
	}
	if n < 1 {
		return 0, "", errPageNotFound(md5, num, nil)
	}
	return n, ext, nil
}

// widthParam is ?width=, DefaultPageWidth when absent; 400 naming width
// outside MinRenderWidth..MaxRenderWidth.
func widthParam(c *gin.Context) (int, error) {
	raw, ok := c.GetQuery("width")
	if !ok {
		return DefaultPageWidth, nil
	}
	w, err := strconv.Atoi(raw)
	if err != nil || w < pdftext.MinRenderWidth || w > pdftext.MaxRenderWidth {
		return 0, apperr.Invalid("width", "must be a whole number of pixels from %d to %d", pdftext.MinRenderWidth, pdftext.MaxRenderWidth)
	}
	return w, nil
}

// readableDocument is the document :md5 names if the caller may read it
// (404 otherwise, as GET /file answers), with its kept original's path
// checked to exist (404 when it was not kept).
func (h *handler) readableDocument(c *gin.Context) (docqa.Document, error) {
	md5, err := md5Param(c)
	if err != nil {
		return docqa.Document{}, err
	}
	doc, err := h.cfg.Store.Document(c.Request.Context(), md5)
	if errors.Is(err, docqa.ErrNotFound) {
		err = apperr.Wrap(apperr.NotFound, err, "document %s not found", md5)
	}
	if err != nil {
		return docqa.Document{}, err
	}
	if h.cfg.Originals == nil || h.cfg.Pages == nil {
		return docqa.Document{}, notKept(md5, nil)
	}
	f, err := h.cfg.Originals.Open(md5)
	if errors.Is(err, os.ErrNotExist) {
		return docqa.Document{}, notKept(md5, err)
	}
	if err != nil {
		return docqa.Document{}, err
	}
	f.Close()
	return doc, nil
}

// page answers GET /api/documents/:md5/pages/:n.png and :n.pdf.
func (h *handler) page(c *gin.Context) {
	doc, err := h.readableDocument(c)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	n, ext, err := pageParam(c, doc.FileMD5)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	if ext == "png" {
		h.pagePNG(c, doc, n)
		return
	}
	h.pagePDF(c, doc, n)
}

func (h *handler) pagePNG(c *gin.Context, doc docqa.Document, n int) {
	width, err := widthParam(c)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	key := fmt.Sprintf("%s-%d-w%d-%s.png", doc.FileMD5, n, width, renderVersion)
	if h.notModified(c, key) {
		return
	}
	data, err := h.produce(c.Request.Context(), key, func(wait context.Context, f *os.File, size int64) ([]byte, error) {
		img, err := h.cfg.Pages.Render(wait, f, size, n, width)
		if err != nil {
			return nil, err
		}
		return encodePNG(img)
	})
	if err != nil {
		ginx.Fail(c, h.pageError(doc.FileMD5, n, err))
		return
	}
	h.servePage(c, key, "image/png", "", data)
}

func (h *handler) pagePDF(c *gin.Context, doc docqa.Document, n int) {
	key := fmt.Sprintf("%s-%d.pdf", doc.FileMD5, n)
	if h.notModified(c, key) {
		return
	}
	// The label names the file; reading it (PDFium) is far cheaper than
	// the cut, and answers a page out of range before any cut.
	data, err := h.produce(c.Request.Context(), key+".label", func(wait context.Context, f *os.File, size int64) ([]byte, error) {
		l, _, err := h.cfg.Pages.PageLabel(wait, f, size, n)
		return []byte(l), err
	})
	if err != nil {
		ginx.Fail(c, h.pageError(doc.FileMD5, n, err))
		return
	}
	label := string(data)
	if label == "" {
		label = strconv.Itoa(n)
	}
	data, err = h.produce(c.Request.Context(), key, func(wait context.Context, f *os.File, size int64) ([]byte, error) {
		select {
		case h.cuts <- struct{}{}:
		case <-wait.Done():
			return nil, fmt.Errorf("%w (%v)", pdftext.ErrBusy, wait.Err())
		}
		defer func() { <-h.cuts }()
		out, _, err := pagecut.Cut(f, n)
		return out, err
	})
	if err != nil {
		ginx.Fail(c, h.pageError(doc.FileMD5, n, err))
		return
	}
	name := fmt.Sprintf("%s p. %s.pdf", doc.DisplayTitle(), label)
	h.servePage(c, key, "application/pdf", inlineDisposition(name), data)
}

// etagOf is the ETag of the page kept under key: the key names the
// document's bytes (its MD5), the page, the width and renderVersion, so
// it never changes while the document exists.
func etagOf(key string) string { return `"` + key + `"` }

// notModified answers 304 when If-None-Match names the page's ETag.
func (h *handler) notModified(c *gin.Context, key string) bool {
	inm := c.GetHeader("If-None-Match")
	if inm == "" {
		return false
	}
	etag := etagOf(key)
	for _, t := range strings.Split(inm, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == etag || t == "*" {
			h.pageHeaders(c, key)
			c.Status(http.StatusNotModified)
			return true
		}
	}
	return false
}

func (h *handler) pageHeaders(c *gin.Context, key string) {
	hdr := c.Writer.Header()
	hdr.Set("ETag", etagOf(key))
	// Private: the page is the reader's document. Revalidated each time
	// (a cheap 304), so that a deleted document's pages stop being shown,
	// as its original does.
	hdr.Set("Cache-Control", "private, no-cache")
	hdr.Set("X-Content-Type-Options", "nosniff")
}

func (h *handler) servePage(c *gin.Context, key, contentType, disposition string, data []byte) {
	h.pageHeaders(c, key)
	if disposition != "" {
		c.Header("Content-Disposition", disposition)
	}
	c.Data(http.StatusOK, contentType, data)
}

// produce answers the bytes cached under key, or makes them with fn (once
// for concurrent requests of one key) and caches them. fn opens nothing
// itself: it gets the original, and a context that bounds only its wait
// for a free engine (PageWait). The work runs apart from the request: past
// PageBudget, or when the client goes, the request stops waiting but the
// work finishes and fills the cache, and the work holds its engine slot
// meanwhile, so the bound on concurrent work holds.
func (h *handler) produce(ctx context.Context, key string, fn func(wait context.Context, f *os.File, size int64) ([]byte, error)) ([]byte, error) {
	if data, ok := h.cfg.PageCache.Get(key); ok {
		return data, nil
	}
	md5, _, _ := strings.Cut(key, "-")
	ch := h.flight.DoChan(key, func() (any, error) {
		f, err := h.cfg.Originals.Open(md5)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return nil, err
		}
		wait, cancel := context.WithTimeout(context.Background(), h.cfg.PageWait)
		defer cancel()
		start := time.Now()
		data, err := fn(wait, f, st.Size())
		if err != nil {
			return nil, err
		}
		if err := h.cfg.PageCache.Put(key, data); err != nil {
			h.log.Warn("page not cached", "key", key, "err", err)
		}
		h.log.Debug("page produced", "key", key, "bytes", len(data), "ms", time.Since(start).Milliseconds())
		return data, nil
	})
	timer := time.NewTimer(h.cfg.PageBudget)
	defer timer.Stop()
	select {
	case r := <-ch:
		if r.Err != nil {
			return nil, r.Err
		}
		return r.Val.([]byte), nil
	case <-timer.C:
		return nil, &apperr.Error{Code: apperr.Unavailable, RetryAfter: pageRetryAfter,
			Message: fmt.Sprintf("the page took longer than %s to prepare; it is still being prepared: try again in a few seconds", h.cfg.PageBudget)}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// pageError maps the errors of rendering, labelling and cutting page n.
func (h *handler) pageError(md5 string, n int, err error) error {
	var ae *apperr.Error
	switch {
	case errors.As(err, &ae):
		return err
	case errors.Is(err, pdftext.ErrPageRange), errors.Is(err, pagecut.ErrPageRange):
		return errPageNotFound(md5, strconv.Itoa(n), err)
	case errors.Is(err, pdftext.ErrBusy):
		return &apperr.Error{Code: apperr.Unavailable, Err: err, RetryAfter: pageRetryAfter,
			Message: "too many pages are being prepared; try again in a few seconds"}
	case errors.Is(err, os.ErrNotExist):
		return notKept(md5, err)
	case errors.Is(err, pdftext.ErrCorrupt), errors.Is(err, pagecut.ErrUnreadable):
		// The document was read at ingestion: this is the engine's
		// failure, logged in full, not the reader's.
		return apperr.Wrap(apperr.Internal, err, "page %d of document %s could not be prepared", n, md5)
	}
	return err
}

// encodePNG writes img as a PNG: as 8-bit gray when every pixel is gray
// (most pages of a manual: a third of the bytes of RGB), else as RGB (the
// image is opaque, so image/png leaves the alpha channel out), at
// BestSpeed (see proto-docs/docqa-decisions.md for what was measured).
func encodePNG(img *image.RGBA) ([]byte, error) {
	var src image.Image = img
	if gray, ok := toGray(img); ok {
		src = gray
	}
	var b bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&b, src); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// toGray returns img as *image.Gray when all its pixels are gray.
func toGray(img *image.RGBA) (*image.Gray, bool) {
	b := img.Bounds()
	gray := image.NewGray(b)
	w := b.Dx()
	for y := range b.Dy() {
		row := img.Pix[y*img.Stride : y*img.Stride+4*w]
		out := gray.Pix[y*gray.Stride : y*gray.Stride+w]
		for x := range w {
			p := row[4*x : 4*x+4]
			if p[0] != p[1] || p[1] != p[2] {
				return nil, false
			}
			out[x] = p[0]
		}
	}
	return gray, true
}
