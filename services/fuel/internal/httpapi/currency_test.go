package httpapi_test

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

const currencyPath = "/api/preferences/currency"

func TestCurrencyChangeValidationNamesTheField(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *server) {
		s.must(200, "PUT", "/api/preferences", `{"currency":"EUR"}`)
		vid := s.mustVehicle(`{"name":"Golf","fuel_type":"diesel"}`)
		rid := s.mustRefuel(`{"vehicle_id":` + vid + `,"refuel_time":"2026-03-01T08:00:00Z","odometer":1000,"fuel_type":"B7","liters":40,"total_amount":281.74,"is_full":true}`)
		for _, c := range []struct{ body, field string }{
			{`{"currency":"USD","mode":"relabel"}`, "from"},
			{`{"from":"EUR","mode":"relabel"}`, "currency"},
			{`{"from":"EUR","currency":"ABC","mode":"relabel"}`, "currency"},
			{`{"from":"EURO","currency":"USD","mode":"relabel"}`, "from"},
			{`{"from":"EUR","currency":"eur","mode":"relabel"}`, "currency"},
			{`{"from":"EUR","currency":"USD"}`, "mode"},
			{`{"from":"EUR","currency":"USD","mode":"swap"}`, "mode"},
			{`{"from":"EUR","currency":"USD","mode":"convert"}`, "rate"},
			{`{"from":"EUR","currency":"USD","mode":"convert","rate":0}`, "rate"},
			{`{"from":"EUR","currency":"USD","mode":"convert","rate":-1.1}`, "rate"},
			{`{"from":"EUR","currency":"USD","mode":"convert","rate":"1.1"}`, "rate"},
			{`{"from":"EUR","currency":"USD","mode":"convert","rate":1.0000000000001}`, "rate"},
			{`{"from":"EUR","currency":"USD","mode":"convert","rate":1000000000}`, "rate"},
			{`{"from":"EUR","currency":"USD","mode":"convert","inverse_rate":0}`, "inverse_rate"},
			{`{"from":"EUR","currency":"USD","mode":"convert","rate":1.1,"inverse_rate":0.9}`, "inverse_rate"},
			{`{"from":"EUR","currency":"USD","mode":"relabel","rate":1.1}`, "rate"},
			{`{"from":"EUR","currency":"USD","mode":"convert","rate":1e99}`, "rate"},
		} {
			errorBody(t, s.do("POST", currencyPath, c.body), 400, "INVALID_ARGUMENT", c.field)
		}
		// Every bad member is named in one answer.
		res := s.do("POST", currencyPath, `{"from":"EURO","currency":"ABC","mode":"swap"}`)
		errorBody(t, res, 400, "INVALID_ARGUMENT", "from")
		for _, f := range []string{"currency:", "mode:"} {
			if !strings.Contains(string(res.body), f) {
				t.Errorf("%s does not name %s", res.body, f)
			}
		}
		// 12 places with trailing zeros beyond them are fine; nothing was changed by the refused ones.
		if got := literal(object(t, s.must(200, "GET", "/api/refuels/"+rid, "").body)["total_amount"]); got != "281.74" {
			t.Fatalf("refused changes converted: %s", got)
		}
		res = s.must(200, "POST", currencyPath, `{"from":"EUR","currency":"USD","mode":"convert","rate":1.100000000000000}`)
		if got := string(object(t, res.body)["preferences"].(map[string]any)["currency"].(string)); got != "USD" {
			t.Errorf("currency after = %s", got)
		}
		r := object(t, s.must(200, "GET", "/api/refuels/"+rid, "").body)
		if got, price := literal(r["total_amount"]), literal(r["price_per_liter"]); got != "309.914" || price != "7.7479" {
			t.Errorf("converted: total %s price %s, want 309.914 and 7.7479", got, price)
		}
	})
}

func TestCurrencyChangeIsSafeToSubmitTwice(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *server) {
		s.must(200, "PUT", "/api/preferences", `{"currency":"EUR"}`)
		vid := s.mustVehicle(`{"name":"Golf","fuel_type":"diesel"}`)
		rid := s.mustRefuel(`{"vehicle_id":` + vid + `,"refuel_time":"2026-03-01T08:00:00Z","odometer":1000,"fuel_type":"B7","liters":40,"total_amount":100,"is_full":true}`)
		body := `{"from":"EUR","currency":"USD","mode":"convert","rate":1.1}`
		key := map[string]string{"Idempotency-Key": "currency-1"}
		first := s.mustSend("POST", currencyPath, body, key)
		if first.status != 200 {
			t.Fatalf("first: %d %s", first.status, first.body)
		}
		want := `{"mode":"convert","from":"EUR","currency":"USD","rate":1.1,"inverse_rate":null,"vehicles":1,"refuels":1,"preferences":`
		if !strings.HasPrefix(string(first.body), want) {
			t.Errorf("answer %s, want it to start %s", first.body, want)
		}
		// The outbox's resend (same key, same bytes): the first answer, nothing converted again.
		again := s.mustSend("POST", currencyPath, body, key)
		if again.status != 200 || string(again.body) != string(first.body) || again.header.Get("Idempotent-Replayed") != "true" {
			t.Errorf("replay: %d %s (replayed %q)", again.status, again.body, again.header.Get("Idempotent-Replayed"))
		}
		// A second submit without the key: from is no longer the currency, 409, nothing converted twice.
		errorBody(t, s.do("POST", currencyPath, body), 409, "CONFLICT", "")
		if got := literal(object(t, s.must(200, "GET", "/api/refuels/"+rid, "").body)["total_amount"]); got != "110" {
			t.Errorf("total after one change submitted three times = %s, want 110", got)
		}
		// Back with the inverse rate: the amount again.
		res := s.must(200, "POST", currencyPath, `{"from":"USD","currency":"EUR","mode":"convert","inverse_rate":1.1}`)
		if r := object(t, res.body); literal(r["inverse_rate"]) != "1.1" || literal(r["rate"]) != "null" {
			t.Errorf("answer %s", res.body)
		}
		if got := literal(object(t, s.must(200, "GET", "/api/refuels/"+rid, "").body)["total_amount"]); got != "100" {
			t.Errorf("total back = %s, want 100", got)
		}
	})
}

func TestCurrencyChangeTouchesOnlyTheCallersVehicles(t *testing.T) {
	forEachAuthDialect(t, 0, func(t *testing.T, s *server) {
		root := s.session("root")
		annID, ann := s.newUser("ann")
		wantStatus(t, "root EUR", s.as(root, "PUT", "/api/preferences", `{"currency":"EUR"}`), 200, "")
		wantStatus(t, "ann GBP", s.as(ann, "PUT", "/api/preferences", `{"currency":"GBP"}`), 200, "")
		rootV := literal(object(t, s.as(root, "POST", "/api/vehicles", `{"name":"Golf","fuel_type":"diesel"}`).body)["id"])
		annV := literal(object(t, s.as(ann, "POST", "/api/vehicles", `{"name":"Mini","fuel_type":"diesel"}`).body)["id"])
		// Root shares the Golf with ann to edit: its amounts stay root's, in euros.
		wantStatus(t, "share", s.as(root, "PUT", "/api/vehicles/"+rootV+"/members/"+annID, `{"role":"editor"}`), 200, "")
		refuel := func(v string) string {
			return `{"vehicle_id":` + v + `,"refuel_time":"2026-03-01T08:00:00Z","odometer":1000,"fuel_type":"B7","liters":40,"total_amount":50,"is_full":true}`
		}
		rootR := literal(object(t, s.as(ann, "POST", "/api/refuels", refuel(rootV)).body)["id"])
		annR := literal(object(t, s.as(ann, "POST", "/api/refuels", refuel(annV)).body)["id"])

		res := s.as(ann, "POST", currencyPath, `{"from":"GBP","currency":"USD","mode":"convert","rate":1.25}`)
		wantStatus(t, "ann converts", res, 200, "")
		if r := object(t, res.body); literal(r["vehicles"]) != "1" || literal(r["refuels"]) != "1" {
			t.Errorf("ann's change: %s, want 1 vehicle, 1 refuel", res.body)
		}
		for _, c := range []struct{ who, id, want string }{{ann, annR, "62.5"}, {ann, rootR, "50"}, {root, rootR, "50"}} {
			if got := literal(object(t, s.as(c.who, "GET", "/api/refuels/"+c.id, "").body)["total_amount"]); got != c.want {
				t.Errorf("refuel %s = %s, want %s", c.id, got, c.want)
			}
		}
		// Ann sees root's Golf in root's euros, her Mini in her dollars.
		for v, want := range map[string]string{rootV: `"EUR"`, annV: `"USD"`} {
			if got := literal(object(t, s.as(ann, "GET", "/api/vehicles/"+v, "").body)["currency"]); got != want {
				t.Errorf("ann's view of vehicle %s: currency %s, want %s", v, got, want)
			}
		}
		// A read token may not change anything.
		res = s.as(ann, "POST", "/api/auth/tokens", `{"name":"ro","scope":"read","current_password":"ann-password"}`)
		ro, _ := object(t, res.body)["token"].(string)
		wantStatus(t, "read token", s.as(ro, "POST", currencyPath, `{"from":"USD","currency":"GBP","mode":"relabel"}`), 403, "FORBIDDEN")
		wantStatus(t, "no token", s.as("", "POST", currencyPath, `{"from":"USD","currency":"GBP","mode":"relabel"}`), 401, "UNAUTHORIZED")
	})
}

func TestRefuelInAnotherCurrency(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *server) {
		s.must(200, "PUT", "/api/preferences", `{"currency":"EUR"}`)
		vid := s.mustVehicle(`{"name":"Golf","fuel_type":"diesel"}`)
		rec := func(extra string) string {
			return `{"vehicle_id":` + vid + `,"refuel_time":"2026-03-01T08:00:00Z","odometer":1000,"fuel_type":"B7","liters":40,"total_amount":66,"is_full":true` + extra + `}`
		}
		for _, c := range []struct{ extra, field string }{
			{`,"currency":"CHF"`, "home_amount"},
			{`,"home_amount":60`, "home_amount"},
			{`,"currency":"ABC","home_amount":60`, "currency"},
			{`,"currency":7,"home_amount":60`, "currency"},
			{`,"currency":"CHF","home_amount":-1`, "home_amount"},
			{`,"currency":"CHF","home_amount":"60"`, "home_amount"},
			{`,"currency":"EUR","home_amount":60`, "home_amount"},
		} {
			errorBody(t, s.do("POST", "/api/refuels", rec(c.extra)), 400, "INVALID_ARGUMENT", c.field)
		}
		if n := s.count("refuels"); n != 0 {
			t.Fatalf("%d refuels stored by refused requests", n)
		}
		r := object(t, s.must(200, "POST", "/api/refuels", rec(`,"currency":"chf","home_amount":61.234`)).body)
		if literal(r["currency"]) != `"CHF"` || literal(r["home_amount"]) != "61.234" || literal(r["total_amount"]) != "66" || literal(r["price_per_liter"]) != "1.65" {
			t.Errorf("record %v", r)
		}
		rid := literal(r["id"])
		st := object(t, s.must(200, "GET", "/api/vehicles/"+vid+"/statistics", "").body)
		// 61.234 / 40 = 1.53085 -> 1.5309: the home amount, not the francs.
		if literal(st["total_amount"]) != "61.234" || literal(st["avg_price"]) != "1.5309" {
			t.Errorf("statistics total %s avg_price %s, want 61.234 and 1.5309", literal(st["total_amount"]), literal(st["avg_price"]))
		}
		// null brings it home, dropping the home amount.
		r = object(t, s.must(200, "PUT", "/api/refuels/"+rid, `{"currency":null}`).body)
		if literal(r["currency"]) != "null" || literal(r["home_amount"]) != "null" {
			t.Errorf("after currency null: %v", r)
		}
	})
}

func TestCSVCarriesTheCurrencyPaid(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *server) {
		s.must(200, "PUT", "/api/preferences", `{"currency":"EUR"}`)
		from := s.mustVehicle(`{"name":"Golf","fuel_type":"diesel"}`)
		to := s.mustVehicle(`{"name":"Polo","fuel_type":"diesel"}`)
		s.mustRefuel(`{"vehicle_id":` + from + `,"refuel_time":"2026-03-01T08:00:00Z","odometer":1000,"fuel_type":"B7","liters":40,"total_amount":66,"currency":"CHF","home_amount":61.234,"is_full":true}`)
		s.mustRefuel(`{"vehicle_id":` + from + `,"refuel_time":"2026-03-02T08:00:00Z","odometer":1500,"fuel_type":"B7","liters":30,"total_amount":45.5,"is_full":true}`)
		file := s.must(200, "GET", "/api/vehicles/"+from+"/refuels.csv", "").body
		lines := strings.Split(string(file), "\r\n")
		if !strings.HasSuffix(lines[0], ",currency,home_amount") || !strings.HasSuffix(lines[1], ",CHF,61.234") || !strings.HasSuffix(lines[2], ",,") {
			t.Fatalf("export:\n%s", file)
		}
		if res := s.upload(to, "", file); res.status != 200 {
			t.Fatalf("import: %d %s", res.status, res.body)
		}
		got := array(t, s.must(200, "GET", "/api/refuels?vehicle_id="+to, "").body)
		if len(got) != 2 || literal(got[1]["currency"]) != `"CHF"` || literal(got[1]["home_amount"]) != "61.234" ||
			literal(got[0]["currency"]) != "null" || literal(got[0]["home_amount"]) != "null" {
			t.Errorf("imported: %v", got)
		}
		// A file whose record paid abroad lacks the home amount: refused, naming the field; nothing stored.
		bad := strings.Replace(string(file), ",CHF,61.234", ",CHF,", 1)
		third := s.mustVehicle(`{"name":"Up","fuel_type":"diesel"}`)
		res := s.upload(third, "", []byte(bad))
		if res.status != 400 || !strings.Contains(string(res.body), "home_amount") {
			t.Errorf("import without home amount: %d %s", res.status, res.body)
		}
		if n := len(array(t, s.must(200, "GET", "/api/refuels?vehicle_id="+third, "").body)); n != 0 {
			t.Errorf("%d records stored by a refused import", n)
		}
	})
}

// lastChange is the last_currency_change of a preferences answer: null, or
// its members in JSON ("from to rate inverse_rate", at checked apart).
func lastChange(t *testing.T, what string, prefs map[string]any, notBefore time.Time) string {
	t.Helper()
	c, ok := prefs["last_currency_change"].(map[string]any)
	if !ok {
		return literal(prefs["last_currency_change"])
	}
	at, err := time.Parse(time.RFC3339Nano, fmt.Sprint(c["at"]))
	if err != nil || at.Before(notBefore.Truncate(time.Second)) || len(c) != 5 {
		t.Errorf("%s: last_currency_change %v, want five members and at no earlier than %s", what, c, notBefore)
	}
	return strings.Join([]string{literal(c["from"]), literal(c["to"]), literal(c["rate"]), literal(c["inverse_rate"])}, " ")
}

func TestCurrencyConversionIsKeptForItsUndo(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *server) {
		start := time.Now()
		s.must(200, "PUT", "/api/preferences", `{"currency":"EUR"}`)
		vid := s.mustVehicle(`{"name":"Golf","fuel_type":"diesel"}`)
		rid := s.mustRefuel(`{"vehicle_id":` + vid + `,"refuel_time":"2026-03-01T08:00:00Z","odometer":1000,"fuel_type":"B7","liters":40,"total_amount":71.5,"is_full":true}`)
		eid := literal(object(t, s.must(200, "POST", "/api/expenses", `{"vehicle_id":`+vid+`,"time":"2026-02-01T08:00:00Z","category":"toll","title":"A4 toll","amount":12.4}`).body)["id"])
		amounts := func() string {
			r := object(t, s.must(200, "GET", "/api/refuels/"+rid, "").body)
			e := object(t, s.must(200, "GET", "/api/expenses/"+eid, "").body)
			return literal(r["total_amount"]) + " " + literal(r["price_per_liter"]) + " " + literal(e["amount"])
		}
		before := amounts()
		prefs := func() map[string]any { return object(t, s.must(200, "GET", "/api/preferences", "").body) }
		if got := lastChange(t, "never converted", prefs(), start); got != "null" {
			t.Fatalf("never converted: last_currency_change %s, want null", got)
		}

		// A conversion is kept, in its answer and in GET, with the rate under the name it was sent with.
		res := s.must(200, "POST", currencyPath, `{"from":"EUR","currency":"USD","mode":"convert","rate":1.080}`)
		want := `"EUR" "USD" 1.08 null`
		if got := lastChange(t, "answer", object(t, res.body)["preferences"].(map[string]any), start); got != want {
			t.Errorf("the conversion's answer: last_currency_change %s, want %s", got, want)
		}
		if got := lastChange(t, "GET", prefs(), start); got != want {
			t.Errorf("GET after the conversion: last_currency_change %s, want %s", got, want)
		}
		if got := amounts(); got != "77.22 1.9305 13.392" {
			t.Errorf("converted: %s", got)
		}
		// Another preference saved leaves it; the currency saved unchanged too.
		s.must(200, "PUT", "/api/preferences", `{"distance_unit":"km","currency":"USD"}`)
		if got := lastChange(t, "PUT", prefs(), start); got != want {
			t.Errorf("after a PUT of the same currency: %s, want %s", got, want)
		}

		// The offered undo (the same rate, the other way round) restores every amount exactly and clears it.
		res = s.must(200, "POST", currencyPath, `{"from":"USD","currency":"EUR","mode":"convert","inverse_rate":1.08}`)
		if got := lastChange(t, "undo", object(t, res.body)["preferences"].(map[string]any), start); got != "null" {
			t.Errorf("the undo's answer: last_currency_change %s, want null", got)
		}
		if got := lastChange(t, "GET after undo", prefs(), start); got != "null" {
			t.Errorf("GET after the undo: %s, want null", got)
		}
		if got := amounts(); got != before {
			t.Errorf("after the undo: %s, want %s as before", got, before)
		}

		// A conversion given inverse is kept as inverse; a new conversion replaces it.
		s.must(200, "POST", currencyPath, `{"from":"EUR","currency":"GBP","mode":"convert","inverse_rate":1.25}`)
		if got, want := lastChange(t, "inverse", prefs(), start), `"EUR" "GBP" null 1.25`; got != want {
			t.Errorf("inverse: %s, want %s", got, want)
		}
		// Back at a rate that is not the undo (the trap: the same number the same way round): a new conversion.
		s.must(200, "POST", currencyPath, `{"from":"GBP","currency":"EUR","mode":"convert","inverse_rate":1.25}`)
		if got, want := lastChange(t, "not the undo", prefs(), start), `"GBP" "EUR" null 1.25`; got != want {
			t.Errorf("a conversion back that is no undo: %s, want %s", got, want)
		}

		// A relabel clears it.
		s.must(200, "POST", currencyPath, `{"from":"EUR","currency":"CHF","mode":"relabel"}`)
		if got := lastChange(t, "relabel", prefs(), start); got != "null" {
			t.Errorf("after a relabel: %s, want null", got)
		}
		// So does a currency set by PUT (a relabel too).
		s.must(200, "POST", currencyPath, `{"from":"CHF","currency":"EUR","mode":"convert","rate":1.05}`)
		s.must(200, "PUT", "/api/preferences", `{"currency":"USD"}`)
		if got := lastChange(t, "PUT currency", prefs(), start); got != "null" {
			t.Errorf("after PUT of another currency: %s, want null", got)
		}
	})
}
