package notify

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// receiver is a stand-in webhook receiver that records what it gets.
type receiver struct {
	*httptest.Server
	status int

	mu       sync.Mutex
	requests []recorded
}

func newReceiver(tb testing.TB, status int) *receiver {
	tb.Helper()
	r := &receiver{status: status}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.requests = append(r.requests, recorded{req.Method, req.URL.RequestURI(), req.Header.Clone(), body})
		r.mu.Unlock()
		w.WriteHeader(r.status)
	}))
	tb.Cleanup(r.Close)
	return r
}

func (r *receiver) received() []recorded {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]recorded(nil), r.requests...)
}

func ptr[T any](v T) *T { return &v }

var (
	overdueOil = Message{
		Title: "Oil change is overdue - Golf",
		Body:  "Oil change was due on 2026-11-01 or at 120000 km.",
		URL:   "https://cars.example.org/reminders/7",
		Reminder: &ReminderInfo{
			Status: StatusOverdue, Title: "Oil change", Vehicle: "Golf",
			DueDate: ptr("2026-11-01"), DueOdometer: ptr("120000"), DueInKm: ptr("-350.5"), DueInDays: ptr(-5),
		},
	}
	soonTyres = Message{
		Title:    "Tyre change is due soon - Škoda",
		Body:     "Tyre change is due on 2026-12-20.",
		Reminder: &ReminderInfo{Status: StatusSoon, Title: "Tyre change", Vehicle: "Škoda", DueDate: ptr("2026-12-20"), DueInDays: ptr(14)},
	}
	testMessage = Message{Title: "CarHub test", Body: "Notifications reach you here.", URL: "https://cars.example.org/settings"}
)

func webhookClient() Webhook { return Webhook{Client: NewHTTPClient(true, 5*time.Second)} }

func decodeJSON(tb testing.TB, b []byte) map[string]any {
	tb.Helper()
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		tb.Fatalf("body %q is not JSON: %v", b, err)
	}
	return v
}

// assertJSON compares a decoded document with want, key by key and with no
// keys more or less (JSON numbers decode as float64).
func assertJSON(tb testing.TB, got, want map[string]any) {
	tb.Helper()
	gb, _ := json.Marshal(got)
	wb, _ := json.Marshal(want)
	if string(gb) != string(wb) {
		tb.Errorf("JSON =\n%s\nwant\n%s", gb, wb)
	}
}

func TestWebhookGeneric(t *testing.T) {
	tests := []struct {
		name  string
		msg   Message
		token string
		want  map[string]any
	}{
		{"overdue reminder", overdueOil, "tok-123", map[string]any{
			"type": "reminder", "status": "overdue", "title": "Oil change", "vehicle": "Golf",
			"due_date": "2026-11-01", "due_odometer": "120000", "due_in_km": "-350.5", "due_in_days": -5,
			"url": "https://cars.example.org/reminders/7", "message": overdueOil.Body,
		}},
		{"soon reminder without odometer or link", soonTyres, "", map[string]any{
			"type": "reminder", "status": "soon", "title": "Tyre change", "vehicle": "Škoda",
			"due_date": "2026-12-20", "due_odometer": nil, "due_in_km": nil, "due_in_days": 14,
			"url": nil, "message": soonTyres.Body,
		}},
		{"digest", Message{Title: "2 reminders", Body: "…", Digest: []ReminderInfo{*overdueOil.Reminder, *soonTyres.Reminder}}, "", map[string]any{
			"type": "digest", "title": "2 reminders", "message": "…", "url": nil,
			"reminders": []any{
				map[string]any{"status": "overdue", "title": "Oil change", "vehicle": "Golf", "due_date": "2026-11-01", "due_odometer": "120000", "due_in_km": "-350.5", "due_in_days": -5},
				map[string]any{"status": "soon", "title": "Tyre change", "vehicle": "Škoda", "due_date": "2026-12-20", "due_odometer": nil, "due_in_km": nil, "due_in_days": 14},
			},
		}},
		{"test", testMessage, "", map[string]any{
			"type": "test", "title": "CarHub test", "message": testMessage.Body, "url": testMessage.URL,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newReceiver(t, http.StatusNoContent)
			target := WebhookTarget{URL: r.URL + "/hooks/car?k=v", Format: FormatGeneric, Token: tt.token}
			if err := webhookClient().Send(context.Background(), target, tt.msg); err != nil {
				t.Fatal(err)
			}
			got := r.received()
			if len(got) != 1 {
				t.Fatalf("receiver got %d requests", len(got))
			}
			req := got[0]
			if req.method != http.MethodPost || req.path != "/hooks/car?k=v" {
				t.Errorf("request = %s %s", req.method, req.path)
			}
			if ct := req.header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type = %q", ct)
			}
			wantAuth := ""
			if tt.token != "" {
				wantAuth = "Bearer " + tt.token
			}
			if a := req.header.Get("Authorization"); a != wantAuth {
				t.Errorf("Authorization = %q, want %q", a, wantAuth)
			}
			assertJSON(t, decodeJSON(t, req.body), tt.want)
		})
	}
}

func TestWebhookNtfy(t *testing.T) {
	tests := []struct {
		name                         string
		msg                          Message
		token                        string
		title, tags, priority, click string
	}{
		{"overdue", overdueOil, "tk_secret", overdueOil.Title, "car,warning", "high", overdueOil.URL},
		{"soon, non-ASCII title", soonTyres, "", soonTyres.Title, "car,hourglass_flowing_sand", "", ""},
		{"test", testMessage, "", testMessage.Title, "car", "", testMessage.URL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newReceiver(t, http.StatusOK)
			target := WebhookTarget{URL: r.URL + "/my-secret-topic", Format: FormatNtfy, Token: tt.token}
			if err := webhookClient().Send(context.Background(), target, tt.msg); err != nil {
				t.Fatal(err)
			}
			req := r.received()[0]
			if req.method != http.MethodPost || req.path != "/my-secret-topic" {
				t.Errorf("request = %s %s", req.method, req.path)
			}
			if string(req.body) != tt.msg.Body {
				t.Errorf("body = %q, want %q", req.body, tt.msg.Body)
			}
			title, err := new(mime.WordDecoder).DecodeHeader(req.header.Get("Title"))
			if err != nil || title != tt.title {
				t.Errorf("Title = %q (%q, %v), want %q", req.header.Get("Title"), title, err, tt.title)
			}
			for h, want := range map[string]string{"Tags": tt.tags, "Priority": tt.priority, "Click": tt.click, "Content-Type": "text/plain; charset=utf-8"} {
				if v := req.header.Get(h); v != want {
					t.Errorf("%s = %q, want %q", h, v, want)
				}
			}
			wantAuth := ""
			if tt.token != "" {
				wantAuth = "Bearer " + tt.token
			}
			if a := req.header.Get("Authorization"); a != wantAuth {
				t.Errorf("Authorization = %q, want %q", a, wantAuth)
			}
		})
	}
}

func TestWebhookGotify(t *testing.T) {
	tests := []struct {
		name, base, wantPath string
		msg                  Message
		want                 map[string]any
	}{
		{"overdue", "", "/message", overdueOil, map[string]any{
			"title": overdueOil.Title, "message": overdueOil.Body, "priority": 8,
			"extras": map[string]any{"client::notification": map[string]any{"click": map[string]any{"url": overdueOil.URL}}},
		}},
		{"soon, under a path with a slash", "/gotify/", "/gotify/message", soonTyres, map[string]any{
			"title": soonTyres.Title, "message": soonTyres.Body, "priority": 5,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newReceiver(t, http.StatusOK)
			target := WebhookTarget{URL: r.URL + tt.base, Format: FormatGotify, Token: "AppToken.x"}
			if err := webhookClient().Send(context.Background(), target, tt.msg); err != nil {
				t.Fatal(err)
			}
			req := r.received()[0]
			if req.method != http.MethodPost || req.path != tt.wantPath {
				t.Errorf("request = %s %s, want POST %s", req.method, req.path, tt.wantPath)
			}
			if k := req.header.Get("X-Gotify-Key"); k != "AppToken.x" {
				t.Errorf("X-Gotify-Key = %q", k)
			}
			if a := req.header.Get("Authorization"); a != "" {
				t.Errorf("Authorization = %q, want none", a)
			}
			assertJSON(t, decodeJSON(t, req.body), tt.want)
		})
	}
}

func TestWebhookFailures(t *testing.T) {
	const token = "tok-SECRET-123"
	tests := []struct {
		name      string
		status    int
		target    func(url string) WebhookTarget
		permanent bool
		sent      bool
	}{
		{"401 is permanent", http.StatusUnauthorized, func(u string) WebhookTarget {
			return WebhookTarget{URL: u + "/secret-topic", Format: FormatNtfy, Token: token}
		}, true, true},
		{"500 is not", http.StatusInternalServerError, func(u string) WebhookTarget {
			return WebhookTarget{URL: u + "/secret-topic", Format: FormatGeneric, Token: token}
		}, false, true},
		{"429 is not", http.StatusTooManyRequests, func(u string) WebhookTarget {
			return WebhookTarget{URL: u + "/secret-topic", Format: FormatGotify, Token: token}
		}, false, true},
		{"unknown format", http.StatusOK, func(u string) WebhookTarget {
			return WebhookTarget{URL: u, Format: "slack", Token: token}
		}, true, false},
		{"gotify without token", http.StatusOK, func(u string) WebhookTarget {
			return WebhookTarget{URL: u, Format: FormatGotify}
		}, true, false},
		{"token that breaks a header", http.StatusOK, func(u string) WebhookTarget {
			return WebhookTarget{URL: u, Format: FormatNtfy, Token: token + "\r\nX-Injected: 1"}
		}, true, false},
		{"not http", http.StatusOK, func(string) WebhookTarget {
			return WebhookTarget{URL: "file:///etc/passwd", Format: FormatGeneric}
		}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newReceiver(t, tt.status)
			err := webhookClient().Send(context.Background(), tt.target(r.URL), overdueOil)
			if err == nil {
				t.Fatal("Send succeeded")
			}
			if Permanent(err) != tt.permanent {
				t.Errorf("Permanent(%v) = %v, want %v", err, !tt.permanent, tt.permanent)
			}
			if s := err.Error(); strings.Contains(s, "SECRET") || strings.Contains(s, "secret-topic") {
				t.Errorf("error %q repeats the token or the topic", s)
			}
			if sent := len(r.received()) > 0; sent != tt.sent {
				t.Errorf("sent = %v, want %v", sent, tt.sent)
			}
		})
	}
}

func TestWebhookRedirects(t *testing.T) {
	final := newReceiver(t, http.StatusOK)
	redirect := func(code int, to string) *httptest.Server {
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/final" {
				body, _ := io.ReadAll(r.Body)
				if r.Method != http.MethodPost || len(body) == 0 {
					http.Error(w, "want the POST with its body", http.StatusBadRequest)
				}
				return
			}
			http.Redirect(w, r, to, code)
		}))
		t.Cleanup(s.Close)
		return s
	}
	t.Run("307 on the same host keeps the POST", func(t *testing.T) {
		s := redirect(http.StatusTemporaryRedirect, "/final")
		if err := webhookClient().Send(context.Background(), WebhookTarget{URL: s.URL + "/hook", Token: "x"}, overdueOil); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("302 would turn the POST into a GET", func(t *testing.T) {
		s := redirect(http.StatusFound, "/final")
		err := webhookClient().Send(context.Background(), WebhookTarget{URL: s.URL + "/hook"}, overdueOil)
		if err == nil || !Permanent(err) || !strings.Contains(err.Error(), "redirected") {
			t.Fatalf("err = %v, want a permanent refusal of the redirect", err)
		}
	})
	t.Run("another host gets no token", func(t *testing.T) {
		// 127.0.0.1 and localhost are different hosts to the client.
		s := redirect(http.StatusPermanentRedirect, strings.Replace(final.URL, "127.0.0.1", "localhost", 1)+"/stolen")
		err := webhookClient().Send(context.Background(), WebhookTarget{URL: s.URL + "/hook", Format: FormatGotify, Token: "tok"}, overdueOil)
		if err == nil || !Permanent(err) {
			t.Fatalf("err = %v, want a permanent refusal of the redirect", err)
		}
		if n := len(final.received()); n != 0 {
			t.Errorf("the other host got %d requests", n)
		}
	})
	t.Run("too many redirects", func(t *testing.T) {
		s := redirect(http.StatusTemporaryRedirect, "/again")
		err := webhookClient().Send(context.Background(), WebhookTarget{URL: s.URL + "/hook"}, overdueOil)
		if err == nil || !Permanent(err) {
			t.Fatalf("err = %v, want a permanent error", err)
		}
	})
}

func TestWebhookDefaultClientRefusesPrivateAddresses(t *testing.T) {
	r := newReceiver(t, http.StatusOK)
	for _, u := range []string{r.URL, strings.Replace(r.URL, "127.0.0.1", "localhost", 1)} {
		err := Webhook{}.Send(context.Background(), WebhookTarget{URL: u}, testMessage)
		if !errors.Is(err, ErrForbiddenAddress) || !Permanent(err) {
			t.Errorf("%s: err = %v, want ErrForbiddenAddress", u, err)
		}
	}
	if n := len(r.received()); n != 0 {
		t.Errorf("receiver got %d requests", n)
	}
}
