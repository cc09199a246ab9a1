package httpapi_test

import (
	"fmt"
	"strings"
	"testing"
)

// Three documents' fileMd5 as docqa names them.
const (
	md5A = "0123456789abcdef0123456789abcdef"
	md5B = "fedcba9876543210fedcba9876543210"
	md5C = "00000000000000000000000000000001"
)

// TestVehicleManuals: a vehicle keeps its manuals' links in the owner's
// order through create, read, list and a patch; an absent member leaves
// them alone and null clears them.
func TestVehicleManuals(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *server) {
		vid := s.mustVehicle(`{"name":"Golf","fuel_type":"gasoline","manual_md5s":["` + md5B + `","` + md5A + `"]}`)
		want := `["` + md5B + `","` + md5A + `"]`
		if got := literal(object(t, s.must(200, "GET", "/api/vehicles/"+vid, "").body)["manual_md5s"]); got != want {
			t.Fatalf("read manual_md5s %s, want %s", got, want)
		}
		if l := array(t, s.must(200, "GET", "/api/vehicles", "").body); len(l) != 1 || literal(l[0]["manual_md5s"]) != want {
			t.Fatalf("list %v", l)
		}
		// A patch of another field keeps them.
		res := object(t, s.must(200, "PUT", "/api/vehicles/"+vid, `{"name":"Golf 8"}`).body)
		if got := literal(res["manual_md5s"]); got != want {
			t.Fatalf("after a rename: %s, want %s", got, want)
		}
		// A new list replaces the old, in its own order.
		want = `["` + md5C + `","` + md5B + `"]`
		res = object(t, s.must(200, "PUT", "/api/vehicles/"+vid, `{"manual_md5s":["`+md5C+`","`+md5B+`"]}`).body)
		if got := literal(res["manual_md5s"]); got != want {
			t.Fatalf("after a change: %s, want %s", got, want)
		}
		if got := literal(object(t, s.must(200, "GET", "/api/vehicles/"+vid, "").body)["manual_md5s"]); got != want {
			t.Fatalf("read back %s, want %s", got, want)
		}
		for _, body := range []string{`{"manual_md5s":null}`, `{"manual_md5s":[]}`} {
			s.must(200, "PUT", "/api/vehicles/"+vid, `{"manual_md5s":["`+md5A+`"]}`)
			res = object(t, s.must(200, "PUT", "/api/vehicles/"+vid, body).body)
			if got := literal(res["manual_md5s"]); got != `[]` {
				t.Fatalf("%s: %s, want []", body, got)
			}
		}
		// Without the member a new vehicle has none: [] rather than null.
		other := object(t, s.must(200, "POST", "/api/vehicles", `{"name":"Van","fuel_type":"diesel"}`).body)
		if got := literal(other["manual_md5s"]); got != `[]` {
			t.Fatalf("new vehicle manual_md5s %s, want []", got)
		}
	})
}

// TestVehicleManualsInvalid: every bad link is named by its index, with the
// other bad fields of the body, and nothing is stored.
func TestVehicleManualsInvalid(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *server) {
		vid := s.mustVehicle(`{"name":"Golf","fuel_type":"gasoline","manual_md5s":["` + md5A + `"]}`)
		tooMany := make([]string, 21)
		for i := range tooMany {
			tooMany[i] = fmt.Sprintf(`"%032x"`, i)
		}
		for _, c := range []struct {
			body  string
			field string
			also  []string
		}{
			{`{"manual_md5s":"` + md5A + `"}`, "manual_md5s", nil},
			{`{"manual_md5s":[1]}`, "manual_md5s", nil},
			{`{"manual_md5s":{}}`, "manual_md5s", nil},
			{`{"manual_md5s":["` + strings.ToUpper(md5A) + `"]}`, "manual_md5s[0]", nil},
			{`{"manual_md5s":["` + md5A + `","abc","` + md5A + `"]}`, "manual_md5s[1]", []string{"manual_md5s[2]: repeats manual_md5s[0]"}},
			{`{"manual_md5s":[` + strings.Join(tooMany, ",") + `]}`, "manual_md5s", []string{"at most 20 manuals (got 21)"}},
			{`{"name":" ","manual_md5s":["x"]}`, "name", []string{"manual_md5s[0]:"}},
		} {
			res := s.do("PUT", "/api/vehicles/"+vid, c.body)
			errorBody(t, res, 400, "INVALID_ARGUMENT", c.field)
			for _, part := range c.also {
				if !strings.Contains(string(res.body), part) {
					t.Errorf("%s: error %s lacks %q", c.body, res.body, part)
				}
			}
			errorBody(t, s.do("POST", "/api/vehicles", strings.Replace(c.body, "{", `{"fuel_type":"diesel","name":"N",`, 1)), 400, "INVALID_ARGUMENT", "")
		}
		if got := literal(object(t, s.must(200, "GET", "/api/vehicles/"+vid, "").body)["manual_md5s"]); got != `["`+md5A+`"]` {
			t.Fatalf("refused changes left %s", got)
		}
		if l := array(t, s.must(200, "GET", "/api/vehicles", "").body); len(l) != 1 {
			t.Fatalf("a refused create stored a vehicle: %v", l)
		}
	})
}

// TestVehicleManualsShared: a member reads the owner's links; only the
// owner changes them.
func TestVehicleManualsShared(t *testing.T) {
	forEachAuthDialect(t, 0, func(t *testing.T, s *server) {
		root := s.session("root")
		edID, ed := s.newUser("ed")
		vid := literal(object(t, s.as(root, "POST", "/api/vehicles", `{"name":"Family car","fuel_type":"diesel","manual_md5s":["`+md5A+`"]}`).body)["id"])
		wantStatus(t, "share", s.as(root, "PUT", "/api/vehicles/"+vid+"/members/"+edID, `{"role":"editor"}`), 200, "")
		if got := literal(object(t, s.as(ed, "GET", "/api/vehicles/"+vid, "").body)["manual_md5s"]); got != `["`+md5A+`"]` {
			t.Fatalf("editor reads %s", got)
		}
		wantStatus(t, "editor relinks", s.as(ed, "PUT", "/api/vehicles/"+vid, `{"manual_md5s":["`+md5B+`"]}`), 403, "FORBIDDEN")
		if got := literal(object(t, s.as(root, "GET", "/api/vehicles/"+vid, "").body)["manual_md5s"]); got != `["`+md5A+`"]` {
			t.Fatalf("after the editor's try: %s", got)
		}
	})
}
