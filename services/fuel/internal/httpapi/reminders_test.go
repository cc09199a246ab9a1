package httpapi_test

import (
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/carhub/backend/services/fuel/internal/httpapi"
	"github.com/carhub/backend/services/fuel/internal/store"
)

// reminderClock is the time of the reminder tests: Monday 2026-06-01,
// 12:00 UTC.
var reminderClock = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

func fixedClock() time.Time { return reminderClock }

// clockServer is MustServer with the service's and the store's clock at
// reminderClock.
func clockServer(tb testing.TB, d store.Dialect) *server {
	tb.Helper()
	st := mustStore(tb, d)
	st.Now = fixedClock
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ts := httptest.NewServer(httpapi.New(log, st, httpapi.Options{Now: fixedClock}))
	tb.Cleanup(ts.Close)
	return &server{tb: tb, url: ts.URL, store: st}
}

// forEachClockDialect is forEachDialect on clockServer and its accounts
// twin (the clock fixed too).
func forEachClockDialect(t *testing.T, fn func(t *testing.T, s *server)) {
	t.Helper()
	for _, d := range dialects {
		t.Run(string(d), func(t *testing.T) { fn(t, clockServer(t, d)) })
		t.Run(string(d)+"-accounts", func(t *testing.T) {
			s := clockAuthServer(t, d)
			s.token = s.session("root")
			fn(t, s)
		})
	}
}

func clockAuthServer(t testing.TB, d store.Dialect) *server {
	return authServerWith(t, d, func(o *httpapi.Options, st *store.Store) { o.Now = fixedClock; st.Now = fixedClock })
}

// reminderVehicle makes a vehicle with two refuels 60 days apart, 3000
// km: a pace of 50 km a day, the current odometer 54000.
func reminderVehicle(s *server) string {
	s.tb.Helper()
	vid := s.mustVehicle(`{"name":"Golf","fuel_type":"gasoline"}`)
	for _, r := range []string{`"refuel_time":"2026-03-20T08:00:00Z","odometer":51000`, `"refuel_time":"2026-05-19T08:00:00Z","odometer":54000`} {
		s.mustRefuel(`{"vehicle_id":` + vid + `,` + r + `,"fuel_type":"E10","liters":40,"total_amount":70,"is_full":true}`)
	}
	return vid
}

// withoutID is a reminder answer with its id and vehicle_id as "ID" and
// "VID", so a golden string holds for every database.
func withoutID(b []byte, id, vid string) string {
	s := strings.Replace(string(b), `"id":`+id+`,`, `"id":ID,`, 1)
	return strings.Replace(s, `"vehicle_id":`+vid+`,`, `"vehicle_id":VID,`, 1)
}

func TestReminderCRUD(t *testing.T) {
	forEachClockDialect(t, func(t *testing.T, s *server) {
		vid := reminderVehicle(s)
		// 40000 + 15000 = 55000, 1000 km left: 20 days at 50 a day, Jun 21;
		// 2025-07-01 + 12 months = 2026-07-01, 30 days after Jun 1: soon.
		res := s.must(200, "POST", "/api/reminders", `{"vehicle_id":`+vid+`,"title":"Oil change","category":"service","match":"oil",`+
			`"every_km":15000,"every_months":12,"last_done":{"time":"2025-07-01T10:00:00+02:00","odometer":40000},"notes":"5W-30"}`)
		created := object(t, res.body)
		id := literal(created["id"])
		want := `{"id":ID,"vehicle_id":VID,"title":"Oil change","category":"service","match":"oil","every_km":15000,"every_months":12,` +
			`"last_done":{"time":"2025-07-01T08:00:00Z","odometer":40000,"expense_id":null},"notes":"5W-30","soon_km":1000,"soon_days":30,` +
			`"due_odometer":55000,"due_in_km":1000,"due_date":"2026-07-01","due_in_days":30,"distance_per_day":50,` +
			`"estimated_due_date":"2026-06-21","status":"soon","revision":0,"created_at":"2026-06-01T12:00:00Z","updated_at":"2026-06-01T12:00:00Z"}`
		if got := withoutID(res.body, id, vid); got != want {
			t.Fatalf("created\n got %s\nwant %s", got, want)
		}
		if got := s.must(200, "GET", "/api/reminders/"+id, "").body; string(got) != string(res.body) {
			t.Fatalf("read back %s, want the create's answer %s", got, res.body)
		}

		// Patch: only what is sent changes; null clears every_km.
		res = s.must(200, "PUT", "/api/reminders/"+id, `{"every_km":null,"soon_days":10}`)
		want = `{"id":ID,"vehicle_id":VID,"title":"Oil change","category":"service","match":"oil","every_km":null,"every_months":12,` +
			`"last_done":{"time":"2025-07-01T08:00:00Z","odometer":40000,"expense_id":null},"notes":"5W-30","soon_km":1000,"soon_days":10,` +
			`"due_odometer":null,"due_in_km":null,"due_date":"2026-07-01","due_in_days":30,"distance_per_day":null,` +
			`"estimated_due_date":null,"status":"ok","revision":1,"created_at":"2026-06-01T12:00:00Z","updated_at":"2026-06-01T12:00:00Z"}`
		if got := withoutID(res.body, id, vid); got != want {
			t.Fatalf("patched\n got %s\nwant %s", got, want)
		}
		// Refused, every bad field named (the blank title beside the
		// soon_days that cannot be read), nothing written.
		res = s.do("PUT", "/api/reminders/"+id, `{"every_months":null,"title":"","soon_days":-1}`)
		errorBody(t, res, 400, "INVALID_ARGUMENT", "title")
		if msg := object(t, res.body)["message"]; msg != "title: is required and must not be blank; soon_days: must be an integer between 0 and 3650" {
			t.Errorf("message %q", msg)
		}
		res = s.do("PUT", "/api/reminders/"+id, `{"every_months":null}`)
		errorBody(t, res, 400, "INVALID_ARGUMENT", "every_km")
		if got := object(t, s.must(200, "GET", "/api/reminders/"+id, "").body); literal(got["revision"]) != "1" || literal(got["every_months"]) != "12" {
			t.Fatalf("a refused patch changed the reminder: %v", got)
		}
		other := s.mustVehicle(`{"name":"Other","fuel_type":"diesel"}`)
		errorBody(t, s.do("PUT", "/api/reminders/"+id, `{"vehicle_id":`+other+`}`), 400, "INVALID_ARGUMENT", "vehicle_id")
		s.must(200, "PUT", "/api/reminders/"+id, `{"vehicle_id":`+vid+`,"soon_days":null}`) // the same vehicle is fine

		// A second one, overdue: 2024-05-01 + 24 months = 2026-05-01, 31 days ago.
		res = s.must(200, "POST", "/api/reminders", `{"vehicle_id":`+vid+`,"title":"Inspection","category":"inspection","every_months":24,`+
			`"last_done":{"time":"2024-05-01T09:00:00Z"}}`)
		insp := object(t, res.body)
		if insp["status"] != "overdue" || literal(insp["due_in_days"]) != "-31" || insp["due_date"] != "2026-05-01" {
			t.Fatalf("inspection %v", insp)
		}
		// A third, never done, by km only: from the creation's 54000.
		res = s.must(200, "POST", "/api/reminders", `{"vehicle_id":`+vid+`,"title":"Tyres","category":"tyres","every_km":40000}`)
		tyres := object(t, res.body)
		if literal(tyres["due_odometer"]) != "94000" || tyres["last_done"] != nil || tyres["estimated_due_date"] != "2028-08-09" || tyres["status"] != "ok" {
			// 40000 km at 50 a day: 800 days after 2026-06-01.
			t.Fatalf("tyres %v", tyres)
		}

		// Most urgent first: overdue, soon, ok.
		list := array(t, s.must(200, "GET", "/api/reminders", "").body)
		if len(list) != 3 || list[0]["title"] != "Inspection" || list[1]["title"] != "Oil change" || list[2]["title"] != "Tyres" {
			t.Fatalf("list %v", list)
		}
		if l := array(t, s.must(200, "GET", "/api/reminders?status=overdue&vehicle_id="+vid, "").body); len(l) != 1 || l[0]["title"] != "Inspection" {
			t.Fatalf("overdue %v", l)
		}
		if l := array(t, s.must(200, "GET", "/api/reminders?vehicle_id="+other, "").body); len(l) != 0 {
			t.Fatalf("other vehicle %v", l)
		}
		if l := array(t, s.must(200, "GET", "/api/reminders?vehicle_id=999999", "").body); len(l) != 0 {
			t.Fatalf("unknown vehicle %v", l)
		}
		res = s.do("GET", "/api/reminders?vehicle_id=abc&status=late", "")
		errorBody(t, res, 400, "INVALID_ARGUMENT", "vehicle_id")
		if msg := object(t, res.body)["message"].(string); !strings.Contains(msg, "; status: must be one of ok, soon, overdue") {
			t.Errorf("message %q does not name status", msg)
		}

		s.must(204, "DELETE", "/api/reminders/"+id, "")
		errorBody(t, s.do("GET", "/api/reminders/"+id, ""), 404, "NOT_FOUND", "")
		errorBody(t, s.do("DELETE", "/api/reminders/"+id, ""), 404, "NOT_FOUND", "")
		errorBody(t, s.do("PUT", "/api/reminders/"+id, `{"title":"x"}`), 404, "NOT_FOUND", "")

		// Deleting the vehicle deletes its reminders.
		s.must(204, "DELETE", "/api/vehicles/"+vid, "")
		if n, err := s.store.CountRows(t.Context(), "reminders"); err != nil || n != 0 {
			t.Fatalf("reminders after the vehicle's deletion: %d %v", n, err)
		}
	})
}

// TestReminderLastDoneReadingOnly: an owner who remembers "oil changed at
// 40 000 km" but not the day saves a distance reminder with last_done
// {odometer} alone; it reads back with last_done.time null, due at that
// reading plus every_km (soon, then overdue), and with no due date. Months
// count from a day: adding them to it, or giving a months reminder a
// reading alone, is refused naming last_done.time.
func TestReminderLastDoneReadingOnly(t *testing.T) {
	forEachClockDialect(t, func(t *testing.T, s *server) {
		vid := reminderVehicle(s)
		// 40000 + 15000 = 55000, 1000 km left at 50 a day: Jun 21, soon.
		res := s.must(200, "POST", "/api/reminders", `{"vehicle_id":`+vid+`,"title":"Oil change","category":"service",`+
			`"every_km":15000,"last_done":{"odometer":40000}}`)
		id := literal(object(t, res.body)["id"])
		want := `{"id":ID,"vehicle_id":VID,"title":"Oil change","category":"service","match":"","every_km":15000,"every_months":null,` +
			`"last_done":{"time":null,"odometer":40000,"expense_id":null},"notes":"","soon_km":1000,"soon_days":30,` +
			`"due_odometer":55000,"due_in_km":1000,"due_date":null,"due_in_days":null,"distance_per_day":50,` +
			`"estimated_due_date":"2026-06-21","status":"soon","revision":0,"created_at":"2026-06-01T12:00:00Z","updated_at":"2026-06-01T12:00:00Z"}`
		if got := withoutID(res.body, id, vid); got != want {
			t.Fatalf("created\n got %s\nwant %s", got, want)
		}
		if got := s.must(200, "GET", "/api/reminders/"+id, "").body; string(got) != string(res.body) {
			t.Fatalf("read back %s, want the create's answer %s", got, res.body)
		}
		// An earlier reading: 30000 + 15000 = 45000, passed 9000 km ago.
		got := object(t, s.must(200, "PUT", "/api/reminders/"+id, `{"last_done":{"time":null,"odometer":30000}}`).body)
		if literal(got["due_odometer"]) != "45000" || literal(got["due_in_km"]) != "-9000" || got["status"] != "overdue" || got["due_date"] != nil {
			t.Fatalf("after an earlier reading: %v", got)
		}

		res = s.do("PUT", "/api/reminders/"+id, `{"every_months":12}`)
		errorBody(t, res, 400, "INVALID_ARGUMENT", "last_done.time")
		if msg := object(t, res.body)["message"]; msg != "last_done.time: is required when every_months is set" {
			t.Errorf("months beside a reading alone: %q", msg)
		}
		// With its day the months are fine.
		got = object(t, s.must(200, "PUT", "/api/reminders/"+id, `{"every_months":12,"last_done":{"time":"2026-01-10T08:00:00Z","odometer":30000}}`).body)
		if got["due_date"] != "2027-01-10" || literal(got["due_odometer"]) != "45000" {
			t.Fatalf("with months and a day: %v", got)
		}
		res = s.do("PUT", "/api/reminders/"+id, `{"last_done":{"odometer":30000}}`)
		errorBody(t, res, 400, "INVALID_ARGUMENT", "last_done.time")
		res = s.do("POST", "/api/reminders", `{"vehicle_id":`+vid+`,"title":"TÜV","category":"inspection","every_months":24,"last_done":{"odometer":30000}}`)
		errorBody(t, res, 400, "INVALID_ARGUMENT", "last_done.time")
		if n, _ := s.store.CountRows(t.Context(), "reminders"); n != 1 {
			t.Fatalf("%d reminders, want the 1 made", n)
		}
	})
}

func TestReminderFieldsNamed(t *testing.T) {
	forEachClockDialect(t, func(t *testing.T, s *server) {
		vid := s.mustVehicle(`{"name":"Golf","fuel_type":"gasoline"}`)
		for _, c := range []struct{ body, message string }{
			{`{}`, "vehicle_id: is required; title: is required; category: is required; every_km: or every_months is required (at least one of them)"},
			{`{"vehicle_id":` + vid + `,"title":"x","category":"service"}`, "every_km: or every_months is required (at least one of them)"},
			{`{"vehicle_id":` + vid + `,"title":"x","category":"service","every_km":-1,"every_months":0,"last_done":{"odometer":-2},"soon_km":-5,"soon_days":1.5}`,
				"every_km: must be at least 0; every_months: must be an integer between 1 and 1200; " +
					"last_done.odometer: must be at least 0; soon_km: must be at least 0; soon_days: must be an integer between 0 and 3650"},
			// Months count from a day: a reading without its time is
			// refused beside them, by name, with the other bad members.
			{`{"vehicle_id":` + vid + `,"title":"x","category":"service","every_km":-1,"every_months":12,"last_done":{"odometer":-2},"soon_km":-5}`,
				"every_km: must be at least 0; last_done.time: is required when every_months is set; " +
					"last_done.odometer: must be at least 0; soon_km: must be at least 0"},
			{`{"vehicle_id":` + vid + `,"title":"x","category":"service","every_months":12,"last_done":{"time":null,"odometer":15000}}`,
				"last_done.time: is required when every_months is set"},
			{`{"vehicle_id":` + vid + `,"title":" ","category":"oil","match":"` + strings.Repeat("m", 201) + `","every_km":0,"last_done":{},"notes":"` + strings.Repeat("n", 1001) + `"}`,
				"title: is required and must not be blank; category: must be one of service, repair, tyres, inspection, insurance, tax, parking, toll, wash, fine, accessory, other; " +
					"match: must be at most 200 characters (got 201); every_km: must be greater than 0 (at 3 decimal places); " +
					"last_done.odometer: is required when every_km is set; notes: must be at most 1000 characters (got 1001)"},
			{`{"vehicle_id":` + vid + `,"title":"x","category":"service","every_months":6,"last_done":{"time":"yesterday"}}`,
				"last_done.time: must be an RFC 3339 timestamp with a zone, like 2026-03-01T08:00:00Z or 2026-03-01T10:00:00+02:00"},
			{`{"vehicle_id":999999,"title":"x","category":"service","every_months":6}`, "vehicle_id: vehicle 999999 does not exist"},
		} {
			res := s.do("POST", "/api/reminders", c.body)
			errorBody(t, res, 400, "INVALID_ARGUMENT", "")
			if got := object(t, res.body)["message"]; got != c.message {
				t.Errorf("%s\n got %q\nwant %q", c.body, got, c.message)
			}
		}
		errorBody(t, s.do("POST", "/api/reminders", `{"vehicle_id":`+vid+`,"title":"x","category":"service","last_done":"2026-01-01"}`), 400, "INVALID_ARGUMENT", "last_done")
		if n, _ := s.store.CountRows(t.Context(), "reminders"); n != 0 {
			t.Fatalf("%d reminders stored by refused requests", n)
		}
	})
}

func TestReminderIdempotencyKey(t *testing.T) {
	s := clockServer(t, store.SQLite)
	vid := s.mustVehicle(`{"name":"Golf","fuel_type":"gasoline"}`)
	body := `{"vehicle_id":` + vid + `,"title":"Oil","category":"service","every_months":12}`
	first := s.postForm("/api/reminders", "application/json", strings.NewReader(body), "Idempotency-Key", "k-1")
	second := s.postForm("/api/reminders", "application/json", strings.NewReader(body), "Idempotency-Key", "k-1")
	if first.status != 200 || second.status != 200 || string(first.body) != string(second.body) || second.header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("first %d %s, second %d %s %v", first.status, first.body, second.status, second.body, second.header)
	}
	if n, _ := s.store.CountRows(t.Context(), "reminders"); n != 1 {
		t.Fatalf("%d reminders, want 1", n)
	}
}

func TestReminderMonthsInTheOwnersZone(t *testing.T) {
	s := clockServer(t, store.Postgres)
	vid := s.mustVehicle(`{"name":"Golf","fuel_type":"gasoline"}`)
	// 2026-01-31T23:30Z is Jan 31 in UTC, Feb 1 in Shanghai.
	id := literal(object(t, s.must(200, "POST", "/api/reminders", `{"vehicle_id":`+vid+`,"title":"Wash","category":"wash","every_months":1,`+
		`"last_done":{"time":"2026-01-31T23:30:00Z"}}`).body)["id"])
	if got := object(t, s.must(200, "GET", "/api/reminders/"+id, "").body)["due_date"]; got != "2026-02-28" {
		t.Fatalf("UTC due_date %v", got)
	}
	s.must(200, "PUT", "/api/preferences", `{"time_zone":"Asia/Shanghai"}`)
	if got := object(t, s.must(200, "GET", "/api/reminders/"+id, "").body)["due_date"]; got != "2026-03-01" {
		t.Fatalf("Shanghai due_date %v", got)
	}
}

func TestRemindersOfASharedVehicle(t *testing.T) {
	for _, d := range dialects {
		t.Run(string(d), func(t *testing.T) {
			s := clockAuthServer(t, d)
			root := s.session("root")
			ids, tokens := map[string]string{}, map[string]string{}
			for _, name := range []string{"viv", "ed", "out"} {
				ids[name], tokens[name] = s.newUser(name)
			}
			viv, ed, out := tokens["viv"], tokens["ed"], tokens["out"]
			vid := literal(object(t, s.as(root, "POST", "/api/vehicles", `{"name":"Family car","fuel_type":"diesel"}`).body)["id"])
			wantStatus(t, "share with viv", s.as(root, "PUT", "/api/vehicles/"+vid+"/members/"+ids["viv"], `{"role":"viewer"}`), 200, "")
			wantStatus(t, "share with ed", s.as(root, "PUT", "/api/vehicles/"+vid+"/members/"+ids["ed"], `{"role":"editor"}`), 200, "")

			body := `{"vehicle_id":` + vid + `,"title":"Oil","category":"service","every_months":12}`
			res := s.as(root, "POST", "/api/reminders", body)
			wantStatus(t, "owner creates", res, 200, "")
			rid := "/api/reminders/" + literal(object(t, res.body)["id"])

			wantStatus(t, "viewer reads", s.as(viv, "GET", rid, ""), 200, "")
			if l := array(t, s.as(viv, "GET", "/api/reminders", "").body); len(l) != 1 {
				t.Fatalf("viewer lists %v", l)
			}
			wantStatus(t, "viewer creates", s.as(viv, "POST", "/api/reminders", body), 403, "FORBIDDEN")
			wantStatus(t, "viewer changes", s.as(viv, "PUT", rid, `{"title":"x"}`), 403, "FORBIDDEN")
			wantStatus(t, "viewer deletes", s.as(viv, "DELETE", rid, ""), 403, "FORBIDDEN")
			wantStatus(t, "editor creates", s.as(ed, "POST", "/api/reminders", body), 200, "")
			wantStatus(t, "editor changes", s.as(ed, "PUT", rid, `{"title":"Oil and filter"}`), 200, "")

			wantStatus(t, "outsider reads", s.as(out, "GET", rid, ""), 404, "NOT_FOUND")
			wantStatus(t, "outsider changes", s.as(out, "PUT", rid, `{"title":"x"}`), 404, "NOT_FOUND")
			wantStatus(t, "outsider deletes", s.as(out, "DELETE", rid, ""), 404, "NOT_FOUND")
			wantStatus(t, "outsider creates", s.as(out, "POST", "/api/reminders", body), 400, "INVALID_ARGUMENT")
			for _, q := range []string{"", "?vehicle_id=" + vid} {
				if l := array(t, s.as(out, "GET", "/api/reminders"+q, "").body); len(l) != 0 {
					t.Fatalf("outsider lists %s: %v", q, l)
				}
			}
			wantStatus(t, "no token", s.as("", "GET", rid, ""), 401, "UNAUTHORIZED")

			// A read token reads but does not write.
			res = s.as(root, "POST", "/api/auth/tokens", `{"name":"read","scope":"read","current_password":"root-password"}`)
			wantStatus(t, "read token", res, 200, "")
			reader := object(t, res.body)["token"].(string)
			wantStatus(t, "read token reads", s.as(reader, "GET", rid, ""), 200, "")
			wantStatus(t, "read token writes", s.as(reader, "PUT", rid, `{"title":"x"}`), 403, "FORBIDDEN")

			wantStatus(t, "owner deletes", s.as(root, "DELETE", rid, ""), 204, "")
		})
	}
}

func FuzzCreateReminder(f *testing.F) {
	for _, seed := range []string{
		`{"vehicle_id":1,"title":"Oil","category":"service","every_km":15000,"every_months":12,"last_done":{"time":"2026-01-10T08:00:00Z","odometer":40000}}`,
		`{"vehicle_id":1,"title":"x","category":"tax","every_months":1200,"last_done":{"time":"9999-12-31T23:59:59.999999-01:00"},"soon_days":3650}`,
		`{"vehicle_id":1,"title":"x","category":"tyres","every_km":0.001,"last_done":{"time":"1900-01-01T00:00:00Z","odometer":99999999999.999},"soon_km":99999999999.999}`,
		`{"vehicle_id":1,"title":"x","category":"wash","every_km":99999999999.999,"every_months":null,"last_done":null,"soon_km":null,"soon_days":null}`,
		`{"vehicle_id":1,"every_months":1e3,"soon_days":"30","last_done":[]}`,
		`{"last_done":{"time":5,"odometer":"1"}}`, `{}`, `[]`, `null`,
	} {
		f.Add(seed)
	}
	h := fuzzHandler(f)
	f.Fuzz(func(t *testing.T, body string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("POST", "/api/reminders", strings.NewReader(body)))
		checkAnswer(t, rec, body)
		for _, path := range []string{"/api/reminders", "/api/reminders.ics"} {
			list := httptest.NewRecorder()
			h.ServeHTTP(list, httptest.NewRequest("GET", path, nil))
			if list.Code != 200 {
				t.Fatalf("after %q, GET %s: %d %s", body, path, list.Code, list.Body)
			}
		}
	})
}

// TestReminderLastDoneFollowsExpenses: the newest matching expense (the
// category, and match within the title ignoring case) at or before now
// is the last_done when it is newer than the user's; its odometer, when it
// has none, is the highest reading at or before it; expenses' odometers
// count in the pace.
func TestReminderLastDoneFollowsExpenses(t *testing.T) {
	forEachClockDialect(t, func(t *testing.T, s *server) {
		vid := reminderVehicle(s) // refuels 2026-03-20 51000, 2026-05-19 54000
		rid := literal(object(t, s.must(200, "POST", "/api/reminders", `{"vehicle_id":`+vid+`,"title":"Oil change","category":"service","match":"oil",`+
			`"every_km":15000,"every_months":12,"last_done":{"time":"2025-07-01T08:00:00Z","odometer":40000}}`).body)["id"])
		expense := func(at, category, title, odometer string) string {
			odo := ""
			if odometer != "" {
				odo = `"odometer":` + odometer + `,`
			}
			res := s.must(200, "POST", "/api/expenses", `{"vehicle_id":`+vid+`,"time":"`+at+`",`+odo+`"category":"`+category+`","title":"`+title+`","amount":50}`)
			return literal(object(t, res.body)["id"])
		}
		get := func() map[string]any { return object(t, s.must(200, "GET", "/api/reminders/"+rid, "").body) }
		lastDone := func(r map[string]any) string {
			d, ok := r["last_done"].(map[string]any)
			if !ok {
				return "null"
			}
			return literal(d["time"]) + " " + literal(d["odometer"]) + " " + literal(d["expense_id"])
		}

		// Neither another title nor another category matches; a brake job's
		// odometer still counts as a reading.
		brakes := expense("2026-05-25T08:00:00Z", "service", "Brake pads", "54200")
		expense("2026-05-26T08:00:00Z", "wash", "Oil stain removal", "")
		if r := get(); lastDone(r) != `"2025-07-01T08:00:00Z" 40000 null` || literal(r["due_odometer"]) != "55000" {
			t.Fatalf("after expenses that do not match: %s, due %v", lastDone(r), r["due_odometer"])
		}

		// A matching one, in capitals: it moves last_done forward. The pace
		// is now 51000 (Mar 20) to 54200 (May 25): 3200 km in 66 days,
		// 48.485 a day; 68900 − 54000 = 14900 km left take 307.3 days: 308,
		// Apr 5, 2027, before the months' May 20.
		oil := expense("2026-05-20T10:00:00Z", "service", "OIL change + filter", "53900")
		r := get()
		if got := lastDone(r); got != `"2026-05-20T10:00:00Z" 53900 `+oil {
			t.Fatalf("last_done %s, want the expense %s", got, oil)
		}
		for k, want := range map[string]string{"due_odometer": "68900", "due_in_km": "14900", "due_date": `"2027-05-20"`, "due_in_days": "353",
			"distance_per_day": "48.485", "estimated_due_date": `"2027-04-05"`, "status": `"ok"`} {
			if got := literal(r[k]); got != want {
				t.Errorf("%s %s, want %s", k, got, want)
			}
		}
		// One in the future is not done yet.
		expense("2026-07-01T08:00:00Z", "service", "Oil change", "60000")
		// A newer one without an odometer: the highest reading at or before
		// it, the brake job's 54200.
		topUp := expense("2026-05-30T08:00:00Z", "service", "Motoroil top-up", "")
		if r := get(); lastDone(r) != `"2026-05-30T08:00:00Z" 54200 `+topUp || literal(r["due_odometer"]) != "69200" || r["estimated_due_date"] != "2027-04-11" {
			t.Fatalf("after the top-up: %s, %v", lastDone(r), r)
		}
		// It is in the list and the feed alike.
		if l := array(t, s.must(200, "GET", "/api/reminders", "").body); len(l) != 1 || lastDone(l[0]) != lastDone(get()) {
			t.Fatalf("list %v", l)
		}
		s.must(204, "DELETE", "/api/expenses/"+topUp, "")
		if got := lastDone(get()); got != `"2026-05-20T10:00:00Z" 53900 `+oil {
			t.Fatalf("after deleting the top-up: %s", got)
		}
		// The user's own, newer, wins again.
		s.must(200, "PUT", "/api/reminders/"+rid, `{"last_done":{"time":"2026-05-31T09:00:00Z","odometer":54300}}`)
		if got := lastDone(get()); got != `"2026-05-31T09:00:00Z" 54300 null` {
			t.Fatalf("after the user's last_done: %s", got)
		}
		// Without match, any service expense is the job.
		s.must(200, "PUT", "/api/reminders/"+rid, `{"match":"","last_done":null}`)
		if got := lastDone(get()); got != `"2026-05-25T08:00:00Z" 54200 `+brakes {
			t.Fatalf("without match: %s, want the brake job of May 25", got)
		}
	})
}
