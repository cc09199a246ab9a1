package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-ical"

	"github.com/carhub/backend/pkg/caddytest"
)

// TestRemindersThroughCaddy drives reminders and their calendar feed
// through the real gateway with accounts on: the routes are the
// gateway's, the feed reads a read token from its query, another user's
// reminder is 404 and a revoked token reads nothing.
func TestRemindersThroughCaddy(t *testing.T) {
	svc := MustRun(t, map[string]string{
		"FUEL_SQLITE_PATH": filepath.Join(t.TempDir(), "fuel.db"), "AUTH_MODE": "local",
		"AUTH_IDENTITY_SECRET": strings.Repeat("s", 32), "AUTH_ADMIN_USERNAME": "root", "AUTH_ADMIN_PASSWORD": "root-password",
	})
	gw := caddytest.Start(t, "FUEL_UPSTREAM="+strings.TrimPrefix(svc, "http://"), "DOCQA_UPSTREAM=127.0.0.1:1", "WEB_ROOT="+t.TempDir(), "AUTH_MODE=local")
	call := func(token, method, path, body string, want int) []byte {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second) // Caddy's health check may keep a new upstream out for a moment
		for {
			req, _ := http.NewRequest(method, gw+path, strings.NewReader(body))
			if body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			if token != "" {
				req.Header.Set("Authorization", "Bearer "+token)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if (res.StatusCode == http.StatusBadGateway || res.StatusCode == http.StatusServiceUnavailable) && time.Now().Before(deadline) {
				time.Sleep(200 * time.Millisecond)
				continue
			}
			if res.StatusCode != want {
				t.Fatalf("%s %s: %d, want %d: %s", method, path, res.StatusCode, want, b)
			}
			return b
		}
	}
	field := func(b []byte, k string) string {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		return strings.Trim(string(m[k]), `"`)
	}
	login := func(user, password string) string {
		return field(call("", "POST", "/api/auth/login", `{"username":"`+user+`","password":"`+password+`"}`, 200), "token")
	}
	root := login("root", "root-password")
	vid := field(call(root, "POST", "/api/vehicles", `{"name":"Golf","fuel_type":"gasoline"}`, 200), "id")
	rid := field(call(root, "POST", "/api/reminders", `{"vehicle_id":`+vid+`,"title":"Inspection","category":"inspection","every_months":24,`+
		`"last_done":{"time":"2025-05-01T09:00:00Z"}}`, 200), "id")
	if got := field(call(root, "GET", "/api/reminders/"+rid, "", 200), "due_date"); got != "2027-05-01" {
		t.Fatalf("due_date %s", got)
	}
	if l := string(call(root, "GET", "/api/reminders?vehicle_id="+vid, "", 200)); !strings.Contains(l, `"id":`+rid+`,`) {
		t.Fatalf("list %s", l)
	}
	tok := call(root, "POST", "/api/auth/tokens", `{"name":"calendar","scope":"read","current_password":"root-password"}`, 200)
	reader, tokenID := field(tok, "token"), field(tok, "id")

	feed := call("", "GET", "/api/reminders.ics?token="+reader, "", 200)
	cal, err := ical.NewDecoder(bytes.NewReader(feed)).Decode()
	if err != nil {
		t.Fatalf("parse the feed: %v\n%s", err, feed)
	}
	events := cal.Events()
	if len(events) != 1 || events[0].Props.Get(ical.PropUID).Value != "reminder-"+rid+"@carhub" ||
		events[0].Props.Get(ical.PropDateTimeStart).Value != "20270501" {
		t.Fatalf("events %+v\n%s", events, feed)
	}

	call(root, "POST", "/api/users", `{"username":"ann","password":"ann-password"}`, 201)
	ann := login("ann", "ann-password")
	call(ann, "GET", "/api/reminders/"+rid, "", 404)
	call(root, "DELETE", "/api/auth/tokens/"+tokenID, "", 204)
	call("", "GET", "/api/reminders.ics?token="+reader, "", 401)
}
