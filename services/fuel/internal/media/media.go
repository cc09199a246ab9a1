// Package media checks and prepares the files of attachments: it reads
// their type from the content (never the name), removes location
// metadata from images, and makes thumbnails (proto-docs/fuel-decisions.md,
// "Attachments").
package media

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg" // decoders for DecodeConfig and Thumbnail
	_ "image/png"
	"mime"
	"path/filepath"
	"strings"

	"github.com/gabriel-vasile/mimetype"
	_ "golang.org/x/image/webp"
)

// The content types of attachments.
const (
	JPEG = "image/jpeg"
	PNG  = "image/png"
	WebP = "image/webp"
	HEIC = "image/heic"
	HEIF = "image/heif"
	PDF  = "application/pdf"
)

// Types are the accepted content types, in the order error messages name
// them.
var Types = []string{JPEG, PNG, WebP, HEIC, HEIF, PDF}

// typeNames are the names error messages give the types.
var typeNames = map[string]string{JPEG: "JPEG", PNG: "PNG", WebP: "WebP", HEIC: "HEIC", HEIF: "HEIF", PDF: "PDF"}

// extensions are the file name extensions each type may have.
var extensions = map[string][]string{
	JPEG: {".jpg", ".jpeg", ".jpe", ".jfif"},
	PNG:  {".png"},
	WebP: {".webp"},
	HEIC: {".heic", ".heif"},
	HEIF: {".heif", ".heic"},
	PDF:  {".pdf"},
}

// declaredTypes are the Content-Type values (of a multipart part) each
// type may be declared as, beside the generic application/octet-stream.
var declaredTypes = map[string][]string{
	JPEG: {JPEG, "image/jpg", "image/pjpeg"},
	PNG:  {PNG, "image/x-png"},
	WebP: {WebP},
	HEIC: {HEIC, HEIF},
	HEIF: {HEIF, HEIC},
	PDF:  {PDF, "application/x-pdf"},
}

// Detect reads the type of data from its content (magic bytes, with the
// gabriel-vasile/mimetype library) and checks it against what the client
// said: name's extension and declared, the part's Content-Type. Every
// refusal is an error naming field. An image must also have a header its
// decoder reads (HEIC excepted: no decoder here).
func Detect(field string, data []byte, name, declared string) (string, error) {
	got := mimetype.Detect(data)
	ct := ""
	for _, t := range Types {
		if got.Is(t) {
			ct = t
			break
		}
	}
	if ct == "" {
		return "", &Error{Field: field, Msg: fmt.Sprintf("must be a JPEG, PNG, WebP, HEIC or PDF file; its content is %s", got.String())}
	}
	if ext := strings.ToLower(filepath.Ext(name)); ext != "" && !contains(extensions[ct], ext) {
		return "", &Error{Field: field, Msg: fmt.Sprintf("the name %q ends in %s but the content is %s", name, ext, typeNames[ct])}
	}
	if declared != "" {
		d, _, err := mime.ParseMediaType(declared)
		if err != nil {
			return "", &Error{Field: field, Msg: fmt.Sprintf("Content-Type %q does not parse", declared)}
		}
		if d != "application/octet-stream" && !contains(declaredTypes[ct], d) {
			return "", &Error{Field: field, Msg: fmt.Sprintf("is declared as %s but the content is %s", d, typeNames[ct])}
		}
	}
	switch ct {
	case JPEG, PNG, WebP:
		if _, _, err := image.DecodeConfig(bytes.NewReader(data)); err != nil {
			return "", &Error{Field: field, Msg: fmt.Sprintf("is not a readable %s image", typeNames[ct]), Err: err}
		}
	}
	return ct, nil
}

// IsImage reports whether ct is an image type (every type but PDF).
func IsImage(ct string) bool { return ct != PDF && contains(Types, ct) }

// Error is a file refused for its content; Field names the request field.
type Error struct {
	Field, Msg string
	Err        error
}

func (e *Error) Error() string { return e.Field + ": " + e.Msg }
func (e *Error) Unwrap() error { return e.Err }

// ErrNoThumbnail is Thumbnail's error for a file it makes none of: not an
// image it can decode (PDF, HEIC), or too large to decode safely.
var ErrNoThumbnail = errors.New("media: no thumbnail for this file")

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
