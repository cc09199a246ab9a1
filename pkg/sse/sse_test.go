package sse

import (
	"bufio"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestFraming(t *testing.T) {
	rec := httptest.NewRecorder()
	w := New(rec)
	if w.Started() {
		t.Fatal("started before the first frame")
	}
	must(t, w.Event("sources", map[string]any{"sources": []string{"a"}}))
	must(t, w.Event("", map[string]string{"content": "line one\nline two — 你好"}))
	must(t, w.Data("raw", "first\r\nsecond\rthird\nfourth"))
	must(t, w.Comment("ping"))
	must(t, w.Event("done", map[string]string{"finishReason": "stop"}))

	want := "event: sources\ndata: {\"sources\":[\"a\"]}\n\n" +
		"data: {\"content\":\"line one\\nline two — 你好\"}\n\n" +
		"event: raw\ndata: first\ndata: second\ndata: third\ndata: fourth\n\n" +
		": ping\n\n" +
		"event: done\ndata: {\"finishReason\":\"stop\"}\n\n"
	if got := rec.Body.String(); got != want {
		t.Fatalf("stream:\n%q\nwant:\n%q", got, want)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "text/event-stream; charset=utf-8" {
		t.Fatalf("Content-Type %q", ct)
	}
	if rec.Header().Get("Cache-Control") != "no-cache" || rec.Header().Get("X-Accel-Buffering") != "no" {
		t.Fatalf("headers %v", rec.Header())
	}
	if !rec.Flushed {
		t.Fatal("frames were not flushed")
	}
	if !w.Started() {
		t.Fatal("Started false after writing")
	}
}

func TestEventNameWithLineBreakRefused(t *testing.T) {
	w := New(httptest.NewRecorder())
	if err := w.Data("a\nb", "x"); err == nil {
		t.Fatal("an event name with a newline was accepted")
	}
}

func TestEachEventArrivesWhenSent(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w := New(rw)
		_ = w.Event("first", 1)
		<-release
		_ = w.Event("second", 2)
	}))
	defer srv.Close()

	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	line, err := br.ReadString('\n')
	if err != nil || line != "event: first\n" {
		t.Fatalf("first line %q, %v (the first event must arrive before the handler finishes)", line, err)
	}
	close(release)
	rest := new(strings.Builder)
	_, _ = bufio.NewReader(br).WriteTo(rest)
	if !strings.Contains(rest.String(), "event: second\ndata: 2\n\n") {
		t.Fatalf("rest %q", rest)
	}
}

func TestHeartbeat(t *testing.T) {
	rec := &lockedRecorder{ResponseRecorder: httptest.NewRecorder()}
	w := New(rec)
	stop := w.Heartbeat(5 * time.Millisecond)
	deadline := time.Now().Add(5 * time.Second)
	for strings.Count(rec.body(), ": ping\n\n") < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("no heartbeats: %q", rec.body())
		}
		time.Sleep(time.Millisecond)
	}
	stop()
	n := rec.body()
	time.Sleep(20 * time.Millisecond)
	if rec.body() != n {
		t.Fatal("heartbeat went on after stop")
	}
	stop() // a second stop is harmless
}

func TestGoneAfterFailedWrite(t *testing.T) {
	fw := &failingWriter{ResponseRecorder: httptest.NewRecorder()}
	w := New(fw)
	stop := w.Heartbeat(time.Millisecond)
	defer stop()
	must(t, w.Event("first", 1))
	fw.fail()
	err := w.Event("second", 2)
	if err == nil {
		t.Fatal("write to a gone client succeeded")
	}
	select {
	case <-w.Gone():
	case <-time.After(time.Second):
		t.Fatal("Gone not closed after a failed write")
	}
	if err2 := w.Comment("x"); !errors.Is(err2, errBroken) {
		t.Fatalf("later write error %v, want the first failure", err2)
	}
}

var errBroken = errors.New("broken pipe")

type failingWriter struct {
	*httptest.ResponseRecorder
	mu     sync.Mutex
	broken bool
}

func (f *failingWriter) fail() { f.mu.Lock(); f.broken = true; f.mu.Unlock() }

func (f *failingWriter) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.broken {
		return 0, errBroken
	}
	return f.ResponseRecorder.Write(p)
}

type lockedRecorder struct {
	*httptest.ResponseRecorder
	mu sync.Mutex
}

func (l *lockedRecorder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ResponseRecorder.Write(p)
}

func (l *lockedRecorder) body() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ResponseRecorder.Body.String()
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
