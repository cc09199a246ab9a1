package httpapi_test

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"slices"
	"testing"
)

// zoneInstants are refuel and expense times (UTC) around the owner's
// day: 08:00 in Berlin, and the hours on both sides of Europe's and
// America's DST changes of 2026.
var zoneInstants = []string{
	"2026-03-08T06:30:00Z", // 01:30 EST, before New York's spring change
	"2026-03-08T07:30:00Z", // 03:30 EDT, after it
	"2026-03-29T00:30:00Z", // 01:30 CET, before Berlin's spring change
	"2026-03-29T01:30:00Z", // 03:30 CEST, after it
	"2026-10-05T06:00:00Z", // 08:00 CEST
	"2026-10-25T00:30:00Z", // 02:30 CEST, Berlin's hour that comes twice
	"2026-10-25T01:30:00.5Z",
}

// csvColumn is the column name of a CSV export, the header's row dropped.
func csvColumn(tb testing.TB, file []byte, name string) []string {
	tb.Helper()
	recs, err := csv.NewReader(bytes.NewReader(file)).ReadAll()
	if err != nil {
		tb.Fatalf("export is not CSV: %v", err)
	}
	i := slices.Index(recs[0], name)
	if i < 0 {
		tb.Fatalf("no column %s in %q", name, recs[0])
	}
	var out []string
	for _, rec := range recs[1:] {
		out = append(out, rec[i])
	}
	return out
}

// TestExportsWriteTheOwnersZone: both CSV exports write their times as
// the wall clock of the owner's time_zone preference with its offset (tz
// overrides it; none is UTC with Z), and importing the file, read in yet
// another zone, stores exactly the instants exported, on both sides of a
// DST change, east and west of UTC.
func TestExportsWriteTheOwnersZone(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *server) {
		from := s.mustVehicle(`{"name":"Golf","fuel_type":"diesel"}`)
		for i, at := range zoneInstants {
			s.mustRefuel(fmt.Sprintf(`{"vehicle_id":%s,"refuel_time":%q,"odometer":%d,"fuel_type":"B7","liters":40,"total_amount":60,"is_full":true}`, from, at, 1000+100*i))
			s.must(200, "POST", "/api/expenses", fmt.Sprintf(`{"vehicle_id":%s,"time":%q,"category":"toll","title":"A%d","amount":12.5}`, from, at, i))
		}
		wantTimes := func(path, field string) []string {
			var out []string
			for _, r := range array(t, s.must(200, "GET", path, "").body) {
				out = append(out, r[field].(string))
			}
			slices.Reverse(out) // the lists are newest first, the files oldest first
			return out
		}
		refuelTimes := wantTimes("/api/refuels?vehicle_id="+from, "refuel_time")
		expenseTimes := wantTimes("/api/expenses?vehicle_id="+from, "time")
		if !slices.Equal(refuelTimes, zoneInstants) || !slices.Equal(expenseTimes, zoneInstants) {
			t.Fatalf("stored times %q and %q, want %q", refuelTimes, expenseTimes, zoneInstants)
		}
		for _, tc := range []struct {
			name, preference, query string
			want                    []string
		}{
			{"no preference", "null", "", zoneInstants},
			{"Berlin", `"Europe/Berlin"`, "", []string{
				"2026-03-08T07:30:00+01:00", "2026-03-08T08:30:00+01:00", "2026-03-29T01:30:00+01:00", "2026-03-29T03:30:00+02:00",
				"2026-10-05T08:00:00+02:00", "2026-10-25T02:30:00+02:00", "2026-10-25T02:30:00.5+01:00"}},
			{"New York", `"America/New_York"`, "", []string{
				"2026-03-08T01:30:00-05:00", "2026-03-08T03:30:00-04:00", "2026-03-28T20:30:00-04:00", "2026-03-28T21:30:00-04:00",
				"2026-10-05T02:00:00-04:00", "2026-10-24T20:30:00-04:00", "2026-10-24T21:30:00.5-04:00"}},
			{"tz over the preference", `"Europe/Berlin"`, "?tz=Asia/Kolkata", []string{
				"2026-03-08T12:00:00+05:30", "2026-03-08T13:00:00+05:30", "2026-03-29T06:00:00+05:30", "2026-03-29T07:00:00+05:30",
				"2026-10-05T11:30:00+05:30", "2026-10-25T06:00:00+05:30", "2026-10-25T07:00:00.5+05:30"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				s.must(200, "PUT", "/api/preferences", `{"time_zone":`+tc.preference+`}`)
				refuels := s.must(200, "GET", "/api/vehicles/"+from+"/refuels.csv"+tc.query, "").body
				expenses := s.must(200, "GET", "/api/vehicles/"+from+"/expenses.csv"+tc.query, "").body
				for _, c := range []struct {
					file          []byte
					column, label string
				}{{refuels, "refuel_time", "refuels"}, {expenses, "time", "expenses"}} {
					if got := csvColumn(t, c.file, c.column); !slices.Equal(got, tc.want) {
						t.Errorf("%s: %s\n %q\nwant %q", c.label, c.column, got, tc.want)
					}
				}
				// Imported in a zone of its own, the file gives back the
				// instants it was written from.
				into := s.mustVehicle(`{"name":"Copy","fuel_type":"diesel"}`)
				if res := s.upload(into, "tz=Asia/Tokyo", refuels); res.status != 200 {
					t.Fatalf("refuel import: %d %s", res.status, res.body)
				}
				if res := s.uploadExpenses(into, "tz=Asia/Tokyo", expenses); res.status != 200 {
					t.Fatalf("expense import: %d %s", res.status, res.body)
				}
				if got := wantTimes("/api/refuels?vehicle_id="+into, "refuel_time"); !slices.Equal(got, zoneInstants) {
					t.Errorf("refuels imported at %q, want %q", got, zoneInstants)
				}
				if got := wantTimes("/api/expenses?vehicle_id="+into, "time"); !slices.Equal(got, zoneInstants) {
					t.Errorf("expenses imported at %q, want %q", got, zoneInstants)
				}
			})
		}
		for _, what := range []string{"refuels", "expenses"} {
			errorBody(t, s.do("GET", "/api/vehicles/"+from+"/"+what+".csv?tz=Europe/Atlantis", ""), 400, "INVALID_ARGUMENT", "tz")
			errorBody(t, s.do("GET", "/api/vehicles/"+from+"/"+what+".csv?tz=Local&spreadsheet=maybe", ""), 400, "INVALID_ARGUMENT", "spreadsheet")
		}
	})
}
