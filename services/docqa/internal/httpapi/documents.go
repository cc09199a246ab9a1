package httpapi

import (
	"errors"
	"io"
	"net/http"
	"regexp"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/pkg/ginx"
	"github.com/carhub/backend/pkg/httpserver"
	"github.com/carhub/backend/pkg/sse"
	"github.com/carhub/backend/services/docqa/internal/docqa"
	"github.com/carhub/backend/services/docqa/internal/ingest"
)

// receive reads the multipart request as a stream: the part named "file" goes
// straight into the pipeline's temporary file, other parts are skipped, and
// a second "file" part is refused. The whole body is read before anything
// is ingested, so every validation error is known before a stream begins.
func (h *handler) receive(c *gin.Context) (*ingest.Upload, error) {
	done := httpserver.StallTimeout(c.Writer, c.Request, h.cfg.UploadStallTimeout)
	defer done()
	mr, err := c.Request.MultipartReader()
	if err != nil {
		return nil, apperr.Invalid("file", "the request must be multipart/form-data with the PDF in a part named file")
	}
	var up *ingest.Upload
	fail := func(err error) (*ingest.Upload, error) {
		if up != nil {
			_ = up.Close()
		}
		return nil, err
	}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fail(bodyError(err))
		}
		if part.FormName() != "file" {
			if _, err := io.Copy(io.Discard, part); err != nil {
				return fail(bodyError(err))
			}
			continue
		}
		if up != nil {
			return fail(apperr.Invalid("file", "more than one file part: send exactly one PDF"))
		}
		up, err = h.cfg.Pipeline.Receive(part, part.FileName())
		if err != nil {
			return fail(err)
		}
	}
	if up == nil {
		return nil, apperr.Invalid("file", "missing: send the PDF in a multipart part named file")
	}
	return up, nil
}

// bodyError classifies a failure to read the multipart body.
func bodyError(err error) error {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return ginx.TooLarge(tooLarge.Limit)
	}
	return apperr.Wrap(apperr.InvalidArgument, err, "file: the multipart body is malformed")
}

func (h *handler) upload(c *gin.Context) {
	up, err := h.receive(c)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	defer up.Close()
	res, err := h.cfg.Pipeline.Process(c.Request.Context(), up, nil)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	c.JSON(http.StatusOK, res)
}

// uploadStream answers progress events while the upload is ingested; errors
// seen while receiving the body are plain JSON answers.
func (h *handler) uploadStream(c *gin.Context) {
	ctx := c.Request.Context()
	up, err := h.receive(c)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	defer up.Close()

	w := sse.New(c.Writer)
	stop := w.Heartbeat(h.cfg.Heartbeat)
	defer stop()
	res, err := h.cfg.Pipeline.Process(ctx, up, func(p ingest.Progress) {
		_ = w.Event("progress", p)
	})
	stop()
	if err != nil {
		h.streamError(c, w, err)
		return
	}
	_ = w.Event("done", res)
}

// streamError ends a stream with an error event; internal causes are logged
// and answered generically, as ginx.Fail does for JSON answers.
func (h *handler) streamError(c *gin.Context, w *sse.Writer, err error) {
	ctx := c.Request.Context()
	e := apperr.From(err)
	if e.Code == apperr.Internal {
		h.log.ErrorContext(ctx, "stream failed", "err", err)
	} else {
		h.log.WarnContext(ctx, "stream failed", "code", e.Code, "err", err)
	}
	_, body := apperr.BodyOf(err)
	_ = w.Event("error", body)
}

func (h *handler) importDocuments(c *gin.Context) {
	res, err := h.cfg.Pipeline.Import(c.Request.Context())
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	c.JSON(http.StatusOK, res)
}

func (h *handler) listDocuments(c *gin.Context) {
	docs, err := h.cfg.Store.Documents(c.Request.Context())
	if err != nil {
		ginx.Fail(c, storeError(err))
		return
	}
	out := make([]ingest.Result, len(docs)) // never null: an empty store lists []
	for i, d := range docs {
		out[i] = ingest.Result{Document: d}
	}
	c.JSON(http.StatusOK, out)
}

var md5Pattern = regexp.MustCompile(`^[0-9a-fA-F]{32}$`)

func (h *handler) deleteDocument(c *gin.Context) {
	md5 := c.Param("md5")
	if !md5Pattern.MatchString(md5) {
		ginx.Fail(c, apperr.Invalid("md5", "must be 32 hexadecimal characters"))
		return
	}
	err := h.cfg.Store.Delete(c.Request.Context(), strings.ToLower(md5))
	if errors.Is(err, docqa.ErrNotFound) {
		ginx.Fail(c, apperr.New(apperr.NotFound, "document %s not found", strings.ToLower(md5)))
		return
	}
	if err != nil {
		ginx.Fail(c, storeError(err))
		return
	}
	c.Status(http.StatusNoContent)
}

// storeError maps a vector store failure to the contract's codes.
func storeError(err error) error {
	if errors.Is(err, docqa.ErrUnavailable) {
		return apperr.Wrap(apperr.Unavailable, err, "the vector store is unavailable")
	}
	return err
}
