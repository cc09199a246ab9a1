package httpapi_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestEveryInvalidFieldNamed: a body with several wrong fields is answered
// with one INVALID_ARGUMENT whose message names each that its check finds,
// in the order of the contract's field table, and no field that is right.
// There are two checks, one after the other: reading the body (presence,
// types, signs) and the rules of the field table.
func TestEveryInvalidFieldNamed(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *server) {
		vid := s.mustVehicle(`{"name":"car","fuel_type":"diesel"}`)
		rid := literal(object(t, s.must(200, "POST", "/api/refuels", `{"vehicle_id":`+vid+`,"refuel_time":"2026-01-02T08:00:00Z",`+
			`"odometer":1000,"fuel_type":"B7","liters":40,"total_amount":60,"is_full":true}`).body)["id"])
		for _, tc := range []struct{ name, method, path, body, want string }{
			// Reading the body: presence, types, signs.
			{"a refuel of nothing", "POST", "/api/refuels", `{}`, "vehicle_id: is required; refuel_time: is required; odometer: is required; " +
				"fuel_type: is required; liters: is required; total_amount: is required"},
			{"two negative amounts", "POST", "/api/refuels", `{"vehicle_id":` + vid + `,"refuel_time":"2026-01-03T08:00:00Z","odometer":-1,` +
				`"fuel_type":"B7","liters":-2,"total_amount":60}`, "odometer: must be at least 0; liters: must be at least 0"},
			// The rules of the field table.
			{"a vehicle against its rules", "POST", "/api/vehicles", `{"name":" ","fuel_type":"coal","tank_capacity":5}`,
				"name: is required and must not be blank; fuel_type: must be one of gasoline, diesel, hybrid, electric, plug_in_hybrid"},
			{"a patch against the rules", "PUT", "/api/refuels/" + rid, `{"liters":0,"remark":"` + strings.Repeat("r", 513) + `"}`,
				"liters: must be greater than 0 (at 3 decimal places); remark: must be at most 512 characters (got 513)"},
		} {
			res := s.do(tc.method, tc.path, tc.body)
			errorBody(t, res, 400, "INVALID_ARGUMENT", "")
			var body struct{ Message string }
			if err := json.Unmarshal(res.body, &body); err != nil {
				t.Fatal(err)
			}
			if body.Message != tc.want {
				t.Errorf("%s: message %q, want %q", tc.name, body.Message, tc.want)
			}
		}
		// Nothing of the refused patch was written.
		got := object(t, s.must(200, "GET", "/api/refuels/"+rid, "").body)
		if literal(got["liters"]) != "40" || literal(got["remark"]) != `""` {
			t.Errorf("after a refused patch: liters %s, remark %s", literal(got["liters"]), literal(got["remark"]))
		}
	})
}

// namedFields is the set of fields an INVALID_ARGUMENT message names
// ("title: is required; amount: must be at least 0"), sorted.
func namedFields(message string) []string {
	var out []string
	for _, part := range strings.Split(message, "; ") {
		field, _, _ := strings.Cut(part, ": ")
		out = append(out, field)
	}
	slices.Sort(out)
	return out
}

// TestExpenseAndReminderBodiesNameEveryBadField: a create or an update of
// an expense or a reminder with several bad fields is answered with one
// 400 that names each of them, whether its value could not be read (a
// negative amount, every_months -1) or breaks a rule of the field table
// (a blank title, an unknown category), and nothing is written.
func TestExpenseAndReminderBodiesNameEveryBadField(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *server) {
		vid := s.mustVehicle(`{"name":"Golf","fuel_type":"diesel"}`)
		expense := literal(object(t, s.must(200, "POST", "/api/expenses", serviceBody(vid)).body)["id"])
		reminder := literal(object(t, s.must(200, "POST", "/api/reminders",
			`{"vehicle_id":`+vid+`,"title":"Oil","category":"service","every_km":15000,"every_months":12}`).body)["id"])
		beforeExpense := string(s.must(200, "GET", "/api/expenses/"+expense, "").body)
		beforeReminder := string(s.must(200, "GET", "/api/reminders/"+reminder, "").body)
		for _, tc := range []struct {
			name, method, path, body string
			want                     []string
		}{
			{"the issue's expense", "POST", "/api/expenses",
				`{"vehicle_id":` + vid + `,"time":"2026-03-01T08:00:00Z","category":"fuel","title":"","amount":-5}`,
				[]string{"amount", "category", "title"}},
			{"an expense's items and tags beside an unreadable time", "POST", "/api/expenses",
				`{"vehicle_id":` + vid + `,"time":"soon","category":"service","title":" ","amount":10,` +
					`"items":[{"name":"Oil","quantity":0,"unit_price":1},{"name":"","quantity":1,"unit_price":-1}],"tags":["a","A"]}`,
				[]string{"items[0].quantity", "items[1].name", "items[1].unit_price", "tags[1]", "time", "title"}},
			{"the issue's expense as an update", "PUT", "/api/expenses/" + expense,
				`{"title":"","category":"fuel","amount":-5}`, []string{"amount", "category", "title"}},
			{"an update's odometer and vendor", "PUT", "/api/expenses/" + expense,
				`{"odometer":-1,"vendor":"` + strings.Repeat("v", 129) + `","notes":null}`, []string{"odometer", "vendor"}},
			{"the issue's reminder", "POST", "/api/reminders",
				`{"vehicle_id":` + vid + `,"title":"Oil","category":"oil","every_km":0,"every_months":-1}`,
				[]string{"category", "every_km", "every_months"}},
			{"a reminder's title beside its unreadable last_done and soon_days", "POST", "/api/reminders",
				`{"vehicle_id":` + vid + `,"title":" ","category":"service","every_km":15000,` +
					`"last_done":{"time":"2026-01-01T00:00:00Z","odometer":-1},"soon_days":5000}`,
				[]string{"last_done.odometer", "soon_days", "title"}},
			{"the issue's reminder as an update", "PUT", "/api/reminders/" + reminder,
				`{"category":"oil","every_km":0,"every_months":-1}`, []string{"category", "every_km", "every_months"}},
			{"an update's title, match and soon_km", "PUT", "/api/reminders/" + reminder,
				`{"title":"","match":"` + strings.Repeat("m", 201) + `","soon_km":-1}`, []string{"match", "soon_km", "title"}},
		} {
			res := s.do(tc.method, tc.path, tc.body)
			errorBody(t, res, 400, "INVALID_ARGUMENT", "")
			msg, _ := object(t, res.body)["message"].(string)
			if got := namedFields(msg); !slices.Equal(got, tc.want) {
				t.Errorf("%s: names %q, want %q (message %q)", tc.name, got, tc.want, msg)
			}
		}
		if n := s.count("expenses"); n != 1 {
			t.Errorf("%d expenses, want the 1 made before", n)
		}
		if n := s.count("reminders"); n != 1 {
			t.Errorf("%d reminders, want the 1 made before", n)
		}
		if got := string(s.must(200, "GET", "/api/expenses/"+expense, "").body); got != beforeExpense {
			t.Errorf("a refused update changed the expense:\n%s\nwas\n%s", got, beforeExpense)
		}
		if got := string(s.must(200, "GET", "/api/reminders/"+reminder, "").body); got != beforeReminder {
			t.Errorf("a refused update changed the reminder:\n%s\nwas\n%s", got, beforeReminder)
		}
	})
}

// TestRefuelAndVehicleBodiesNameEveryBadField: as
// TestExpenseAndReminderBodiesNameEveryBadField for refuels and vehicles.
// A refuel with a blank fuel_type and a negative liters named only liters,
// as the rules (fuel_type) never ran on a body whose reading failed
// (liters); now one 400 names both, on create and on update, and nothing
// is written.
func TestRefuelAndVehicleBodiesNameEveryBadField(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *server) {
		vid := s.mustVehicle(`{"name":"Golf","fuel_type":"diesel"}`)
		rid := literal(object(t, s.must(200, "POST", "/api/refuels", `{"vehicle_id":`+vid+`,"refuel_time":"2026-01-02T08:00:00Z",`+
			`"odometer":1000,"fuel_type":"B7","liters":40,"total_amount":60,"is_full":true}`).body)["id"])
		beforeVehicle := string(s.must(200, "GET", "/api/vehicles/"+vid, "").body)
		beforeRefuel := string(s.must(200, "GET", "/api/refuels/"+rid, "").body)
		long := func(n int) string { return strings.Repeat("x", n) }
		for _, tc := range []struct {
			name, method, path, body string
			want                     []string
		}{
			{"the issue's refuel: a blank fuel_type beside a negative liters", "POST", "/api/refuels",
				`{"vehicle_id":` + vid + `,"refuel_time":"2026-01-03T08:00:00Z","odometer":1100,"fuel_type":" ","liters":-2,"total_amount":60}`,
				[]string{"fuel_type", "liters"}},
			{"a refuel's unreadable time and energy beside its rules", "POST", "/api/refuels",
				`{"vehicle_id":` + vid + `,"refuel_time":"soon","odometer":1100,"fuel_type":"","energy":"coal","liters":0,` +
					`"total_amount":60,"station_name":"` + long(129) + `"}`,
				[]string{"energy", "fuel_type", "liters", "refuel_time", "station_name"}},
			{"the issue's refuel as an update", "PUT", "/api/refuels/" + rid,
				`{"fuel_type":"","liters":-1,"remark":"` + long(513) + `"}`, []string{"fuel_type", "liters", "remark"}},
			{"an update's odometer, amount and station", "PUT", "/api/refuels/" + rid,
				`{"odometer":-5,"total_amount":1e12,"station_name":"` + long(129) + `","energy":null}`,
				[]string{"odometer", "station_name", "total_amount"}},
			{"a vehicle's blank name, unknown fuel_type and long plate beside a negative tank", "POST", "/api/vehicles",
				`{"name":"","plate_number":"` + long(33) + `","fuel_type":"coal","tank_capacity":-5}`,
				[]string{"fuel_type", "name", "plate_number", "tank_capacity"}},
			{"a vehicle's brand and manual beside a negative odometer", "POST", "/api/vehicles",
				`{"name":"Polo","brand":"` + long(65) + `","fuel_type":"diesel","current_odometer":-1,"manual_md5s":["x"]}`,
				[]string{"brand", "current_odometer", "manual_md5s[0]"}},
			{"a vehicle's update", "PUT", "/api/vehicles/" + vid,
				`{"name":" ","model":"` + long(65) + `","current_odometer":-1}`, []string{"current_odometer", "model", "name"}},
			{"a vehicle's fuel_type and tank as an update", "PUT", "/api/vehicles/" + vid,
				`{"fuel_type":"coal","tank_capacity":-1,"brand":null}`, []string{"fuel_type", "tank_capacity"}},
		} {
			res := s.do(tc.method, tc.path, tc.body)
			errorBody(t, res, 400, "INVALID_ARGUMENT", "")
			msg, _ := object(t, res.body)["message"].(string)
			if got := namedFields(msg); !slices.Equal(got, tc.want) {
				t.Errorf("%s: names %q, want %q (message %q)", tc.name, got, tc.want, msg)
			}
		}
		if n := s.count("vehicles"); n != 1 {
			t.Errorf("%d vehicles, want the 1 made before", n)
		}
		if n := s.count("refuels"); n != 1 {
			t.Errorf("%d refuels, want the 1 made before", n)
		}
		if got := string(s.must(200, "GET", "/api/vehicles/"+vid, "").body); got != beforeVehicle {
			t.Errorf("a refused update changed the vehicle:\n%s\nwas\n%s", got, beforeVehicle)
		}
		if got := string(s.must(200, "GET", "/api/refuels/"+rid, "").body); got != beforeRefuel {
			t.Errorf("a refused update changed the refuel:\n%s\nwas\n%s", got, beforeRefuel)
		}
	})
}
