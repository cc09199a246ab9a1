package httpapi_test

import (
	"bytes"
	"fmt"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/carhub/backend/services/docqa/internal/ingest/ingesttest"
	"github.com/carhub/backend/services/docqa/internal/openaifake"
)

// fileRequest sends method to a document's /file with the given headers.
func fileRequest(t *testing.T, s *service, method, md5 string, header ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, s.URL+"/api/documents/"+md5+"/file", nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return exchange(t, s.client, req)
}

// kept lists the files of the originals directory.
func kept(t *testing.T, s *service) []string {
	t.Helper()
	entries, err := os.ReadDir(s.filesDir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestDocumentFile(t *testing.T) {
	forEachAuthMode(t, func(t *testing.T, accounts bool) {
		s := newService(t, options{accounts: accounts})
		pdf := manual("file")
		doc := s.uploadPDF(t, "manual.pdf", pdf)
		if got := kept(t, s); len(got) != 1 || got[0] != doc.FileMD5+".pdf" {
			t.Fatalf("originals directory holds %v", got)
		}
		etag := `"` + doc.FileMD5 + `"`

		t.Run("GET answers the uploaded bytes", func(t *testing.T) {
			resp, body := fileRequest(t, s, http.MethodGet, doc.FileMD5)
			if resp.StatusCode != http.StatusOK || !bytes.Equal(body, pdf) {
				t.Fatalf("status %d, %d bytes (want %d, equal %v)", resp.StatusCode, len(body), len(pdf), bytes.Equal(body, pdf))
			}
			for name, want := range map[string]string{
				"Content-Type":           "application/pdf",
				"Content-Disposition":    "inline; filename=manual.pdf",
				"Content-Length":         fmt.Sprint(len(pdf)),
				"X-Content-Type-Options": "nosniff",
				"ETag":                   etag,
				"Accept-Ranges":          "bytes",
				"Cache-Control":          "private, no-cache",
				"Last-Modified":          testNow.Format(http.TimeFormat),
			} {
				if got := resp.Header.Get(name); got != want {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
		})

		t.Run("the md5 in upper case", func(t *testing.T) {
			resp, body := fileRequest(t, s, http.MethodGet, strings.ToUpper(doc.FileMD5))
			if resp.StatusCode != http.StatusOK || !bytes.Equal(body, pdf) {
				t.Fatalf("status %d, %d bytes", resp.StatusCode, len(body))
			}
		})

		t.Run("range", func(t *testing.T) {
			resp, body := fileRequest(t, s, http.MethodGet, doc.FileMD5, "Range", "bytes=0-99")
			if resp.StatusCode != http.StatusPartialContent || !bytes.Equal(body, pdf[:100]) {
				t.Fatalf("status %d, body %q", resp.StatusCode, body)
			}
			if got, want := resp.Header.Get("Content-Range"), fmt.Sprintf("bytes 0-99/%d", len(pdf)); got != want {
				t.Errorf("Content-Range = %q, want %q", got, want)
			}
			if got := resp.Header.Get("Content-Length"); got != "100" {
				t.Errorf("Content-Length = %q", got)
			}
			// The end of the file, as a viewer reads the cross-reference table first.
			resp, body = fileRequest(t, s, http.MethodGet, doc.FileMD5, "Range", "bytes=-50")
			if resp.StatusCode != http.StatusPartialContent || !bytes.Equal(body, pdf[len(pdf)-50:]) {
				t.Fatalf("suffix range: status %d, body %q", resp.StatusCode, body)
			}
		})

		t.Run("If-Range", func(t *testing.T) {
			resp, body := fileRequest(t, s, http.MethodGet, doc.FileMD5, "Range", "bytes=0-99", "If-Range", etag)
			if resp.StatusCode != http.StatusPartialContent || len(body) != 100 {
				t.Errorf("matching If-Range: status %d, %d bytes", resp.StatusCode, len(body))
			}
			resp, body = fileRequest(t, s, http.MethodGet, doc.FileMD5, "Range", "bytes=0-99", "If-Range", `"another"`)
			if resp.StatusCode != http.StatusOK || !bytes.Equal(body, pdf) {
				t.Errorf("stale If-Range: status %d, %d bytes (want the whole file)", resp.StatusCode, len(body))
			}
		})

		t.Run("range beyond the end", func(t *testing.T) {
			resp, _ := fileRequest(t, s, http.MethodGet, doc.FileMD5, "Range", fmt.Sprintf("bytes=%d-", len(pdf)+10))
			if resp.StatusCode != http.StatusRequestedRangeNotSatisfiable {
				t.Fatalf("status %d", resp.StatusCode)
			}
			if got, want := resp.Header.Get("Content-Range"), fmt.Sprintf("bytes */%d", len(pdf)); got != want {
				t.Errorf("Content-Range = %q, want %q", got, want)
			}
		})

		t.Run("HEAD", func(t *testing.T) {
			resp, body := fileRequest(t, s, http.MethodHead, doc.FileMD5)
			if resp.StatusCode != http.StatusOK || len(body) != 0 {
				t.Fatalf("status %d, %d bytes", resp.StatusCode, len(body))
			}
			if resp.Header.Get("Content-Length") != fmt.Sprint(len(pdf)) || resp.Header.Get("ETag") != etag ||
				resp.Header.Get("Content-Type") != "application/pdf" {
				t.Errorf("headers %v", resp.Header)
			}
			resp, _ = fileRequest(t, s, http.MethodHead, strings.Repeat("0", 32))
			if resp.StatusCode != http.StatusNotFound {
				t.Errorf("HEAD of an unknown document: %d", resp.StatusCode)
			}
		})

		t.Run("If-None-Match", func(t *testing.T) {
			resp, body := fileRequest(t, s, http.MethodGet, doc.FileMD5, "If-None-Match", etag)
			if resp.StatusCode != http.StatusNotModified || len(body) != 0 || resp.Header.Get("ETag") != etag {
				t.Fatalf("status %d, %d bytes, ETag %q", resp.StatusCode, len(body), resp.Header.Get("ETag"))
			}
			resp, _ = fileRequest(t, s, http.MethodGet, doc.FileMD5, "If-None-Match", `"something-else"`)
			if resp.StatusCode != http.StatusOK {
				t.Errorf("another ETag: status %d", resp.StatusCode)
			}
		})

		t.Run("malformed and unknown ids", func(t *testing.T) {
			for _, bad := range []string{"not-an-md5", doc.FileMD5 + "0", doc.FileMD5[:31], "..", "%2E%2E", strings.Repeat("g", 32)} {
				resp, body := fileRequest(t, s, http.MethodGet, bad)
				if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), `"code":"INVALID_ARGUMENT"`) ||
					!strings.Contains(string(body), `md5: must be 32 hexadecimal characters`) {
					t.Errorf("%s: %d %s", bad, resp.StatusCode, body)
				}
			}
			// An escaped slash is decoded before routing: no route matches.
			resp, body := fileRequest(t, s, http.MethodGet, "..%2F..%2Fetc%2Fpasswd")
			if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(body), `"code":"NOT_FOUND"`) {
				t.Errorf("escaped slashes: %d %s", resp.StatusCode, body)
			}
			unknown := strings.Repeat("ab", 16)
			wantError(t, s.get(t, "/api/documents/"+unknown+"/file"), http.StatusNotFound, "NOT_FOUND", "document "+unknown+" not found")
		})

		t.Run("delete removes the original", func(t *testing.T) {
			other := s.uploadPDF(t, "other.pdf", manual("other"))
			if len(kept(t, s)) != 2 {
				t.Fatalf("originals directory holds %v", kept(t, s))
			}
			if resp := s.del(t, "/api/documents/"+other.FileMD5); resp.StatusCode != http.StatusNoContent {
				t.Fatalf("delete: %d", resp.StatusCode)
			}
			if got := kept(t, s); len(got) != 1 || got[0] != doc.FileMD5+".pdf" {
				t.Errorf("after the delete the directory holds %v", got)
			}
			wantError(t, s.get(t, "/api/documents/"+other.FileMD5+"/file"), http.StatusNotFound, "NOT_FOUND", "not found")
		})
	})
}

// TestDocumentFileName: the name the file was uploaded with comes back in
// Content-Disposition, percent-encoded (RFC 5987) when it is not ASCII and
// quoted when it needs it; a client's parser reads back exactly that name.
func TestDocumentFileName(t *testing.T) {
	forEachAuthMode(t, func(t *testing.T, accounts bool) {
		s := newService(t, options{accounts: accounts, local: true})
		for i, tt := range []struct{ name, header string }{
			{"Betriebsanleitung Öl & Bremsen.pdf", "inline; filename*=utf-8''Betriebsanleitung%20%C3%96l%20&%20Bremsen.pdf"},
			{"取扱説明書.pdf", "inline; filename*=utf-8''%E5%8F%96%E6%89%B1%E8%AA%AC%E6%98%8E%E6%9B%B8.pdf"},
			{`the "big" manual; v2.pdf`, `inline; filename="the \"big\" manual; v2.pdf"`},
		} {
			doc := s.uploadPDF(t, tt.name, ingesttest.PDF(fmt.Sprintf("Manual number %d: the wipers are replaced every spring.", i)))
			resp, _ := fileRequest(t, s, http.MethodHead, doc.FileMD5)
			header := resp.Header.Get("Content-Disposition")
			if header != tt.header {
				t.Errorf("Content-Disposition = %q, want %q", header, tt.header)
			}
			disposition, params, err := mime.ParseMediaType(header)
			if err != nil || disposition != "inline" || params["filename"] != tt.name {
				t.Errorf("%q parses as %q %q, %v; want inline %q", header, disposition, params, err, tt.name)
			}
		}
	})
}

// TestFailedIngestionKeepsNoOriginal: a file that is not stored leaves
// nothing in the originals directory, whatever stopped it.
func TestFailedIngestionKeepsNoOriginal(t *testing.T) {
	forEachAuthMode(t, func(t *testing.T, accounts bool) {
		s := newService(t, options{accounts: accounts})
		resp := s.upload(t, "/api/documents/upload", part{"file", "corrupt.pdf", []byte("%PDF-1.4\n1 0 obj << /Type /Catalog garbage")})
		wantError(t, resp, http.StatusBadRequest, "INVALID_ARGUMENT", "corrupt")
		resp = s.upload(t, "/api/documents/upload", part{"file", "blank.pdf", ingesttest.PDF("", "")})
		wantError(t, resp, http.StatusBadRequest, "INVALID_ARGUMENT", "no extractable text")

		s.fake.FailEmbeddings(openaifake.Failure{Status: 503})
		resp = s.upload(t, "/api/documents/upload", part{"file", "manual.pdf", manual("down")})
		wantError(t, resp, http.StatusServiceUnavailable, "UNAVAILABLE", "unavailable")
		if got := kept(t, s); len(got) != 0 {
			t.Fatalf("failed ingestions left %v", got)
		}
		if n := storedCount(t, s); n != 0 {
			t.Fatalf("%d documents stored", n)
		}
	})
}

// TestDocumentFileNotKept: a document stored before originals were kept
// answers 404 saying so; uploading the same file again keeps it.
func TestDocumentFileNotKept(t *testing.T) {
	forEachAuthMode(t, func(t *testing.T, accounts bool) {
		s := newService(t, options{accounts: accounts, local: true})
		pdf := manual("older")
		doc := s.uploadPDF(t, "older.pdf", pdf)
		if err := os.Remove(filepath.Join(s.filesDir, doc.FileMD5+".pdf")); err != nil {
			t.Fatal(err)
		}
		wantError(t, s.get(t, "/api/documents/"+doc.FileMD5+"/file"), http.StatusNotFound, "NOT_FOUND",
			"document "+doc.FileMD5+": its original file was not kept")

		again := s.uploadPDF(t, "again.pdf", pdf)
		if !again.Duplicate || again.Document != doc.Document {
			t.Fatalf("re-upload = %+v", again)
		}
		resp, body := fileRequest(t, s, http.MethodGet, doc.FileMD5)
		if resp.StatusCode != http.StatusOK || !bytes.Equal(body, pdf) {
			t.Fatalf("after the re-upload: status %d, %d bytes", resp.StatusCode, len(body))
		}
		// Still under the name of the document as first stored.
		if got := resp.Header.Get("Content-Disposition"); got != "inline; filename=older.pdf" {
			t.Errorf("Content-Disposition = %q", got)
		}
	})
}

// TestImportKeepsOriginals: documents of the data directory are kept like
// uploads.
func TestImportKeepsOriginals(t *testing.T) {
	forEachAuthMode(t, func(t *testing.T, accounts bool) {
		s := newService(t, options{accounts: accounts, local: true})
		pdf := manual("imported")
		if err := os.WriteFile(filepath.Join(s.dataDir, "imported.pdf"), pdf, 0o600); err != nil {
			t.Fatal(err)
		}
		var res struct {
			Documents []struct{ FileMD5 string }
		}
		decode(t, s.post(t, "/api/documents/import", "", nil), http.StatusOK, &res)
		if len(res.Documents) != 1 {
			t.Fatalf("import = %+v", res)
		}
		resp, body := fileRequest(t, s, http.MethodGet, res.Documents[0].FileMD5)
		if resp.StatusCode != http.StatusOK || !bytes.Equal(body, pdf) {
			t.Fatalf("status %d, %d bytes", resp.StatusCode, len(body))
		}
	})
}
