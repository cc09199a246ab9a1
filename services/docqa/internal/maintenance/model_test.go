package maintenance

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestFromModel(t *testing.T) {
	pages := []Page{
		{Number: 4, Label: "4-2", Text: "Engine oil and filter 15.000 12\nBrake fluid - 24"},
		{Number: 6, Text: "Replace the timing belt every 90 000 km\nor 5 years."},
	}
	raw := `{"items": [
	 {"title": " Engine oil and filter ", "every_km": 15000, "every_miles": null, "every_months": 12, "conditions": "", "page": 4, "quote": "Engine oil and filter 15.000 12"},
	 {"title": "Timing belt", "every_km": 90000, "every_miles": null, "every_months": 60, "conditions": "", "page": 6, "quote": "timing belt every 90000 km"},
	 {"title": "engine oil and filter", "every_km": 15000, "every_miles": null, "every_months": 12, "conditions": "", "page": 4, "quote": ""},
	 {"title": "Brake fluid", "every_km": null, "every_miles": null, "every_months": 36, "conditions": "", "page": 4, "quote": ""},
	 {"title": "Brake fluid", "every_km": null, "every_miles": null, "every_months": 24, "conditions": "", "page": 5, "quote": ""},
	 {"title": "Coolant", "every_km": -1, "every_miles": null, "every_months": 24, "conditions": "", "page": 4, "quote": ""},
	 {"title": "Coolant", "every_km": null, "every_miles": null, "every_months": null, "conditions": "", "page": 4, "quote": ""},
	 {"title": "", "every_km": null, "every_miles": null, "every_months": 24, "conditions": "", "page": 4, "quote": ""}
	]}`
	items, dropped, err := FromModel([]byte(raw), pages)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(items)
	want := `[{"title":"Engine oil and filter","every_km":15000,"every_miles":null,"every_months":12,"conditions":"","page":4,"pageLabel":"4-2","quote":"Engine oil and filter 15.000 12"},` +
		`{"title":"Timing belt","every_km":90000,"every_miles":null,"every_months":60,"conditions":"","page":6,"quote":"Replace the timing belt every 90 000 km"}]`
	if string(got) != want {
		t.Errorf("items\n%s\nwant\n%s", got, want)
	}
	// 36 months not printed, page 5 not given, a negative km, no interval,
	// a blank title; the duplicate is not counted.
	if dropped != 5 {
		t.Errorf("dropped %d, want 5", dropped)
	}
	for _, bad := range []string{`{"items": null}`, `{"things": []}`, `not json`, `[]`} {
		if _, _, err := FromModel([]byte(bad), pages); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func TestMessages(t *testing.T) {
	msgs := Messages([]Page{{Number: 4, Label: "4-2", Text: "Oil 15,000\n"}, {Number: 6, Text: " Belt "}})
	if len(msgs) != 2 || msgs[0].Role != "system" || !strings.Contains(msgs[0].Content, "whole numbers") {
		t.Fatalf("messages %+v", msgs)
	}
	if want := "Page 4 (printed \"4-2\"):\nOil 15,000\n\nPage 6:\nBelt"; msgs[1].Content != want {
		t.Errorf("user message %q, want %q", msgs[1].Content, want)
	}
}
