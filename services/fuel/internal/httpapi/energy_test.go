package httpapi_test

import (
	"fmt"
	"net/url"
	"testing"
)

// TestRefuelEnergy: the energy of a refuel defaults from its vehicle's
// fuel_type, can be set and changed, and names the unit of liters.
func TestRefuelEnergy(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *server) {
		vehicles := map[string]string{}
		for _, ft := range []string{"gasoline", "diesel", "hybrid", "electric", "plug_in_hybrid"} {
			vehicles[ft] = s.mustVehicle(`{"name":"` + ft + `","fuel_type":"` + ft + `"}`)
		}
		refuel := func(vid, extra string) map[string]any {
			t.Helper()
			return object(t, s.must(200, "POST", "/api/refuels",
				`{"vehicle_id":`+vid+`,"refuel_time":"2026-03-01T08:00:00Z","odometer":100,"fuel_type":"any","liters":10,"total_amount":3`+extra+`}`).body)
		}
		for ft, want := range map[string]string{
			"gasoline": `"gasoline" "l"`, "diesel": `"diesel" "l"`, "hybrid": `"gasoline" "l"`,
			"electric": `"electricity" "kWh"`, "plug_in_hybrid": `"gasoline" "l"`,
		} {
			r := refuel(vehicles[ft], "")
			if got := literal(r["energy"]) + " " + literal(r["unit"]); got != want {
				t.Errorf("default energy on a %s vehicle: %s, want %s", ft, got, want)
			}
		}
		// Every energy with its unit; price_per_liter is per unit.
		for energy, unit := range map[string]string{"gasoline": "l", "diesel": "l", "lpg": "l", "cng": "kg", "electricity": "kWh", "hydrogen": "kg"} {
			r := refuel(vehicles["plug_in_hybrid"], `,"energy":"`+energy+`"`)
			if literal(r["energy"]) != `"`+energy+`"` || literal(r["unit"]) != `"`+unit+`"` || literal(r["price_per_liter"]) != "0.3" {
				t.Errorf("energy %s: got %s %s price %s", energy, literal(r["energy"]), literal(r["unit"]), literal(r["price_per_liter"]))
			}
		}
		// A petrol record on an electric car is the owner's data: accepted.
		r := refuel(vehicles["electric"], `,"energy":"gasoline"`)
		id := literal(r["id"])
		if literal(r["energy"]) != `"gasoline"` {
			t.Errorf("gasoline on an electric vehicle: %s", literal(r["energy"]))
		}
		// PUT changes it; the answer and a later GET agree.
		put := object(t, s.must(200, "PUT", "/api/refuels/"+id, `{"energy":"cng"}`).body)
		if literal(put["energy"]) != `"cng"` || literal(put["unit"]) != `"kg"` {
			t.Errorf("PUT energy cng: %s %s", literal(put["energy"]), literal(put["unit"]))
		}
		if got := object(t, s.must(200, "GET", "/api/refuels/"+id, "").body); literal(got["energy"]) != `"cng"` {
			t.Errorf("GET after PUT: %s", literal(got["energy"]))
		}
		// An omitted energy leaves it alone; null resets it to the default
		// of the record's vehicle, the new one when the same PUT moves it.
		if got := object(t, s.must(200, "PUT", "/api/refuels/"+id, `{"remark":"x"}`).body); literal(got["energy"]) != `"cng"` {
			t.Errorf("PUT without energy changed it: %s", literal(got["energy"]))
		}
		if got := object(t, s.must(200, "PUT", "/api/refuels/"+id, `{"energy":null}`).body); literal(got["energy"]) != `"electricity"` {
			t.Errorf("PUT energy null on an electric vehicle's record: %s", literal(got["energy"]))
		}
		got := object(t, s.must(200, "PUT", "/api/refuels/"+id, `{"energy":null,"vehicle_id":`+vehicles["diesel"]+`}`).body)
		if literal(got["energy"]) != `"diesel"` || literal(got["vehicle_id"]) != vehicles["diesel"] {
			t.Errorf("PUT energy null with a new diesel vehicle: %s %s", literal(got["energy"]), literal(got["vehicle_id"]))
		}
		// unit is read-only: sent, it is ignored.
		if got := refuel(vehicles["gasoline"], `,"unit":"kWh"`); literal(got["unit"]) != `"l"` {
			t.Errorf("unit sent by the client was taken: %s", literal(got["unit"]))
		}

		base := `{"vehicle_id":` + vehicles["gasoline"] + `,"refuel_time":"2026-03-01T08:00:00Z","odometer":100,"fuel_type":"E10","liters":10,"total_amount":3`
		for _, bad := range []string{`"petrol"`, `""`, `"Gasoline"`, `1`, `true`} {
			errorBody(t, s.do("POST", "/api/refuels", base+`,"energy":`+bad+`}`), 400, "INVALID_ARGUMENT", "energy")
			errorBody(t, s.do("PUT", "/api/refuels/"+id, `{"energy":`+bad+`}`), 400, "INVALID_ARGUMENT", "energy")
		}
		// A record without energy for a vehicle that does not exist names
		// the vehicle, not the energy.
		errorBody(t, s.do("POST", "/api/refuels", `{"vehicle_id":987654,"refuel_time":"2026-03-01T08:00:00Z","odometer":1,"fuel_type":"E10","liters":1,"total_amount":1}`),
			400, "INVALID_ARGUMENT", "vehicle_id")
		errorBody(t, s.do("PUT", "/api/refuels/"+id, `{"energy":null,"vehicle_id":987654}`), 400, "INVALID_ARGUMENT", "vehicle_id")
	})
}

// TestStatisticsByEnergy: the plug-in hybrid of proto-docs/fuel-decisions.md through
// the API on both databases, every field of the answer compared.
func TestStatisticsByEnergy(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *server) {
		vid := s.mustVehicle(`{"name":"Outlander","fuel_type":"plug_in_hybrid"}`)
		var last string
		for i, r := range []struct{ energy, odo, qty, amount, full string }{
			{"gasoline", "10000", "40", "68", "true"},
			{"electricity", "10050", "10", "3", "true"},
			{"electricity", "10120", "8", "2.4", "true"},
			{"electricity", "10300", "12", "4.2", "true"},
			{"gasoline", "10600", "30", "54", "true"},
			{"electricity", "10650", "5", "1.5", "false"},
			{"electricity", "10700", "9", "2.7", "true"},
		} {
			last = s.mustRefuel(fmt.Sprintf(`{"vehicle_id":%s,"refuel_time":"2026-03-%02dT08:00:00Z","odometer":%s,"fuel_type":"x","energy":%q,"liters":%s,"total_amount":%s,"is_full":%s}`,
				vid, i+1, r.odo, r.energy, r.qty, r.amount, r.full))
		}
		lastBody := s.must(200, "GET", "/api/refuels/"+last, "").body
		got := string(s.must(200, "GET", "/api/vehicles/"+vid+"/statistics", "").body)
		want := `{"vehicle_id":` + vid + `,"total_records":7,"total_liters":70,"total_amount":135.8,"avg_price":1.75,"avg_consumption":5,"cost_per_km":0.09,` +
			`"last_refuel":` + string(lastBody) + `,"total_distance":700,"weighted_consumption":5,"weighted_cost_per_km":0.09,"consumption_samples":1,` +
			`"first_refuel_time":"2026-03-01T08:00:00Z","last_refuel_time":"2026-03-07T08:00:00Z","main_energy":"gasoline","by_energy":[` +
			`{"energy":"electricity","unit":"kWh","total_records":5,"total_quantity":44,"total_amount":13.8,"avg_price":0.31,"avg_consumption":7.1984,"weighted_consumption":5.2308,"cost_per_km":0.0227,"weighted_cost_per_km":0.0166,"consumption_samples":3,"sampled_distance":650},` +
			`{"energy":"gasoline","unit":"l","total_records":2,"total_quantity":70,"total_amount":122,"avg_price":1.75,"avg_consumption":5,"weighted_consumption":5,"cost_per_km":0.09,"weighted_cost_per_km":0.09,"consumption_samples":1,"sampled_distance":600}],` +
			// 54 / 600 km + 10.80 / 650 km = 0.09 + 0.0166153… = 0.1066153…
			`"sampled_distance":600,"combined_cost_per_km":0.1066,` +
			`"expenses_amount":0,"expenses_by_category":[],"total_cost":135.8,"total_cost_per_km":0.194}`
		if got != want {
			t.Errorf("statistics\n got %s\nwant %s", got, want)
		}
	})
}

// TestMonthlyEnergyAndZone: ?energy= picks the series, ?tz= the owner's
// calendar months; bad values are 400s naming the parameter.
func TestMonthlyEnergyAndZone(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *server) {
		vid := s.mustVehicle(`{"name":"Outlander","fuel_type":"plug_in_hybrid"}`)
		for _, r := range []struct{ at, energy, odo, qty, amount string }{
			{"2024-02-10T08:00:00Z", "gasoline", "1000", "40", "68"},
			{"2024-02-12T08:00:00Z", "electricity", "1050", "10", "3"},
			{"2024-03-01T07:00:00+08:00", "electricity", "1100", "8", "2.4"}, // February in UTC
			{"2024-03-20T08:00:00Z", "gasoline", "1600", "30", "54"},
		} {
			s.mustRefuel(fmt.Sprintf(`{"vehicle_id":%s,"refuel_time":%q,"odometer":%s,"fuel_type":"x","energy":%q,"liters":%s,"total_amount":%s,"is_full":true}`,
				vid, r.at, r.odo, r.energy, r.qty, r.amount))
		}
		path := "/api/vehicles/" + vid + "/statistics/monthly"
		for _, tc := range []struct{ query, want string }{
			{"", `[{"month":"2024-02","energy":"gasoline","unit":"l","records":1,"liters":40,"amount":68,"avg_price":1.7,"distance":0,"consumption":0,"expenses_amount":0},` +
				`{"month":"2024-03","energy":"gasoline","unit":"l","records":1,"liters":30,"amount":54,"avg_price":1.8,"distance":600,"consumption":5,"expenses_amount":0}]`},
			{"?energy=electricity", `[{"month":"2024-02","energy":"electricity","unit":"kWh","records":2,"liters":18,"amount":5.4,"avg_price":0.3,"distance":50,"consumption":16,"expenses_amount":0}]`},
			{"?energy=electricity&tz=" + url.QueryEscape("Asia/Shanghai"),
				`[{"month":"2024-02","energy":"electricity","unit":"kWh","records":1,"liters":10,"amount":3,"avg_price":0.3,"distance":0,"consumption":0,"expenses_amount":0},` +
					`{"month":"2024-03","energy":"electricity","unit":"kWh","records":1,"liters":8,"amount":2.4,"avg_price":0.3,"distance":50,"consumption":16,"expenses_amount":0}]`},
			{"?energy=hydrogen", `[]`},
		} {
			if got := string(s.must(200, "GET", path+tc.query, "").body); got != tc.want {
				t.Errorf("%s\n got %s\nwant %s", tc.query, got, tc.want)
			}
		}
		for _, bad := range []string{"?tz=Mars/Olympus", "?tz=", "?tz=Local", "?tz=UTC&tz=UTC", "?tz=" + url.QueryEscape("../../etc/passwd")} {
			errorBody(t, s.do("GET", path+bad, ""), 400, "INVALID_ARGUMENT", "tz")
		}
		for _, bad := range []string{"?energy=petrol", "?energy=", "?energy=lpg&energy=cng"} {
			errorBody(t, s.do("GET", path+bad, ""), 400, "INVALID_ARGUMENT", "energy")
		}
	})
}

// TestImportEnergyAndZone: an import takes the vehicle's default energy
// for rows without one, reads zone-less dates in tz, and refuses an
// unknown tz naming it.
func TestImportEnergyAndZone(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *server) {
		vid := s.mustVehicle(`{"name":"Zoe","fuel_type":"electric"}`)
		file := []byte("Date,Odometer,FuelConsumed,Cost,IsFillToFull,MissedFuelUp,Notes\r\n3/1/2024 07:00,1000,41.5,12.45,true,false,home\r\n")
		errorBody(t, s.upload(vid, "tz=Mars%2FOlympus", file), 400, "INVALID_ARGUMENT", "tz")
		errorBody(t, s.upload(vid, "tz=", file), 400, "INVALID_ARGUMENT", "tz")
		if res := s.upload(vid, "tz=Asia%2FShanghai", file); res.status != 200 {
			t.Fatalf("import: %d %s", res.status, res.body)
		}
		got := array(t, s.must(200, "GET", "/api/refuels?vehicle_id="+vid, "").body)
		if len(got) != 1 {
			t.Fatalf("%d records", len(got))
		}
		r := got[0]
		if have := literal(r["refuel_time"]) + " " + literal(r["energy"]) + " " + literal(r["unit"]) + " " + literal(r["liters"]); have != `"2024-02-29T23:00:00Z" "electricity" "kWh" 41.5` {
			t.Errorf("imported record: %s", have)
		}
	})
}
