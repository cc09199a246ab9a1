package httpapi

import (
	"context"
	"errors"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/pkg/ginx"
	"github.com/carhub/backend/services/fuel/internal/attach"
	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// MaxAttachmentBodyBytes is the largest upload request: one file of
// fuel.MaxAttachmentBytes and its multipart framing.
const MaxAttachmentBodyBytes = fuel.MaxAttachmentBytes + 64<<10

// attachmentResponse is an attachment as the API shows it.
type attachmentResponse struct {
	ID          uint64 `json:"id"`
	RecordType  string `json:"record_type"`
	RecordID    uint64 `json:"record_id"`
	FileName    string `json:"file_name"`
	ContentType string `json:"content_type"`
	Size        int64  `json:"size"`
	SHA256      string `json:"sha256"`
	CreatedAt   string `json:"created_at"`
	// URL is where the file is read; ThumbnailURL where its thumbnail is,
	// null for a file that has none (PDF, HEIC).
	URL          string  `json:"url"`
	ThumbnailURL *string `json:"thumbnail_url"`
}

// recordPaths are the API paths of the records that take attachments.
var recordPaths = map[fuel.RecordKind]string{
	fuel.RecordRefuel:  "/api/refuels",
	fuel.RecordExpense: "/api/expenses",
}

func toAttachmentResponse(a fuel.Attachment) attachmentResponse {
	url := recordPaths[a.Record.Kind] + "/" + strconv.FormatUint(a.Record.ID, 10) + "/attachments/" + strconv.FormatUint(a.ID, 10)
	out := attachmentResponse{
		ID: a.ID, RecordType: string(a.Record.Kind), RecordID: a.Record.ID,
		FileName: a.FileName, ContentType: a.ContentType, Size: a.Size, SHA256: a.SHA256,
		CreatedAt: formatTime(a.CreatedAt), URL: url,
	}
	if attach.HasThumbnail(a.ContentType) {
		t := url + "?variant=thumbnail"
		out.ThumbnailURL = &t
	}
	return out
}

// registerAttachments adds the attachment routes of every kind of record
// under r (the engine, for the upload's own body limit) and api (the
// /api group). authn authenticates.
func (a *API) registerAttachments(r gin.IRouter, api gin.IRouter, authn []gin.HandlerFunc) {
	for kind, path := range recordPaths {
		base := strings.TrimPrefix(path, "/api") + "/:id/attachments"
		r.POST(path+"/:id/attachments", append(authn, ginx.BodyLimit(MaxAttachmentBodyBytes), a.uploadAttachment(kind))...)
		api.GET(base, a.listAttachments(kind))
		api.GET(base+"/:aid", a.getAttachment(kind))
		api.DELETE(base+"/:aid", a.deleteAttachment(kind))
	}
}

// removeDeletedFiles, after a DELETE that succeeded (of an attachment, or
// of a record, vehicle or user whose attachments went with it), removes
// the files of the attachments that are gone. What it cannot remove now
// stays listed for the next time (and for the start-up purge).
func (a *API) removeDeletedFiles(c *gin.Context) {
	c.Next()
	if a.files == nil || c.Request.Method != http.MethodDelete || c.Writer.Status() >= 300 {
		return
	}
	ctx := context.WithoutCancel(c.Request.Context())
	if _, err := a.files.Purge(ctx, a.store); err != nil {
		a.log.WarnContext(ctx, "remove deleted attachment files", "err", err)
	}
}

// attachments answers UNAVAILABLE when the service runs without a file
// store (a test's API without Options.Files).
func (a *API) attachments() (*attach.Service, error) {
	if a.attach == nil {
		return nil, apperr.New(apperr.Unavailable, "attachments are not configured (FUEL_FILES_DIR)")
	}
	return a.attach, nil
}

func recordRef(c *gin.Context, kind fuel.RecordKind) (fuel.RecordRef, error) {
	id, err := pathID(c)
	return fuel.RecordRef{Kind: kind, ID: id}, err
}

// attachmentRef reads the record and the attachment (:aid) a path names.
func attachmentRef(c *gin.Context, kind fuel.RecordKind) (fuel.RecordRef, uint64, error) {
	ref, err := recordRef(c, kind)
	if err != nil {
		return ref, 0, err
	}
	aid, err := parseID("aid", c.Param("aid"))
	return ref, aid, err
}

func (a *API) listAttachments(kind fuel.RecordKind) gin.HandlerFunc {
	return func(c *gin.Context) {
		ref, err := recordRef(c, kind)
		if err != nil {
			ginx.Fail(c, err)
			return
		}
		as, err := a.store.Attachments(c.Request.Context(), ref)
		if err != nil {
			ginx.Fail(c, err)
			return
		}
		out := make([]attachmentResponse, len(as))
		for i, at := range as {
			out[i] = toAttachmentResponse(at)
		}
		c.JSON(http.StatusOK, out)
	}
}

func (a *API) deleteAttachment(kind fuel.RecordKind) gin.HandlerFunc {
	return func(c *gin.Context) {
		ref, aid, err := attachmentRef(c, kind)
		if err != nil {
			ginx.Fail(c, err)
			return
		}
		if err := a.store.DeleteAttachment(c.Request.Context(), ref, aid); err != nil {
			ginx.Fail(c, err)
			return
		}
		c.Status(http.StatusNoContent)
	}
}

// getAttachment serves the file, or with ?variant=thumbnail its
// thumbnail.
func (a *API) getAttachment(kind fuel.RecordKind) gin.HandlerFunc {
	return func(c *gin.Context) {
		ref, aid, err := attachmentRef(c, kind)
		if err != nil {
			ginx.Fail(c, err)
			return
		}
		thumbnail, err := attachmentVariant(c)
		if err != nil {
			ginx.Fail(c, err)
			return
		}
		svc, err := a.attachments()
		if err != nil {
			ginx.Fail(c, err)
			return
		}
		f, err := svc.Open(c.Request.Context(), ref, aid, thumbnail)
		if err != nil {
			ginx.Fail(c, err)
			return
		}
		defer f.Close()
		h := c.Writer.Header()
		h.Set("Content-Type", f.ContentType)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("ETag", `"`+f.ETag+`"`)
		// The bytes of an id never change: a client may keep them.
		h.Set("Cache-Control", "private, max-age=31536000, immutable")
		if cd := mime.FormatMediaType("inline", map[string]string{"filename": f.Attachment.FileName}); cd != "" {
			h.Set("Content-Disposition", cd)
		}
		http.ServeContent(c.Writer, c.Request, "", f.Attachment.CreatedAt, f)
	}
}

// attachmentVariant reads ?variant=: original (the default) or thumbnail.
func attachmentVariant(c *gin.Context) (thumbnail bool, err error) {
	vs, ok := c.Request.URL.Query()["variant"]
	switch {
	case !ok:
		return false, nil
	case len(vs) > 1:
		return false, apperr.Invalid("variant", "must be given at most once")
	case vs[0] == "original":
		return false, nil
	case vs[0] == "thumbnail":
		return true, nil
	}
	return false, apperr.Invalid("variant", "must be original or thumbnail")
}

// uploadAttachment stores the file of a multipart body (one part named
// file) with the record. With an Idempotency-Key, a repeat of the same
// file for the same record answers the first answer and keeps nothing.
func (a *API) uploadAttachment(kind fuel.RecordKind) gin.HandlerFunc {
	return func(c *gin.Context) {
		ctx := c.Request.Context()
		ref, err := recordRef(c, kind)
		if err != nil {
			ginx.Fail(c, err)
			return
		}
		key, _, err := idempotencyKey(c.Request.Header)
		if err != nil {
			ginx.Fail(c, err)
			return
		}
		svc, err := a.attachments()
		if err != nil {
			ginx.Fail(c, err)
			return
		}
		up, err := svc.Begin(ctx, ref, c.Request)
		if be := (*attach.BodyError)(nil); errors.As(err, &be) {
			err = bodyError(be.Err)
		}
		if err != nil {
			ginx.Fail(c, err)
			return
		}
		created := false
		defer func() {
			if !created {
				up.Discard(ctx)
			}
		}()
		created = a.answerCreate(c, key, up.RequestHash, func(ctx context.Context, st fuel.Store) (any, error) {
			at, err := up.Create(ctx, st)
			return toAttachmentResponse(at), err
		})
	}
}
