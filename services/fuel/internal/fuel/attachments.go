package fuel

import (
	"context"
	"time"

	"github.com/carhub/backend/pkg/apperr"
)

// Bounds of attachments (proto-docs/fuel-decisions.md, "Attachments").
const (
	// MaxAttachmentBytes is the largest file stored, after its location
	// metadata is removed (which never makes it larger).
	MaxAttachmentBytes = 10 << 20
	// MaxAttachmentsPerRecord is how many files one record may hold.
	MaxAttachmentsPerRecord = 10
	// MaxAttachmentNameLen bounds the file name kept (in characters).
	MaxAttachmentNameLen = 255
)

// RecordKind names the kind of record an attachment belongs to.
type RecordKind string

// The kinds of record that take attachments.
const (
	RecordRefuel  RecordKind = "refuel"
	RecordExpense RecordKind = "expense"
)

// RecordRef names one record: its kind and id.
type RecordRef struct {
	Kind RecordKind
	ID   uint64
}

// Errors of attachments.
var (
	ErrAttachmentNotFound = apperr.New(apperr.NotFound, "attachment not found")
	// ErrTooManyAttachments answers an upload to a record that already
	// holds MaxAttachmentsPerRecord files.
	ErrTooManyAttachments = &apperr.Error{Code: apperr.Conflict, Field: "file",
		Message: "file: the record already holds the most attachments allowed (10); delete one first"}
)

// Attachment is a file (a receipt, a photo) kept with a record. The file
// itself lives in the file store under FileKey; the database holds the
// rest.
type Attachment struct {
	ID     uint64
	Record RecordRef
	// FileKey names the stored file (filestore): 32 lower-case hex
	// digits, never shown to clients.
	FileKey string
	// FileName is the name the client gave, for display and download.
	FileName string
	// ContentType is the type read from the content: one of
	// AttachmentTypes.
	ContentType string
	Size        int64
	// SHA256 is the hex digest of the stored bytes (after the location
	// metadata was removed).
	SHA256    string
	CreatedAt time.Time
}

// AttachmentTypes are the content types an attachment may have.
var AttachmentTypes = []string{"image/jpeg", "image/png", "image/webp", "image/heic", "image/heif", "application/pdf"}

// AttachmentStore keeps the metadata of attachments. Access follows the
// record's vehicle: any role reads, owner and editor add and delete; a
// record the caller may not see answers the record's not-found error
// (ErrRefuelNotFound, ...), a write the role does not allow ErrForbidden.
type AttachmentStore interface {
	// AttachmentRole returns the caller's role on the record's vehicle:
	// the check an upload makes before it reads the file.
	AttachmentRole(ctx context.Context, r RecordRef) (Role, error)
	// CreateAttachment stores a (its Record, FileKey, FileName,
	// ContentType, Size and SHA256 set) and fills in its id and
	// created_at. ErrTooManyAttachments when the record holds
	// MaxAttachmentsPerRecord already.
	CreateAttachment(ctx context.Context, a *Attachment) error
	// Attachments lists the record's attachments, oldest first.
	Attachments(ctx context.Context, r RecordRef) ([]Attachment, error)
	// Attachment reads one attachment of the record;
	// ErrAttachmentNotFound when the record has none with id.
	Attachment(ctx context.Context, r RecordRef, id uint64) (Attachment, error)
	// DeleteAttachment deletes one attachment of the record (its file is
	// then listed by DeletedAttachmentFiles).
	DeleteAttachment(ctx context.Context, r RecordRef, id uint64) error

	// DeletedAttachmentFiles returns up to limit keys of files whose
	// attachment is gone (deleted itself, or with its record, vehicle or
	// user), for whatever user: the files to remove. They stay listed
	// until ForgetDeletedAttachmentFiles.
	DeletedAttachmentFiles(ctx context.Context, limit int) ([]string, error)
	// ForgetDeletedAttachmentFiles takes keys off that list once their
	// files are removed.
	ForgetDeletedAttachmentFiles(ctx context.Context, keys []string) error
}
