package systemtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/carhub/backend/services/docqa/internal/pdftext/pdftexttest"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/carhub/backend/services/docqa/internal/ingest"
	"github.com/carhub/backend/services/docqa/internal/ingest/ingesttest"
	"github.com/carhub/backend/services/docqa/internal/openaifake"
)

// clientTimeout bounds every request of these tests, streams included: a
// request still unanswered by then counts as hung. It is far above the
// timeouts the tests configure in the service, so it only fires when the
// service would wait forever.
const clientTimeout = 60 * time.Second

var httpClient = &http.Client{Timeout: clientTimeout}

// serviceEnv is the environment of a service whose embedded store lives in
// storeDir and whose providers are fake; extra overrides it.
func serviceEnv(t *testing.T, fake *openaifake.Server, storeDir string, extra map[string]string) map[string]string {
	t.Helper()
	env := map[string]string{
		"DOCQA_STORE_PATH":     storeDir,
		"DOCQA_DATA_DIR":       t.TempDir(),
		"DOCQA_PDF_CACHE_DIR":  pdftexttest.CacheDir(),
		"DOCQA_TEMP_DIR":       t.TempDir(),
		"DOCQA_FILES_DIR":      t.TempDir(),
		"DOCQA_PAGE_CACHE_DIR": t.TempDir(),
		"EMBEDDING_BASE_URL":   fake.URL,
		"EMBEDDING_API_KEY":    openaifake.APIKey,
		"EMBEDDING_MODEL":      "bge-m3",
		"CHAT_BASE_URL":        fake.URL,
		"CHAT_API_KEY":         openaifake.APIKey,
		"CHAT_MODEL":           "chat-model",
		"LOG_LEVEL":            "debug",
	}
	for k, v := range extra {
		env[k] = v
	}
	return env
}

// prosePDF is a real PDF of pages pages of prose, different per seed.
func prosePDF(pages int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 7))
	texts := make([]string, pages)
	for i := range texts {
		texts[i] = ingesttest.Prose(rng, i, 40)
	}
	return ingesttest.PDF(texts...)
}

// multipartFile is a multipart body with data in the part named file.
func multipartFile(t *testing.T, name string, data []byte) (contentType string, body []byte) {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	w, err := mw.CreateFormFile("file", name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return mw.FormDataContentType(), b.Bytes()
}

// uploadResult is the FileUploadResponse.
type uploadResult struct {
	FileName  string `json:"fileName"`
	FileMD5   string `json:"fileMd5"`
	Size      int64  `json:"size"`
	Pages     int    `json:"pages"`
	Chunks    int    `json:"chunks"`
	Duplicate bool   `json:"duplicate"`
}

// upload sends data to POST /api/documents/upload and wants 200.
func upload(t *testing.T, base, name string, data []byte) uploadResult {
	t.Helper()
	ct, body := multipartFile(t, name, data)
	res, err := httpClient.Post(base+"/api/documents/upload", ct, bytes.NewReader(body))
	if err != nil {
		t.Fatalf("upload %s: %v", name, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		t.Fatalf("upload %s: status %d %s", name, res.StatusCode, b)
	}
	var out uploadResult
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("upload %s: %s: %v", name, b, err)
	}
	return out
}

// documents lists the stored documents.
func documents(t *testing.T, base string) []uploadResult {
	t.Helper()
	res, err := httpClient.Get(base + "/api/documents")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		t.Fatalf("GET /api/documents: %d %s", res.StatusCode, b)
	}
	var docs []uploadResult
	if err := json.Unmarshal(b, &docs); err != nil || docs == nil {
		t.Fatalf("GET /api/documents: %s is not an array: %v", b, err)
	}
	return docs
}

// event is one server-sent event; comment lines are counted apart.
type event struct {
	name string // "" for an unnamed event
	data string
}

// sseReader reads events from a stream.
type sseReader struct {
	sc       *bufio.Scanner
	comments int
}

func newSSEReader(r io.Reader) *sseReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 8<<20)
	return &sseReader{sc: sc}
}

// next returns the next event, or io.EOF when the stream ended cleanly
// between events, or the read error.
func (r *sseReader) next() (event, error) {
	var ev event
	var data []string
	started := false
	for r.sc.Scan() {
		line := r.sc.Text()
		switch {
		case line == "":
			if started {
				ev.data = strings.Join(data, "\n")
				return ev, nil
			}
		case strings.HasPrefix(line, ":"):
			r.comments++
		case strings.HasPrefix(line, "event:"):
			ev.name = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
			started = true
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
			started = true
		}
	}
	if err := r.sc.Err(); err != nil {
		return ev, err
	}
	if started {
		return ev, fmt.Errorf("stream ended inside an event (%q)", ev.name)
	}
	return ev, io.EOF
}

// progress is a FileUploadProgress item.
type progress = ingest.Progress

// errorEvent is the data of an error event (and of a JSON error answer).
type errorEvent struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}
