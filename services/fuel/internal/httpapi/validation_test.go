package httpapi_test

import (
	"encoding/json"
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
