package httpserver

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"
)

// TestStallTimeoutEndsAStalledBody: a client that sends part of a body and
// then nothing, without closing, makes the handler's read fail instead of
// holding it for ever.
func TestStallTimeoutEndsAStalledBody(t *testing.T) {
	readErr := make(chan error, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		StallTimeout(w, r, 200*time.Millisecond)
		_, err := io.Copy(io.Discard, r.Body)
		readErr <- err
	}))
	defer srv.Close()

	conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nonly part of it")

	select {
	case err := <-readErr:
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("read error %v, want a deadline error", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the handler is still waiting for a client that stopped sending")
	}
}

// TestStallTimeoutDoneLiftsTheDeadline: after done, the handler may take
// longer than the stall timeout before reading on (the deadline must not
// still be armed), and the request is not cancelled meanwhile.
func TestStallTimeoutDoneLiftsTheDeadline(t *testing.T) {
	const size = 1 << 20 // larger than the server's buffer: the rest comes from the connection
	type result struct {
		n   int64
		err error
	}
	got := make(chan result, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		done := StallTimeout(w, r, 20*time.Millisecond)
		head := make([]byte, 10)
		if _, err := io.ReadFull(r.Body, head); err != nil {
			got <- result{err: err}
			return
		}
		done()
		time.Sleep(100 * time.Millisecond) // well past the stall timeout
		n, err := io.Copy(io.Discard, r.Body)
		if err == nil {
			err = r.Context().Err()
		}
		got <- result{n + int64(len(head)), err}
	}))
	defer srv.Close()

	resp, err := http.Post(srv.URL, "application/octet-stream", strings.NewReader(strings.Repeat("x", size)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	r := <-got
	if r.err != nil || r.n != size {
		t.Fatalf("read %d bytes, %v; want all %d after done", r.n, r.err, size)
	}
}

func TestStallTimeoutWithoutDeadlineSupport(t *testing.T) {
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader("body"))
	body := r.Body
	done := StallTimeout(httptest.NewRecorder(), r, time.Second)
	done()
	if r.Body != body {
		t.Fatal("a recorder has no deadlines; the body should be left alone")
	}
}
