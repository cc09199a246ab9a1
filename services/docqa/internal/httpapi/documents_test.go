package httpapi_test

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/carhub/backend/services/docqa/internal/ingest"
	"github.com/carhub/backend/services/docqa/internal/ingest/ingesttest"
	"github.com/carhub/backend/services/docqa/internal/openaifake"
)

func manual(tag string) []byte {
	return ingesttest.PDF(
		"The "+tag+" manual, chapter one.\nChange the engine oil every 15000 kilometres or once a year.",
		"The "+tag+" manual, chapter two.\nTyre pressure is 2.4 bar at the front and 2.2 bar at the rear.",
	)
}

func TestUploadListDelete(t *testing.T) {
	forEachAuthMode(t, func(t *testing.T, accounts bool) {
		s := newService(t, options{accounts: accounts})
		pdf := manual("alpha")
		res := s.uploadPDF(t, "alpha.pdf", pdf)
		if res.FileName != "alpha.pdf" || res.Size != int64(len(pdf)) || res.Pages != 2 || res.Chunks != 2 ||
			res.Duplicate || res.Truncated || !res.CreatedAt.Equal(testNow) || len(res.FileMD5) != 32 {
			t.Fatalf("upload = %+v", res)
		}

		// The same bytes again: the stored figures, duplicate, nothing embedded.
		calls := len(s.fake.EmbeddingRequests())
		dup := s.uploadPDF(t, "other-name.pdf", pdf)
		if !dup.Duplicate || dup.Document != res.Document {
			t.Errorf("duplicate = %+v", dup)
		}
		if got := len(s.fake.EmbeddingRequests()); got != calls {
			t.Errorf("embedding calls %d -> %d on a duplicate", calls, got)
		}

		beta := s.uploadPDF(t, "beta.pdf", manual("beta"))
		var list []ingest.Result
		decode(t, s.get(t, "/api/documents"), http.StatusOK, &list)
		if len(list) != 2 || list[0].FileMD5 != beta.FileMD5 || list[1].FileMD5 != res.FileMD5 {
			t.Fatalf("list (want beta then alpha, newest first) = %+v", list)
		}

		resp := s.del(t, "/api/documents/"+strings.ToUpper(res.FileMD5))
		if resp.StatusCode != http.StatusNoContent {
			t.Fatalf("delete status = %d", resp.StatusCode)
		}
		wantError(t, s.del(t, "/api/documents/"+res.FileMD5), http.StatusNotFound, "NOT_FOUND", res.FileMD5)
		wantError(t, s.del(t, "/api/documents/not-an-md5"), http.StatusBadRequest, "INVALID_ARGUMENT", "md5:")
		wantError(t, s.del(t, "/api/documents/"+res.FileMD5+"0"), http.StatusBadRequest, "INVALID_ARGUMENT", "md5:")
		decode(t, s.get(t, "/api/documents"), http.StatusOK, &list)
		if len(list) != 1 || list[0].FileMD5 != beta.FileMD5 {
			t.Errorf("list after delete = %+v", list)
		}

		// Deleted, the file can be uploaded again and is stored anew.
		if again := s.uploadPDF(t, "alpha.pdf", pdf); again.Duplicate {
			t.Errorf("re-upload after delete = %+v", again)
		}
	})
}

func TestConcurrentDuplicateUploads(t *testing.T) {
	forEachAuthMode(t, func(t *testing.T, accounts bool) {
		s := newService(t, options{accounts: accounts, fake: []openaifake.Option{openaifake.WithEmbeddingDelay(30 * time.Millisecond)}})
		pdf := manual("gamma")
		ct, body := multipartBody(t, part{"file", "gamma.pdf", pdf})
		const n = 8
		results := make([]ingest.Result, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				resp, err := s.client.Post(s.URL+"/api/documents/upload", ct, bytes.NewReader(body))
				if err != nil {
					t.Error(err)
					return
				}
				defer resp.Body.Close()
				decode(t, resp, http.StatusOK, &results[i])
			})
		}
		wg.Wait()
		fresh := 0
		for _, r := range results {
			if !r.Duplicate {
				fresh++
			}
		}
		texts := 0
		for _, r := range s.fake.EmbeddingRequests() {
			texts += len(r.Input)
		}
		if fresh != 1 || texts != results[0].Chunks || storedCount(t, s) != 1 {
			t.Errorf("%d uploads stored, %d texts embedded for %d chunks, %d documents stored; want 1, %d, 1",
				fresh, texts, results[0].Chunks, storedCount(t, s), results[0].Chunks)
		}
	})
}

func TestUploadBadInput(t *testing.T) {
	forEachAuthMode(t, func(t *testing.T, accounts bool) {
		encrypted, err := os.ReadFile("../../testdata/encrypted.pdf")
		if err != nil {
			t.Fatal(err)
		}
		pdf := manual("delta")
		tests := []struct {
			name   string
			parts  []part
			status int
			code   string
			msg    string
		}{
			{"not a PDF", []part{{"file", "a.pdf", []byte("just some text")}}, 400, "INVALID_ARGUMENT", "file: is not a PDF"},
			{"empty", []part{{"file", "a.pdf", nil}}, 400, "INVALID_ARGUMENT", "file: is empty"},
			{"corrupt", []part{{"file", "a.pdf", []byte("%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R")}}, 400, "INVALID_ARGUMENT", "corrupt"},
			{"truncated", []part{{"file", "a.pdf", pdf[:len(pdf)/2]}}, 400, "INVALID_ARGUMENT", "corrupt"},
			{"needs a password", []part{{"file", "a.pdf", encrypted}}, 400, "INVALID_ARGUMENT", "file: the PDF needs a password to open"},
			{"text-less", []part{{"file", "a.pdf", ingesttest.PDF("", "")}}, 400, "INVALID_ARGUMENT", "no extractable text"},
			{"two file parts", []part{{"file", "a.pdf", pdf}, {"file", "b.pdf", manual("epsilon")}}, 400, "INVALID_ARGUMENT", "more than one"},
			{"missing part", []part{{"document", "a.pdf", pdf}}, 400, "INVALID_ARGUMENT", "file: missing"},
			{"only a text field", []part{{"note", "", []byte("hello")}}, 400, "INVALID_ARGUMENT", "file: missing"},
		}
		for _, path := range []string{"/api/documents/upload", "/api/documents/upload/stream"} {
			for _, tt := range tests {
				t.Run(path+"/"+tt.name, func(t *testing.T) {
					s := newService(t, options{accounts: accounts})
					resp := s.upload(t, path, tt.parts...)
					if path == "/api/documents/upload/stream" && tt.status == 400 && resp.StatusCode == http.StatusOK {
						// Failures found while ingesting arrive in-stream.
						events := withoutComments(readEvents(t, resp))
						last := events[len(events)-1]
						var e errorBody
						unmarshal(t, last.Data, &e)
						if last.Name != "error" || e.Code != tt.code || !strings.Contains(e.Message, tt.msg) {
							t.Errorf("last event = %+v", last)
						}
					} else {
						wantError(t, resp, tt.status, tt.code, tt.msg)
					}
					if n := len(s.fake.EmbeddingRequests()); n != 0 {
						t.Errorf("%d embedding calls", n)
					}
					if n := storedCount(t, s); n != 0 {
						t.Errorf("%d documents stored", n)
					}
					left, _ := os.ReadDir(s.tempDir)
					if len(left) != 0 {
						t.Errorf("temporary files left: %v", left)
					}
				})
			}
		}
	})
}

func TestUploadNotMultipart(t *testing.T) {
	forEachAuthMode(t, func(t *testing.T, accounts bool) {
		s := newService(t, options{accounts: accounts})
		wantError(t, s.post(t, "/api/documents/upload", "application/pdf", manual("x")), 400, "INVALID_ARGUMENT", "file:")
		wantError(t, s.post(t, "/api/documents/upload", "multipart/form-data; boundary=zzz", []byte("--zzz\r\ngarbage")), 400, "INVALID_ARGUMENT", "file:")
	})
}

// TestUploadTooLargeByContentLength sends only the headers of a request
// whose Content-Length is over the limit: the answer must come without the
// body being sent at all.
func TestUploadTooLargeByContentLength(t *testing.T) {
	forEachAuthMode(t, func(t *testing.T, accounts bool) {
		s := newService(t, options{accounts: accounts})
		for _, path := range []string{"/api/documents/upload", "/api/documents/upload/stream"} {
			t.Run(path, func(t *testing.T) {
				conn, err := net.Dial("tcp", strings.TrimPrefix(s.URL, "http://"))
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close()
				fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: x\r\n%sContent-Type: multipart/form-data; boundary=b\r\nContent-Length: %d\r\n\r\n",
					path, s.rawHeaders(), ingest.MaxFileBytes+1)
				resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				wantError(t, resp, http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE", "larger than")
			})
		}
	})
}

// TestUploadTooLargeWhileReading streams a body without Content-Length that
// passes the limit.
func TestUploadTooLargeWhileReading(t *testing.T) {
	forEachAuthMode(t, func(t *testing.T, accounts bool) {
		s := newService(t, options{accounts: accounts, maxUpload: 4096})
		big := append(manual("big"), bytes.Repeat([]byte("%"), 8192)...)
		ct, body := multipartBody(t, part{"file", "big.pdf", big})
		for _, path := range []string{"/api/documents/upload", "/api/documents/upload/stream"} {
			t.Run(path, func(t *testing.T) {
				req, _ := http.NewRequest(http.MethodPost, s.URL+path, struct{ *bytes.Reader }{bytes.NewReader(body)})
				req.Header.Set("Content-Type", ct)
				req.ContentLength = -1 // chunked: the server learns the size by reading
				resp, err := s.client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				wantError(t, resp, http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE", "larger than")
				if storedCount(t, s) != 0 {
					t.Error("stored a too large file")
				}
			})
		}
	})
}

func TestUploadProviderDown(t *testing.T) {
	forEachAuthMode(t, func(t *testing.T, accounts bool) {
		s := newService(t, options{accounts: accounts})
		s.fake.FailEmbeddings(openaifake.Failure{Status: http.StatusInternalServerError})
		wantError(t, s.upload(t, "/api/documents/upload", part{"file", "a.pdf", manual("eta")}),
			http.StatusServiceUnavailable, "UNAVAILABLE", "unavailable")
		if storedCount(t, s) != 0 {
			t.Fatal("stored after a provider failure")
		}

		s.fake.FailEmbeddings(openaifake.Failure{Status: http.StatusServiceUnavailable})
		events := withoutComments(readEvents(t, s.upload(t, "/api/documents/upload/stream", part{"file", "a.pdf", manual("eta")})))
		last := events[len(events)-1]
		var e errorBody
		unmarshal(t, last.Data, &e)
		if last.Name != "error" || e.Code != "UNAVAILABLE" {
			t.Errorf("events = %+v", events)
		}
		if storedCount(t, s) != 0 {
			t.Fatal("stored after a provider failure")
		}
	})
}

func TestUploadStreamProgress(t *testing.T) {
	forEachAuthMode(t, func(t *testing.T, accounts bool) {
		s := newService(t, options{accounts: accounts})
		pdf := manual("theta")
		events := withoutComments(readEvents(t, s.upload(t, "/api/documents/upload/stream", part{"file", "theta.pdf", pdf})))
		order := map[string]int{"received": 0, "parsing": 1, "splitting": 2, "embedding": 3, "storing": 4}
		seen := map[string]bool{}
		lastStage, lastPercent := "received", 0
		for _, ev := range events[:len(events)-1] {
			if ev.Name != "progress" {
				t.Fatalf("event %+v before the end", ev)
			}
			var p ingest.Progress
			unmarshal(t, ev.Data, &p)
			if order[string(p.Stage)] < order[lastStage] || p.Percent < lastPercent || p.Percent > 100 || p.Message == "" {
				t.Errorf("progress %+v after stage %s at %d%%", p, lastStage, lastPercent)
			}
			seen[string(p.Stage)] = true
			lastStage, lastPercent = string(p.Stage), p.Percent
		}
		if len(seen) != 5 || lastPercent != 100 {
			t.Errorf("stages %v, last percent %d", seen, lastPercent)
		}
		done := events[len(events)-1]
		var res ingest.Result
		unmarshal(t, done.Data, &res)
		if done.Name != "done" || res.FileName != "theta.pdf" || res.Chunks != 2 || res.Duplicate {
			t.Errorf("done = %+v", done)
		}

		// A duplicate: received, then done with duplicate true.
		events = withoutComments(readEvents(t, s.upload(t, "/api/documents/upload/stream", part{"file", "again.pdf", pdf})))
		if len(events) != 2 || events[0].Name != "progress" || events[1].Name != "done" || !strings.Contains(events[1].Data, `"duplicate":true`) {
			t.Errorf("duplicate events = %+v", events)
		}
	})
}

func TestImportEndpoint(t *testing.T) {
	forEachAuthMode(t, func(t *testing.T, accounts bool) {
		s := newService(t, options{accounts: accounts})
		outside := filepath.Join(t.TempDir(), "outside.pdf")
		must(t, os.WriteFile(outside, manual("outside"), 0o644))
		must(t, os.MkdirAll(filepath.Join(s.dataDir, "a", "b"), 0o755))
		must(t, os.WriteFile(filepath.Join(s.dataDir, "top.pdf"), manual("top"), 0o644))
		must(t, os.WriteFile(filepath.Join(s.dataDir, "a", "b", "deep.pdf"), manual("deep"), 0o644))
		must(t, os.WriteFile(filepath.Join(s.dataDir, "a", "same-as-top.pdf"), manual("top"), 0o644))
		must(t, os.WriteFile(filepath.Join(s.dataDir, "a", "broken.pdf"), []byte("%PDF-1.4 broken"), 0o644))
		must(t, os.Symlink(outside, filepath.Join(s.dataDir, "link.pdf")))

		var res struct {
			Documents []ingest.Result `json:"documents"`
			Failed    []struct {
				FileName string `json:"fileName"`
				Code     string `json:"code"`
				Message  string `json:"message"`
			} `json:"failed"`
		}
		decode(t, s.post(t, "/api/documents/import", "", nil), http.StatusOK, &res)
		fresh, dups := 0, 0
		for _, d := range res.Documents {
			if d.Duplicate {
				dups++
			} else {
				fresh++
			}
		}
		failed := map[string]string{}
		for _, f := range res.Failed {
			failed[f.FileName] = f.Code + " " + f.Message
		}
		if fresh != 2 || dups != 1 || len(failed) != 2 ||
			failed["a/broken.pdf"] != "INVALID_ARGUMENT file: the PDF is corrupt and cannot be read" ||
			failed["link.pdf"] != "INVALID_ARGUMENT file: cannot be opened inside the data directory" {
			t.Errorf("import = %+v", res)
		}
		if storedCount(t, s) != 2 {
			t.Errorf("stored %d documents", storedCount(t, s))
		}
	})
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
