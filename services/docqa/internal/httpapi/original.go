package httpapi

import (
	"errors"
	"io/fs"
	"mime"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/pkg/ginx"
	"github.com/carhub/backend/services/docqa/internal/docqa"
)

// documentFile answers a document's original PDF for the browser's own
// viewer ("manual.pdf, p. 12" links open it at a page): inline, under the
// name it was uploaded with. http.ServeContent does ranges, If-Range,
// conditional requests and HEAD; the ETag is the MD5, which names the
// bytes, so it never changes while the document exists.
func (h *handler) documentFile(c *gin.Context) {
	ctx := c.Request.Context()
	md5, err := md5Param(c)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	doc, err := h.cfg.Store.Document(ctx, md5)
	if errors.Is(err, docqa.ErrNotFound) {
		err = apperr.Wrap(apperr.NotFound, err, "document %s not found", md5)
	}
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	if h.cfg.Originals == nil {
		ginx.Fail(c, notKept(md5, nil))
		return
	}
	f, err := h.cfg.Originals.Open(md5)
	if errors.Is(err, fs.ErrNotExist) {
		err = notKept(md5, err)
	}
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	defer f.Close()

	hdr := c.Writer.Header()
	hdr.Set("Content-Type", "application/pdf")
	hdr.Set("Content-Disposition", inlineDisposition(doc.FileName))
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("ETag", `"`+md5+`"`)
	// Revalidate every time (a cheap 304): a deleted document must not
	// stay readable from a cache.
	hdr.Set("Cache-Control", "private, no-cache")
	http.ServeContent(c.Writer, c.Request, "", doc.CreatedAt, f)
}

// notKept is the 404 of a document stored without its original: one
// uploaded before the service kept originals.
func notKept(md5 string, err error) error {
	if err == nil {
		err = errors.New("originals are not kept")
	}
	return apperr.Wrap(apperr.NotFound, err,
		"document %s: its original file was not kept (it was stored before the service kept originals); "+
			"upload the same file again to keep it", md5)
}

// inlineDisposition is "inline" with the file name as RFC 6266 wants it:
// a token or quoted string when it is ASCII, RFC 5987's percent-encoded
// UTF-8 filename* otherwise (mime.FormatMediaType chooses; it fails only
// for a malformed type or parameter name, and these are constants).
func inlineDisposition(fileName string) string {
	return mime.FormatMediaType("inline", map[string]string{"filename": fileName})
}
