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

// admitAndReceive reserves the upload's place in the ingestion queue (503
// with Retry-After when it is full, before a byte of the body is read), then
// receives the body. The caller releases the ticket and closes the upload.
func (h *handler) admitAndReceive(c *gin.Context) (*ingest.Ticket, *ingest.Upload, error) {
	t, err := h.cfg.Pipeline.Admit()
	if err != nil {
		c.Header("Connection", "close") // the unread body is not drained
		return nil, nil, err
	}
	up, err := h.receive(c)
	if err != nil {
		t.Release()
		return nil, nil, err
	}
	return t, up, nil
}

func (h *handler) upload(c *gin.Context) {
	t, up, err := h.admitAndReceive(c)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	defer t.Release()
	defer up.Close()
	res, err := h.cfg.Pipeline.Process(c.Request.Context(), t, up, nil)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	c.JSON(http.StatusOK, res)
}

// uploadStream answers progress events while the upload is ingested; errors
// seen while admitting and receiving the body are plain JSON answers.
func (h *handler) uploadStream(c *gin.Context) {
	ctx := c.Request.Context()
	t, up, err := h.admitAndReceive(c)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	defer t.Release()
	defer up.Close()

	w := sse.New(c.Writer)
	stop := w.Heartbeat(h.cfg.Heartbeat)
	defer stop()
	res, err := h.cfg.Pipeline.Process(ctx, t, up, func(p ingest.Progress) {
		_ = w.Event("progress", p)
	})
	stop()
	if err != nil {
		h.streamError(c, w, err)
		return
	}
	_ = w.Event("done", res)
}

// streamError ends a stream with an error event mapped by errorOf; internal
// causes are logged and answered generically, as ginx does for JSON
// answers. A client that went away gets nothing and is logged at INFO.
func (h *handler) streamError(c *gin.Context, w *sse.Writer, err error) {
	ctx := c.Request.Context()
	if ginx.ClientGone(ctx) {
		h.log.InfoContext(ctx, "client went away during the stream", "err", err)
		return
	}
	e := apperr.From(errorOf(err))
	if e.Code == apperr.Internal || e.Code == apperr.ClientClosed {
		e = &apperr.Error{Code: apperr.Internal, Err: err}
		h.log.ErrorContext(ctx, "stream failed", "err", err)
	} else {
		h.log.WarnContext(ctx, "stream failed", "code", e.Code, "err", err)
	}
	_, body := apperr.BodyOf(e)
	_ = w.Event("error", body)
}

// importView is the answer of POST /api/documents/import.
type importView struct {
	Documents []ingest.Result   `json:"documents"`
	Failed    []importedFailure `json:"failed"`
}

type importedFailure struct {
	FileName string      `json:"fileName"` // path relative to the data directory, slash-separated
	Code     apperr.Code `json:"code"`
	Message  string      `json:"message"`
}

func (h *handler) importDocuments(c *gin.Context) {
	ctx := c.Request.Context()
	t, err := h.cfg.Pipeline.Admit()
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	defer t.Release()
	res, err := h.cfg.Pipeline.Import(ctx, t)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	out := importView{Documents: res.Documents, Failed: make([]importedFailure, len(res.Failed))}
	for i, f := range res.Failed {
		e := apperr.From(errorOf(f.Err))
		if e.Code == apperr.Internal {
			h.log.ErrorContext(ctx, "import failed", "file", f.FileName, "err", f.Err)
		}
		_, body := apperr.BodyOf(e)
		out.Failed[i] = importedFailure{FileName: f.FileName, Code: body.Code, Message: body.Message}
	}
	c.JSON(http.StatusOK, out)
}

func (h *handler) listDocuments(c *gin.Context) {
	docs, err := h.cfg.Store.Documents(c.Request.Context())
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	out := make([]ingest.Result, len(docs)) // never null: an empty store lists []
	for i, d := range docs {
		out[i] = ingest.Result{Document: d}
	}
	c.JSON(http.StatusOK, out)
}

var md5Pattern = regexp.MustCompile(`^[0-9a-fA-F]{32}$`)

// md5Param is the path's document id in lower case: 32 hexadecimal
// characters of either case, anything else 400 naming md5.
func md5Param(c *gin.Context) (string, error) {
	md5 := c.Param("md5")
	if !md5Pattern.MatchString(md5) {
		return "", apperr.Invalid("md5", "must be 32 hexadecimal characters")
	}
	return strings.ToLower(md5), nil
}

// deleteDocument removes the document's chunks and its kept original.
func (h *handler) deleteDocument(c *gin.Context) {
	md5, err := md5Param(c)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	err = h.cfg.Pipeline.Delete(c.Request.Context(), md5)
	if errors.Is(err, docqa.ErrNotFound) {
		err = apperr.Wrap(apperr.NotFound, err, "document %s not found", md5)
	}
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	// The pages drawn from the original go with it.
	if h.pages != nil {
		h.pages.Forget(md5)
	}
	c.Status(http.StatusNoContent)
}
