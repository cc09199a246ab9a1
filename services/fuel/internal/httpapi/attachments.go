package httpapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/pkg/ginx"
	"github.com/carhub/backend/services/fuel/internal/filestore"
	"github.com/carhub/backend/services/fuel/internal/fuel"
	"github.com/carhub/backend/services/fuel/internal/media"
)

// MaxAttachmentBodyBytes is the largest upload request: one file of
// fuel.MaxAttachmentBytes and its multipart framing.
const MaxAttachmentBodyBytes = fuel.MaxAttachmentBytes + 64<<10

// thumbnailVariant is the file store's name of an attachment's thumbnail.
const thumbnailVariant = "thumb"

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
	if hasThumbnail(a.ContentType) {
		t := url + "?variant=thumbnail"
		out.ThumbnailURL = &t
	}
	return out
}

// hasThumbnail reports whether files of type ct get a thumbnail: the
// images this service decodes.
func hasThumbnail(ct string) bool { return ct == media.JPEG || ct == media.PNG || ct == media.WebP }

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

// files answers UNAVAILABLE when the service runs without a file store
// (a test's API without Options.Files).
func (a *API) fileStore() (*filestore.Store, error) {
	if a.files == nil {
		return nil, apperr.New(apperr.Unavailable, "attachments are not configured (FUEL_FILES_DIR)")
	}
	return a.files, nil
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
// thumbnail (made on first request and kept beside the file).
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
		files, err := a.fileStore()
		if err != nil {
			ginx.Fail(c, err)
			return
		}
		at, err := a.store.Attachment(c.Request.Context(), ref, aid)
		if err != nil {
			ginx.Fail(c, err)
			return
		}
		variant, ct, etag := "", at.ContentType, at.SHA256
		if thumbnail {
			if err := a.ensureThumbnail(at); err != nil {
				ginx.Fail(c, err)
				return
			}
			variant, ct, etag = thumbnailVariant, media.ThumbnailType, at.SHA256+"-thumbnail"
		}
		f, err := files.Open(at.FileKey, variant)
		if err != nil {
			ginx.Fail(c, fmt.Errorf("attachment %d: open its file: %w", at.ID, err))
			return
		}
		defer f.Close()
		h := c.Writer.Header()
		h.Set("Content-Type", ct)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("ETag", `"`+etag+`"`)
		// The bytes of an id never change: a client may keep them.
		h.Set("Cache-Control", "private, max-age=31536000, immutable")
		if cd := mime.FormatMediaType("inline", map[string]string{"filename": at.FileName}); cd != "" {
			h.Set("Content-Disposition", cd)
		}
		http.ServeContent(c.Writer, c.Request, "", at.CreatedAt, f)
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

// ensureThumbnail makes the attachment's thumbnail unless the store holds
// it: NOT_FOUND for a file that has none.
func (a *API) ensureThumbnail(at fuel.Attachment) error {
	noThumbnail := &apperr.Error{Code: apperr.NotFound, Field: "variant",
		Message: fmt.Sprintf("variant: no thumbnail for this attachment (%s files have none)", at.ContentType)}
	if !hasThumbnail(at.ContentType) {
		return noThumbnail
	}
	if f, err := a.files.Open(at.FileKey, thumbnailVariant); err == nil {
		return f.Close()
	} else if !errors.Is(err, filestore.ErrNotFound) {
		return err
	}
	data, err := a.files.ReadFile(at.FileKey)
	if err != nil {
		return fmt.Errorf("attachment %d: read its file: %w", at.ID, err)
	}
	thumb, err := media.Thumbnail(at.ContentType, data)
	if errors.Is(err, media.ErrNoThumbnail) {
		noThumbnail.Message = "variant: no thumbnail for this attachment (the image is too large to decode)"
		return noThumbnail
	}
	if err != nil {
		return fmt.Errorf("attachment %d: %w", at.ID, err)
	}
	// Two requests at once both write it; the rename makes the last win,
	// and both are the same bytes.
	return a.files.PutAs(at.FileKey, thumbnailVariant, thumb)
}

// upload is a file as a client sent it.
type upload struct {
	name, declared string
	data           []byte
}

// uploadAttachment stores the file of a multipart body (one part named
// file) with the record. With an Idempotency-Key, a repeat of the same
// file for the same record answers the first answer and stores nothing.
func (a *API) uploadAttachment(kind fuel.RecordKind) gin.HandlerFunc {
	return func(c *gin.Context) {
		ctx := c.Request.Context()
		ref, err := recordRef(c, kind)
		if err != nil {
			ginx.Fail(c, err)
			return
		}
		key, idempotent, err := idempotencyKey(c.Request.Header)
		if err != nil {
			ginx.Fail(c, err)
			return
		}
		files, err := a.fileStore()
		if err != nil {
			ginx.Fail(c, err)
			return
		}
		// The record and the caller's right to add to it are checked
		// before the body is read.
		role, err := a.store.AttachmentRole(ctx, ref)
		if err == nil && !role.CanWriteRefuels() {
			err = fuel.ErrForbidden
		}
		if err != nil {
			ginx.Fail(c, err)
			return
		}
		up, err := readUpload(c.Request)
		if err != nil {
			ginx.Fail(c, err)
			return
		}
		at, err := prepareAttachment(ref, up)
		if err != nil {
			ginx.Fail(c, err)
			return
		}
		if at.FileKey, err = files.Put(at.data); err != nil {
			ginx.Fail(c, err)
			return
		}
		kept := false
		defer func() {
			if !kept {
				if err := files.Remove(at.FileKey); err != nil {
					a.log.WarnContext(ctx, "remove the file of an attachment not stored", "err", err)
				}
			}
		}()
		create := func(st fuel.Store) (fuel.StoredAnswer, error) {
			if err := st.CreateAttachment(ctx, &at.Attachment); err != nil {
				return fuel.StoredAnswer{}, err
			}
			b, err := json.Marshal(toAttachmentResponse(at.Attachment))
			return fuel.StoredAnswer{Status: http.StatusOK, Body: b}, err
		}
		var (
			ans      fuel.StoredAnswer
			replayed bool
		)
		if idempotent {
			// The request is named by what it means, not by its bytes: a
			// client that sends the file again frames it anew.
			sum := sha256.Sum256([]byte(strings.Join([]string{string(ref.Kind), strconv.FormatUint(ref.ID, 10), up.name, at.uploadSHA256}, "\x00")))
			k := fuel.IdempotencyKey{Key: key, Method: c.Request.Method, Path: c.FullPath(), RequestHash: hex.EncodeToString(sum[:])}
			ans, replayed, err = a.store.Once(ctx, k, create)
		} else {
			ans, err = create(a.store)
		}
		if err != nil {
			ginx.Fail(c, err)
			return
		}
		kept = !replayed
		if replayed {
			c.Header("Idempotent-Replayed", "true")
		}
		c.Data(ans.Status, "application/json; charset=utf-8", ans.Body)
	}
}

// readUpload reads the one part named file of a multipart body, at most
// fuel.MaxAttachmentBytes, streaming (nothing is buffered to disk).
func readUpload(r *http.Request) (upload, error) {
	var up upload
	mr, err := r.MultipartReader()
	if err != nil {
		return up, apperr.Invalid("file", "request must be multipart/form-data with a part named file")
	}
	found := false
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return up, bodyError(err)
		}
		if name := p.FormName(); name != "file" {
			return up, apperr.Invalid(name, "is not a part of an attachment upload (send one part named file)")
		}
		if found {
			return up, apperr.Invalid("file", "must be sent once: upload one file per request")
		}
		found = true
		if p.FileName() == "" {
			return up, apperr.Invalid("file", "must be a file (its part has no filename)")
		}
		up.name, up.declared = p.FileName(), p.Header.Get("Content-Type")
		up.data, err = io.ReadAll(io.LimitReader(p, fuel.MaxAttachmentBytes+1))
		if err != nil {
			return up, bodyError(err)
		}
		if len(up.data) > fuel.MaxAttachmentBytes {
			return up, &apperr.Error{Code: apperr.PayloadTooLarge, Field: "file", Message: "file: is larger than 10 MiB"}
		}
	}
	if !found {
		return up, apperr.Invalid("file", "is required (a multipart part named file)")
	}
	if len(up.data) == 0 {
		return up, apperr.Invalid("file", "is empty")
	}
	return up, nil
}

// preparedAttachment is an attachment ready to store: its metadata and
// the bytes to keep.
type preparedAttachment struct {
	fuel.Attachment
	data []byte
	// uploadSHA256 is the digest of the bytes as uploaded.
	uploadSHA256 string
}

// prepareAttachment checks the upload (its name, its type read from the
// content against its name and declared type) and removes the location
// from an image.
func prepareAttachment(ref fuel.RecordRef, up upload) (preparedAttachment, error) {
	var out preparedAttachment
	name, err := attachmentName(up.name)
	if err != nil {
		return out, err
	}
	ct, err := media.Detect("file", up.data, name, up.declared)
	if err != nil {
		return out, mediaError(err)
	}
	data, err := media.StripLocation(ct, up.data)
	if err != nil {
		return out, mediaError(err)
	}
	sum, uploaded := sha256.Sum256(data), sha256.Sum256(up.data)
	out.Attachment = fuel.Attachment{Record: ref, FileName: name, ContentType: ct, Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:])}
	out.data, out.uploadSHA256 = data, hex.EncodeToString(uploaded[:])
	return out, nil
}

// attachmentName is the file name to keep: the last element of what the
// client sent (some send a path), checked.
func attachmentName(raw string) (string, error) {
	name := raw[strings.LastIndexAny(raw, `/\`)+1:]
	switch {
	case !utf8.ValidString(name):
		return "", apperr.Invalid("file", "its name must be valid UTF-8")
	case strings.TrimSpace(name) == "":
		return "", apperr.Invalid("file", "its name must not be blank")
	case strings.IndexFunc(name, unicode.IsControl) >= 0:
		return "", apperr.Invalid("file", "its name must not contain control characters")
	case utf8.RuneCountInString(name) > fuel.MaxAttachmentNameLen:
		return "", apperr.Invalid("file", "its name must be at most %d characters (got %d)", fuel.MaxAttachmentNameLen, utf8.RuneCountInString(name))
	}
	return name, nil
}

// mediaError turns media's refusal of a file into INVALID_ARGUMENT.
func mediaError(err error) error {
	var me *media.Error
	if errors.As(err, &me) {
		return apperr.InvalidCause(me.Err, me.Field, "%s", me.Msg)
	}
	return err
}
