package logging

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"testing"

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
