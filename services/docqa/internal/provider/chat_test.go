package provider_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/carhub/backend/services/docqa/internal/docqa"
	"github.com/carhub/backend/services/docqa/internal/openaifake"
	"github.com/carhub/backend/services/docqa/internal/provider"
)

func mustChat(tb testing.TB, fake *openaifake.Server, edit func(*provider.ChatConfig)) *provider.Chat {
	tb.Helper()
	cfg := provider.ChatConfig{BaseURL: fake.URL, APIKey: openaifake.APIKey, Model: "fake-chat"}
	if edit != nil {
		edit(&cfg)
	}
	c, err := provider.NewChat(cfg)
	if err != nil {
		tb.Fatalf("NewChat: %v", err)
	}
	return c
}

var chatReq = docqa.ChatRequest{
	Messages: []docqa.Message{
		{Role: docqa.RoleSystem, Content: "Answer from the context."},
		{Role: docqa.RoleUser, Content: "Wie oft Öl wechseln?"},
		{Role: docqa.RoleAssistant, Content: "Alle 15 000 km [1]."},
		{Role: docqa.RoleUser, Content: "Und die Bremsflüssigkeit?\nBitte kurz."},
	},
	Temperature: 0.7,
}

// collect gathers the deltas of one Stream call.
func collect(ctx context.Context, c docqa.ChatModel, req docqa.ChatRequest) ([]string, string, error) {
	var got []string
	finish, err := c.Stream(ctx, req, func(s string) error {
		got = append(got, s)
		return nil
	})
	return got, finish, err
}

func TestChatStreamsDeltasInOrder(t *testing.T) {
	pieces := []string{
		"第一行：机油每 15 000 公里更换。\n",
		"Line two, ünïcödé 🚗 and \"quotes\"\n\n",
		"data: this looks like a frame but is content\r\n",
		"[1]",
	}
	fake := openaifake.New(t, openaifake.WithScript(openaifake.Script{Deltas: openaifake.Text(pieces...), FinishReason: "length"}))
	c := mustChat(t, fake, nil)

	got, finish, err := collect(context.Background(), c, chatReq)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if !slices.Equal(got, pieces) {
		t.Fatalf("deltas %q, want %q", got, pieces)
	}
	if finish != "length" {
		t.Errorf("finish reason %q, want length", finish)
	}

	rec, _ := fake.LastChatRequest()
	if rec.Model != "fake-chat" || !rec.Stream {
		t.Errorf("model %q stream %v", rec.Model, rec.Stream)
	}
	if rec.Temperature == nil || *rec.Temperature != 0.7 {
		t.Errorf("temperature %v, want 0.7", rec.Temperature)
	}
	if len(rec.Messages) != len(chatReq.Messages) {
		t.Fatalf("provider got %d messages, want %d", len(rec.Messages), len(chatReq.Messages))
	}
	for i, m := range chatReq.Messages {
		if rec.Messages[i].Role != string(m.Role) || rec.Messages[i].Content != m.Content {
			t.Errorf("message %d = %+v, want %+v", i, rec.Messages[i], m)
		}
	}
	if c.Name() != "openai:fake-chat" {
		t.Errorf("Name %q", c.Name())
	}
}

// A delta reaches onDelta while the provider is still holding back the next
// one: the client does not buffer the stream.
func TestChatDeliversDeltaBeforeStreamEnds(t *testing.T) {
	fake := openaifake.New(t, openaifake.WithScript(openaifake.Script{Deltas: []openaifake.Delta{
		{Content: "first"},
		{Content: "never sent", Delay: time.Hour},
	}}))
	c := mustChat(t, fake, func(cfg *provider.ChatConfig) { cfg.Timeout = 30 * time.Second })
	stop := errors.New("seen the first delta")
	var got []string
	_, err := c.Stream(context.Background(), chatReq, func(s string) error {
		got = append(got, s)
		return stop
	})
	if !errors.Is(err, stop) {
		t.Fatalf("err = %v, want onDelta's own error back", err)
	}
	if !slices.Equal(got, []string{"first"}) {
		t.Fatalf("deltas %q", got)
	}
	waitCancelled(t, fake)
}

func waitCancelled(t *testing.T, fake *openaifake.Server) {
	t.Helper()
	select {
	case <-fake.Cancelled():
	case <-time.After(10 * time.Second):
		t.Fatal("the provider never saw its request end")
	}
	rec, _ := fake.LastChatRequest()
	if !rec.Cancelled {
		t.Fatal("last request not marked cancelled")
	}
}

func TestChatCancelReachesProvider(t *testing.T) {
	fake := openaifake.New(t, openaifake.WithScript(openaifake.Script{Deltas: []openaifake.Delta{
		{Content: "first"},
		{Content: "second", Delay: time.Hour},
	}}))
	c := mustChat(t, fake, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got []string
	_, err := c.Stream(ctx, chatReq, func(s string) error {
		got = append(got, s)
		cancel() // the client went away after the first piece
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if errors.Is(err, docqa.ErrUnavailable) {
		t.Fatalf("a cancelled caller is not a provider outage: %v", err)
	}
	if !slices.Equal(got, []string{"first"}) {
		t.Fatalf("deltas %q", got)
	}
	waitCancelled(t, fake)
}

func TestChatTimeouts(t *testing.T) {
	tests := []struct {
		name      string
		failure   openaifake.Failure
		wantDelta []string
		wantInMsg string
	}{
		{"nothing before the first-byte timeout", openaifake.Failure{Hang: true}, nil, "no answer from the provider within 200ms"},
		{"hang mid-stream bounded by Timeout", openaifake.Failure{Hang: true, AfterDeltas: 2}, []string{"a", "b"}, "not complete within 600ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := openaifake.New(t, openaifake.WithScript(openaifake.Script{Deltas: openaifake.Text("a", "b", "c")}))
			fake.FailChat(tt.failure)
			c := mustChat(t, fake, func(cfg *provider.ChatConfig) {
				cfg.FirstByteTimeout = 200 * time.Millisecond
				cfg.Timeout = 600 * time.Millisecond
			})
			got, _, err := collect(context.Background(), c, chatReq)
			if !errors.Is(err, docqa.ErrUnavailable) || !strings.Contains(err.Error(), tt.wantInMsg) {
				t.Fatalf("err = %v, want ErrUnavailable saying %q", err, tt.wantInMsg)
			}
			if !slices.Equal(got, tt.wantDelta) {
				t.Fatalf("deltas %q, want %q", got, tt.wantDelta)
			}
			waitCancelled(t, fake)
		})
	}
}

func TestChatErrorStatuses(t *testing.T) {
	tests := []struct {
		name       string
		failures   []openaifake.Failure
		maxRetries int
		wantStatus int
		wantReqs   int
		wantInMsg  string
	}{
		{"400 keeps the provider's message", []openaifake.Failure{{Status: 400, Message: "context length exceeded"}}, 2, 400, 1, "context length exceeded"},
		{"404 unknown model", []openaifake.Failure{{Status: 404, Message: "model fake-chat does not exist"}}, 2, 404, 1, "does not exist"},
		{"503 without retries", []openaifake.Failure{{Status: 503, Message: "maintenance"}}, -1, 503, 1, "maintenance"},
		{"500 until retries run out", slices.Repeat([]openaifake.Failure{{Status: 500, RetryAfter: "0"}}, 3), 2, 500, 3, "Internal Server Error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := openaifake.New(t)
			fake.FailChat(tt.failures...)
			c := mustChat(t, fake, func(cfg *provider.ChatConfig) { cfg.MaxRetries = tt.maxRetries })
			got, _, err := collect(context.Background(), c, chatReq)
			var apiErr *provider.APIError
			if !errors.As(err, &apiErr) || apiErr.StatusCode != tt.wantStatus || !errors.Is(err, docqa.ErrUnavailable) {
				t.Fatalf("err = %v, want APIError %d wrapping ErrUnavailable", err, tt.wantStatus)
			}
			if !strings.Contains(err.Error(), tt.wantInMsg) {
				t.Errorf("error %q lacks %q", err, tt.wantInMsg)
			}
			if len(got) != 0 {
				t.Errorf("deltas %q from a failed request", got)
			}
			if n := len(fake.ChatRequests()); n != tt.wantReqs {
				t.Errorf("%d requests, want %d", n, tt.wantReqs)
			}
		})
	}
}

func TestChatRetriesBeforeStreamStarts(t *testing.T) {
	fake := openaifake.New(t, openaifake.WithScript(openaifake.Script{Deltas: openaifake.Text("ok")}))
	fake.FailChat(openaifake.Failure{Status: http.StatusTooManyRequests, RetryAfter: "0"})
	got, finish, err := collect(context.Background(), mustChat(t, fake, nil), chatReq)
	if err != nil || finish != "stop" || !slices.Equal(got, []string{"ok"}) {
		t.Fatalf("got %q, %q, %v after a 429; want the answer", got, finish, err)
	}
	if n := len(fake.ChatRequests()); n != 2 {
		t.Fatalf("%d requests, want 2", n)
	}
}

func TestChatBrokenStreams(t *testing.T) {
	tests := []struct {
		name      string
		failure   openaifake.Failure
		wantInMsg string
	}{
		{"malformed frame", openaifake.Failure{Malformed: true, AfterDeltas: 1}, "malformed frame"},
		{"error frame", openaifake.Failure{StreamError: "upstream model crashed", AfterDeltas: 1}, "upstream model crashed"},
		{"cut without finish reason", openaifake.Failure{Cut: true, AfterDeltas: 1}, "without a finish reason"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := openaifake.New(t, openaifake.WithScript(openaifake.Script{Deltas: openaifake.Text("a", "b")}))
			fake.FailChat(tt.failure)
			got, _, err := collect(context.Background(), mustChat(t, fake, nil), chatReq)
			if !errors.Is(err, docqa.ErrUnavailable) || !strings.Contains(err.Error(), tt.wantInMsg) {
				t.Fatalf("err = %v, want ErrUnavailable saying %q", err, tt.wantInMsg)
			}
			if !slices.Equal(got, []string{"a"}) {
				t.Fatalf("deltas %q, want the one before the break", got)
			}
		})
	}
}

func TestChatRejectsBadInput(t *testing.T) {
	fake := openaifake.New(t)
	c := mustChat(t, fake, nil)
	if _, _, err := collect(context.Background(), c, docqa.ChatRequest{}); err == nil {
		t.Error("no messages accepted")
	}
	bad := docqa.ChatRequest{Messages: []docqa.Message{{Role: "tool", Content: "x"}}}
	if _, _, err := collect(context.Background(), c, bad); err == nil || !strings.Contains(err.Error(), "tool") {
		t.Errorf("role tool: err = %v", err)
	}
	if n := len(fake.ChatRequests()); n != 0 {
		t.Errorf("%d requests sent for bad input", n)
	}
	for _, cfg := range []provider.ChatConfig{
		{Model: "m"},
		{BaseURL: "http://x/v1"},
		{BaseURL: "http://x/v1", Model: "m", Timeout: -1},
	} {
		if _, err := provider.NewChat(cfg); err == nil {
			t.Errorf("NewChat(%+v) accepted", cfg)
		}
	}
}
