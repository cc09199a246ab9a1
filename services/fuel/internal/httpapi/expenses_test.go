package httpapi_test

import (
	"reflect"
	"strings"
	"testing"
)

// serviceBody is a full expense body of vehicle vid.
func serviceBody(vid string) string {
	return `{"vehicle_id":` + vid + `,"time":"2026-03-01T10:30:00+01:00","odometer":45210.5,"category":"service",` +
		`"title":"Oil and filter","amount":89.90,"vendor":"ATU","notes":"5W-30",` +
		`"items":[{"name":"Oil 5W-30","quantity":4.5,"unit_price":12.9},{"name":"Oil filter","part_number":"OC 90","quantity":1,"unit_price":11.85}],` +
		`"tags":["oil"," filter "]}`
}

func TestExpenseResource(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *server) {
		vid := s.mustVehicle(`{"name":"Golf","fuel_type":"diesel"}`)
		created := s.must(200, "POST", "/api/expenses", serviceBody(vid))
		e := object(t, created.body)
		id := literal(e["id"])
		for field, want := range map[string]string{
			"vehicle_id": vid, "time": `"2026-03-01T09:30:00Z"`, "odometer": "45210.5", "category": `"service"`,
			"title": `"Oil and filter"`, "amount": "89.9", "vendor": `"ATU"`, "notes": `"5W-30"`,
			"items": `[{"name":"Oil 5W-30","part_number":"","quantity":4.5,"unit_price":12.9},{"name":"Oil filter","part_number":"OC 90","quantity":1,"unit_price":11.85}]`,
			"tags":  `["oil","filter"]`,
		} {
			if got := literal(e[field]); got != want {
				t.Errorf("%s = %s, want %s", field, got, want)
			}
		}
		if len(e) != 13 {
			t.Errorf("expense has %d members, want 13: %s", len(e), created.body)
		}
		if got := s.must(200, "GET", "/api/expenses/"+id, "").body; string(got) != string(created.body) {
			t.Errorf("GET = %s\nPOST = %s", got, created.body)
		}

		// Patch: absent members stay, null resets the optional ones.
		res := s.must(200, "PUT", "/api/expenses/"+id, `{"title":"Oil change","odometer":null,"items":null,"tags":["oil"],"vendor":null}`)
		p := object(t, res.body)
		for field, want := range map[string]string{
			"title": `"Oil change"`, "odometer": "null", "items": "[]", "tags": `["oil"]`, "vendor": `""`,
			"amount": "89.9", "notes": `"5W-30"`, "category": `"service"`, "time": `"2026-03-01T09:30:00Z"`,
		} {
			if got := literal(p[field]); got != want {
				t.Errorf("patched %s = %s, want %s", field, got, want)
			}
		}
		for _, body := range []string{`{"title":null}`, `{"amount":null}`, `{"category":null}`, `{"time":null}`, `{"vehicle_id":null}`} {
			field := strings.Split(body, `"`)[1]
			errorBody(t, s.do("PUT", "/api/expenses/"+id, body), 400, "INVALID_ARGUMENT", field)
		}

		// The list: newest first, filtered by category and dates, paged.
		s.must(200, "POST", "/api/expenses", `{"vehicle_id":`+vid+`,"time":"2026-02-01T08:00:00Z","category":"toll","title":"A4 toll","amount":12.4}`)
		s.must(200, "POST", "/api/expenses", `{"vehicle_id":`+vid+`,"time":"2026-04-01T08:00:00Z","category":"insurance","title":"HUK","amount":540}`)
		titles := func(query string) []string {
			t.Helper()
			out := []string{}
			for _, e := range array(t, s.must(200, "GET", "/api/expenses?vehicle_id="+vid+query, "").body) {
				out = append(out, e["title"].(string))
			}
			return out
		}
		for query, want := range map[string][]string{
			"":                                 {"HUK", "Oil change", "A4 toll"},
			"&category=toll":                   {"A4 toll"},
			"&start_date=2026-03-01T09:30:00Z": {"HUK", "Oil change"},
			"&end_date=2026-03-01T09:30:00Z":   {"Oil change", "A4 toll"},
			"&limit=1&offset=1":                {"Oil change"},
			"&category=wash":                   {},
			"&start_date=2026-03-02T00:00:00%2B01:00": {"HUK"},
		} {
			if got := titles(query); !reflect.DeepEqual(got, want) {
				t.Errorf("list %q = %v, want %v", query, got, want)
			}
		}
		errorBody(t, s.do("GET", "/api/expenses?vehicle_id="+vid+"&category=fuel", ""), 400, "INVALID_ARGUMENT", "category")
		errorBody(t, s.do("GET", "/api/expenses?vehicle_id="+vid+"&category=toll&category=tax", ""), 400, "INVALID_ARGUMENT", "category")
		errorBody(t, s.do("GET", "/api/expenses", ""), 400, "INVALID_ARGUMENT", "vehicle_id")
		errorBody(t, s.do("GET", "/api/expenses?vehicle_id="+vid+"&limit=0", ""), 400, "INVALID_ARGUMENT", "limit")

		s.must(204, "DELETE", "/api/expenses/"+id, "")
		errorBody(t, s.do("GET", "/api/expenses/"+id, ""), 404, "NOT_FOUND", "")
		errorBody(t, s.do("DELETE", "/api/expenses/"+id, ""), 404, "NOT_FOUND", "")
		errorBody(t, s.do("GET", "/api/expenses/abc", ""), 400, "INVALID_ARGUMENT", "id")

		// Deleting the vehicle deletes its expenses.
		s.must(204, "DELETE", "/api/vehicles/"+vid, "")
		if got := titles(""); len(got) != 0 {
			t.Errorf("expenses of a deleted vehicle: %v", got)
		}
	})
}

func TestExpenseEveryBadFieldNamed(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *server) {
		vid := s.mustVehicle(`{"name":"Golf","fuel_type":"diesel"}`)
		for _, tt := range []struct {
			name, body, want string
		}{
			{"empty", `{}`, "vehicle_id: is required; time: is required; category: is required; title: is required; amount: is required"},
			{"every field", `{"vehicle_id":` + vid + `,"time":"yesterday","odometer":-1,"category":"fuel","title":"` + strings.Repeat("x", 201) +
				`","amount":1e12,"vendor":"` + strings.Repeat("v", 129) + `","items":[{"name":"","quantity":0,"unit_price":1},{"quantity":1}],"tags":["a","A"]}`,
				"time: must be an RFC 3339 timestamp with a zone, like 2026-03-01T08:00:00Z or 2026-03-01T10:00:00+02:00; odometer: must be at least 0; " +
					"category: must be one of service, repair, tyres, inspection, insurance, tax, parking, toll, wash, fine, accessory, other; " +
					"title: must be at most 200 characters (got 201); amount: must be at most 99999999999.999; vendor: must be at most 128 characters (got 129); " +
					"items[0].name: is required and must not be blank; items[0].quantity: must be greater than 0 (at 3 decimal places); " +
					"items[1].name: is required; items[1].unit_price: is required; tags[1]: repeats tags[0] (tags are compared ignoring case)"},
			{"after decoding", `{"vehicle_id":` + vid + `,"time":"2026-03-01T08:00:00Z","category":"fuel","title":"` + strings.Repeat("x", 201) +
				`","amount":1e12,"vendor":"` + strings.Repeat("v", 129) + `","items":[{"name":" ","quantity":0,"unit_price":1}],"tags":["a","A"]}`,
				"category: must be one of service, repair, tyres, inspection, insurance, tax, parking, toll, wash, fine, accessory, other; " +
					"title: must be at most 200 characters (got 201); amount: must be at most 99999999999.999; vendor: must be at most 128 characters (got 129); " +
					"items[0].name: is required and must not be blank; items[0].quantity: must be greater than 0 (at 3 decimal places); " +
					"tags[1]: repeats tags[0] (tags are compared ignoring case)"},
			{"item of the wrong type", `{"items":[{"name":"x"},{"quantity":"4"}]}`, "items[1].quantity: must be a number"},
			{"items not an array", `{"items":{"name":"x"}}`, "items: must be an array of objects"},
			{"item not an object", `{"items":[1]}`, "items[0]: must be an object"},
			{"tag not a string", `{"tags":["a",2]}`, "tags[1]: must be a string"},
			{"amount a string", `{"amount":"12"}`, "amount: must be a number"},
		} {
			res := s.do("POST", "/api/expenses", tt.body)
			errorBody(t, res, 400, "INVALID_ARGUMENT", "")
			if msg, _ := object(t, res.body)["message"].(string); msg != tt.want {
				t.Errorf("%s: message\n %q\nwant %q", tt.name, msg, tt.want)
			}
		}
		if got := array(t, s.must(200, "GET", "/api/expenses?vehicle_id="+vid, "").body); len(got) != 0 {
			t.Errorf("expenses stored by refused requests: %v", got)
		}
		// A vehicle that does not exist is a bad vehicle_id, not a 404.
		errorBody(t, s.do("POST", "/api/expenses", serviceBody("999")), 400, "INVALID_ARGUMENT", "vehicle_id")
	})
}

func TestExpenseIdempotencyKey(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *server) {
		vid := s.mustVehicle(`{"name":"Golf","fuel_type":"diesel"}`)
		key := map[string]string{"Idempotency-Key": "expense-1"}
		first := s.mustSend("POST", "/api/expenses", serviceBody(vid), key)
		again := s.mustSend("POST", "/api/expenses", serviceBody(vid), key)
		if first.status != 200 || again.status != 200 || string(again.body) != string(first.body) || again.header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("first %d %s\nagain %d %s (replayed %q)", first.status, first.body, again.status, again.body, again.header.Get("Idempotent-Replayed"))
		}
		errorBody(t, s.mustSend("POST", "/api/expenses", strings.Replace(serviceBody(vid), "89.90", "90", 1), key), 400, "INVALID_ARGUMENT", "Idempotency-Key")
		if got := array(t, s.must(200, "GET", "/api/expenses?vehicle_id="+vid, "").body); len(got) != 1 {
			t.Errorf("%d expenses after a replayed create, want 1", len(got))
		}
	})
}

func TestExpensesOfOtherUsers(t *testing.T) {
	forEachAuthDialect(t, 0, func(t *testing.T, s *server) {
		root := s.session("root")
		ids, tokens := map[string]string{}, map[string]string{}
		for _, name := range []string{"viv", "ed", "out"} {
			ids[name], tokens[name] = s.newUser(name)
		}
		viv, ed, out := tokens["viv"], tokens["ed"], tokens["out"]
		vid := literal(object(t, s.as(root, "POST", "/api/vehicles", `{"name":"Family car","fuel_type":"diesel"}`).body)["id"])
		members := "/api/vehicles/" + vid + "/members/"
		wantStatus(t, "share with viv", s.as(root, "PUT", members+ids["viv"], `{"role":"viewer"}`), 200, "")
		wantStatus(t, "share with ed", s.as(root, "PUT", members+ids["ed"], `{"role":"editor"}`), 200, "")
		res := s.as(root, "POST", "/api/expenses", serviceBody(vid))
		wantStatus(t, "root creates", res, 200, "")
		eid := literal(object(t, res.body)["id"])
		path := "/api/expenses/" + eid

		// An outsider: as if it did not exist.
		wantStatus(t, "outsider reads", s.as(out, "GET", path, ""), 404, "NOT_FOUND")
		wantStatus(t, "outsider patches", s.as(out, "PUT", path, `{"title":"x"}`), 404, "NOT_FOUND")
		wantStatus(t, "outsider deletes", s.as(out, "DELETE", path, ""), 404, "NOT_FOUND")
		wantStatus(t, "outsider creates", s.as(out, "POST", "/api/expenses", serviceBody(vid)), 400, "INVALID_ARGUMENT")
		if got := array(t, s.as(out, "GET", "/api/expenses?vehicle_id="+vid, "").body); len(got) != 0 {
			t.Errorf("outsider lists %v", got)
		}
		// The viewer reads, and may not write.
		wantStatus(t, "viewer reads", s.as(viv, "GET", path, ""), 200, "")
		wantStatus(t, "viewer creates", s.as(viv, "POST", "/api/expenses", serviceBody(vid)), 403, "FORBIDDEN")
		wantStatus(t, "viewer patches", s.as(viv, "PUT", path, `{"title":"x"}`), 403, "FORBIDDEN")
		wantStatus(t, "viewer deletes", s.as(viv, "DELETE", path, ""), 403, "FORBIDDEN")
		// The editor writes.
		wantStatus(t, "editor patches", s.as(ed, "PUT", path, `{"title":"by ed"}`), 200, "")
		wantStatus(t, "editor deletes", s.as(ed, "DELETE", path, ""), 204, "")
	})
}

func TestCostStatisticsAnswers(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *server) {
		vid := s.mustVehicle(`{"name":"Golf","fuel_type":"diesel"}`)
		for _, body := range []string{
			`{"vehicle_id":` + vid + `,"refuel_time":"2026-03-01T08:00:00Z","odometer":1000,"fuel_type":"B7","liters":40,"total_amount":60,"is_full":true}`,
			`{"vehicle_id":` + vid + `,"refuel_time":"2026-03-03T08:00:00Z","odometer":1730,"fuel_type":"B7","liters":30,"total_amount":45.5,"is_full":true}`,
		} {
			s.mustRefuel(body)
		}
		for _, body := range []string{
			`{"vehicle_id":` + vid + `,"time":"2026-02-15T10:00:00Z","category":"tax","title":"Road tax","amount":120}`,
			`{"vehicle_id":` + vid + `,"time":"2026-03-05T09:00:00Z","category":"service","title":"Wipers","amount":10.1}`,
			`{"vehicle_id":` + vid + `,"time":"2026-03-31T23:30:00Z","category":"service","title":"Oil","amount":89.9}`,
		} {
			s.must(200, "POST", "/api/expenses", body)
		}
		st := object(t, s.must(200, "GET", "/api/vehicles/"+vid+"/statistics", "").body)
		for field, want := range map[string]string{
			"total_amount": "105.5", "expenses_amount": "220", "total_cost": "325.5", "total_cost_per_km": "0.4459",
			"expenses_by_category": `[{"amount":120,"category":"tax","records":1},{"amount":100,"category":"service","records":2}]`,
		} {
			if got := literal(st[field]); got != want {
				t.Errorf("statistics %s = %s, want %s", field, got, want)
			}
		}
		months := array(t, s.must(200, "GET", "/api/vehicles/"+vid+"/statistics/monthly?tz=Europe/Berlin", "").body)
		got := []string{}
		for _, m := range months {
			got = append(got, m["month"].(string)+"="+literal(m["expenses_amount"])+"/"+literal(m["amount"]))
		}
		if want := []string{"2026-02=120/0", "2026-03=10.1/105.5", "2026-04=89.9/0"}; !reflect.DeepEqual(got, want) {
			t.Errorf("monthly %v, want %v", got, want)
		}

		res := s.must(200, "GET", "/api/statistics?start_date=2026-03-01T00:00:00Z&end_date=2026-03-31T23:59:59Z", "")
		want := `{"start_date":"2026-03-01T00:00:00Z","end_date":"2026-03-31T23:59:59Z","vehicles":[{"vehicle_id":` + vid +
			`,"name":"Golf","role":"owner","currency":null,"fuel_records":2,"fuel_amount":105.5,"expense_records":2,"expenses_amount":100,` +
			`"expenses_by_category":[{"category":"service","records":2,"amount":100}],"total_cost":205.5,"distance":730,"total_cost_per_km":0.2815}],` +
			`"totals":[{"currency":null,"vehicles":1,"fuel_records":2,"fuel_amount":105.5,"expense_records":2,"expenses_amount":100,` +
			`"expenses_by_category":[{"category":"service","records":2,"amount":100}],"total_cost":205.5,"distance":730,"total_cost_per_km":0.2815}]}`
		if string(res.body) != want {
			t.Errorf("household statistics\n got %s\nwant %s", res.body, want)
		}
		errorBody(t, s.do("GET", "/api/statistics?start_date=2026-04-01T00:00:00Z&end_date=2026-03-01T00:00:00Z", ""), 400, "INVALID_ARGUMENT", "start_date")
		errorBody(t, s.do("GET", "/api/statistics?end_date=tomorrow", ""), 400, "INVALID_ARGUMENT", "end_date")
	})
}

func TestCostStatisticsShowOnlyReadableVehicles(t *testing.T) {
	forEachAuthDialect(t, 0, func(t *testing.T, s *server) {
		root := s.session("root")
		_, out := s.newUser("out")
		vid := literal(object(t, s.as(root, "POST", "/api/vehicles", `{"name":"Family car","fuel_type":"diesel"}`).body)["id"])
		wantStatus(t, "expense", s.as(root, "POST", "/api/expenses", serviceBody(vid)), 200, "")
		if got := string(s.as(out, "GET", "/api/statistics", "").body); got != `{"start_date":null,"end_date":null,"vehicles":[],"totals":[]}` {
			t.Errorf("outsider's household: %s", got)
		}
		wantStatus(t, "outsider's vehicle statistics", s.as(out, "GET", "/api/vehicles/"+vid+"/statistics", ""), 404, "NOT_FOUND")
		cs := object(t, s.as(root, "GET", "/api/statistics", "").body)
		if got := literal(cs["totals"]); !strings.Contains(got, `"expenses_amount":89.9`) {
			t.Errorf("root's totals %s", got)
		}
	})
}
