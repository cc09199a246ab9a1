package attach_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"mime"
	"mime/multipart"
	"os"
	"testing"
	"time"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/services/fuel/internal/attach"
	"github.com/carhub/backend/services/fuel/internal/attach/attachtest"
	"github.com/carhub/backend/services/fuel/internal/filestore"
	"github.com/carhub/backend/services/fuel/internal/fuel"
	"github.com/carhub/backend/services/fuel/internal/media"
	"github.com/carhub/backend/services/fuel/internal/media/mediatest"
)

// records is a store of one record's attachments, the caller acting as
// role.
type records struct {
	role    fuel.Role
	roleErr error
	rows    []fuel.Attachment
}

func (r *records) AttachmentRole(context.Context, fuel.RecordRef) (fuel.Role, error) {
	return r.role, r.roleErr
}

func (r *records) Attachment(_ context.Context, _ fuel.RecordRef, id uint64) (fuel.Attachment, error) {
	for _, a := range r.rows {
		if a.ID == id {
			return a, nil
		}
	}
	return fuel.Attachment{}, fuel.ErrAttachmentNotFound
}

func (r *records) CreateAttachment(_ context.Context, a *fuel.Attachment) error {
	a.ID = uint64(len(r.rows) + 1)
	a.CreatedAt = time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)
	r.rows = append(r.rows, *a)
	return nil
}

// body is a multipart body of parts, as *http.Request offers it.
type body struct {
	boundary string
	data     []byte
	// read counts the calls of MultipartReader.
	read int
}

func (b *body) MultipartReader() (*multipart.Reader, error) {
	b.read++
	if b.boundary == "" {
		return nil, errors.New("not multipart")
	}
	return multipart.NewReader(bytes.NewReader(b.data), b.boundary), nil
}

type part struct{ field, name, contentType, data string }

func mustBody(tb testing.TB, parts ...part) *body {
	tb.Helper()
	ps := make([]attachtest.Part, len(parts))
	for i, p := range parts {
		ps[i] = attachtest.Part{Field: p.field, Name: p.name, ContentType: p.contentType, Data: []byte(p.data)}
	}
	ct, data := attachtest.Multipart(tb, ps...)
	_, params, err := mime.ParseMediaType(ct)
	if err != nil {
		tb.Fatal(err)
	}
	return &body{boundary: params["boundary"], data: data}
}

// mustService is the attachments of recs with a file store in a fresh
// directory.
func mustService(tb testing.TB, recs *records) (*attach.Service, string) {
	tb.Helper()
	dir := tb.TempDir()
	files, err := filestore.Open(dir)
	if err != nil {
		tb.Fatal(err)
	}
	return attach.New(recs, files, slog.New(slog.NewTextHandler(io.Discard, nil))), dir
}

func files(tb testing.TB, dir string) int {
	tb.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	return len(es)
}

var ref = fuel.RecordRef{Kind: fuel.RecordRefuel, ID: 7}

// TestBeginRefuses: who may not add, and uploads that are not one named,
// non-empty file of a known type, are refused before anything is kept,
// with the field and code the client is shown.
func TestBeginRefuses(t *testing.T) {
	pdf := "%PDF-1.4\n%%EOF\n"
	for _, tc := range []struct {
		name string
		recs records
		body *body
		code apperr.Code
		// read says whether the body may be read.
		read bool
	}{
		{"a viewer", records{role: fuel.RoleViewer}, mustBody(t, part{"file", "a.pdf", "", pdf}), apperr.Forbidden, false},
		{"an unseen record", records{roleErr: fuel.ErrRefuelNotFound}, mustBody(t, part{"file", "a.pdf", "", pdf}), apperr.NotFound, false},
		{"not multipart", records{role: fuel.RoleOwner}, &body{}, apperr.InvalidArgument, true},
		{"no part", records{role: fuel.RoleEditor}, mustBody(t), apperr.InvalidArgument, true},
		{"another part", records{role: fuel.RoleOwner}, mustBody(t, part{"note", "", "", "x"}), apperr.InvalidArgument, true},
		{"two files", records{role: fuel.RoleOwner}, mustBody(t, part{"file", "a.pdf", "", pdf}, part{"file", "b.pdf", "", pdf}), apperr.InvalidArgument, true},
		{"no filename", records{role: fuel.RoleOwner}, mustBody(t, part{"file", "", "", pdf}), apperr.InvalidArgument, true},
		{"empty", records{role: fuel.RoleOwner}, mustBody(t, part{"file", "a.pdf", "", ""}), apperr.InvalidArgument, true},
		{"a blank name", records{role: fuel.RoleOwner}, mustBody(t, part{"file", "dir/ ", "", pdf}), apperr.InvalidArgument, true},
		{"a control character", records{role: fuel.RoleOwner}, mustBody(t, part{"file", "a\tb.pdf", "", pdf}), apperr.InvalidArgument, true},
		{"an unknown type", records{role: fuel.RoleOwner}, mustBody(t, part{"file", "a.txt", "", "plain words"}), apperr.InvalidArgument, true},
		{"too large", records{role: fuel.RoleOwner}, mustBody(t, part{"file", "a.pdf", "", pdf + string(make([]byte, fuel.MaxAttachmentBytes))}), apperr.PayloadTooLarge, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc, dir := mustService(t, &tc.recs)
			_, err := svc.Begin(context.Background(), ref, tc.body)
			if got := apperr.From(err).Code; got != tc.code {
				t.Errorf("code %s (%v), want %s", got, err, tc.code)
			}
			if !tc.read && tc.body.read > 0 {
				t.Error("the body was read before the caller's right was checked")
			}
			if n := files(t, dir); n != 0 {
				t.Errorf("%d files kept, want none", n)
			}
		})
	}
}

// TestBeginMalformedBody: a broken multipart body is the caller's to
// answer (as its other bodies).
func TestBeginMalformedBody(t *testing.T) {
	svc, _ := mustService(t, &records{role: fuel.RoleOwner})
	b := mustBody(t, part{"file", "a.pdf", "", "%PDF-1.4"})
	b.data = b.data[:len(b.data)-10] // no closing boundary
	_, err := svc.Begin(context.Background(), ref, b)
	var be *attach.BodyError
	if !errors.As(err, &be) {
		t.Fatalf("error %v, want a *BodyError", err)
	}
}

// TestUploadCreateAndDiscard: a photo is kept without its location, named
// by its base name, and its row stored by Create; Discard removes the
// bytes of an upload whose row was not stored.
func TestUploadCreateAndDiscard(t *testing.T) {
	recs := &records{role: fuel.RoleEditor}
	svc, dir := mustService(t, recs)
	photo := string(mediatest.MustJPEG(t, 64, 48, mediatest.MustExif(t, true, 1)))
	ctx := context.Background()
	up, err := svc.Begin(ctx, ref, mustBody(t, part{"file", `C:\photos\pump.jpg`, "image/jpeg", photo}))
	if err != nil {
		t.Fatal(err)
	}
	if up.Attachment.FileName != "pump.jpg" || up.Attachment.ContentType != media.JPEG || up.Attachment.Record != ref {
		t.Errorf("upload %+v", up.Attachment)
	}
	at, err := up.Create(ctx, recs)
	if err != nil {
		t.Fatal(err)
	}
	f, err := svc.Open(ctx, ref, at.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	kept, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if n, camera, _ := mediatest.ExifOf(t, kept); n != 0 || camera != "TestCam" {
		t.Errorf("kept EXIF: %d GPS entries, Make %q; want 0, TestCam", n, camera)
	}
	if f.ETag != at.SHA256 || int64(len(kept)) != at.Size {
		t.Errorf("ETag %s size %d, want %s %d", f.ETag, len(kept), at.SHA256, at.Size)
	}

	again, err := svc.Begin(ctx, ref, mustBody(t, part{"file", `C:\photos\pump.jpg`, "image/jpeg", photo}))
	if err != nil {
		t.Fatal(err)
	}
	if again.RequestHash != up.RequestHash {
		t.Error("the same file sent again is another request")
	}
	other, err := svc.Begin(ctx, fuel.RecordRef{Kind: fuel.RecordExpense, ID: 7}, mustBody(t, part{"file", `C:\photos\pump.jpg`, "image/jpeg", photo}))
	if err != nil {
		t.Fatal(err)
	}
	if other.RequestHash == up.RequestHash {
		t.Error("the file for another record is the same request")
	}
	if n := files(t, dir); n != 3 {
		t.Fatalf("%d files before the undo, want 3", n)
	}
	again.Discard(ctx)
	other.Discard(ctx)
	if n := files(t, dir); n != 1 {
		t.Errorf("%d files after the undo, want 1", n)
	}
}

// TestOpenThumbnail: an image's thumbnail is made on first request and
// kept; a PDF has none.
func TestOpenThumbnail(t *testing.T) {
	recs := &records{role: fuel.RoleOwner}
	svc, dir := mustService(t, recs)
	ctx := context.Background()
	for _, p := range []part{
		{"file", "pump.png", "", string(mediatest.MustPNG(t, 400, 300, nil))},
		{"file", "bill.pdf", "", "%PDF-1.4\n%%EOF\n"},
	} {
		up, err := svc.Begin(ctx, ref, mustBody(t, p))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := up.Create(ctx, recs); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		f, err := svc.Open(ctx, ref, 1, true)
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		if f.ContentType != media.ThumbnailType || f.ETag != recs.rows[0].SHA256+"-thumbnail" {
			t.Errorf("thumbnail %s %s", f.ContentType, f.ETag)
		}
		if n := files(t, dir); n != 3 {
			t.Errorf("%d files, want 3 (two files and one thumbnail)", n)
		}
	}
	_, err := svc.Open(ctx, ref, 2, true)
	if e := apperr.From(err); e.Code != apperr.NotFound || e.Field != "variant" {
		t.Errorf("a PDF's thumbnail: %v, want NOT_FOUND on variant", err)
	}
	if _, err := svc.Open(ctx, ref, 3, false); !errors.Is(err, fuel.ErrAttachmentNotFound) {
		t.Errorf("an unknown attachment: %v, want fuel.ErrAttachmentNotFound", err)
	}
}
