package httpapi_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

// body builds a JSON object from raw member literals; a member whose
// literal is omit is left out.
func body(members map[string]string, field, value string) string {
	m := make(map[string]string, len(members)+1)
	for k, v := range members {
		m[k] = v
	}
	if value == omit {
		delete(m, field)
	} else if field != "" {
		m[field] = value
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%q:%s", k, m[k])
	}
	return "{" + strings.Join(parts, ",") + "}"
}

const omit = "<omit>"

func str(s string) string        { return fmt.Sprintf("%q", s) }
func rep(s string, n int) string { return strings.Repeat(s, n) }

// fieldCase sets one member of a valid body. A 200 answer must carry the
// member as want (value itself when want is ""); a 400 must name field.
type fieldCase struct {
	field, value string
	status       int
	want         string
}

var vehicleBase = map[string]string{"name": `"Golf"`, "fuel_type": `"diesel"`}

var vehicleFieldCases = []fieldCase{
	{"name", omit, 400, ""},
	{"name", `null`, 400, ""},
	{"name", `""`, 400, ""},
	{"name", `"   "`, 400, ""},
	{"name", `42`, 400, ""},
	{"name", str(rep("é", 64)), 200, ""},
	{"name", str(rep("é", 65)), 400, ""},
	{"name", str(rep("🚗", 64)), 200, ""},
	{"name", `"a\u0000b"`, 400, ""},
	{"brand", omit, 200, `""`},
	{"brand", `null`, 200, `""`},
	{"brand", str(rep("b", 64)), 200, ""},
	{"brand", str(rep("ß", 65)), 400, ""},
	{"brand", `true`, 400, ""},
	{"model", str(rep("m", 64)), 200, ""},
	{"model", str(rep("m", 65)), 400, ""},
	{"plate_number", str(rep("P", 32)), 200, ""},
	{"plate_number", str(rep("Ж", 33)), 400, ""},
	{"fuel_type", `"gasoline"`, 200, ""},
	{"fuel_type", `"diesel"`, 200, ""},
	{"fuel_type", `"hybrid"`, 200, ""},
	{"fuel_type", `"electric"`, 200, ""},
	{"fuel_type", `"plug_in_hybrid"`, 200, ""},
	{"fuel_type", `"Diesel"`, 400, ""},
	{"fuel_type", `"coal"`, 400, ""},
	{"fuel_type", `""`, 400, ""},
	{"fuel_type", omit, 400, ""},
	{"fuel_type", `null`, 400, ""},
	{"tank_capacity", omit, 200, `0`},
	{"tank_capacity", `0`, 200, ""},
	{"tank_capacity", `55.5`, 200, ""},
	{"tank_capacity", `55.50`, 200, `55.5`},
	{"tank_capacity", `1e2`, 200, `100`},
	{"tank_capacity", `0.0005`, 200, `0.001`},
	{"tank_capacity", `0.1234`, 200, `0.123`},
	{"tank_capacity", `99999999999.999`, 200, ""},
	{"tank_capacity", `99999999999.9994`, 200, `99999999999.999`},
	{"tank_capacity", `99999999999.9995`, 400, ""},
	{"tank_capacity", `100000000000`, 400, ""},
	{"tank_capacity", `1e400`, 400, ""},
	{"tank_capacity", `1e-400`, 200, `0`},
	{"tank_capacity", `-0.001`, 400, ""},
	{"tank_capacity", `-0`, 200, `0`},
	{"tank_capacity", `"40"`, 400, ""},
	{"tank_capacity", `true`, 400, ""},
	{"tank_capacity", `null`, 200, `0`},
	{"tank_capacity", "1" + rep("0", 70), 400, ""},
	{"current_odometer", `0`, 200, ""},
	{"current_odometer", `123456.7`, 200, ""},
	{"current_odometer", `-1`, 400, ""},
	{"current_odometer", `100000000000`, 400, ""},
	{"current_odometer", `[1]`, 400, ""},
	{"default_vehicle", omit, 200, `false`},
	{"default_vehicle", `false`, 200, ""},
	{"default_vehicle", `"true"`, 400, ""},
	{"default_vehicle", `1`, 400, ""},
	{"id", `999`, 200, omit}, // read-only: ignored
	{"created_at", `"2000-01-01T00:00:00Z"`, 200, omit},
}

func TestVehicleFields(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *server) {
		for _, tc := range vehicleFieldCases {
			b := body(vehicleBase, tc.field, tc.value)
			t.Run(b, func(t *testing.T) {
				checkFieldCase(t, s, "/api/vehicles", b, tc)
			})
		}
	})
}

func checkFieldCase(t *testing.T, s *server, path, b string, tc fieldCase) {
	t.Helper()
	res := s.do("POST", path, b)
	if tc.status != 200 {
		errorBody(t, res, tc.status, "INVALID_ARGUMENT", tc.field)
		return
	}
	if res.status != 200 {
		t.Fatalf("status %d, want 200: %s", res.status, res.body)
	}
	got := object(t, res.body)
	switch tc.want {
	case omit:
		if tc.field == "id" && literal(got["id"]) == tc.value {
			t.Errorf("id taken from the body")
		}
		if tc.field == "created_at" && literal(got["created_at"]) == tc.value {
			t.Errorf("created_at taken from the body")
		}
	case "":
		if literal(got[tc.field]) != tc.value {
			t.Errorf("%s = %s, want %s", tc.field, literal(got[tc.field]), tc.value)
		}
	default:
		if literal(got[tc.field]) != tc.want {
			t.Errorf("%s = %s, want %s", tc.field, literal(got[tc.field]), tc.want)
		}
	}
	// Whatever was accepted reads back byte for byte.
	id := literal(got["id"])
	back := s.must(200, "GET", strings.TrimSuffix(path, "s")+"s/"+id, "")
	if string(back.body) != string(res.body) {
		t.Errorf("read-back differs:\nwrite %s\nread  %s", res.body, back.body)
	}
}

func refuelBase(vehicleID string) map[string]string {
	return map[string]string{
		"vehicle_id": vehicleID, "refuel_time": `"2026-03-01T08:00:00Z"`, "odometer": `1000`,
		"fuel_type": `"95"`, "liters": `40`, "total_amount": `60`,
	}
}

var refuelFieldCases = []fieldCase{
	{"vehicle_id", omit, 400, ""},
	{"vehicle_id", `null`, 400, ""},
	{"vehicle_id", `0`, 400, ""},
	{"vehicle_id", `-1`, 400, ""},
	{"vehicle_id", `1.5`, 400, ""},
	{"vehicle_id", `1e3`, 400, ""},
	{"vehicle_id", `"1"`, 400, ""},
	{"vehicle_id", `987654`, 400, ""}, // no such vehicle
	{"vehicle_id", `9223372036854775808`, 400, ""},
	{"vehicle_id", `18446744073709551615`, 400, ""},
	{"vehicle_id", `18446744073709551616`, 400, ""},
	{"refuel_time", omit, 400, ""},
	{"refuel_time", `null`, 400, ""},
	{"refuel_time", `"2026-03-01"`, 400, ""},
	{"refuel_time", `"2026-03-01T08:00:00"`, 400, ""},
	{"refuel_time", `"2026-03-01 08:00:00Z"`, 400, ""},
	{"refuel_time", `"yesterday"`, 400, ""},
	{"refuel_time", `1772352000`, 400, ""},
	{"refuel_time", `"2026-03-01T10:30:00+02:30"`, 200, `"2026-03-01T08:00:00Z"`},
	{"refuel_time", `"2026-03-01T03:00:00-05:00"`, 200, `"2026-03-01T08:00:00Z"`},
	{"refuel_time", `"2026-03-01T08:00:00.123456789Z"`, 200, `"2026-03-01T08:00:00.123456Z"`},
	{"refuel_time", `"2026-03-01T08:00:00.500000Z"`, 200, `"2026-03-01T08:00:00.5Z"`},
	{"refuel_time", `"1900-01-01T00:00:00Z"`, 200, ""},
	{"refuel_time", `"1900-01-01T00:30:00+01:00"`, 400, ""},
	{"refuel_time", `"1899-12-31T23:59:59.999999Z"`, 400, ""},
	{"refuel_time", `"0001-01-01T00:00:00Z"`, 400, ""},
	{"refuel_time", `"9999-12-31T23:59:59.999999Z"`, 200, ""},
	{"odometer", omit, 400, ""},
	{"odometer", `null`, 400, ""},
	{"odometer", `0`, 200, ""},
	{"odometer", `-0.1`, 400, ""},
	{"odometer", `99999999999.999`, 200, ""},
	{"odometer", `100000000000`, 400, ""},
	{"odometer", `"1000"`, 400, ""},
	{"fuel_type", omit, 400, ""},
	{"fuel_type", `"  "`, 400, ""},
	{"fuel_type", `"E10"`, 200, ""},
	{"fuel_type", str(rep("ü", 32)), 200, ""},
	{"fuel_type", str(rep("ü", 33)), 400, ""},
	{"liters", omit, 400, ""},
	{"liters", `0`, 400, ""},
	{"liters", `0.0004`, 400, ""},
	{"liters", `0.0005`, 200, `0.001`},
	{"liters", `0.001`, 200, ""},
	{"liters", `-5`, 400, ""},
	{"liters", `99999999999.999`, 200, ""},
	{"liters", `100000000000`, 400, ""},
	{"liters", `"40"`, 400, ""},
	{"liters", `1e1000000000`, 400, ""},
	{"total_amount", omit, 400, ""},
	{"total_amount", `0`, 200, ""},
	{"total_amount", `-0.01`, 400, ""},
	{"total_amount", `99999999999.999`, 200, ""},
	{"total_amount", `100000000000`, 400, ""},
	{"total_amount", `{}`, 400, ""},
	{"station_name", omit, 200, `""`},
	{"station_name", str(rep("s", 128)), 200, ""},
	{"station_name", str(rep("ś", 129)), 400, ""},
	{"is_full", omit, 200, `false`},
	{"is_full", `true`, 200, ""},
	{"is_full", `"true"`, 400, ""},
	{"is_full", `0`, 400, ""},
	{"missed_previous", omit, 200, `false`},
	{"missed_previous", `true`, 200, ""},
	{"missed_previous", `false`, 200, ""},
	{"missed_previous", `null`, 200, `false`},
	{"missed_previous", `"true"`, 400, ""},
	{"missed_previous", `1`, 400, ""},
	{"remark", str(rep("r", 512)), 200, ""},
	{"remark", str(rep("ř", 513)), 400, ""},
	{"remark", `null`, 200, `""`},
	{"price_per_liter", `999`, 200, `1.5`}, // never accepted: computed 60/40
}

func TestRefuelFields(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *server) {
		base := refuelBase(s.mustVehicle(`{"name":"Golf","fuel_type":"diesel"}`))
		for _, tc := range refuelFieldCases {
			b := body(base, tc.field, tc.value)
			t.Run(b, func(t *testing.T) {
				checkFieldCase(t, s, "/api/refuels", b, tc)
			})
		}
	})
}

func TestPricePerLiter(t *testing.T) {
	tests := []struct{ liters, amount, want string }{
		{"40", "60", "1.5"},
		{"3", "10", "3.3333"},      // 3.33333.. rounded
		{"20", "20.001", "1.0001"}, // 1.00005: half-up, not to even
		{"3", "20", "6.6667"},
		{"0.001", "99999999999.999", "99999999999999"},
		{"7", "0", "0"},
	}
	forEachDialect(t, func(t *testing.T, s *server) {
		vid := s.mustVehicle(`{"name":"Golf","fuel_type":"diesel"}`)
		for _, tt := range tests {
			b := body(refuelBase(vid), "liters", tt.liters)
			b = strings.Replace(b, `"total_amount":60`, `"total_amount":`+tt.amount, 1)
			res := s.must(200, "POST", "/api/refuels", b)
			if got := literal(object(t, res.body)["price_per_liter"]); got != tt.want {
				t.Errorf("%s / %s: price_per_liter %s, want %s", tt.amount, tt.liters, got, tt.want)
			}
		}
	})
}

func TestBodies(t *testing.T) {
	big := `{"name":"` + rep("x", 1<<20) + `","fuel_type":"diesel"}`
	tests := []struct {
		name, method, path, body string
		status                   int
		code                     string
	}{
		{"empty", "POST", "/api/vehicles", "", 400, "INVALID_ARGUMENT"},
		{"malformed", "POST", "/api/vehicles", `{"name":`, 400, "INVALID_ARGUMENT"},
		{"array", "POST", "/api/vehicles", `[]`, 400, "INVALID_ARGUMENT"},
		{"null", "POST", "/api/refuels", `null`, 400, "INVALID_ARGUMENT"},
		{"two objects", "POST", "/api/vehicles", `{"name":"a","fuel_type":"diesel"}{}`, 400, "INVALID_ARGUMENT"},
		{"too large", "POST", "/api/vehicles", big, 413, "PAYLOAD_TOO_LARGE"},
		{"too large refuel", "POST", "/api/refuels", big, 413, "PAYLOAD_TOO_LARGE"},
		{"too large put", "PUT", "/api/vehicles/1", big, 413, "PAYLOAD_TOO_LARGE"},
	}
	forEachDialect(t, func(t *testing.T, s *server) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				errorBody(t, s.do(tt.method, tt.path, tt.body), tt.status, tt.code, "")
			})
		}
		// Nothing was stored by any of them.
		if got := s.must(200, "GET", "/api/vehicles", "").body; string(got) != "[]" {
			t.Errorf("vehicles after rejected bodies: %s", got)
		}
	})
}

func TestEndpointErrors(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *server) {
		vid := s.mustVehicle(`{"name":"Golf","fuel_type":"diesel"}`)
		rid := s.mustRefuel(body(refuelBase(vid), "", ""))
		badIDs := []string{"abc", "0", "-1", "1.5", "1e3", "+1", "18446744073709551616", "99999999999999999999999"}
		absent := []string{"987654", "9223372036854775807", "9223372036854775808", "18446744073709551615"}
		vehicleBody := `{"name":"X","fuel_type":"diesel"}`
		refuelBody := body(refuelBase(vid), "", "")
		routes := []struct{ method, path, body string }{
			{"GET", "/api/vehicles/%s", ""},
			{"PUT", "/api/vehicles/%s", vehicleBody},
			{"DELETE", "/api/vehicles/%s", ""},
			{"POST", "/api/vehicles/%s/default", ""},
			{"GET", "/api/vehicles/%s/statistics", ""},
			{"GET", "/api/refuels/%s", ""},
			{"PUT", "/api/refuels/%s", refuelBody},
			{"DELETE", "/api/refuels/%s", ""},
		}
		for _, r := range routes {
			for _, id := range badIDs {
				t.Run(r.method+" "+fmt.Sprintf(r.path, id), func(t *testing.T) {
					errorBody(t, s.do(r.method, fmt.Sprintf(r.path, id), r.body), 400, "INVALID_ARGUMENT", "id")
				})
			}
			for _, id := range absent {
				t.Run(r.method+" "+fmt.Sprintf(r.path, id), func(t *testing.T) {
					errorBody(t, s.do(r.method, fmt.Sprintf(r.path, id), r.body), 404, "NOT_FOUND", "")
				})
			}
		}
		// Unmatched paths and methods are JSON 404s.
		for _, r := range [][2]string{{"GET", "/api/nothing"}, {"PATCH", "/api/vehicles/" + vid}, {"POST", "/api/refuels/" + rid}, {"GET", "/api"}} {
			errorBody(t, s.do(r[0], r[1], ""), 404, "NOT_FOUND", "")
		}
		// The record and vehicle used above are untouched.
		s.must(200, "GET", "/api/refuels/"+rid, "")
		s.must(200, "GET", "/api/vehicles/"+vid, "")
		// PUT refuel to a vehicle that does not exist: 400, nothing changed.
		before := s.must(200, "GET", "/api/refuels/"+rid, "").body
		errorBody(t, s.do("PUT", "/api/refuels/"+rid, `{"vehicle_id":987654}`), 400, "INVALID_ARGUMENT", "vehicle_id")
		if after := s.must(200, "GET", "/api/refuels/"+rid, "").body; string(after) != string(before) {
			t.Errorf("failed PUT changed the record:\n%s\n%s", before, after)
		}
	})
}

func TestSuccessAnswers(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *server) {
		res := s.must(200, "POST", "/api/vehicles", `{"name":"Golf","brand":"VW","model":"Golf 8","plate_number":"B-XY 123","fuel_type":"gasoline","tank_capacity":50,"current_odometer":12000.5,"default_vehicle":true}`)
		v := object(t, res.body)
		wantKeys := []string{"id", "name", "brand", "model", "plate_number", "fuel_type", "tank_capacity", "current_odometer", "default_vehicle", "created_at", "updated_at", "role", "currency", "manual_md5s"}
		if len(v) != len(wantKeys) {
			t.Errorf("vehicle has %d members, want %d: %s", len(v), len(wantKeys), res.body)
		}
		for _, k := range wantKeys {
			if _, ok := v[k]; !ok {
				t.Errorf("vehicle lacks %s", k)
			}
		}
		for k, want := range map[string]string{"name": `"Golf"`, "brand": `"VW"`, "model": `"Golf 8"`, "plate_number": `"B-XY 123"`,
			"fuel_type": `"gasoline"`, "tank_capacity": `50`, "current_odometer": `12000.5`, "default_vehicle": `true`, "currency": `null`, "manual_md5s": `[]`} {
			if got := literal(v[k]); got != want {
				t.Errorf("%s = %s, want %s", k, got, want)
			}
		}
		for _, k := range []string{"created_at", "updated_at"} {
			if ts, _ := v[k].(string); !strings.HasSuffix(ts, "Z") {
				t.Errorf("%s = %q, want UTC with Z", k, ts)
			}
		}
		vid := literal(v["id"])
		if got := s.must(200, "GET", "/api/vehicles/"+vid, "").body; string(got) != string(res.body) {
			t.Errorf("GET differs from POST:\n%s\n%s", res.body, got)
		}
		if got := s.must(200, "POST", "/api/vehicles/"+vid+"/default", "").body; string(got) != string(res.body) {
			t.Errorf("default on the default changed it:\n%s\n%s", res.body, got)
		}

		rres := s.must(200, "POST", "/api/refuels", `{"vehicle_id":`+vid+`,"refuel_time":"2026-03-01T10:00:00+02:00","odometer":12500,"fuel_type":"E10","liters":40.5,"total_amount":70.47,"station_name":"Aral","is_full":true,"remark":"A2"}`)
		r := object(t, rres.body)
		wantR := map[string]string{"vehicle_id": vid, "refuel_time": `"2026-03-01T08:00:00Z"`, "odometer": `12500`, "fuel_type": `"E10"`,
			"energy": `"gasoline"`, "unit": `"l"`, "liters": `40.5`, "total_amount": `70.47`, "price_per_liter": `1.74`, "station_name": `"Aral"`, "is_full": `true`, "missed_previous": `false`, "remark": `"A2"`,
			"currency": `null`, "home_amount": `null`}
		if len(r) != len(wantR)+3 {
			t.Errorf("refuel has %d members, want %d: %s", len(r), len(wantR)+3, rres.body)
		}
		for k, want := range wantR {
			if got := literal(r[k]); got != want {
				t.Errorf("%s = %s, want %s", k, got, want)
			}
		}
		rid := literal(r["id"])
		if got := s.must(200, "GET", "/api/refuels/"+rid, "").body; string(got) != string(rres.body) {
			t.Errorf("GET refuel differs from POST:\n%s\n%s", rres.body, got)
		}
		list := s.must(200, "GET", "/api/refuels?vehicle_id="+vid, "").body
		if string(list) != "["+string(rres.body)+"]" {
			t.Errorf("list differs from POST:\n%s\n%s", rres.body, list)
		}

		del := s.must(204, "DELETE", "/api/refuels/"+rid, "")
		if len(del.body) != 0 {
			t.Errorf("204 with body %q", del.body)
		}
		errorBody(t, s.do("DELETE", "/api/refuels/"+rid, ""), 404, "NOT_FOUND", "")
		s.must(204, "DELETE", "/api/vehicles/"+vid, "")
		errorBody(t, s.do("DELETE", "/api/vehicles/"+vid, ""), 404, "NOT_FOUND", "")
		errorBody(t, s.do("GET", "/api/vehicles/"+vid, ""), 404, "NOT_FOUND", "")
	})
}

func TestVehicleOrderAndDefault(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *server) {
		if got := s.must(200, "GET", "/api/vehicles", "").body; string(got) != "[]" {
			t.Fatalf("empty list = %s, want []", got)
		}
		a := s.mustVehicle(`{"name":"A","fuel_type":"diesel"}`)
		b := s.mustVehicle(`{"name":"B","fuel_type":"diesel","default_vehicle":true}`)
		c := s.mustVehicle(`{"name":"C","fuel_type":"diesel"}`)
		order := func(want ...string) {
			t.Helper()
			var got, defaults []string
			for _, v := range array(t, s.must(200, "GET", "/api/vehicles", "").body) {
				got = append(got, literal(v["id"]))
				if v["default_vehicle"] == true {
					defaults = append(defaults, literal(v["id"]))
				}
			}
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("order %v, want %v", got, want)
			}
			if len(defaults) > 1 {
				t.Errorf("two defaults: %v", defaults)
			}
		}
		order(b, a, c)
		s.must(200, "POST", "/api/vehicles/"+c+"/default", "")
		order(c, a, b)
		// Creating a new default clears the old one.
		d := s.mustVehicle(`{"name":"D","fuel_type":"diesel","default_vehicle":true}`)
		order(d, a, b, c)
		// PUT default_vehicle: true moves it; the old default's updated_at moves too.
		s.must(200, "PUT", "/api/vehicles/"+a, `{"default_vehicle":true}`)
		order(a, b, c, d)
		if got := object(t, s.must(200, "GET", "/api/vehicles/"+d, "").body)["default_vehicle"]; got != false {
			t.Errorf("old default still default: %v", got)
		}
		// PUT default_vehicle: false on the default leaves none.
		s.must(200, "PUT", "/api/vehicles/"+a, `{"default_vehicle":false}`)
		order(a, b, c, d)
		// Deleting the default leaves none.
		s.must(200, "POST", "/api/vehicles/"+b+"/default", "")
		s.must(204, "DELETE", "/api/vehicles/"+b, "")
		order(a, c, d)
		for _, v := range array(t, s.must(200, "GET", "/api/vehicles", "").body) {
			if v["default_vehicle"] == true {
				t.Errorf("vehicle %v is default after the default was deleted", v["id"])
			}
		}
	})
}

func TestRefuelListOrderAndFilters(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *server) {
		vid := s.mustVehicle(`{"name":"Golf","fuel_type":"diesel"}`)
		other := s.mustVehicle(`{"name":"Other","fuel_type":"diesel"}`)
		mk := func(vehicle, ts string) string {
			return s.mustRefuel(`{"vehicle_id":` + vehicle + `,"refuel_time":"` + ts + `","odometer":1,"fuel_type":"95","liters":1,"total_amount":1}`)
		}
		// Inserted out of order; r2 and r3 share a time.
		r3 := mk(vid, "2026-03-02T12:00:00Z")
		r1 := mk(vid, "2026-03-01T00:00:00Z")
		r2 := mk(vid, "2026-03-02T14:00:00+02:00") // = 12:00Z
		r4 := mk(vid, "2026-03-03T00:00:00.000001Z")
		mk(other, "2026-03-02T12:00:00Z")
		ids := func(q string) string {
			t.Helper()
			var out []string
			for _, r := range array(t, s.must(200, "GET", "/api/refuels?"+q, "").body) {
				out = append(out, literal(r["id"]))
			}
			return strings.Join(out, ",")
		}
		j := func(ids ...string) string { return strings.Join(ids, ",") }
		tests := []struct{ query, want string }{
			{"vehicle_id=" + vid, j(r4, r2, r3, r1)}, // time desc, then id desc
			{"vehicle_id=" + vid + "&start_date=2026-03-02T12:00:00Z", j(r4, r2, r3)},
			{"vehicle_id=" + vid + "&end_date=2026-03-02T12:00:00Z", j(r2, r3, r1)},
			{"vehicle_id=" + vid + "&start_date=2026-03-02T12:00:00Z&end_date=2026-03-02T12:00:00Z", j(r2, r3)},
			// Offsets: 13:00+01:00 is 12:00Z; the "+" may arrive encoded or as a space.
			{"vehicle_id=" + vid + "&start_date=2026-03-02T13:00:00%2B01:00&end_date=2026-03-02T13:00:00%2B01:00", j(r2, r3)},
			{"vehicle_id=" + vid + "&start_date=2026-03-02T13:00:00+01:00", j(r4, r2, r3)},
			{"vehicle_id=" + vid + "&end_date=2026-03-02T07:00:00-05:00", j(r2, r3, r1)},
			{"vehicle_id=" + vid + "&start_date=2026-03-03T00:00:00.000001Z", j(r4)},
			{"vehicle_id=" + vid + "&start_date=2026-03-03T00:00:00.000002Z", ""},
			{"vehicle_id=" + vid + "&end_date=2026-02-28T23:59:59.999999Z", ""},
			{"vehicle_id=" + vid + "&limit=2", j(r4, r2)},
			{"vehicle_id=" + vid + "&limit=2&offset=2", j(r3, r1)},
			{"vehicle_id=" + vid + "&limit=1000&offset=3", j(r1)},
			{"vehicle_id=" + vid + "&offset=1", j(r2, r3, r1)},
			{"vehicle_id=" + vid + "&offset=10", ""},
			{"vehicle_id=987654", ""},
			{"vehicle_id=18446744073709551615", ""},
		}
		for _, tt := range tests {
			t.Run(tt.query, func(t *testing.T) {
				if got := ids(tt.query); got != tt.want {
					t.Errorf("ids %q, want %q", got, tt.want)
				}
			})
		}
		if got := s.must(200, "GET", "/api/refuels?vehicle_id=987654", "").body; string(got) != "[]" {
			t.Errorf("unknown vehicle: %s, want []", got)
		}
		bad := []struct{ query, field string }{
			{"", "vehicle_id"},
			{"vehicle_id=", "vehicle_id"},
			{"vehicle_id=abc", "vehicle_id"},
			{"vehicle_id=0", "vehicle_id"},
			{"vehicle_id=-1", "vehicle_id"},
			{"vehicle_id=1.5", "vehicle_id"},
			{"vehicle_id=18446744073709551616", "vehicle_id"},
			{"vehicle_id=1&vehicle_id=2", "vehicle_id"},
			{"vehicle_id=" + vid + "&start_date=2026-03-01", "start_date"},
			{"vehicle_id=" + vid + "&start_date=2026-03-01T00:00:00", "start_date"},
			{"vehicle_id=" + vid + "&end_date=tomorrow", "end_date"},
			{"vehicle_id=" + vid + "&start_date=2026-03-02T00:00:00Z&end_date=2026-03-01T00:00:00Z", "start_date"},
			{"vehicle_id=" + vid + "&limit=0", "limit"},
			{"vehicle_id=" + vid + "&limit=1001", "limit"},
			{"vehicle_id=" + vid + "&limit=abc", "limit"},
			{"vehicle_id=" + vid + "&limit=10&offset=-1", "offset"},
			{"vehicle_id=" + vid + "&offset=1.5", "offset"},
		}
		for _, tt := range bad {
			t.Run("bad "+tt.query, func(t *testing.T) {
				errorBody(t, s.do("GET", "/api/refuels?"+tt.query, ""), 400, "INVALID_ARGUMENT", tt.field)
			})
		}
	})
}

func TestPatchSemantics(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *server) {
		created := s.must(200, "POST", "/api/vehicles", `{"name":"Golf","brand":"VW","model":"8","plate_number":"P","fuel_type":"diesel","tank_capacity":50,"current_odometer":100}`).body
		vid := literal(object(t, created)["id"])
		path := "/api/vehicles/" + vid
		unchangedBut := func(before, after map[string]any, changed ...string) {
			t.Helper()
			skip := map[string]bool{"updated_at": true}
			for _, k := range changed {
				skip[k] = true
			}
			for k, v := range before {
				if !skip[k] && literal(after[k]) != literal(v) {
					t.Errorf("%s changed from %s to %s", k, literal(v), literal(after[k]))
				}
			}
		}
		before := object(t, created)
		// An empty patch changes nothing but updated_at.
		after := object(t, s.must(200, "PUT", path, `{}`).body)
		unchangedBut(before, after)
		// One explicit field changes only that field.
		res := s.must(200, "PUT", path, `{"brand":"Volkswagen","tank_capacity":55.5}`)
		after = object(t, res.body)
		unchangedBut(before, after, "brand", "tank_capacity")
		if literal(after["brand"]) != `"Volkswagen"` || literal(after["tank_capacity"]) != `55.5` {
			t.Errorf("patch not applied: %s", res.body)
		}
		if got := s.must(200, "GET", path, "").body; string(got) != string(res.body) {
			t.Errorf("read-back after PUT differs:\n%s\n%s", res.body, got)
		}
		// null resets an optional field and is refused for a required one.
		after = object(t, s.must(200, "PUT", path, `{"model":null}`).body)
		if literal(after["model"]) != `""` {
			t.Errorf("model after null = %s", literal(after["model"]))
		}
		// An invalid update changes nothing, not even the valid fields beside it.
		current := s.must(200, "GET", path, "").body
		for _, b := range []string{
			`{"brand":"New","name":"` + rep("n", 65) + `"}`,
			`{"brand":"New","name":null}`,
			`{"brand":"New","fuel_type":"coal"}`,
			`{"brand":"New","tank_capacity":-1}`,
			`{"brand":"New","tank_capacity":"1"}`,
			`{"brand":"New","default_vehicle":"yes"}`,
		} {
			if res := s.do("PUT", path, b); res.status != 400 {
				t.Errorf("PUT %s: status %d, want 400", b, res.status)
			}
			if got := s.must(200, "GET", path, "").body; string(got) != string(current) {
				t.Errorf("invalid PUT %s changed the vehicle:\n%s\n%s", b, current, got)
			}
		}

		// Refuels: price_per_liter follows liters and total_amount.
		other := s.mustVehicle(`{"name":"Other","fuel_type":"diesel"}`)
		rcreated := s.must(200, "POST", "/api/refuels", body(refuelBase(vid), "", "")).body
		rid := literal(object(t, rcreated)["id"])
		rpath := "/api/refuels/" + rid
		rbefore := object(t, rcreated)
		rafter := object(t, s.must(200, "PUT", rpath, `{"liters":50}`).body)
		unchangedBut(rbefore, rafter, "liters", "price_per_liter")
		if literal(rafter["price_per_liter"]) != "1.2" {
			t.Errorf("price_per_liter after liters=50: %s, want 1.2", literal(rafter["price_per_liter"]))
		}
		rafter = object(t, s.must(200, "PUT", rpath, `{"total_amount":75}`).body)
		if literal(rafter["price_per_liter"]) != "1.5" || literal(rafter["liters"]) != "50" {
			t.Errorf("after total_amount=75: %v", rafter)
		}
		// Every creation field may change, vehicle_id included.
		res = s.must(200, "PUT", rpath, `{"vehicle_id":`+other+`,"refuel_time":"2026-04-01T12:00:00+01:00","odometer":2000,"fuel_type":"E5","is_full":true,"station_name":"Shell","remark":"r"}`)
		rafter = object(t, res.body)
		for k, want := range map[string]string{"vehicle_id": other, "refuel_time": `"2026-04-01T11:00:00Z"`, "odometer": "2000",
			"fuel_type": `"E5"`, "is_full": "true", "station_name": `"Shell"`, "remark": `"r"`, "liters": "50", "total_amount": "75"} {
			if got := literal(rafter[k]); got != want {
				t.Errorf("%s = %s, want %s", k, got, want)
			}
		}
		if got := s.must(200, "GET", rpath, "").body; string(got) != string(res.body) {
			t.Errorf("read-back after refuel PUT differs:\n%s\n%s", res.body, got)
		}
		rcurrent := res.body
		for _, b := range []string{
			`{"remark":"x","liters":0}`,
			`{"remark":"x","liters":null}`,
			`{"remark":"x","refuel_time":"2026-04-01"}`,
			`{"remark":"x","vehicle_id":987654}`,
			`{"remark":"x","vehicle_id":0}`,
			`{"remark":"x","station_name":"` + rep("s", 129) + `"}`,
		} {
			if res := s.do("PUT", rpath, b); res.status != 400 {
				t.Errorf("PUT %s: status %d, want 400", b, res.status)
			}
			if got := s.must(200, "GET", rpath, "").body; string(got) != string(rcurrent) {
				t.Errorf("invalid PUT %s changed the refuel:\n%s\n%s", b, rcurrent, got)
			}
		}
	})
}

func TestCascadeOnVehicleDelete(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *server) {
		gone := s.mustVehicle(`{"name":"Gone","fuel_type":"diesel"}`)
		kept := s.mustVehicle(`{"name":"Kept","fuel_type":"diesel"}`)
		var goneRefuels []string
		for i := 0; i < 3; i++ {
			goneRefuels = append(goneRefuels, s.mustRefuel(body(refuelBase(gone), "", "")))
		}
		keptRefuel := s.mustRefuel(body(refuelBase(kept), "", ""))
		s.must(204, "DELETE", "/api/vehicles/"+gone, "")
		for _, id := range goneRefuels {
			errorBody(t, s.do("GET", "/api/refuels/"+id, ""), 404, "NOT_FOUND", "")
		}
		if got := s.must(200, "GET", "/api/refuels?vehicle_id="+gone, "").body; string(got) != "[]" {
			t.Errorf("refuels of the deleted vehicle: %s", got)
		}
		errorBody(t, s.do("GET", "/api/vehicles/"+gone+"/statistics", ""), 404, "NOT_FOUND", "")
		s.must(200, "GET", "/api/refuels/"+keptRefuel, "")
		// The deleted vehicle's id cannot take new records.
		errorBody(t, s.do("POST", "/api/refuels", body(refuelBase(gone), "", "")), 400, "INVALID_ARGUMENT", "vehicle_id")
	})
}

func TestStatisticsAnswer(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *server) {
		vid := s.mustVehicle(`{"name":"Golf","fuel_type":"diesel"}`)
		empty := s.must(200, "GET", "/api/vehicles/"+vid+"/statistics", "").body
		want := `{"vehicle_id":` + vid + `,"total_records":0,"total_liters":0,"total_amount":0,"avg_price":0,"avg_consumption":0,"cost_per_km":0,"last_refuel":null,"total_distance":0,"weighted_consumption":0,"weighted_cost_per_km":0,"consumption_samples":0,"first_refuel_time":null,"last_refuel_time":null,"main_energy":null,"by_energy":[],"sampled_distance":0,"combined_cost_per_km":0,"expenses_amount":0,"expenses_by_category":[],"total_cost":0,"total_cost_per_km":0}`
		if string(empty) != want {
			t.Errorf("empty statistics:\n%s\nwant\n%s", empty, want)
		}
		// Full 1000 km 40 L 60; partial 1200 km 10 L 16; full 1500 km 20 L 30:
		// one sample over 500 km of 30 L and 46 money: 6 L/100km, 0.092/km.
		// prices 1.5, 1.6, 1.5: mean 1.5333.
		rec := func(ts, odo, liters, amount string, full bool) string {
			return s.mustRefuel(fmt.Sprintf(`{"vehicle_id":%s,"refuel_time":%q,"odometer":%s,"fuel_type":"B7","liters":%s,"total_amount":%s,"is_full":%t}`, vid, ts, odo, liters, amount, full))
		}
		rec("2026-03-01T08:00:00Z", "1000", "40", "60", true)
		rec("2026-03-05T08:00:00+01:00", "1200", "10", "16", false)
		last := rec("2026-03-09T08:00:00Z", "1500", "20", "30", true)
		lastBody := s.must(200, "GET", "/api/refuels/"+last, "").body
		got := s.must(200, "GET", "/api/vehicles/"+vid+"/statistics", "").body
		want = `{"vehicle_id":` + vid + `,"total_records":3,"total_liters":70,"total_amount":106,"avg_price":1.5333,"avg_consumption":6,"cost_per_km":0.092,"last_refuel":` + string(lastBody) + `,"total_distance":500,"weighted_consumption":6,"weighted_cost_per_km":0.092,"consumption_samples":1,"first_refuel_time":"2026-03-01T08:00:00Z","last_refuel_time":"2026-03-09T08:00:00Z",` +
			`"main_energy":"diesel","by_energy":[{"energy":"diesel","unit":"l","total_records":3,"total_quantity":70,"total_amount":106,"avg_price":1.5333,"avg_consumption":6,"weighted_consumption":6,"cost_per_km":0.092,"weighted_cost_per_km":0.092,"consumption_samples":1,"sampled_distance":500}],"sampled_distance":500,"combined_cost_per_km":0.092,` +
			`"expenses_amount":0,"expenses_by_category":[],"total_cost":106,"total_cost_per_km":0.212}`
		if string(got) != want {
			t.Errorf("statistics:\n%s\nwant\n%s", got, want)
		}
	})
}

func TestHealth(t *testing.T) {
	for _, d := range dialects {
		t.Run(string(d), func(t *testing.T) {
			s := MustServer(t, d)
			ok := object(t, s.must(200, "GET", "/health", "").body)
			if ok["status"] != "ok" || !strings.HasSuffix(fmt.Sprint(ok["time"]), "Z") {
				t.Errorf("health %v", ok)
			}
			if err := s.store.Close(); err != nil {
				t.Fatal(err)
			}
			res := s.do("GET", "/health", "")
			if res.status != 503 {
				t.Fatalf("health with the database closed: %d %s", res.status, res.body)
			}
			if down := object(t, res.body); down["status"] != "unavailable" || down["code"] != "UNAVAILABLE" {
				t.Errorf("health body %s", res.body)
			}
		})
	}
}
