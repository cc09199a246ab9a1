package main

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/carhub/backend/pkg/caddytest"
)

// TestEnergiesThroughCaddy drives the energy features through the real
// gateway in front of the whole service (embedded SQLite): a refuel's
// energy and unit, the per-energy statistics, the monthly series with
// energy and tz, and an import with tz.
func TestEnergiesThroughCaddy(t *testing.T) {
	svc := MustRun(t, map[string]string{"FUEL_SQLITE_PATH": filepath.Join(t.TempDir(), "fuel.db")})
	gw := caddytest.Start(t,
		"FUEL_UPSTREAM="+strings.TrimPrefix(svc, "http://"),
		"DOCQA_UPSTREAM=127.0.0.1:1", // not used here
		"WEB_ROOT="+t.TempDir(),
	)
	call := func(method, path, ctype string, body io.Reader, want int) []byte {
		t.Helper()
		// Caddy's active health check may keep a new upstream out for a moment.
		deadline := time.Now().Add(20 * time.Second)
		var raw []byte
		if body != nil {
			raw, _ = io.ReadAll(body)
		}
		for {
			req, _ := http.NewRequest(method, gw+path, bytes.NewReader(raw))
			if ctype != "" {
				req.Header.Set("Content-Type", ctype)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode == http.StatusBadGateway || res.StatusCode == http.StatusServiceUnavailable {
				if time.Now().Before(deadline) {
					time.Sleep(200 * time.Millisecond)
					continue
				}
			}
			if res.StatusCode != want {
				t.Fatalf("%s %s: %d, want %d: %s", method, path, res.StatusCode, want, b)
			}
			return b
		}
	}
	field := func(b []byte, k string) string {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		return string(m[k])
	}
	jsonType := "application/json"
	vid := field(call("POST", "/api/vehicles", jsonType, strings.NewReader(`{"name":"Ioniq","fuel_type":"plug_in_hybrid"}`), 200), "id")
	charge := call("POST", "/api/refuels", jsonType, strings.NewReader(`{"vehicle_id":`+vid+
		`,"refuel_time":"2024-03-01T07:00:00+08:00","odometer":1000,"fuel_type":"AC","energy":"electricity","liters":10,"total_amount":3,"is_full":true}`), 200)
	if field(charge, "energy") != `"electricity"` || field(charge, "unit") != `"kWh"` {
		t.Errorf("charge answer %s", charge)
	}
	tank := call("POST", "/api/refuels", jsonType, strings.NewReader(`{"vehicle_id":`+vid+
		`,"refuel_time":"2024-03-02T08:00:00Z","odometer":1050,"fuel_type":"E10","liters":40,"total_amount":68,"is_full":true}`), 200)
	if field(tank, "energy") != `"gasoline"` || field(tank, "unit") != `"l"` {
		t.Errorf("default energy through Caddy: %s", tank)
	}
	stats := call("GET", "/api/vehicles/"+vid+"/statistics", "", nil, 200)
	if got := field(stats, "main_energy") + " " + field(stats, "total_liters") + " " + field(stats, "total_amount"); got != `"gasoline" 40 71` {
		t.Errorf("statistics main/liters/amount: %s (%s)", got, stats)
	}
	if got := field(stats, "by_energy"); !strings.Contains(got, `"energy":"electricity","unit":"kWh","total_records":1,"total_quantity":10`) {
		t.Errorf("by_energy %s", got)
	}
	monthly := string(call("GET", "/api/vehicles/"+vid+"/statistics/monthly?energy=electricity&tz="+url.QueryEscape("Asia/Shanghai"), "", nil, 200))
	if !strings.HasPrefix(monthly, `[{"month":"2024-03","energy":"electricity","unit":"kWh","records":1,`) {
		t.Errorf("monthly in Shanghai: %s", monthly)
	}
	if utc := string(call("GET", "/api/vehicles/"+vid+"/statistics/monthly?energy=electricity", "", nil, 200)); !strings.HasPrefix(utc, `[{"month":"2024-02",`) {
		t.Errorf("monthly in UTC: %s", utc)
	}
	bad := call("GET", "/api/vehicles/"+vid+"/statistics/monthly?tz=Nowhere%2FLand", "", nil, 400)
	if !strings.Contains(string(bad), `"message":"tz: `) {
		t.Errorf("unknown tz: %s", bad)
	}

	// A metric Fuelly file with zone-less dates, read in the owner's zone.
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	fw, _ := mw.CreateFormFile("file", "fuelly.csv")
	io.WriteString(fw, "car_name,model,l/100km,odometer,km,litres,price,city_percentage,fuelup_date,date_added,tags,notes,missed_fuelup,partial_fuelup,latitude,longitude,brand\n"+
		"Ioniq,Ioniq,5.1,1600,550,28.05,1.75,50,2024-03-10 07:30,2024-03-10,,,0,0,,,Shell\n")
	mw.Close()
	imp := call("POST", "/api/vehicles/"+vid+"/refuels/import?tz="+url.QueryEscape("Europe/Berlin"), mw.FormDataContentType(), &form, 200)
	if string(imp) != `{"imported":1,"skipped":0,"rows":1,"dry_run":false,"encoding":"utf-8"}` {
		t.Errorf("import %s", imp)
	}
	list := string(call("GET", "/api/refuels?vehicle_id="+vid+"&limit=1", "", nil, 200))
	for _, want := range []string{`"refuel_time":"2024-03-10T06:30:00Z"`, `"odometer":1600`, `"energy":"gasoline"`, `"liters":28.05`, `"total_amount":49.088`} {
		if !strings.Contains(list, want) {
			t.Errorf("imported record lacks %s: %s", want, list)
		}
	}
}
