package systemtest

import (
	"bytes"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/carhub/backend/services/docqa/internal/ingest/ingesttest"
	"github.com/carhub/backend/services/docqa/internal/openaifake"
)

// TestUploadCutOff sends uploads over a raw connection that stops half-way
// through the body and closes, as a client does when its network drops or
// its user cancels. The service must store nothing and leave no temporary
// file behind, and a complete upload of the same file afterwards must be
// stored (the cut-off did not leave its MD5 behind as a "duplicate").
func TestUploadCutOff(t *testing.T) {
	fake := openaifake.New(t)
	tempDir := t.TempDir()
	svc := startService(t, serviceEnv(t, fake, t.TempDir(), map[string]string{"DOCQA_TEMP_DIR": tempDir}))
	var pdf bytes.Buffer
	if err := ingesttest.WriteLarge(&pdf, 4<<20, 256<<10, 11); err != nil {
		t.Fatal(err)
	}
	ct, body := multipartFile(t, "large.pdf", pdf.Bytes())

	for _, path := range []string{"/api/documents/upload", "/api/documents/upload/stream"} {
		for _, chunked := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s chunked=%t", path, chunked), func(t *testing.T) {
				conn := sendHalf(t, svc.URL, path, ct, body, chunked)
				// The service is receiving: its temporary file exists (this
				// also shows that DOCQA_TEMP_DIR is where uploads go, so the
				// emptiness below means something).
				waitDir(t, tempDir, func(n int) bool { return n == 1 }, "a temporary file while the upload is received")
				conn.Close()
				waitDir(t, tempDir, func(n int) bool { return n == 0 }, "no temporary file once the client is gone")
				if docs := documents(t, svc.URL); len(docs) != 0 {
					t.Fatalf("documents stored from a cut-off upload: %+v", docs)
				}
			})
		}
	}

	res := upload(t, svc.URL, "large.pdf", pdf.Bytes())
	if res.Duplicate || res.Chunks == 0 {
		t.Fatalf("complete upload after the cut-off ones: %+v, want a new document", res)
	}
	if docs := documents(t, svc.URL); len(docs) != 1 || docs[0].FileMD5 != res.FileMD5 {
		t.Fatalf("documents %+v, want the one upload", docs)
	}
	waitDir(t, tempDir, func(n int) bool { return n == 0 }, "no temporary file after a complete upload")
	if len(fake.EmbeddingRequests()) == 0 {
		t.Fatalf("the complete upload made no embedding request")
	}
}

// sendHalf opens a connection and sends the request line, the headers and
// the first half of body (as one chunk when chunked), and returns the open
// connection.
func sendHalf(t *testing.T, base, path, contentType string, body []byte, chunked bool) net.Conn {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	half := body[:len(body)/2]
	var head bytes.Buffer
	fmt.Fprintf(&head, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: %s\r\n", path, u.Host, contentType)
	if chunked {
		fmt.Fprintf(&head, "Transfer-Encoding: chunked\r\n\r\n%x\r\n", len(half))
	} else {
		fmt.Fprintf(&head, "Content-Length: %d\r\n\r\n", len(body))
	}
	if _, err := conn.Write(append(head.Bytes(), half...)); err != nil {
		t.Fatalf("send half the upload: %v", err)
	}
	return conn
}

// waitDir polls the number of entries of dir until ok says yes, for at most
// 30 s (a bound for a slow machine, not a speed requirement).
func waitDir(t *testing.T, dir string, ok func(n int) bool, want string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		if ok(len(entries)) {
			return
		}
		if time.Now().After(deadline) {
			var names []string
			for _, e := range entries {
				names = append(names, filepath.Join(dir, e.Name()))
			}
			t.Fatalf("want %s; the temporary directory holds %v", want, names)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
