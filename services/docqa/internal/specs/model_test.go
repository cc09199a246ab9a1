package specs

import (
	"encoding/json"
	"testing"
)

func TestFromModel(t *testing.T) {
	pages := []Page{
		{Number: 2, Label: "2-1", Text: "Engine oil SAE 0W-30, ACEA C2 4,3 l\nMaximum torque 250 Nm"},
		{Number: 3, Text: "Front 2.3 bar / 33 psi 2.5 bar / 36 psi\nRear 2.1 bar / 30 psi 2.9 bar / 42 psi"},
	}
	raw := `{"items": [
	 {"key": "engine_oil_capacity", "value": "4,3 l", "quantity": "4,3", "unit": "l", "page": 2, "quote": "the oil holds 4,3 l"},
	 {"key": "engine_oil_grade", "value": "SAE 0W-30", "quantity": null, "unit": "", "page": 2, "quote": "Engine oil SAE 0W-30, ACEA C2 4,3 l"},
	 {"key": "tyre_pressure_front", "value": "2.3 bar", "quantity": "2.3", "unit": "bar", "page": 3, "quote": ""},
	 {"key": "tyre_pressure_front", "value": "33 psi", "quantity": "33", "unit": "psi", "page": 3, "quote": ""},
	 {"key": "tyre_pressure_rear", "value": "2.1 bar", "quantity": "2.1", "unit": "bar", "page": 3, "quote": ""},
	 {"key": "tyre_pressure_rear", "value": "2.1 bar", "quantity": "2.10", "unit": "bar", "page": 3, "quote": ""},
	 {"key": "tyre_pressure_rear_full_load", "value": "2.9 bar", "quantity": "2.9", "unit": "bar", "page": 2, "quote": ""},
	 {"key": "wheel_bolt_torque", "value": "250 Nm", "quantity": "two hundred", "unit": "Nm", "page": 2, "quote": ""},
	 {"key": "battery", "value": "60 Ah", "quantity": "60", "unit": "Ah", "page": 5, "quote": ""}
	]}`
	items, dropped, err := FromModel([]byte(raw), pages)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(items)
	// The front answered in bar and in psi is two readings: left out. The
	// rear's 2.10 is 2.1. 2.9 bar is on page 3, not 2; "two hundred" is no
	// decimal; page 5 was not read.
	want := `[{"key":"engine_oil_grade","value":"SAE 0W-30","quantity":null,"unit":"","page":2,"pageLabel":"2-1","quote":"Engine oil SAE 0W-30, ACEA C2 4,3 l"},` +
		`{"key":"engine_oil_capacity","value":"4,3 l","quantity":"4.3","unit":"l","page":2,"pageLabel":"2-1","quote":"Engine oil SAE 0W-30, ACEA C2 4,3 l"},` +
		`{"key":"tyre_pressure_rear","value":"2.1 bar","quantity":"2.1","unit":"bar","page":3,"quote":"Rear 2.1 bar / 30 psi 2.9 bar / 42 psi"}]`
	if string(got) != want {
		t.Errorf("items\n%s\nwant\n%s", got, want)
	}
	if dropped != 3 {
		t.Errorf("dropped %d, want 3", dropped)
	}
	for _, bad := range []string{`{`, `{"specs": []}`, `[]`} {
		if _, _, err := FromModel([]byte(bad), pages); err == nil {
			t.Errorf("FromModel(%s) read", bad)
		}
	}
}
