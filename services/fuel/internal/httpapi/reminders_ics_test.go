package httpapi_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/emersion/go-ical"

	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/services/fuel/internal/httpapi"
	"github.com/carhub/backend/services/fuel/internal/store"
)

// feedEvent is what a test checks of a VEVENT, read by go-ical (another
// library than the one that writes the feed).
type feedEvent struct {
	uid, start, valueType, end, sequence, summary, description, categories string
}

// parseFeed checks the answer is a calendar and returns its events.
func parseFeed(tb testing.TB, res response) []feedEvent {
	tb.Helper()
	if res.status != 200 {
		tb.Fatalf("feed: %d %s", res.status, res.body)
	}
	if ct := res.header.Get("Content-Type"); ct != "text/calendar; charset=utf-8" {
		tb.Fatalf("Content-Type %q", ct)
	}
	// RFC 5545 3.1: every content line ends with CRLF.
	if lines := strings.Split(string(res.body), "\r\n"); lines[len(lines)-1] != "" || strings.Contains(string(res.body), "\n\n") ||
		strings.Count(string(res.body), "\n") != strings.Count(string(res.body), "\r\n") {
		tb.Fatalf("lines not ended by CRLF: %q", res.body)
	}
	cal, err := ical.NewDecoder(bytes.NewReader(res.body)).Decode()
	if err != nil {
		tb.Fatalf("parse the feed: %v\n%s", err, res.body)
	}
	if v := cal.Props.Get(ical.PropVersion); v == nil || v.Value != "2.0" {
		tb.Fatalf("VERSION %v", v)
	}
	if p := cal.Props.Get(ical.PropProductID); p == nil || p.Value == "" {
		tb.Fatal("no PRODID")
	}
	var out []feedEvent
	for _, e := range cal.Events() {
		text := func(name string) string {
			p := e.Props.Get(name)
			if p == nil {
				return ""
			}
			s, err := p.Text()
			if err != nil {
				return p.Value
			}
			return s
		}
		start := e.Props.Get(ical.PropDateTimeStart)
		if start == nil || e.Props.Get(ical.PropDateTimeStamp) == nil {
			tb.Fatalf("event without DTSTART or DTSTAMP: %v", e.Props)
		}
		out = append(out, feedEvent{
			uid: text(ical.PropUID), start: start.Value, valueType: start.Params.Get(ical.ParamValue), end: e.Props.Get(ical.PropDateTimeEnd).Value,
			sequence: text(ical.PropSequence), summary: text(ical.PropSummary), description: text(ical.PropDescription),
			categories: text(ical.PropCategories),
		})
	}
	return out
}

func TestReminderFeed(t *testing.T) {
	for _, d := range dialects {
		t.Run(string(d), func(t *testing.T) {
			s := clockServer(t, d)
			vid := reminderVehicle(s) // 54000 km, 50 km a day
			oil := literal(object(t, s.must(200, "POST", "/api/reminders", `{"vehicle_id":`+vid+`,"title":"Oil change","category":"service",`+
				`"every_km":15000,"every_months":12,"last_done":{"time":"2025-07-01T08:00:00Z","odometer":40000},"notes":"5W-30, filter; drain plug\r\nwasher\u0007"}`).body)["id"])
			insp := literal(object(t, s.must(200, "POST", "/api/reminders", `{"vehicle_id":`+vid+`,"title":"Inspection","category":"inspection",`+
				`"every_months":24,"last_done":{"time":"2024-05-01T09:00:00Z"}}`).body)["id"])
			// By km, no pace on the other vehicle: no day, no event.
			other := s.mustVehicle(`{"name":"Old van","fuel_type":"diesel"}`)
			s.must(200, "POST", "/api/reminders", `{"vehicle_id":`+other+`,"title":"Tyres","category":"tyres","every_km":40000}`)

			events := parseFeed(t, s.do("GET", "/api/reminders.ics", ""))
			want := []feedEvent{
				{uid: "reminder-" + insp + "@carhub", start: "20260501", valueType: "DATE", end: "20260502", sequence: "0",
					summary: "Inspection – Golf (overdue)", description: "Due on 2026-05-01.", categories: "inspection"},
				// The estimate, Jun 21, comes before the date, Jul 1.
				{uid: "reminder-" + oil + "@carhub", start: "20260621", valueType: "DATE", end: "20260622", sequence: "0",
					summary: "Oil change – Golf", categories: "service",
					description: "Due at 55000 km (1000 km to go).\nDue on 2026-07-01.\nExpected on 2026-06-21 at 50 km a day.\n\n5W-30, filter; drain plug\nwasher "},
			}
			if len(events) != len(want) {
				t.Fatalf("events %+v, want %+v", events, want)
			}
			for i := range want {
				if events[i] != want[i] {
					t.Errorf("event %d\n got %+v\nwant %+v", i, events[i], want[i])
				}
			}

			// A change raises SEQUENCE and keeps the UID.
			s.must(200, "PUT", "/api/reminders/"+oil, `{"every_km":null}`)
			s.must(200, "PUT", "/api/reminders/"+oil, `{"title":"Oil"}`)
			events = parseFeed(t, s.do("GET", "/api/reminders.ics", ""))
			if len(events) != 2 || events[1].uid != want[1].uid || events[1].sequence != "2" || events[1].start != "20260701" || events[1].summary != "Oil – Golf" {
				t.Fatalf("after two changes: %+v", events)
			}
		})
	}
}

// syncBuffer is a log sink the server's goroutines share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *syncBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// loggedAuthServer is clockAuthServer whose log, at debug level, goes to
// logs.
func loggedAuthServer(tb testing.TB, d store.Dialect, logs io.Writer) *server {
	tb.Helper()
	st := mustStore(tb, d)
	st.Now = fixedClock
	hash, err := rootPasswordHash()
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := st.ClaimBuiltinUser(context.Background(), "root", hash); err != nil {
		tb.Fatal(err)
	}
	log := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	opts := httpapi.Options{Now: fixedClock, Auth: httpapi.AuthOptions{Mode: auth.ModeLocal, Accounts: st, IdentitySecret: testSecret}}
	ts := httptest.NewServer(httpapi.New(log, st, opts))
	tb.Cleanup(ts.Close)
	return &server{tb: tb, url: ts.URL, store: st}
}

func TestReminderFeedToken(t *testing.T) {
	for _, d := range dialects {
		t.Run(string(d), func(t *testing.T) {
			var logs syncBuffer
			s := loggedAuthServer(t, d, &logs)
			root := s.session("root")
			s.token = root
			vid := reminderVehicle(s)
			rid := literal(object(t, s.must(200, "POST", "/api/reminders", `{"vehicle_id":`+vid+`,"title":"Inspection","category":"inspection",`+
				`"every_months":24,"last_done":{"time":"2024-05-01T09:00:00Z"}}`).body)["id"])

			newToken := func(as, password, scope string) (token, id string) {
				res := s.as(as, "POST", "/api/auth/tokens", `{"name":"calendar","scope":"`+scope+`","current_password":"`+password+`"}`)
				wantStatus(t, "token "+scope, res, 200, "")
				m := object(t, res.body)
				return m["token"].(string), literal(m["id"])
			}
			reader, readerID := newToken(root, "root-password", "read")
			writer, _ := newToken(root, "root-password", "write")
			feed := func(query string) response { return s.as("", "GET", "/api/reminders.ics"+query, "") }

			events := parseFeed(t, feed("?token="+reader))
			if len(events) != 1 || events[0].uid != "reminder-"+rid+"@carhub" {
				t.Fatalf("feed with the read token: %+v", events)
			}
			// The header works as everywhere.
			if events := parseFeed(t, s.as(root, "GET", "/api/reminders.ics", "")); len(events) != 1 {
				t.Fatalf("feed with the header: %+v", events)
			}
			wantStatus(t, "no token", feed(""), 401, "UNAUTHORIZED")
			wantStatus(t, "a write token in the URL", feed("?token="+writer), 403, "FORBIDDEN")
			wantStatus(t, "a session in the URL", feed("?token="+root), 401, "UNAUTHORIZED")
			wantStatus(t, "nonsense", feed("?token=chp_nonsense"), 401, "UNAUTHORIZED")
			wantStatus(t, "twice", feed("?token="+reader+"&token="+reader), 400, "INVALID_ARGUMENT")
			// Only the feed reads the query.
			wantStatus(t, "the query elsewhere", s.as("", "GET", "/api/reminders?token="+reader, ""), 401, "UNAUTHORIZED")
			wantStatus(t, "the query on a reminder", s.as("", "GET", "/api/reminders/"+rid+"?token="+reader, ""), 401, "UNAUTHORIZED")

			// Another user's feed has none of root's reminders.
			_, ann := s.newUser("ann")
			annReader, _ := newToken(ann, "ann-password", "read")
			if events := parseFeed(t, feed("?token="+annReader)); len(events) != 0 {
				t.Fatalf("ann's feed: %+v", events)
			}
			wantStatus(t, "ann reads root's reminder", s.as(ann, "GET", "/api/reminders/"+rid, ""), 404, "NOT_FOUND")

			// Revoked, the token reads nothing.
			wantStatus(t, "revoke", s.as(root, "DELETE", "/api/auth/tokens/"+readerID, ""), 204, "")
			wantStatus(t, "the revoked token", feed("?token="+reader), 401, "UNAUTHORIZED")

			// No log line holds a token given in the URL.
			out := logs.String()
			if !strings.Contains(out, "/api/reminders.ics") {
				t.Fatalf("the requests were not logged at all: %s", out)
			}
			for _, tok := range []string{reader, writer, annReader} {
				if strings.Contains(out, tok) || strings.Contains(out, tok[4:20]) {
					t.Fatalf("the log holds a token:\n%s", out)
				}
			}
		})
	}
}
