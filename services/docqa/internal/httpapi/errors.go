package httpapi

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/services/docqa/internal/docqa"
	"github.com/carhub/backend/services/docqa/internal/ingest"
	"github.com/carhub/backend/services/docqa/internal/pdftext"
)

// busyRetryAfter is what a client refused by a full ingestion queue is told
// to wait: about the time a mid-sized manual takes to ingest.
const busyRetryAfter = 10 * time.Second

// errorOf is the service's one map from domain, extraction, provider and
// store errors to the contract's codes. ginx applies it to every error a
// handler records with ginx.Fail; the event streams and the import's list
// of failed files use it too. Errors that are already *apperr.Error pass
// unchanged; a cancelled context becomes CLIENT_CLOSED_REQUEST (apperr.From)
// and anything unknown INTERNAL.
func errorOf(err error) error {
	var ae *apperr.Error
	switch {
	case err == nil, errors.As(err, &ae):
		return err
	case errors.Is(err, ingest.ErrBusy):
		return &apperr.Error{Code: apperr.Unavailable, Err: err, RetryAfter: busyRetryAfter,
			Message: "too many documents are being ingested; try again in a few seconds"}
	case errors.Is(err, pdftext.ErrNotPDF):
		return apperr.Invalid("file", "is not a PDF")
	case errors.Is(err, pdftext.ErrEmpty):
		return apperr.Invalid("file", "the PDF is empty (it has no pages)")
	case errors.Is(err, pdftext.ErrCorrupt):
		return apperr.InvalidCause(err, "file", "the PDF is corrupt and cannot be read")
	case errors.Is(err, pdftext.ErrPasswordRequired):
		return apperr.Invalid("file", "the PDF needs a password to open; upload a copy without a user password")
	case errors.Is(err, pdftext.ErrOCRMissing):
		return apperr.Invalid("file", "the PDF has no extractable text, and OCR is not installed on this server "+
			"(tesseract was not found), so its scanned pages cannot be read")
	case errors.Is(err, pdftext.ErrOCRNoText):
		return apperr.Invalid("file", "the PDF has no text layer, and OCR could read none of its scanned pages "+
			"(unreadable, or past the time allowed per page)")
	case errors.Is(err, pdftext.ErrNoText):
		return apperr.Invalid("file", "the PDF has no extractable text (scanned pages need OCR first)")
	case errors.Is(err, docqa.ErrNotFound):
		return apperr.Wrap(apperr.NotFound, err, "document not found")
	case errors.Is(err, docqa.ErrForbidden):
		return apperr.Wrap(apperr.Forbidden, err, "the document is in the shared library: only an administrator deletes it")
	case errors.Is(err, docqa.ErrEmbedderMismatch):
		return apperr.Wrap(apperr.Unavailable, err, "the vector store holds vectors of another embedder")
	case errors.Is(err, docqa.ErrDimension):
		return apperr.Wrap(apperr.Unavailable, err, "the embedding provider answered vectors of the wrong dimension")
	case errors.Is(err, docqa.ErrUnavailable), errors.Is(err, context.DeadlineExceeded):
		return apperr.Wrap(apperr.Unavailable, err, "a provider or the vector store is unavailable")
	}
	return err
}

// storeDown makes any failure of retrieval UNAVAILABLE: whatever broke
// inside the store or the embedder, the service cannot answer without it.
func storeDown(ctx context.Context, err error) error {
	if ctx.Err() == nil && !errors.Is(err, docqa.ErrUnavailable) && !errors.Is(err, docqa.ErrDimension) {
		return fmt.Errorf("retrieval: %w: %w", docqa.ErrUnavailable, err)
	}
	return err
}
