// Package attach adds files to the records (refuels, expenses) and reads
// them back: who may add one, reading the one file of an upload, what type
// it is (read from its bytes, checked against its name and declared
// type), removing the location from a photo, keeping the bytes in the
// file store with an undo when the record's row is not stored, and the
// thumbnails of images, made on first request.
//
// It knows no HTTP framework: internal/httpapi decodes the routes, runs
// the row's creation through its one Idempotency-Key mechanism
// (httpapi/idempotency.go) with Upload.RequestHash, and answers the
// apperr errors returned here (and *BodyError, the caller's own body). The
// consumer interfaces (Records, Creator, Files) are declared here;
// internal/store and internal/filestore implement them.
package attach

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"os"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/services/fuel/internal/filestore"
	"github.com/carhub/backend/services/fuel/internal/fuel"
	"github.com/carhub/backend/services/fuel/internal/media"
)

// thumbnailVariant is the file store's name of an attachment's thumbnail.
const thumbnailVariant = "thumb"

// Records is what attach reads of the records (fuel.Store).
type Records interface {
	// AttachmentRole returns the caller's role on the record's vehicle;
	// the record's not-found error (fuel.ErrRefuelNotFound, ...) for a
	// record the caller may not see.
	AttachmentRole(ctx context.Context, r fuel.RecordRef) (fuel.Role, error)
	// Attachment returns one attachment of the record;
	// fuel.ErrAttachmentNotFound when there is none.
	Attachment(ctx context.Context, r fuel.RecordRef, id uint64) (fuel.Attachment, error)
}

// Creator stores an attachment's row (fuel.Store, or the transaction's
// Store inside fuel.Store.Once).
type Creator interface {
	// CreateAttachment stores a and fills in its id and time.
	CreateAttachment(ctx context.Context, a *fuel.Attachment) error
}

// Files keeps the bytes of attachments by key (filestore.Store). Open and
// ReadFile answer an error wrapping filestore.ErrNotFound for a key or
// variant that holds no file.
type Files interface {
	Put(data []byte) (key string, err error)
	PutAs(key, variant string, data []byte) error
	Open(key, variant string) (*os.File, error)
	ReadFile(key string) ([]byte, error)
	Remove(key string) error
}

var _ Files = (*filestore.Store)(nil)

// Service adds and reads attachments.
type Service struct {
	records Records
	files   Files
	log     *slog.Logger
}

// New returns the attachments of records, their bytes kept in files; log
// gets what an undo could not remove.
func New(records Records, files Files, log *slog.Logger) *Service {
	return &Service{records: records, files: files, log: log}
}

// HasThumbnail reports whether files of type ct get a thumbnail: the
// images this service decodes.
func HasThumbnail(ct string) bool { return ct == media.JPEG || ct == media.PNG || ct == media.WebP }

// Body is a request body of one multipart part named file
// (*http.Request).
type Body interface {
	MultipartReader() (*multipart.Reader, error)
}

// BodyError is a failure to read the caller's body (a malformed multipart
// body, or one over the caller's size limit, *http.MaxBytesError): the
// caller answers it as its other bodies' errors.
type BodyError struct{ Err error }

func (e *BodyError) Error() string { return "read the upload: " + e.Err.Error() }
func (e *BodyError) Unwrap() error { return e.Err }

// Upload is a checked file whose bytes are kept in the file store while
// its row is not stored yet. Create stores the row; Discard is the undo of
// an upload whose row was not stored.
type Upload struct {
	// Attachment is the row to store (without its id and time).
	Attachment fuel.Attachment
	// RequestHash names the request by what it means (the record, the
	// file's name as sent and the SHA-256 of its bytes as uploaded), not
	// by its bytes: a client that sends the file again frames it anew.
	RequestHash string
	s           *Service
}

// Begin checks that the caller may add to the record, before the body is
// read, reads the one file of body (at most fuel.MaxAttachmentBytes,
// streaming: nothing is buffered to disk), detects its type, removes the
// location from a photo and keeps the bytes. Errors: the store's for the
// record, fuel.ErrForbidden for a viewer, apperr INVALID_ARGUMENT and
// PAYLOAD_TOO_LARGE on field "file", *BodyError, the file store's.
func (s *Service) Begin(ctx context.Context, ref fuel.RecordRef, body Body) (*Upload, error) {
	role, err := s.records.AttachmentRole(ctx, ref)
	if err == nil && !role.CanWriteRecords() {
		err = fuel.ErrForbidden
	}
	if err != nil {
		return nil, err
	}
	mr, err := body.MultipartReader()
	if err != nil {
		return nil, apperr.Invalid("file", "request must be multipart/form-data with a part named file")
	}
	f, err := readFile(mr)
	if err != nil {
		return nil, err
	}
	up, data, err := prepare(ref, f)
	if err != nil {
		return nil, err
	}
	if up.Attachment.FileKey, err = s.files.Put(data); err != nil {
		return nil, err
	}
	up.s = s
	return up, nil
}

// Create stores the upload's row through st and returns it.
func (u *Upload) Create(ctx context.Context, st Creator) (fuel.Attachment, error) {
	at := u.Attachment
	err := st.CreateAttachment(ctx, &at)
	return at, err
}

// Discard removes the kept bytes of an upload whose row was not stored (a
// failure, or an idempotent repeat answered from the first upload's row).
// What it cannot remove is logged, and left to the file store's sweep.
func (u *Upload) Discard(ctx context.Context) {
	if err := u.s.files.Remove(u.Attachment.FileKey); err != nil {
		u.s.log.WarnContext(ctx, "remove the file of an attachment not stored", "err", err)
	}
}

// file is a file as a client sent it.
type file struct {
	name, declared string
	data           []byte
}

// readFile reads the one part named file of a multipart body.
func readFile(mr *multipart.Reader) (file, error) {
	var f file
	found := false
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return f, &BodyError{err}
		}
		if name := p.FormName(); name != "file" {
			return f, apperr.Invalid(name, "is not a part of an attachment upload (send one part named file)")
		}
		if found {
			return f, apperr.Invalid("file", "must be sent once: upload one file per request")
		}
		found = true
		if p.FileName() == "" {
			return f, apperr.Invalid("file", "must be a file (its part has no filename)")
		}
		f.name, f.declared = p.FileName(), p.Header.Get("Content-Type")
		f.data, err = io.ReadAll(io.LimitReader(p, fuel.MaxAttachmentBytes+1))
		if err != nil {
			return f, &BodyError{err}
		}
		if len(f.data) > fuel.MaxAttachmentBytes {
			return f, &apperr.Error{Code: apperr.PayloadTooLarge, Field: "file", Message: "file: is larger than 10 MiB"}
		}
	}
	if !found {
		return f, apperr.Invalid("file", "is required (a multipart part named file)")
	}
	if len(f.data) == 0 {
		return f, apperr.Invalid("file", "is empty")
	}
	return f, nil
}

// prepare checks the file (its name, its type read from the content
// against its name and declared type) and removes the location from an
// image: the upload's row and the bytes to keep.
func prepare(ref fuel.RecordRef, f file) (*Upload, []byte, error) {
	name, err := fileName(f.name)
	if err != nil {
		return nil, nil, err
	}
	ct, err := media.Detect("file", f.data, name, f.declared)
	if err != nil {
		return nil, nil, mediaError(err)
	}
	data, err := media.StripLocation(ct, f.data)
	if err != nil {
		return nil, nil, mediaError(err)
	}
	sum, uploaded := sha256.Sum256(data), sha256.Sum256(f.data)
	request := sha256.Sum256([]byte(strings.Join([]string{string(ref.Kind), strconv.FormatUint(ref.ID, 10), f.name, hex.EncodeToString(uploaded[:])}, "\x00")))
	return &Upload{
		Attachment:  fuel.Attachment{Record: ref, FileName: name, ContentType: ct, Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:])},
		RequestHash: hex.EncodeToString(request[:]),
	}, data, nil
}

// fileName is the file name to keep: the last element of what the client
// sent (some send a path), checked.
func fileName(raw string) (string, error) {
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

// File is an attachment's file, or its thumbnail, open for reading.
type File struct {
	*os.File
	Attachment fuel.Attachment
	// ContentType and ETag (unquoted) are the variant's: the bytes of an
	// id never change, so its digest names them.
	ContentType, ETag string
}

// Open opens one attachment of the record, or with thumbnail its
// thumbnail, made on first request and kept beside the file. Errors: the
// store's for the attachment, apperr NOT_FOUND on field "variant" for a
// file that has no thumbnail, the file store's.
func (s *Service) Open(ctx context.Context, ref fuel.RecordRef, id uint64, thumbnail bool) (File, error) {
	at, err := s.records.Attachment(ctx, ref, id)
	if err != nil {
		return File{}, err
	}
	variant, out := "", File{Attachment: at, ContentType: at.ContentType, ETag: at.SHA256}
	if thumbnail {
		if err := s.ensureThumbnail(at); err != nil {
			return File{}, err
		}
		variant, out.ContentType, out.ETag = thumbnailVariant, media.ThumbnailType, at.SHA256+"-thumbnail"
	}
	if out.File, err = s.files.Open(at.FileKey, variant); err != nil {
		return File{}, fmt.Errorf("attachment %d: open its file: %w", at.ID, err)
	}
	return out, nil
}

// ensureThumbnail makes the attachment's thumbnail unless the store holds
// it: NOT_FOUND for a file that has none.
func (s *Service) ensureThumbnail(at fuel.Attachment) error {
	noThumbnail := &apperr.Error{Code: apperr.NotFound, Field: "variant",
		Message: fmt.Sprintf("variant: no thumbnail for this attachment (%s files have none)", at.ContentType)}
	if !HasThumbnail(at.ContentType) {
		return noThumbnail
	}
	if f, err := s.files.Open(at.FileKey, thumbnailVariant); err == nil {
		return f.Close()
	} else if !errors.Is(err, filestore.ErrNotFound) {
		return err
	}
	data, err := s.files.ReadFile(at.FileKey)
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
	return s.files.PutAs(at.FileKey, thumbnailVariant, thumb)
}
