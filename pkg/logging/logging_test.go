package logging

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace"
)

func TestRequestIDOnEveryLineOfTheContext(t *testing.T) {
	var buf bytes.Buffer
	log := New(&buf, slog.LevelInfo)
	ctx := WithRequestID(context.Background(), "req-42")

	log.InfoContext(ctx, "first")
	log.With("component", "store").WarnContext(ctx, "second")
	log.Info("no context")

	lines := bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n"))
	if len(lines) != 3 {
		t.Fatalf("got %d lines: %s", len(lines), buf.String())
	}
	for i, want := range []string{"req-42", "req-42", ""} {
		var rec map[string]any
		if err := json.Unmarshal(lines[i], &rec); err != nil {
			t.Fatalf("line %d is not JSON: %v: %s", i, err, lines[i])
		}
		got, _ := rec["request_id"].(string)
		if got != want {
			t.Errorf("line %d request_id = %q, want %q", i, got, want)
		}
	}
}

func TestParseLevel(t *testing.T) {
	for in, want := range map[string]slog.Level{"": slog.LevelInfo, "DEBUG": slog.LevelDebug, "warn": slog.LevelWarn} {
		got, err := ParseLevel(in)
		if err != nil || got != want {
			t.Errorf("ParseLevel(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseLevel("loud"); err == nil {
		t.Error("ParseLevel(loud) accepted")
	}
}

func TestTraceIDOnEveryLineOfASpan(t *testing.T) {
	var buf bytes.Buffer
	log := New(&buf, slog.LevelInfo)
	tid, _ := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	sid, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	span := trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled})
	ctx := trace.ContextWithSpanContext(WithRequestID(context.Background(), "req-7"), span)

	log.InfoContext(ctx, "in a span")
	log.InfoContext(WithRequestID(context.Background(), "req-8"), "no span")

	lines := bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n"))
	if len(lines) != 2 {
		t.Fatalf("got %d lines: %s", len(lines), buf.String())
	}
	var in, out map[string]any
	if err := json.Unmarshal(lines[0], &in); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(lines[1], &out); err != nil {
		t.Fatal(err)
	}
	if in["trace_id"] != "4bf92f3577b34da6a3ce929d0e0e4736" || in["span_id"] != "00f067aa0ba902b7" || in["request_id"] != "req-7" {
		t.Errorf("line in a span: %s", lines[0])
	}
	if _, ok := out["trace_id"]; ok || out["request_id"] != "req-8" {
		t.Errorf("line without a span: %s", lines[1])
	}
}

// writes records every Write call it gets, as the descriptor under a
// buffered logger would see them.
type writes struct {
	mu    sync.Mutex
	calls [][]byte
}

func (w *writes) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls = append(w.calls, bytes.Clone(p))
	return len(p), nil
}

func (w *writes) snapshot() (calls int, all []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.calls), bytes.Join(w.calls, nil)
}

func TestBufferedWritesWholeLinesInFewWrites(t *testing.T) {
	var out writes
	log, stop := NewBuffered(&out, slog.LevelInfo)
	// Lines of about 250 bytes, several buffers' worth: the buffer fills
	// many times, and a line that does not fit must not be cut.
	pad := strings.Repeat("x", 150)
	const n = 4000
	for i := range n {
		log.InfoContext(WithRequestID(context.Background(), "req"), "request", "i", i, "pad", pad)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	calls, all := out.snapshot()
	if calls == 0 || calls > n/10 {
		t.Errorf("%d lines in %d writes, want them gathered into a few", n, calls)
	}
	for _, c := range out.calls {
		if len(c) == 0 || c[len(c)-1] != '\n' {
			t.Fatalf("a write ends inside a line: %q", c)
		}
	}
	lines := bytes.Split(bytes.TrimSuffix(all, []byte("\n")), []byte("\n"))
	if len(lines) != n {
		t.Fatalf("%d lines after stop, want %d", len(lines), n)
	}
	for i, l := range lines {
		var rec struct {
			I         int    `json:"i"`
			RequestID string `json:"request_id"`
		}
		if err := json.Unmarshal(l, &rec); err != nil || rec.I != i || rec.RequestID != "req" {
			t.Fatalf("line %d: %s (%v)", i, l, err)
		}
	}
}

func TestBufferedWarningsAreWrittenAtOnce(t *testing.T) {
	var out writes
	log, stop := NewBuffered(&out, slog.LevelInfo)
	defer stop()
	log.Info("first")
	log.With("component", "store").Warn("second") // a derived logger flushes too
	_, all := out.snapshot()
	if !bytes.Contains(all, []byte(`"msg":"first"`)) || !bytes.Contains(all, []byte(`"msg":"second"`)) {
		t.Fatalf("after a warning the buffer holds back lines: %q", all)
	}
	log.Error("third")
	if _, all := out.snapshot(); !bytes.Contains(all, []byte(`"msg":"third"`)) {
		t.Fatalf("an error waits in the buffer: %q", all)
	}
}

func TestBufferedInfoLinesArriveWithoutStop(t *testing.T) {
	var out writes
	log, stop := NewBuffered(&out, slog.LevelInfo)
	defer stop()
	log.Info("listening")
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, all := out.snapshot(); bytes.Contains(all, []byte(`"msg":"listening"`)) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("an INFO line was never written while the logger ran")
		}
	}
}
