package httpapi

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/pkg/ginx"
	"github.com/carhub/backend/services/docqa/internal/answer"
	"github.com/carhub/backend/services/docqa/internal/docqa"
	"github.com/carhub/backend/services/docqa/internal/pageview"
	"github.com/carhub/backend/services/docqa/internal/pdftext"
)

// Single pages of a document's kept original: GET
// /api/documents/:md5/pages/:n.png (an image of the page) and :n.pdf (a
// one-page PDF), prepared by internal/pageview. gin cannot put a suffix
// after a parameter, so one route takes "12.png" and "12.pdf" and the
// handler splits them.

// Defaults of the page routes (Config).
const (
	DefaultPageWidth  = 1000
	DefaultPageWait   = pageview.DefaultWait
	DefaultPageBudget = pageview.DefaultBudget
	// pageRetryAfter is what a client refused a page is told to wait.
	pageRetryAfter = 3 * time.Second
)

// PageEngine draws and reads single pages of a PDF (pdftext's Engine): the
// page routes' images and labels, and the lines of the chat's sources.
type PageEngine interface {
	pageview.Engine
	answer.Locator
}

// PageCache keeps rendered pages and cut PDFs (internal/pagecache).
type PageCache = pageview.Cache

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
	key := pageview.PNGKey(doc.FileMD5, n, width)
	if h.notModified(c, key) {
		return
	}
	data, err := h.pages.PNG(c.Request.Context(), doc.FileMD5, n, width)
	if err != nil {
		ginx.Fail(c, h.pageError(doc.FileMD5, n, err))
		return
	}
	h.servePage(c, key, "image/png", "", data)
}

func (h *handler) pagePDF(c *gin.Context, doc docqa.Document, n int) {
	key := pageview.PDFKey(doc.FileMD5, n)
	if h.notModified(c, key) {
		return
	}
	data, label, err := h.pages.PDF(c.Request.Context(), doc.FileMD5, n)
	if err != nil {
		ginx.Fail(c, h.pageError(doc.FileMD5, n, err))
		return
	}
	name := doc.DisplayTitle() + " p. " + label + ".pdf"
	h.servePage(c, key, "application/pdf", inlineDisposition(name), data)
}

// etagOf is the ETag of the page kept under key: the key names the
// document's bytes (its MD5), the page and how it was drawn, so it never
// changes while the document exists.
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

// pageError maps pageview's errors for page n.
func (h *handler) pageError(md5 string, n int, err error) error {
	switch {
	case errors.Is(err, pageview.ErrNoPage):
		return errPageNotFound(md5, strconv.Itoa(n), err)
	case errors.Is(err, pageview.ErrSlow):
		return &apperr.Error{Code: apperr.Unavailable, RetryAfter: pageRetryAfter,
			Message: fmt.Sprintf("the page took longer than %s to prepare; it is still being prepared: try again in a few seconds", h.cfg.PageBudget)}
	case errors.Is(err, pageview.ErrBusy):
		return &apperr.Error{Code: apperr.Unavailable, Err: err, RetryAfter: pageRetryAfter,
			Message: "too many pages are being prepared; try again in a few seconds"}
	case errors.Is(err, os.ErrNotExist):
		return notKept(md5, err)
	case errors.Is(err, pageview.ErrUnreadable):
		// The document was read at ingestion: this is the engine's
		// failure, logged in full, not the reader's.
		return apperr.Wrap(apperr.Internal, err, "page %d of document %s could not be prepared", n, md5)
	}
	return err
}
