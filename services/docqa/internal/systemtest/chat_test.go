package systemtest

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/carhub/backend/services/docqa/internal/openaifake"
)

// TestChatProviderHangs runs the real service against a chat provider that
// accepts the request and then says nothing, before its first byte or in
// the middle of an answer. The stream must end with an UNAVAILABLE error
// event once the configured timeout has passed (the client's own timeout,
// far longer, never fires), the provider request must be cancelled, and the
// service must answer the next question normally.
func TestChatProviderHangs(t *testing.T) {
	fake := openaifake.New(t, openaifake.WithScript(openaifake.Script{Deltas: openaifake.Text("The", " answer.")}))
	svc := startService(t, serviceEnv(t, fake, t.TempDir(), map[string]string{
		"CHAT_FIRST_BYTE_TIMEOUT": "2s",
		"CHAT_TIMEOUT":            "4s",
		"CHAT_MAX_RETRIES":        "-1", // one provider request per question: the fake's failures are used in order
		"SSE_HEARTBEAT":           "500ms",
	}))
	upload(t, svc.URL, "manual.pdf", prosePDF(3, 1))

	tests := []struct {
		name    string
		failure openaifake.Failure
		content int // content events expected before the error
	}{
		{"before the first byte", openaifake.Failure{Hang: true}, 0},
		{"in the middle of the answer", openaifake.Failure{Hang: true, AfterDeltas: 1}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(fake.ChatRequests())
			fake.FailChat(tt.failure)
			events, comments := chat(t, svc.URL)
			names := make([]string, len(events))
			for i, ev := range events {
				names[i] = ev.name
			}
			if len(events) != 2+tt.content || events[0].name != "sources" || events[len(events)-1].name != "error" {
				t.Fatalf("events %q, want sources, %d content events, error", names, tt.content)
			}
			for _, ev := range events[1 : 1+tt.content] {
				if ev.name != "" || !strings.Contains(ev.data, `"content"`) {
					t.Errorf("event %q %s, want a content event", ev.name, ev.data)
				}
			}
			var e errorEvent
			if err := json.Unmarshal([]byte(events[len(events)-1].data), &e); err != nil || e.Code != "UNAVAILABLE" || e.Message == "" {
				t.Errorf("error event %s (%v), want code UNAVAILABLE with a message", events[len(events)-1].data, err)
			}
			if comments == 0 {
				t.Errorf("no heartbeat comment while the provider hung")
			}
			reqs := fake.ChatRequests()
			if len(reqs) != before+1 {
				t.Fatalf("%d provider requests for one question, want 1", len(reqs)-before)
			}
			// The provider request is cancelled, not left hanging: the fake
			// sees its context end (it notices asynchronously, hence the poll).
			deadline := time.Now().Add(10 * time.Second)
			for !fake.ChatRequests()[before].Cancelled {
				if time.Now().After(deadline) {
					t.Fatalf("the hanging provider request was not cancelled")
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}

	t.Run("next question answered", func(t *testing.T) {
		events, _ := chat(t, svc.URL)
		var answer strings.Builder
		for _, ev := range events[1 : len(events)-1] {
			var c struct{ Content string }
			_ = json.Unmarshal([]byte(ev.data), &c)
			answer.WriteString(c.Content)
		}
		if events[0].name != "sources" || events[len(events)-1].name != "done" || answer.String() != "The answer." {
			t.Errorf("events %v, want sources, the answer, done", events)
		}
	})
}

// chat asks a question and reads the whole stream: its events and the
// number of comment lines. The stream must end after its terminal event.
func chat(t *testing.T, base string) ([]event, int) {
	t.Helper()
	res, err := httpClient.Post(base+"/api/chat/stream", "application/json",
		strings.NewReader(`{"question":"How often is the timing belt replaced?","topK":3}`))
	if err != nil {
		t.Fatalf("chat: %v (a request that outlives the client's %s timeout hung)", err, clientTimeout)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(res.Body)
		t.Fatalf("chat: status %d %s %s, want an event stream", res.StatusCode, res.Header.Get("Content-Type"), b)
	}
	r := newSSEReader(res.Body)
	var events []event
	for {
		ev, err := r.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("chat stream after %d events: %v (a stream that outlives the client's %s timeout hung)", len(events), err, clientTimeout)
		}
		if n := len(events); n > 0 && (events[n-1].name == "done" || events[n-1].name == "error") {
			t.Fatalf("event %q %s after the terminal event", ev.name, ev.data)
		}
		events = append(events, ev)
	}
	if len(events) < 2 {
		t.Fatalf("chat stream: %d events, want sources ... and a terminal event", len(events))
	}
	return events, r.comments
}
