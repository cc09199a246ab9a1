package httpapi_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"image/jpeg"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/carhub/backend/services/fuel/internal/attach/attachtest"
	"github.com/carhub/backend/services/fuel/internal/filestore"
	"github.com/carhub/backend/services/fuel/internal/httpapi"
	"github.com/carhub/backend/services/fuel/internal/media/mediatest"
	"github.com/carhub/backend/services/fuel/internal/store"
)

// filesServer is the API with a file store in a fresh directory, on a
// fresh database of dialect d: with accounts off, or on (a session of
// root) when accounts is set.
func filesServer(t *testing.T, d store.Dialect, accounts bool) (*server, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "files")
	files, err := filestore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if accounts {
		s := authServerWith(t, d, func(o *httpapi.Options, _ *store.Store) { o.Files = files })
		s.token = s.session("root")
		return s, dir
	}
	st := mustStore(t, d)
	ts := httptest.NewServer(httpapi.New(slog.New(slog.NewTextHandler(io.Discard, nil)), st, httpapi.Options{Files: files}))
	t.Cleanup(ts.Close)
	return &server{tb: t, url: ts.URL, store: st}, dir
}

// forEachFilesServer runs fn on each database with accounts off and on.
func forEachFilesServer(t *testing.T, fn func(t *testing.T, s *server, dir string)) {
	for _, d := range dialects {
		for _, accounts := range []bool{false, true} {
			name := string(d)
			if accounts {
				name += "-accounts"
			}
			t.Run(name, func(t *testing.T) {
				s, dir := filesServer(t, d, accounts)
				fn(t, s, dir)
			})
		}
	}
}

// part is one part of a multipart upload.
type part struct {
	field, name, contentType string
	data                     []byte
}

// multipartBody encodes parts as multipart/form-data.
func multipartBody(tb testing.TB, parts ...part) (string, *bytes.Buffer) {
	tb.Helper()
	ps := make([]attachtest.Part, len(parts))
	for i, p := range parts {
		ps[i] = attachtest.Part{Field: p.field, Name: p.name, ContentType: p.contentType, Data: p.data}
	}
	ct, body := attachtest.Multipart(tb, ps...)
	return ct, bytes.NewBuffer(body)
}

// attach posts one file as the part named file; header as postForm's.
func (s *server) attach(path, name, contentType string, data []byte, header ...string) response {
	s.tb.Helper()
	ct, body := multipartBody(s.tb, part{"file", name, contentType, data})
	return s.postForm(path, ct, body, header...)
}

// storedFiles lists the names in the file store's directory.
func storedFiles(tb testing.TB, dir string) []string {
	tb.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	names := []string{}
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// newRefuel makes a vehicle and a refuel of it and returns their ids.
func (s *server) newRefuel() (vid, rid string) {
	s.tb.Helper()
	vid = s.mustVehicle(`{"name":"Car","fuel_type":"gasoline"}`)
	return vid, recordKinds[0].create(s, vid)
}

// recordKind is a kind of record that takes attachments, as the tests
// make one.
type recordKind struct {
	name, path string // record_type; the records' collection
	// create makes a record of vehicle vid and returns its id.
	create func(s *server, vid string) string
}

var recordKinds = []recordKind{
	{"refuel", "/api/refuels", func(s *server, vid string) string {
		s.tb.Helper()
		return s.mustRefuel(`{"vehicle_id":` + vid + `,"refuel_time":"2026-05-01T08:00:00Z","odometer":1000,"fuel_type":"95",` +
			`"liters":40,"total_amount":70}`)
	}},
	{"expense", "/api/expenses", func(s *server, vid string) string {
		s.tb.Helper()
		res := s.must(200, "POST", "/api/expenses", `{"vehicle_id":`+vid+`,"time":"2026-05-02T09:00:00Z","category":"service",`+
			`"title":"Oil change","amount":89.9}`)
		return literal(object(s.tb, res.body)["id"])
	}},
}

// forEachRecordKind runs fn for each kind of record on a fresh server of
// forEachFilesServer's.
func forEachRecordKind(t *testing.T, fn func(t *testing.T, s *server, dir string, k recordKind)) {
	for _, k := range recordKinds {
		t.Run(k.name, func(t *testing.T) {
			forEachFilesServer(t, func(t *testing.T, s *server, dir string) { fn(t, s, dir, k) })
		})
	}
}

var minimalPDF = []byte("%PDF-1.7\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n")

func TestAttachmentUploadReadDelete(t *testing.T) {
	forEachRecordKind(t, func(t *testing.T, s *server, dir string, k recordKind) {
		vid := s.mustVehicle(`{"name":"Car","fuel_type":"gasoline"}`)
		rid := k.create(s, vid)
		base := k.path + "/" + rid + "/attachments"
		photo := mediatest.MustJPEG(t, 640, 480, mediatest.MustExif(t, true, 1))

		res := s.attach(base, "IMG_0042.jpg", "image/jpeg", photo)
		if res.status != 200 {
			t.Fatalf("upload: %d %s", res.status, res.body)
		}
		a := object(t, res.body)
		aid := literal(a["id"])
		url := base + "/" + aid
		// The answer's every member, exactly.
		want := map[string]string{
			"id": aid, "record_type": `"` + k.name + `"`, "record_id": rid, "file_name": `"IMG_0042.jpg"`,
			"content_type": `"image/jpeg"`, "size": literal(len(photo)),
			"url": `"` + url + `"`, "thumbnail_url": `"` + url + `?variant=thumbnail"`,
		}
		for k, v := range want {
			if got := literal(a[k]); got != v {
				t.Errorf("%s = %s, want %s", k, got, v)
			}
		}
		if len(a) != len(want)+2 || a["created_at"] == nil || a["sha256"] == nil {
			t.Errorf("members %v, want those of %v and created_at, sha256", a, want)
		}

		// The stored file: the photo without its GPS, and the digest says so.
		file := s.must(200, "GET", url, "")
		if ct := file.header.Get("Content-Type"); ct != "image/jpeg" {
			t.Errorf("Content-Type %q", ct)
		}
		if got := sha256Hex(file.body); got != a["sha256"] {
			t.Errorf("the file's SHA-256 %s, the answer's %s", got, a["sha256"])
		}
		if bytes.Equal(file.body, photo) {
			t.Fatal("the stored photo is the uploaded one: its GPS was kept")
		}
		if n, camera, _ := mediatest.ExifOf(t, file.body); n != 0 || camera != "TestCam" {
			t.Errorf("stored EXIF: %d GPS entries, Make %q; want 0, TestCam", n, camera)
		}
		if cd := file.header.Get("Content-Disposition"); cd != `inline; filename=IMG_0042.jpg` {
			t.Errorf("Content-Disposition %q", cd)
		}

		thumb := s.must(200, "GET", url+"?variant=thumbnail", "")
		img, err := jpeg.Decode(bytes.NewReader(thumb.body))
		if err != nil {
			t.Fatalf("thumbnail: %v", err)
		}
		if b := img.Bounds(); b.Dx() != 320 || b.Dy() != 240 {
			t.Errorf("thumbnail %dx%d, want 320x240", b.Dx(), b.Dy())
		}

		list := array(t, s.must(200, "GET", base, "").body)
		if len(list) != 1 || literal(list[0]) != literal(a) {
			t.Fatalf("list %v, want [%v]", list, a)
		}
		// The attachment is its record's only: another record's path does
		// not reach it.
		other := k.create(s, vid)
		errorBody(t, s.do("GET", k.path+"/"+other+"/attachments/"+aid, ""), 404, "NOT_FOUND", "")
		errorBody(t, s.do("DELETE", k.path+"/"+other+"/attachments/"+aid, ""), 404, "NOT_FOUND", "")

		// A PDF has no thumbnail.
		res = s.attach(base, "bill.pdf", "application/pdf", minimalPDF)
		if res.status != 200 {
			t.Fatalf("pdf: %d %s", res.status, res.body)
		}
		pdf := object(t, res.body)
		if pdf["thumbnail_url"] != nil || pdf["content_type"] != "application/pdf" {
			t.Errorf("pdf %v", pdf)
		}
		errorBody(t, s.do("GET", base+"/"+literal(pdf["id"])+"?variant=thumbnail", ""), 404, "NOT_FOUND", "variant")
		errorBody(t, s.do("GET", url+"?variant=small", ""), 400, "INVALID_ARGUMENT", "variant")
		if got := s.must(200, "GET", base+"/"+literal(pdf["id"])+"?variant=original", "").body; !bytes.Equal(got, minimalPDF) {
			t.Errorf("pdf bytes %q", got)
		}

		// The directory holds the two files and the photo's thumbnail.
		if got := len(storedFiles(t, dir)); got != 3 {
			t.Errorf("files %v, want 3", storedFiles(t, dir))
		}

		s.must(204, "DELETE", url, "")
		errorBody(t, s.do("GET", url, ""), 404, "NOT_FOUND", "")
		errorBody(t, s.do("DELETE", url, ""), 404, "NOT_FOUND", "")
		if got := storedFiles(t, dir); len(got) != 1 {
			t.Errorf("files after the delete %v, want the PDF's only", got)
		}
		if list := array(t, s.must(200, "GET", base, "").body); len(list) != 1 || literal(list[0]["id"]) != literal(pdf["id"]) {
			t.Errorf("list after the delete %v", list)
		}

		// The record's delete takes its attachments and their files.
		s.must(204, "DELETE", k.path+"/"+rid, "")
		if got := storedFiles(t, dir); len(got) != 0 {
			t.Errorf("files after the refuel's delete %v, want none", got)
		}
		errorBody(t, s.do("GET", base, ""), 404, "NOT_FOUND", "")
	})
}

func TestAttachmentRefusals(t *testing.T) {
	forEachFilesServer(t, func(t *testing.T, s *server, dir string) {
		_, rid := s.newRefuel()
		base := "/api/refuels/" + rid + "/attachments"
		photo := mediatest.MustJPEG(t, 16, 16, nil)
		pngData := mediatest.MustPNG(t, 16, 16, mediatest.MustExif(t, false, 1))
		big := append(bytes.Clone(minimalPDF), make([]byte, 10<<20)...)

		for _, tc := range []struct {
			name   string
			parts  []part
			status int
			code   string
			field  string
		}{
			{"lying extension", []part{{"file", "receipt.png", "", photo}}, 400, "INVALID_ARGUMENT", "file"},
			{"lying content type", []part{{"file", "receipt.png", "image/jpeg", pngData}}, 400, "INVALID_ARGUMENT", "file"},
			{"a type not taken", []part{{"file", "a.txt", "text/plain", []byte("hello, world")}}, 400, "INVALID_ARGUMENT", "file"},
			{"empty", []part{{"file", "a.jpg", "image/jpeg", nil}}, 400, "INVALID_ARGUMENT", "file"},
			{"over 10 MiB", []part{{"file", "big.pdf", "application/pdf", big}}, 413, "PAYLOAD_TOO_LARGE", "file"},
			{"no file", []part{}, 400, "INVALID_ARGUMENT", "file"},
			{"two files", []part{{"file", "a.jpg", "", photo}, {"file", "b.jpg", "", photo}}, 400, "INVALID_ARGUMENT", "file"},
			{"another part", []part{{"note", "", "", []byte("x")}, {"file", "a.jpg", "", photo}}, 400, "INVALID_ARGUMENT", "note"},
			{"not a file", []part{{"file", "", "", photo}}, 400, "INVALID_ARGUMENT", "file"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				ct, body := multipartBody(t, tc.parts...)
				errorBody(t, s.postForm(base, ct, body), tc.status, tc.code, tc.field)
			})
		}
		errorBody(t, s.postForm(base, "application/json", strings.NewReader(`{}`)), 400, "INVALID_ARGUMENT", "file")
		errorBody(t, s.attach("/api/refuels/999999/attachments", "a.jpg", "", photo), 404, "NOT_FOUND", "")
		errorBody(t, s.attach("/api/refuels/x/attachments", "a.jpg", "", photo), 400, "INVALID_ARGUMENT", "id")
		errorBody(t, s.do("GET", base+"/0", ""), 400, "INVALID_ARGUMENT", "aid")
		errorBody(t, s.do("GET", base+"/999999", ""), 404, "NOT_FOUND", "")

		// Ten per record: the eleventh is refused, and its file, written
		// before the database said no, is removed.
		for i := 0; i < 10; i++ {
			if res := s.attach(base, "p.png", "image/png", pngData); res.status != 200 {
				t.Fatalf("upload %d: %d %s", i, res.status, res.body)
			}
		}
		errorBody(t, s.attach(base, "p.png", "image/png", pngData), 409, "CONFLICT", "file")
		if got := storedFiles(t, dir); len(got) != 10 {
			t.Errorf("%d files stored (%v), want 10: nothing of a refused upload", len(got), got)
		}
		if list := array(t, s.must(200, "GET", base, "").body); len(list) != 10 {
			t.Errorf("%d attachments, want 10", len(list))
		}
	})
}

// TestAttachmentIdempotency: a client that sends the same upload again
// with its key (framed anew, as a retry is) gets the first answer, and one
// file is kept.
func TestAttachmentIdempotency(t *testing.T) {
	forEachFilesServer(t, func(t *testing.T, s *server, dir string) {
		_, rid := s.newRefuel()
		base := "/api/refuels/" + rid + "/attachments"
		photo := mediatest.MustJPEG(t, 32, 32, nil)
		first := s.attach(base, "a.jpg", "image/jpeg", photo, "Idempotency-Key", "k-1")
		again := s.attach(base, "a.jpg", "image/jpeg", photo, "Idempotency-Key", "k-1")
		if first.status != 200 || again.status != 200 || !bytes.Equal(first.body, again.body) {
			t.Fatalf("first %d %s, again %d %s", first.status, first.body, again.status, again.body)
		}
		if again.header.Get("Idempotent-Replayed") != "true" {
			t.Error("the repeat is not marked replayed")
		}
		other := mediatest.MustJPEG(t, 8, 8, nil)
		errorBody(t, s.attach(base, "a.jpg", "image/jpeg", other, "Idempotency-Key", "k-1"), 400, "INVALID_ARGUMENT", "Idempotency-Key")
		if list := array(t, s.must(200, "GET", base, "").body); len(list) != 1 {
			t.Errorf("%d attachments, want 1", len(list))
		}
		if got := storedFiles(t, dir); len(got) != 1 {
			t.Errorf("files %v, want 1", got)
		}
	})
}

// TestAttachmentsGoWithTheirVehicle: deleting a vehicle deletes its
// refuels' attachments and their files.
func TestAttachmentsGoWithTheirVehicle(t *testing.T) {
	forEachRecordKind(t, func(t *testing.T, s *server, dir string, k recordKind) {
		vid := s.mustVehicle(`{"name":"Car","fuel_type":"gasoline"}`)
		rid := k.create(s, vid)
		keep := k.create(s, s.mustVehicle(`{"name":"Other","fuel_type":"gasoline"}`))
		for _, r := range []string{rid, rid, keep} {
			if res := s.attach(k.path+"/"+r+"/attachments", "b.pdf", "", minimalPDF); res.status != 200 {
				t.Fatalf("upload: %d %s", res.status, res.body)
			}
		}
		s.must(204, "DELETE", "/api/vehicles/"+vid, "")
		if got := storedFiles(t, dir); len(got) != 1 {
			t.Errorf("files %v, want the other vehicle's one", got)
		}
		if list := array(t, s.must(200, "GET", k.path+"/"+keep+"/attachments", "").body); len(list) != 1 {
			t.Errorf("the other record's attachments %v", list)
		}
	})
}

// TestAttachmentAccess: a shared vehicle's viewer reads its attachments,
// its editor adds and deletes them, anyone else finds nothing.
func TestAttachmentAccess(t *testing.T) {
	for _, k := range recordKinds {
		for _, d := range dialects {
			t.Run(k.name+"-"+string(d), func(t *testing.T) { attachmentAccess(t, d, k) })
		}
	}
}

func attachmentAccess(t *testing.T, d store.Dialect, k recordKind) {
	t.Helper()
	s, _ := filesServer(t, d, true)
	root := s.token
	ids, tokens := map[string]string{}, map[string]string{}
	for _, name := range []string{"viv", "ed", "out"} {
		ids[name], tokens[name] = s.newUser(name)
	}
	viv, ed, out := tokens["viv"], tokens["ed"], tokens["out"]
	vid := s.mustVehicle(`{"name":"Car","fuel_type":"gasoline"}`)
	rid := k.create(s, vid)
	members := "/api/vehicles/" + vid + "/members/"
	wantStatus(t, "share with viv", s.as(root, "PUT", members+ids["viv"], `{"role":"viewer"}`), 200, "")
	wantStatus(t, "share with ed", s.as(root, "PUT", members+ids["ed"], `{"role":"editor"}`), 200, "")
	base := k.path + "/" + rid + "/attachments"
	res := s.attach(base, "r.pdf", "", minimalPDF)
	wantStatus(t, "root uploads", res, 200, "")
	url := base + "/" + literal(object(t, res.body)["id"])

	as := func(token string) *server { c := *s; c.token = token; return &c }
	wantStatus(t, "viewer lists", as(viv).do("GET", base, ""), 200, "")
	wantStatus(t, "viewer reads", as(viv).do("GET", url, ""), 200, "")
	wantStatus(t, "viewer uploads", as(viv).attach(base, "v.pdf", "", minimalPDF), 403, "FORBIDDEN")
	wantStatus(t, "viewer deletes", as(viv).do("DELETE", url, ""), 403, "FORBIDDEN")
	for what, r := range map[string]response{
		"outsider lists":   as(out).do("GET", base, ""),
		"outsider reads":   as(out).do("GET", url, ""),
		"outsider uploads": as(out).attach(base, "o.pdf", "", minimalPDF),
		"outsider deletes": as(out).do("DELETE", url, ""),
	} {
		wantStatus(t, what, r, 404, "NOT_FOUND")
	}
	wantStatus(t, "no token", as("").do("GET", url, ""), 401, "UNAUTHORIZED")
	res = as(ed).attach(base, "e.pdf", "", minimalPDF)
	wantStatus(t, "editor uploads", res, 200, "")
	wantStatus(t, "editor deletes", as(ed).do("DELETE", url, ""), 204, "")
	if list := array(t, as(viv).do("GET", base, "").body); len(list) != 1 || list[0]["file_name"] != "e.pdf" {
		t.Errorf("list %v, want the editor's file", list)
	}
}

// TestAttachmentsWithoutFileStore: a service without FUEL_FILES_DIR says
// so rather than failing obscurely.
func TestAttachmentsWithoutFileStore(t *testing.T) {
	s := MustServer(t, store.SQLite)
	_, rid := s.newRefuel()
	errorBody(t, s.attach("/api/refuels/"+rid+"/attachments", "a.pdf", "", minimalPDF), 503, "UNAVAILABLE", "")
}
