package httpapi_test

import (
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"
)

// TestUploadStalledClient: a client that sends half an upload and then goes
// silent without closing must not hold the handler and its temporary file:
// after the stall timeout the upload ends, the temporary file is removed
// and nothing is stored.
func TestUploadStalledClient(t *testing.T) {
	forEachAuthMode(t, func(t *testing.T, accounts bool) {
		s := newService(t, options{accounts: accounts, local: true, uploadStall: 300 * time.Millisecond})
		conn, err := net.Dial("tcp", strings.TrimPrefix(s.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close() // only at the end: the client stays connected and silent

		const boundary = "stallboundary"
		head := "--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"manual.pdf\"\r\n" +
			"Content-Type: application/pdf\r\n\r\n%PDF-1.7\n" + strings.Repeat("x", 64<<10)
		fmt.Fprintf(conn, "POST /api/documents/upload HTTP/1.1\r\nHost: test\r\n%s"+
			"Content-Type: multipart/form-data; boundary=%s\r\nContent-Length: %d\r\n\r\n%s",
			s.rawHeaders(), boundary, 4<<20, head)

		// The temporary file appears while the upload is received...
		waitFor(t, "the upload's temporary file to appear", func() bool { return countFiles(t, s.tempDir) == 1 })
		// ...and goes once the client has been silent past the stall timeout.
		waitFor(t, "the stalled upload's temporary file to be removed", func() bool { return countFiles(t, s.tempDir) == 0 })

		// The service answered (or closed) instead of waiting for ever.
		_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
		answer, err := io.ReadAll(conn)
		if err != nil && !isConnReset(err) {
			t.Fatalf("reading the answer to the stalled upload: %v (got %q)", err, answer)
		}
		if len(answer) > 0 && !strings.HasPrefix(string(answer), "HTTP/1.1 400") {
			t.Fatalf("answer to a stalled upload: %q", answer)
		}
		if n := storedCount(t, s); n != 0 {
			t.Fatalf("%d documents stored from a stalled upload", n)
		}
	})
}

func countFiles(t *testing.T, dir string) int {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func isConnReset(err error) bool {
	return strings.Contains(err.Error(), "connection reset")
}
