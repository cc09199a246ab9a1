package httpapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// nullPreferences is the answer for a user who never saved any, byte for
// byte: every member present, in this order, null.
const nullPreferences = `{"distance_unit":null,"volume_unit":null,"consumption_unit":null,"electric_consumption_unit":null,` +
	`"gas_consumption_unit":null,"currency":null,"locale":null,"time_zone":null,"language":null,"updated_at":null,` +
	`"last_currency_change":null}`

// preferenceNames are the members of the answer but updated_at and
// last_currency_change, in order.
var preferenceNames = []string{"distance_unit", "volume_unit", "consumption_unit", "electric_consumption_unit",
	"gas_consumption_unit", "currency", "locale", "time_zone", "language"}

// wantPrefs checks an answer of /api/preferences: the members named in
// want have those values, every other preference is null, and updated_at
// is a timestamp no earlier than notBefore. It returns updated_at.
func wantPrefs(t *testing.T, what string, body []byte, want map[string]string, notBefore time.Time) time.Time {
	t.Helper()
	got := object(t, body)
	if len(got) != len(preferenceNames)+2 {
		t.Errorf("%s: %d members, want %d: %s", what, len(got), len(preferenceNames)+2, body)
	}
	for _, name := range preferenceNames {
		v, ok := want[name]
		switch {
		case !ok && got[name] != nil:
			t.Errorf("%s: %s = %s, want null", what, name, literal(got[name]))
		case ok && got[name] != v:
			t.Errorf("%s: %s = %s, want %q", what, name, literal(got[name]), v)
		}
	}
	s, _ := got["updated_at"].(string)
	at, err := time.Parse(time.RFC3339Nano, s)
	if err != nil || !strings.HasSuffix(s, "Z") || at.Before(notBefore.Truncate(time.Microsecond)) {
		t.Errorf("%s: updated_at %s, want a UTC timestamp not before %s", what, literal(got["updated_at"]), notBefore.UTC())
	}
	return at
}

func TestPreferencesNeverSaved(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *server) {
		if got := string(s.must(200, "GET", "/api/preferences", "").body); got != nullPreferences {
			t.Fatalf("never saved:\n got  %s\n want %s", got, nullPreferences)
		}
	})
}

func TestPreferencesPatch(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *server) {
		start := time.Now()
		// Canonical forms; updated_at and unknown members ignored.
		res := s.must(200, "PUT", "/api/preferences",
			`{"distance_unit":"mi","currency":"usd","locale":"en-us","updated_at":"2000-01-01T00:00:00Z","colour":"red"}`)
		want := map[string]string{"distance_unit": "mi", "currency": "USD", "locale": "en-US"}
		first := wantPrefs(t, "first PUT", res.body, want, start)
		if got := s.must(200, "GET", "/api/preferences", "").body; string(got) != string(res.body) {
			t.Fatalf("GET %s differs from the PUT's answer %s", got, res.body)
		}

		// Other fields: the first ones stay.
		res = s.must(200, "PUT", "/api/preferences", `{"volume_unit":"gal_uk","consumption_unit":"mpg_uk",`+
			`"electric_consumption_unit":"kwh_per_100km","gas_consumption_unit":"kg_per_100km","time_zone":"Asia/Shanghai","language":"de"}`)
		for k, v := range map[string]string{"volume_unit": "gal_uk", "consumption_unit": "mpg_uk",
			"electric_consumption_unit": "kwh_per_100km", "gas_consumption_unit": "kg_per_100km", "time_zone": "Asia/Shanghai", "language": "de"} {
			want[k] = v
		}
		second := wantPrefs(t, "second PUT", res.body, want, first)

		// null clears; the others stay.
		res = s.must(200, "PUT", "/api/preferences", `{"currency":null,"gas_consumption_unit":null,"locale":"zh_hans_cn"}`)
		delete(want, "currency")
		delete(want, "gas_consumption_unit")
		want["locale"] = "zh-Hans-CN"
		third := wantPrefs(t, "clearing PUT", res.body, want, second)

		// {} changes nothing but updated_at.
		res = s.must(200, "PUT", "/api/preferences", `{}`)
		wantPrefs(t, "empty PUT", res.body, want, third)
		wantPrefs(t, "GET", s.must(200, "GET", "/api/preferences", "").body, want, third)
	})
}

func TestPreferencesRejectBadValues(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *server) {
		s.must(200, "PUT", "/api/preferences", `{"distance_unit":"km","currency":"EUR","locale":"de-DE","time_zone":"Europe/Berlin"}`)
		before := string(s.must(200, "GET", "/api/preferences", "").body)
		for _, tc := range []struct {
			body, field, message string
		}{
			{`{"distance_unit":"miles"}`, "distance_unit", "distance_unit: must be one of km, mi"},
			{`{"distance_unit":""}`, "distance_unit", "distance_unit: must be one of km, mi"},
			{`{"distance_unit":"KM"}`, "distance_unit", ""},
			{`{"volume_unit":"gallon"}`, "volume_unit", "volume_unit: must be one of l, gal_us, gal_uk"},
			{`{"consumption_unit":"L_per_100km"}`, "consumption_unit", "consumption_unit: must be one of l_per_100km, km_per_l, mpg_us, mpg_uk"},
			{`{"electric_consumption_unit":"kwh"}`, "electric_consumption_unit", "electric_consumption_unit: must be one of kwh_per_100km, km_per_kwh, mi_per_kwh"},
			{`{"gas_consumption_unit":"m3_per_100km"}`, "gas_consumption_unit", "gas_consumption_unit: must be one of kg_per_100km, km_per_kg"},
			{`{"currency":"ABC"}`, "currency", ""},
			{`{"currency":"EURO"}`, "currency", ""},
			{`{"currency":""}`, "currency", ""},
			{`{"locale":"und"}`, "locale", ""},
			{`{"locale":"x-private"}`, "locale", ""},
			{`{"locale":"not a tag"}`, "locale", ""},
			{`{"locale":""}`, "locale", ""},
			{`{"locale":"en-` + strings.Repeat("abcdefgh-", 15) + `x"}`, "locale", ""},
			{`{"time_zone":"Local"}`, "time_zone", ""},
			{`{"time_zone":""}`, "time_zone", ""},
			{`{"time_zone":"Europe/Atlantis"}`, "time_zone", ""},
			{`{"time_zone":"../../etc/passwd"}`, "time_zone", ""},
			{`{"language":"fr"}`, "language", "language: must be one of en, de, zh"},
			{`{"language":"de-DE"}`, "language", "language: must be one of en, de, zh"},
			{`{"language":""}`, "language", ""},
			{`{"language":2}`, "language", "language: must be a string"},
			// Wrong JSON types.
			{`{"distance_unit":5}`, "distance_unit", "distance_unit: must be a string"},
			{`{"locale":true}`, "locale", "locale: must be a string"},
			{`{"time_zone":{}}`, "time_zone", "time_zone: must be a string"},
			{`{"currency":["EUR"]}`, "currency", "currency: must be a string"},
			// Every bad member in table order; the good one before them is not written.
			{`{"distance_unit":"mi","time_zone":"Mars/Olympus","volume_unit":"pint"}`, "volume_unit",
				`volume_unit: must be one of l, gal_us, gal_uk; time_zone: \"Mars/Olympus\" is not an IANA time zone name (like Europe/Berlin or UTC)`},
			// Not an object.
			{`[]`, "", ""},
			{`"mi"`, "", ""},
			{`{"distance_unit":"mi"`, "", ""},
		} {
			res := s.do("PUT", "/api/preferences", tc.body)
			errorBody(t, res, 400, "INVALID_ARGUMENT", tc.field)
			if tc.message != "" && !strings.Contains(string(res.body), `"message":"`+tc.message+`"`) {
				t.Errorf("%s: %s, want message %q", tc.body, res.body, tc.message)
			}
		}
		errorBody(t, s.do("PUT", "/api/preferences", `{"locale":"`+strings.Repeat("a", 1<<20)+`"}`), 413, "PAYLOAD_TOO_LARGE", "")
		if after := string(s.must(200, "GET", "/api/preferences", "").body); after != before {
			t.Fatalf("a refused PUT wrote:\n %s\nwas\n %s", after, before)
		}
	})
}

func TestPreferencesPerUserAndScope(t *testing.T) {
	forEachAuthDialect(t, 0, func(t *testing.T, s *server) {
		root := s.session("root")
		_, ann := s.newUser("ann")
		annID := literal(object(t, s.as(ann, "GET", "/api/auth/me", "").body)["id"])

		wantStatus(t, "root PUT", s.as(root, "PUT", "/api/preferences", `{"currency":"EUR","time_zone":"Europe/Berlin"}`), 200, "")
		if got := string(s.as(ann, "GET", "/api/preferences", "").body); got != nullPreferences {
			t.Fatalf("ann sees %s before saving any", got)
		}
		wantStatus(t, "ann PUT", s.as(ann, "PUT", "/api/preferences", `{"currency":"cny","locale":"zh-CN"}`), 200, "")
		wantPrefs(t, "root", s.as(root, "GET", "/api/preferences", "").body, map[string]string{"currency": "EUR", "time_zone": "Europe/Berlin"}, time.Time{})
		annPrefs := s.as(ann, "GET", "/api/preferences", "").body
		wantPrefs(t, "ann", annPrefs, map[string]string{"currency": "CNY", "locale": "zh-CN"}, time.Time{})

		// A read token reads them and may not change them; no token: 401.
		res := s.as(ann, "POST", "/api/auth/tokens", `{"name":"ro","scope":"read","current_password":"ann-password"}`)
		wantStatus(t, "read token", res, 200, "")
		ro, _ := object(t, res.body)["token"].(string)
		if got := s.as(ro, "GET", "/api/preferences", ""); got.status != 200 || string(got.body) != string(annPrefs) {
			t.Fatalf("read token GET: %d %s, want %s", got.status, got.body, annPrefs)
		}
		wantStatus(t, "read token PUT", s.as(ro, "PUT", "/api/preferences", `{"currency":"USD"}`), 403, "FORBIDDEN")
		wantStatus(t, "no token GET", s.as("", "GET", "/api/preferences", ""), 401, "UNAUTHORIZED")
		wantStatus(t, "no token PUT", s.as("", "PUT", "/api/preferences", `{"currency":"USD"}`), 401, "UNAUTHORIZED")
		wantPrefs(t, "ann after refused PUTs", s.as(ann, "GET", "/api/preferences", "").body, map[string]string{"currency": "CNY", "locale": "zh-CN"}, time.Time{})

		// Deleting ann deletes her preferences.
		wantStatus(t, "delete ann", s.as(root, "DELETE", "/api/users/"+annID, ""), 204, "")
		var uid uint64
		if _, err := fmt.Sscan(annID, &uid); err != nil {
			t.Fatal(err)
		}
		p, err := s.store.Preferences(auth.WithIdentity(context.Background(), auth.Identity{UserID: uid}))
		if err != nil || p.Currency != "" || !p.UpdatedAt.IsZero() {
			t.Fatalf("deleted ann's preferences: %+v %v", p, err)
		}
		wantPrefs(t, "root after ann's deletion", s.as(root, "GET", "/api/preferences", "").body, map[string]string{"currency": "EUR", "time_zone": "Europe/Berlin"}, time.Time{})
	})
}

// put sends a PUT of body to /api/preferences from any goroutine.
func (s *server) put(body string) error {
	req, err := http.NewRequest("PUT", s.url+"/api/preferences", strings.NewReader(body))
	if err != nil {
		return err
	}
	s.authorize(req)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		return fmt.Errorf("PUT %s: %d %s", body, res.StatusCode, b)
	}
	return nil
}

// TestConcurrentPreferencePuts: two PUTs of different fields sent at once
// both land, round after round, whatever the order the server runs them.
func TestConcurrentPreferencePuts(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *server) {
		units, currencies := []string{"km", "mi"}, []string{"EUR", "USD"}
		for i := range 20 {
			d, c := units[i%2], currencies[(i/2)%2]
			var wg sync.WaitGroup
			errs := make([]error, 2)
			wg.Go(func() { errs[0] = s.put(`{"distance_unit":"` + d + `"}`) })
			wg.Go(func() { errs[1] = s.put(`{"currency":"` + c + `"}`) })
			wg.Wait()
			if err := errors.Join(errs...); err != nil {
				t.Fatal(err)
			}
			got := object(t, s.must(200, "GET", "/api/preferences", "").body)
			if got["distance_unit"] != d || got["currency"] != c {
				t.Fatalf("round %d: distance_unit %v, currency %v; want %s, %s", i, got["distance_unit"], got["currency"], d, c)
			}
		}
	})
}

// TestPreferredZoneIsTheDefaultZone: without tz, the monthly series and
// the CSV import use the caller's time_zone preference, else UTC.
func TestPreferredZoneIsTheDefaultZone(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *server) {
		vid := s.mustVehicle(`{"name":"Golf","fuel_type":"diesel"}`)
		// 23:30 UTC on January 31st is 00:30 on February 1st in Berlin.
		s.mustRefuel(`{"vehicle_id":` + vid + `,"refuel_time":"2024-01-31T23:30:00Z","odometer":1000,"fuel_type":"B7","liters":40,"total_amount":60,"is_full":true}`)
		s.mustRefuel(`{"vehicle_id":` + vid + `,"refuel_time":"2024-02-10T12:00:00Z","odometer":1500,"fuel_type":"B7","liters":35,"total_amount":56,"is_full":true}`)
		months := func(query string) string {
			t.Helper()
			var out []string
			for _, m := range array(t, s.must(200, "GET", "/api/vehicles/"+vid+"/statistics/monthly"+query, "").body) {
				out = append(out, fmt.Sprintf("%v:%v", m["month"], literal(m["records"])))
			}
			return strings.Join(out, " ")
		}
		const utc, berlin = "2024-01:1 2024-02:1", "2024-02:2"
		if got := months(""); got != utc {
			t.Fatalf("no preference: %s, want %s", got, utc)
		}
		s.must(200, "PUT", "/api/preferences", `{"time_zone":"Europe/Berlin"}`)
		if got := months(""); got != berlin {
			t.Fatalf("Europe/Berlin preferred: %s, want %s", got, berlin)
		}
		if got := months("?tz=UTC"); got != utc {
			t.Fatalf("tz=UTC given: %s, want %s", got, utc)
		}
		errorBody(t, s.do("GET", "/api/vehicles/"+vid+"/statistics/monthly?tz=", ""), 400, "INVALID_ARGUMENT", "tz")
		s.must(200, "PUT", "/api/preferences", `{"time_zone":null}`)
		if got := months(""); got != utc {
			t.Fatalf("preference cleared: %s, want %s", got, utc)
		}

		// The import reads dates without a zone in the preferred zone.
		importAt := func(query, date string) {
			t.Helper()
			file := "Date,Odometer,FuelConsumed,Cost,FuelEconomy,IsFillToFull,MissedFuelUp,Notes\n" + date + ",2000,40,60,0,True,False,\n"
			if res := s.upload(vid, query, []byte(file)); res.status != 200 {
				t.Fatalf("import %s: %d %s", date, res.status, res.body)
			}
		}
		s.must(200, "PUT", "/api/preferences", `{"time_zone":"America/Chicago"}`)
		importAt("", "2024-03-01 20:00")       // CST: 2024-03-02T02:00:00Z
		importAt("tz=UTC", "2024-03-05 20:00") // given: 20:00Z
		s.must(200, "PUT", "/api/preferences", `{"time_zone":null}`)
		importAt("", "2024-03-10 20:00") // UTC again
		var got []string
		for _, r := range array(t, s.must(200, "GET", "/api/refuels?vehicle_id="+vid+"&start_date=2024-03-01T00:00:00Z", "").body) {
			got = append(got, r["refuel_time"].(string))
		}
		if want := []string{"2024-03-10T20:00:00Z", "2024-03-05T20:00:00Z", "2024-03-02T02:00:00Z"}; strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("imported times %v, want %v", got, want)
		}
	})
}

// FuzzPreferences: any body is answered 200, 400 or 413 as JSON; a 200's
// answer is what a GET returns next, and each value in it is already
// canonical (reading it again gives it back), so a client that PUTs back
// what it got changes nothing.
func FuzzPreferences(f *testing.F) {
	for _, seed := range []string{
		`{"distance_unit":"mi","volume_unit":"gal_us","consumption_unit":"mpg_us","currency":"usd","locale":"en-us","time_zone":"America/Chicago"}`,
		`{"electric_consumption_unit":"kwh_per_100km","gas_consumption_unit":"km_per_kg","locale":"zh_hans_cn","currency":"cny"}`,
		`{"locale":"en-GB-oed","currency":"xxx","time_zone":"Etc/GMT+5"}`,
		`{"locale":"i-klingon","time_zone":"Local"}`,
		`{"currency":null,"locale":null,"time_zone":null}`,
		`{"locale":"de-DE-u-co-phonebk-x-a"}`, `{"time_zone":"/etc/localtime"}`,
		`{}`, `[]`, `null`, `{`, ``,
	} {
		f.Add(seed)
	}
	h := fuzzHandler(f)
	f.Fuzz(func(t *testing.T, body string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("PUT", "/api/preferences", strings.NewReader(body)))
		checkAnswer(t, rec, body)
		if rec.Code != 200 {
			return
		}
		get := httptest.NewRecorder()
		h.ServeHTTP(get, httptest.NewRequest("GET", "/api/preferences", nil))
		if get.Body.String() != rec.Body.String() {
			t.Fatalf("input %q: PUT answered %s, GET %s", body, rec.Body, get.Body)
		}
		var m map[string]*string
		if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
			t.Fatalf("input %q: %s: %v", body, rec.Body, err)
		}
		for _, name := range preferenceNames {
			if v := m[name]; v != nil {
				if again, err := fuel.ParsePreference(name, *v); err != nil || again != *v {
					t.Fatalf("input %q: %s %q is not canonical: read again %q, %v", body, name, *v, again, err)
				}
			}
		}
	})
}
