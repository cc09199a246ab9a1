package httpapi_test

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/carhub/backend/pkg/auth"
)

var limitSecret = []byte(strings.Repeat("L", auth.MinSecretBytes))

// as sends a request acting for user id (the identity the gateway hands
// over, signed).
func as(t *testing.T, s *service, user uint64, method, path, body string) (int, string, http.Header) {
	t.Helper()
	identity := auth.Sign(limitSecret, auth.Identity{UserID: user, Username: fmt.Sprint("u", user), Scope: auth.ScopeWrite}, time.Now())
	res, b := send(t, s, method, path, identity, "application/json", []byte(body))
	return res.StatusCode, string(b), res.Header
}

func TestChatLimitPerUser(t *testing.T) {
	s := newService(t, options{local: true, identitySecret: limitSecret, chatPerMinute: 2})
	ask := `{"question":"What is the tyre pressure?"}`
	for i := range 2 {
		if st, body, _ := as(t, s, 7, "POST", "/api/chat/stream", ask); st != 200 {
			t.Fatalf("question %d: %d %s", i+1, st, body)
		}
	}
	st, body, h := as(t, s, 7, "POST", "/api/chat/stream", ask)
	if st != 429 || !strings.Contains(body, `"code":"RESOURCE_EXHAUSTED"`) || h.Get("Retry-After") == "" {
		t.Fatalf("third question in a minute: %d %s Retry-After %q", st, body, h.Get("Retry-After"))
	}
	// Another user has a budget of its own.
	if st, body, _ := as(t, s, 8, "POST", "/api/chat/stream", ask); st != 200 {
		t.Fatalf("another user's question: %d %s", st, body)
	}
}

func TestUploadsPerUser(t *testing.T) {
	s := newService(t, options{local: true, identitySecret: limitSecret, uploadsPerUser: 1, uploadStall: time.Minute})
	// User 7 starts an upload and keeps it open.
	conn, err := net.Dial("tcp", strings.TrimPrefix(s.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	const boundary = "b"
	head := "--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"m.pdf\"\r\n" +
		"Content-Type: application/pdf\r\n\r\n%PDF-1.7\n" + strings.Repeat("x", 64<<10)
	identity := auth.Sign(limitSecret, auth.Identity{UserID: 7, Username: "u7", Scope: auth.ScopeWrite}, time.Now())
	fmt.Fprintf(conn, "POST /api/documents/upload HTTP/1.1\r\nHost: test\r\n%s: %s\r\n"+
		"Content-Type: multipart/form-data; boundary=%s\r\nContent-Length: %d\r\n\r\n%s",
		auth.HeaderIdentity, identity, boundary, 4<<20, head)
	waitFor(t, "the first upload to be received", func() bool { return countFiles(t, s.tempDir) == 1 })

	st, body, h := as(t, s, 7, "POST", "/api/documents/upload", "")
	if st != 429 || !strings.Contains(body, `"code":"RESOURCE_EXHAUSTED"`) || h.Get("Retry-After") != "5" {
		t.Fatalf("second upload of one user: %d %s Retry-After %q", st, body, h.Get("Retry-After"))
	}
	// Another user is not held back (its empty body is refused for what
	// it is, not for the limit).
	if st, body, _ := as(t, s, 8, "POST", "/api/documents/upload", ""); st == 429 {
		t.Fatalf("another user's upload: %d %s", st, body)
	}
	// When the first upload ends, the slot is free again.
	conn.Close()
	waitFor(t, "the first upload to end", func() bool { return countFiles(t, s.tempDir) == 0 })
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, body, _ := as(t, s, 7, "POST", "/api/documents/upload", "")
		if st != 429 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the slot was not given back: %d %s", st, body)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
