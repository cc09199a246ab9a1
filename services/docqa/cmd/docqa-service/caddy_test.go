package main

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/carhub/backend/pkg/caddytest"
	"github.com/carhub/backend/services/docqa/internal/ingest/ingesttest"
	"github.com/carhub/backend/services/docqa/internal/openaifake"
)

// TestChatStreamsThroughCaddy runs the real service behind the real
// gateway, with a provider that sends one piece of the answer and then
// stalls. The client must read that piece through Caddy while the provider
// is still stalled: a gateway or service that buffered the stream would
// hold it back until the end, and this test would never see it. Closing the
// client's connection to Caddy must then cancel the provider request.
func TestChatStreamsThroughCaddy(t *testing.T) {
	fake := openaifake.New(t, openaifake.WithScript(openaifake.Script{Deltas: openaifake.Text("The first piece, ", "never sent")}))
	fake.FailChat(openaifake.Failure{Hang: true, AfterDeltas: 1})
	s := start(t, map[string]string{"CHAT_BASE_URL": fake.URL, "CHAT_API_KEY": openaifake.APIKey, "CHAT_MODEL": "m"})
	// Caddy's active health check keeps a "starting" service out of the pool.
	waitHealthy(t, s.URL)
	gw := caddytest.Start(t,
		"DOCQA_UPSTREAM="+strings.TrimPrefix(s.URL, "http://"),
		"FUEL_UPSTREAM=127.0.0.1:1", // not used here
		"WEB_ROOT="+t.TempDir(),
	)

	upload(t, gw, ingesttest.PDF("Tyre pressure is 2.4 bar at the front and 2.2 bar at the rear."))

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, gw+"/api/chat/stream", strings.NewReader(`{"question":"What is the tyre pressure?"}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("status %d, Content-Type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if resp.Header.Get("X-Request-ID") == "" {
		t.Error("stream answer without X-Request-ID")
	}

	// Read frames until the first content event; the provider is hanging
	// after it, so only an unbuffered path delivers it.
	sc := bufio.NewScanner(resp.Body)
	var frames []string
	var sawSources bool
	for sc.Scan() {
		line := sc.Text()
		frames = append(frames, line)
		if line == "event: sources" {
			sawSources = true
		}
		if line == `data: {"content":"The first piece, "}` {
			break
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("stream broke before the first content event: %v\nframes so far: %q", err, frames)
	}
	if !sawSources {
		t.Fatalf("no sources event before the content: %q", frames)
	}
	last, ok := fake.LastChatRequest()
	if !ok || last.Completed {
		t.Fatalf("provider request %+v: the content must arrive while the provider is still stalled", last)
	}

	// The client goes away: the provider request is cancelled through Caddy
	// and the service.
	cancel()
	resp.Body.Close()
	select {
	case <-fake.Cancelled():
	case <-time.After(30 * time.Second):
		t.Fatal("closing the client's connection to Caddy did not cancel the provider request")
	}
}
