package httpapi_test

import (
	"fmt"
	"net/url"
	"testing"
)

// TestMonthlyStatistics checks the monthly series against hand-worked
// values (see the comments), with and without a range.
func TestMonthlyStatistics(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *server) {
		vid := s.mustVehicle(`{"name":"Golf","fuel_type":"diesel"}`)
		for _, r := range []struct {
			at, odo, liters, amount string
			full, missed            bool
		}{
			{"2024-01-10T08:00:00Z", "1000", "40", "60", true, false},       // price 1.5
			{"2024-01-25T08:00:00Z", "1500", "35", "56", true, false},       // 1.6; sample 35 L / 500 km (Jan)
			{"2024-02-05T08:00:00+05:00", "1800", "10", "15", false, false}, // 1.5; 03:00Z, February
			{"2024-02-20T08:00:00Z", "2100", "30", "48", true, false},       // 1.6; sample 40 L / 600 km (Feb)
			{"2024-04-02T00:00:00Z", "2700", "45", "67.5", true, true},      // 1.5; missed: no sample
			{"2024-04-30T23:59:59Z", "3200", "40", "60", true, false},       // 1.5; sample 40 L / 500 km (Apr)
			{"2024-05-01T01:00:00+02:00", "3300", "5", "7.5", false, false}, // 1.5; 2024-04-30T23:00Z: April, before the full one above
		} {
			s.mustRefuel(fmt.Sprintf(`{"vehicle_id":%s,"refuel_time":%q,"odometer":%s,"fuel_type":"B7","liters":%s,"total_amount":%s,"is_full":%t,"missed_previous":%t}`,
				vid, r.at, r.odo, r.liters, r.amount, r.full, r.missed))
		}
		month := func(m, records, liters, amount, price, dist, cons string) string {
			return fmt.Sprintf(`{"month":%q,"energy":"diesel","unit":"l","records":%s,"liters":%s,"amount":%s,"avg_price":%s,"distance":%s,"consumption":%s,"expenses_amount":0}`,
				m, records, liters, amount, price, dist, cons)
		}
		path := "/api/vehicles/" + vid + "/statistics/monthly"
		for _, tc := range []struct {
			name, query string
			want        []string
		}{
			{
				// Jan: 2 records, 75 L, 116, (1.5+1.6)/2, one sample 35/500*100 = 7.
				// Feb: 40 L / 600 km = 6.6667. No March. Apr: 3 records
				// (the +02:00 one is April in UTC, 23:00Z, before the last
				// full record), 90 L, 135, price 1.5, one sample (the missed
				// record gives none): (5+40) L / 500 km = 9.
				"whole history", "",
				[]string{
					month("2024-01", "2", "75", "116", "1.55", "500", "7"),
					month("2024-02", "2", "40", "63", "1.55", "600", "6.6667"),
					month("2024-04", "3", "90", "135", "1.5", "500", "9"),
				},
			},
			{
				// From the second record on: it becomes the reference with no
				// sample, so January has no distance and consumption 0.
				"range starts mid-chain", "?start_date=" + url.QueryEscape("2024-01-25T08:00:00Z"),
				[]string{
					month("2024-01", "1", "35", "56", "1.6", "0", "0"),
					month("2024-02", "2", "40", "63", "1.55", "600", "6.6667"),
					month("2024-04", "3", "90", "135", "1.5", "500", "9"),
				},
			},
			{
				// Up to just before the last full record: April has the
				// missed record and the partial one, and no sample.
				"range ends early", "?end_date=" + url.QueryEscape("2024-04-30T23:59:58Z"),
				[]string{
					month("2024-01", "2", "75", "116", "1.55", "500", "7"),
					month("2024-02", "2", "40", "63", "1.55", "600", "6.6667"),
					month("2024-04", "2", "50", "75", "1.5", "0", "0"),
				},
			},
			{"empty range", "?start_date=2025-01-01T00:00:00Z", nil},
		} {
			t.Run(tc.name, func(t *testing.T) {
				got := string(s.must(200, "GET", path+tc.query, "").body)
				want := "["
				for i, m := range tc.want {
					if i > 0 {
						want += ","
					}
					want += m
				}
				want += "]"
				if got != want {
					t.Errorf("got  %s\nwant %s", got, want)
				}
			})
		}
		errorBody(t, s.do("GET", "/api/vehicles/987654/statistics/monthly", ""), 404, "NOT_FOUND", "")
		errorBody(t, s.do("GET", "/api/vehicles/abc/statistics/monthly", ""), 400, "INVALID_ARGUMENT", "id")
		errorBody(t, s.do("GET", path+"?start_date=2024-01-01", ""), 400, "INVALID_ARGUMENT", "start_date")
		errorBody(t, s.do("GET", path+"?end_date=x", ""), 400, "INVALID_ARGUMENT", "end_date")
		errorBody(t, s.do("GET", path+"?start_date=2024-02-01T00:00:00Z&end_date=2024-01-01T00:00:00Z", ""), 400, "INVALID_ARGUMENT", "start_date")
		errorBody(t, s.do("GET", path+"?start_date=2024-02-01T00:00:00Z&start_date=2024-02-01T00:00:00Z", ""), 400, "INVALID_ARGUMENT", "start_date")
	})
}
