package httpapi_test

import (
	"bytes"
	"mime/multipart"
	"os"
	"strings"
	"testing"
)

// uploadExpenses posts file to the expense import of vehicle vid.
func (s *server) uploadExpenses(vid, query string, file []byte, header ...string) response {
	s.tb.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	part, err := mw.CreateFormFile("file", "expenses.csv")
	if err != nil {
		s.tb.Fatal(err)
	}
	if _, err := part.Write(file); err != nil {
		s.tb.Fatal(err)
	}
	if err := mw.Close(); err != nil {
		s.tb.Fatal(err)
	}
	path := "/api/vehicles/" + vid + "/expenses/import"
	if query != "" {
		path += "?" + query
	}
	return s.postForm(path, mw.FormDataContentType(), &body, header...)
}

// listed is the expenses of vehicle vid without their ids, vehicle and
// timestamps: what an export and an import must keep.
func (s *server) listed(vid string) []string {
	s.tb.Helper()
	var out []string
	for _, e := range array(s.tb, s.must(200, "GET", "/api/expenses?vehicle_id="+vid, "").body) {
		delete(e, "id")
		delete(e, "vehicle_id")
		delete(e, "created_at")
		delete(e, "updated_at")
		out = append(out, literal(e))
	}
	return out
}

func TestExpenseCSVRoundTrip(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *server) {
		from := s.mustVehicle(`{"name":"Golf","fuel_type":"diesel"}`)
		into := s.mustVehicle(`{"name":"Polo","fuel_type":"diesel"}`)
		s.must(200, "POST", "/api/expenses", serviceBody(from))
		s.must(200, "POST", "/api/expenses", `{"vehicle_id":`+from+`,"time":"2026-02-01T08:00:00Z","category":"toll","title":"=1+1","amount":12.4,"notes":"line\nbreak, \"quoted\""}`)

		for _, spreadsheet := range []string{"", "?spreadsheet=true"} {
			res := s.must(200, "GET", "/api/vehicles/"+from+"/expenses.csv"+spreadsheet, "")
			if ct := res.header.Get("Content-Type"); ct != "text/csv; charset=utf-8" {
				t.Errorf("Content-Type %q", ct)
			}
			bom := map[string]string{"": "", "?spreadsheet=true": "\ufeff"}[spreadsheet]
			if !strings.HasPrefix(string(res.body), bom+"id,vehicle_id,time,odometer_km,category,title,amount,vendor,notes,items,tags,created_at,updated_at\r\n") {
				t.Errorf("export %q starts %q", spreadsheet, string(res.body[:min(80, len(res.body))]))
			}
			// A dry run stores nothing; the import then stores both, and a
			// second import skips them as equal.
			got := object(t, s.uploadExpenses(into, "dry_run=true", res.body).body)
			if literal(got["imported"]) != "2" || literal(got["dry_run"]) != "true" || got["format"] != "native" {
				t.Errorf("dry run: %v", got)
			}
			if n := len(s.listed(into)); n != 0 {
				t.Fatalf("dry run stored %d", n)
			}
			got = object(t, s.uploadExpenses(into, "", res.body).body)
			if literal(got["imported"]) != "2" || literal(got["skipped"]) != "0" {
				t.Errorf("import: %v", got)
			}
			if a, b := s.listed(from), s.listed(into); strings.Join(a, "\n") != strings.Join(b, "\n") {
				t.Errorf("imported\n%s\nwant\n%s", strings.Join(b, "\n"), strings.Join(a, "\n"))
			}
			got = object(t, s.uploadExpenses(into, "", res.body).body)
			if literal(got["imported"]) != "0" || literal(got["skipped"]) != "2" {
				t.Errorf("second import: %v", got)
			}
			for _, e := range array(t, s.must(200, "GET", "/api/expenses?vehicle_id="+into, "").body) {
				s.must(204, "DELETE", "/api/expenses/"+literal(e["id"]), "")
			}
		}
	})
}

func TestExpenseImportAllOrNothing(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *server) {
		vid := s.mustVehicle(`{"name":"Golf","fuel_type":"diesel"}`)
		file := "time,category,title,amount\r\n2026-01-01T00:00:00Z,service,Oil,10\r\n2026-01-02T00:00:00Z,fuel,Gas,5\r\n"
		res := s.uploadExpenses(vid, "", []byte(file))
		errorBody(t, res, 400, "INVALID_ARGUMENT", "file")
		body := object(t, res.body)
		if literal(body["bad_rows"]) != "1" || literal(body["rows"]) != "2" || !strings.Contains(literal(body["errors"]), `"row":3`) {
			t.Errorf("answer %s", res.body)
		}
		if n := len(s.listed(vid)); n != 0 {
			t.Errorf("%d stored by a refused import", n)
		}
		// Every bad option named in one answer.
		errorBody(t, s.uploadExpenses(vid, "record_type=oil&date_format=x&distance_unit=ly&dry_run=maybe", []byte(file)), 400, "INVALID_ARGUMENT", "record_type")
		res = s.uploadExpenses(vid, "record_type=oil&date_format=x&distance_unit=ly&dry_run=maybe", []byte(file))
		for _, f := range []string{"date_format:", "distance_unit:", "dry_run:"} {
			if !strings.Contains(string(res.body), f) {
				t.Errorf("%s not named in %s", f, res.body)
			}
		}
		errorBody(t, s.uploadExpenses("999", "", []byte(file)), 404, "NOT_FOUND", "")
	})
}

func TestExpenseImportOfOtherApps(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *server) {
		vid := s.mustVehicle(`{"name":"Golf","fuel_type":"diesel"}`)
		lube, err := os.ReadFile("../expensecsv/testdata/lubelogger-service.csv")
		if err != nil {
			t.Fatal(err)
		}
		errorBody(t, s.uploadExpenses(vid, "", lube), 400, "INVALID_ARGUMENT", "record_type")
		res := object(t, s.uploadExpenses(vid, "record_type=service&tz=Europe/Berlin", lube).body)
		if res["format"] != "lubelogger" || literal(res["imported"]) != "2" {
			t.Errorf("LubeLogger import: %v", res)
		}
		fuelio, err := os.ReadFile("../expensecsv/testdata/fuelio-backup.csv")
		if err != nil {
			t.Fatal(err)
		}
		res = object(t, s.uploadExpenses(vid, "tz=Europe/Berlin", fuelio).body)
		if res["format"] != "fuelio" || literal(res["imported"]) != "3" || literal(res["ignored"]) != "2" {
			t.Errorf("Fuelio import: %v", res)
		}
		titles := []string{}
		for _, e := range array(t, s.must(200, "GET", "/api/expenses?vehicle_id="+vid, "").body) {
			titles = append(titles, e["title"].(string)+"@"+e["time"].(string))
		}
		want := "Rent@2024-03-31T21:30:00Z Brake pads@2024-03-01T23:00:00Z Tolls@2024-03-01T08:00:00Z Inspection@2024-02-08T13:57:00Z Oil Change@2024-01-14T23:00:00Z"
		if strings.Join(titles, " ") != want {
			t.Errorf("titles %v\nwant %s", titles, want)
		}
	})
}

func TestExpenseCSVOfOtherUsers(t *testing.T) {
	forEachAuthDialect(t, 0, func(t *testing.T, s *server) {
		root := s.session("root")
		ids, tokens := map[string]string{}, map[string]string{}
		for _, name := range []string{"viv", "out"} {
			ids[name], tokens[name] = s.newUser(name)
		}
		vid := literal(object(t, s.as(root, "POST", "/api/vehicles", `{"name":"Family car","fuel_type":"diesel"}`).body)["id"])
		wantStatus(t, "share", s.as(root, "PUT", "/api/vehicles/"+vid+"/members/"+ids["viv"], `{"role":"viewer"}`), 200, "")
		file := []byte("time,category,title,amount\r\n2026-01-01T00:00:00Z,service,Oil,10\r\n")
		viv, out := tokens["viv"], tokens["out"]
		c := *s
		c.token = viv
		wantStatus(t, "viewer imports", c.uploadExpenses(vid, "", file), 403, "FORBIDDEN")
		wantStatus(t, "viewer exports", s.as(viv, "GET", "/api/vehicles/"+vid+"/expenses.csv", ""), 200, "")
		c.token = out
		wantStatus(t, "outsider imports", c.uploadExpenses(vid, "", file), 404, "NOT_FOUND")
		wantStatus(t, "outsider exports", s.as(out, "GET", "/api/vehicles/"+vid+"/expenses.csv", ""), 404, "NOT_FOUND")
	})
}
