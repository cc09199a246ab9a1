package httpserver

import (
	"errors"
	"io"
	"net/http"
	"sync"
	"time"
)

// StallTimeout guards a long upload against a client that stops sending
// without closing the connection. The server has no ReadTimeout (it would
// also end long event streams), so r.Body is wrapped: each Read may wait at
// most d for data, after which it fails with a timeout error and the handler
// can clean up. The deadline is lifted when the body ends, is closed, or the
// returned done is called, so the rest of the request (processing, an event
// stream) is not cut. Where the connection does not support deadlines
// (HTTP/2 through some proxies, tests with a recorder) the body is left as
// it is.
func StallTimeout(w http.ResponseWriter, r *http.Request, d time.Duration) (done func()) {
	rc := http.NewResponseController(w)
	if err := rc.SetReadDeadline(time.Time{}); errors.Is(err, http.ErrNotSupported) {
		return func() {}
	}
	sb := &stallBody{rc: rc, body: r.Body, d: d}
	r.Body = sb
	return sb.clear
}

type stallBody struct {
	rc   *http.ResponseController
	body io.ReadCloser
	d    time.Duration
	once sync.Once
	mu   sync.Mutex
	done bool
}

func (b *stallBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	if !b.done {
		_ = b.rc.SetReadDeadline(time.Now().Add(b.d))
	}
	b.mu.Unlock()
	n, err := b.body.Read(p)
	if err != nil {
		b.clear()
	}
	return n, err
}

func (b *stallBody) Close() error {
	b.clear()
	return b.body.Close()
}

// clear lifts the deadline once; later Reads no longer set one.
func (b *stallBody) clear() {
	b.once.Do(func() {
		b.mu.Lock()
		b.done = true
		b.mu.Unlock()
		_ = b.rc.SetReadDeadline(time.Time{})
	})
}
