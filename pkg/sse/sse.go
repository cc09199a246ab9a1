// Package sse writes server-sent events (text/event-stream): named and
// unnamed events, multi-line data framing, a flush after every frame,
// heartbeat comments, and a signal when the client can no longer be written
// to. A Writer is safe for concurrent use, so a heartbeat goroutine and the
// handler can share it.
package sse

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Writer writes one event stream.
type Writer struct {
	w  http.ResponseWriter
	rc *http.ResponseController

	mu      sync.Mutex
	started bool
	err     error // first write error; every later write returns it
	gone    chan struct{}
}

// New returns a Writer on w. Nothing is sent until the first frame, so a
// handler can still answer a plain JSON error before that.
func New(w http.ResponseWriter) *Writer {
	return &Writer{w: w, rc: http.NewResponseController(w), gone: make(chan struct{})}
}

// Started reports whether the stream has begun (status and headers sent).
func (s *Writer) Started() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.started
}

// Gone is closed when a write to the client failed: the client went away.
func (s *Writer) Gone() <-chan struct{} { return s.gone }

// Event sends an event whose data is v encoded as JSON. name "" sends an
// unnamed event (a browser's onmessage).
func (s *Writer) Event(name string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("sse: encode %s event: %w", name, err)
	}
	return s.Data(name, string(b))
}

// Data sends an event with data as its payload; each line of data becomes
// its own "data:" line, so newlines survive the framing.
func (s *Writer) Data(name, data string) error {
	if strings.ContainsAny(name, "\r\n") {
		return errors.New("sse: event name contains a line break")
	}
	var b strings.Builder
	if name != "" {
		b.WriteString("event: ")
		b.WriteString(name)
		b.WriteByte('\n')
	}
	for _, line := range splitLines(data) {
		b.WriteString("data: ")
		b.WriteString(line)
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	return s.write(b.String())
}

// Comment sends a comment line, which clients ignore; proxies and browsers
// see traffic, so idle streams stay open.
func (s *Writer) Comment(text string) error {
	var b strings.Builder
	for _, line := range splitLines(text) {
		b.WriteString(": ")
		b.WriteString(line)
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	return s.write(b.String())
}

// Heartbeat sends ": ping" every interval until stop is called or a write
// fails. stop waits for the heartbeat goroutine to end.
func (s *Writer) Heartbeat(interval time.Duration) (stop func()) {
	quit := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-s.gone:
				return
			case <-t.C:
				if s.Comment("ping") != nil {
					return
				}
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() { close(quit) })
		<-done
	}
}

func (s *Writer) write(frame string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	if !s.started {
		h := s.w.Header()
		h.Set("Content-Type", "text/event-stream; charset=utf-8")
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Accel-Buffering", "no") // tell buffering proxies to pass frames on
		h.Del("Content-Length")
		s.w.WriteHeader(http.StatusOK)
		s.started = true
	}
	_, err := s.w.Write([]byte(frame))
	if err == nil {
		err = s.rc.Flush()
	}
	if err != nil {
		s.err = fmt.Errorf("sse: client gone: %w", err)
		close(s.gone)
		return s.err
	}
	return nil
}

// splitLines splits on \r\n, \r and \n, the line ends the SSE format knows.
func splitLines(s string) []string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	return strings.Split(s, "\n")
}
