package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/carhub/backend/pkg/tracing"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestSinkTakesExports: the SDK's exporter sends spans to the sink, which
// answers them (the exporter's shutdown reports no error) and counts them.
func TestSinkTakesExports(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	var out lockedBuffer
	done := make(chan error, 1)
	go func() { done <- run(ctx, addr, &out) }()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if res, err := http.Get("http://" + addr + "/health"); err == nil {
			res.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the sink did not start")
		}
	}

	shutdown, err := tracing.Setup(context.Background(), func(k string) string {
		return map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://" + addr}[k]
	}, "sink-test")
	if err != nil {
		t.Fatal(err)
	}
	_, span := tracing.Tracer().Start(context.Background(), "x")
	span.End()
	if err := shutdown(context.Background()); err != nil {
		t.Fatalf("export to the sink: %v", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.Contains(got, "otlpsink received 1 export requests, ") || strings.Contains(got, ", 0 bytes") {
		t.Errorf("output %q", got)
	}
}

// TestSinkCountsWhatItReads: an export is counted with the bytes of its
// body as sent; a body that is not OTLP protobuf is refused and not counted.
func TestSinkCountsWhatItReads(t *testing.T) {
	var requests, bytes atomic.Int64
	h := handler(&requests, &bytes)
	for _, tt := range []struct {
		contentType string
		body        string
		status      int
	}{
		{"application/x-protobuf", strings.Repeat("x", 70000), http.StatusOK},
		{"application/json", `{"resourceSpans":[]}`, http.StatusUnsupportedMediaType},
		{"application/x-protobuf", "", http.StatusOK},
	} {
		req := httptest.NewRequest("POST", "/v1/traces", strings.NewReader(tt.body))
		req.Header.Set("Content-Type", tt.contentType)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tt.status {
			t.Errorf("%s body of %d bytes: status %d, want %d", tt.contentType, len(tt.body), rec.Code, tt.status)
		}
		if rec.Code == http.StatusOK && (rec.Header().Get("Content-Type") != "application/x-protobuf" || rec.Body.Len() != 0) {
			t.Errorf("answer %q %q, want an empty protobuf response", rec.Header().Get("Content-Type"), rec.Body)
		}
	}
	if requests.Load() != 2 || bytes.Load() != 70000 {
		t.Errorf("counted %d exports of %d bytes, want 2 of 70000", requests.Load(), bytes.Load())
	}
}
