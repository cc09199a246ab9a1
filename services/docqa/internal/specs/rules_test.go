package specs

import (
	"encoding/json"
	"strings"
	"testing"
)

// short is an item in a line: "key=value|quantity unit".
func short(items []Item) []string {
	out := []string{}
	for _, it := range items {
		s := it.Key + "=" + it.Value
		if it.Quantity != nil {
			s += "|" + *it.Quantity + " " + it.Unit
		}
		out = append(out, s)
	}
	return out
}

func TestExtract(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"a capacities table", "Item Specification Capacity\nEngine oil SAE 0W-30, ACEA C2 4.3 l\nCoolant G13 (TL 774 J) 6.5 l\nFuel Unleaded 95 RON (E10) 50 l",
			[]string{"engine_oil_grade=SAE 0W-30", "engine_oil_capacity=4.3 l|4.3 l", "fuel_grade=95 RON|95 RON", "coolant=G13 (TL 774 J)"}},
		{"cells one per line", "Engine oil\nSAE 5W-30 4.0 l\nFuel\nSuper 95 ROZ",
			[]string{"engine_oil_grade=SAE 5W-30", "engine_oil_capacity=4.0 l|4.0 l", "fuel_grade=95 ROZ|95 RON"}},
		{"german prose", "Die Motorölfüllmenge beträgt mit Filterwechsel 5,2 Liter. Kraftstoff: Diesel nach DIN EN 590. Das Anzugsmoment der Radschrauben beträgt 120 Nm.",
			[]string{"engine_oil_capacity=5,2 Liter|5.2 l", "fuel_grade=Diesel nach DIN EN 590", "wheel_bolt_torque=120 Nm|120 Nm"}},
		{"octane before its number", "Kraftstoff: Super Plus ROZ 98.", []string{"fuel_grade=ROZ 98|98 RON"}},
		{"chinese", "发动机机油：SAE 5W-30，加注量（含机油滤清器）4.0 升。燃油：92号或以上无铅汽油。蓄电池：12 V，45 Ah。车轮螺栓拧紧力矩：110 N·m。",
			[]string{"engine_oil_grade=SAE 5W-30", "engine_oil_capacity=4.0 升|4.0 l", "fuel_grade=92号|92 RON", "wheel_bolt_torque=110 N·m|110 Nm", "battery=45 Ah|45 Ah"}},
		{"a diesel's 0号 is no octane", "燃油：0号柴油。", []string{"fuel_grade=0号柴油"}},
		{"the oil with the filter", "Engine oil capacity: without filter 4.0 l, with filter 4.3 l.", []string{"engine_oil_capacity=4.3 l|4.3 l"}},
		{"two oil capacities, neither with the filter", "Engine oil capacity: 4.0 l (dry engine 4.8 l).", []string{}},
		{"a consumption is no capacity", "Engine oil consumption: up to 0.5 l per 1,000 km. Fuel consumption 5.8 l/100 km.", []string{}},
		{"the engine's torque is not the wheel bolts'", "Maximum torque 250 Nm at 1,500 rpm. Tighten the lug nuts to 150 lb-ft (204 Nm).",
			[]string{"wheel_bolt_torque=150 lb-ft|150 lb-ft"}},
		{"a load table in bar (kPa)", "Tyre pressure Normal load Full load\nFront 2,3 bar (230 kPa) 2,5 bar (250 kPa)\nRear 2,1 bar (210 kPa) 2,9 bar (290 kPa)",
			[]string{"tyre_pressure_front=2,3 bar|2.3 bar", "tyre_pressure_rear=2,1 bar|2.1 bar", "tyre_pressure_front_full_load=2,5 bar|2.5 bar", "tyre_pressure_rear_full_load=2,9 bar|2.9 bar"}},
		{"an axle table in kPa (bar), header on three lines", "Beladung\nvorn\nhinten\nNormale Beladung 230 kPa (2,3 bar) 220 kPa (2,2 bar)\nVolle Beladung 250 kPa (2,5 bar) 290 kPa (2,9 bar)",
			[]string{"tyre_pressure_front=230 kPa|230 kPa", "tyre_pressure_rear=220 kPa|220 kPa", "tyre_pressure_front_full_load=250 kPa|250 kPa", "tyre_pressure_rear_full_load=290 kPa|290 kPa"}},
		{"prose in psi", "Inflate the front tires to 35 psi (240 kPa) and the rear tires to 33 psi (230 kPa). At full load, 36 psi front and 41 psi rear.",
			[]string{"tyre_pressure_front=35 psi|35 psi", "tyre_pressure_rear=33 psi|33 psi", "tyre_pressure_front_full_load=36 psi|36 psi", "tyre_pressure_rear_full_load=41 psi|41 psi"}},
		{"two units after a slash without spaces", "Tyre pressures: front 2.3 bar/33 psi, rear 2.1 bar/30 psi.",
			[]string{"tyre_pressure_front=2.3 bar|2.3 bar", "tyre_pressure_rear=2.1 bar|2.1 bar"}},
		{"front and rear alike", "Tyre pressure, front and rear: 2.3 bar (33 psi).", []string{"tyre_pressure_front=2.3 bar|2.3 bar", "tyre_pressure_rear=2.3 bar|2.3 bar"}},
		{"the spare and the maximum are no pressures of the car", "Temporary spare wheel: 4.2 bar. Never exceed the maximum pressure on the tyre, 51 psi.", []string{}},
		{"adblue: the tank, not the least to add", "The AdBlue tank holds 13 l. Add at least 5 l of AdBlue when the light comes on.", []string{"adblue=13 l|13 l"}},
		{"the coolant's level is no coolant", "Check the coolant level every month. Prüfen Sie den Kühlmittelstand alle 4 Wochen.", []string{}},
		{"a key read two ways is left out", "Battery: 12 V, 60 Ah.\nBattery (option): 12 V, 70 Ah.\nBattery: 12 V, 60 Ah.", []string{}},
		{"a key read twice alike is kept once", "Wheel bolts: 140 Nm.\nTighten the wheel bolts to 140 Nm.", []string{"wheel_bolt_torque=140 Nm|140 Nm"}},
		{"no unit, no item", "Engine oil: see the label under the bonnet. Tyre pressure: see the door pillar.", []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := short(Extract([]Page{{Number: 1, Text: tc.text}}))
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(tc.want)
			if string(g) != string(w) {
				t.Errorf("Extract(%q)\n got %s\nwant %s", tc.text, g, w)
			}
		})
	}
}

func TestParseDecimal(t *testing.T) {
	for in, want := range map[string]string{"4.3": "4.3", "4,3": "4.3", "4.0": "4.0", "230": "230", "1,200": "1200", "1.200": "1200", "0.5": "0.5", "007": "7"} {
		if got, ok := parseDecimal(in); !ok || got != want {
			t.Errorf("parseDecimal(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	if _, ok := parseDecimal("12345678"); ok {
		t.Error("a part number was read")
	}
}

func TestVerified(t *testing.T) {
	page := Page{Number: 3, Text: "Front 2,3 bar (230 kPa)\nWheel bolts 140 Nm\nSAE 0W-30"}
	q := func(s string) *string { return &s }
	for _, tc := range []struct {
		it   Item
		want bool
	}{
		{Item{Key: TyrePressureFront, Value: "2,3 bar", Quantity: q("2.3"), Unit: UnitBar}, true},
		{Item{Key: TyrePressureFront, Value: "2.3 bar", Quantity: q("2.3"), Unit: UnitBar}, true}, // the page's comma, the model's point
		{Item{Key: TyrePressureFront, Value: "230 kPa", Quantity: q("230"), Unit: UnitKPa}, true},
		{Item{Key: TyrePressureFront, Value: "2.4 bar", Quantity: q("2.4"), Unit: UnitBar}, false}, // not printed
		{Item{Key: TyrePressureFront, Value: "2,3 bar", Quantity: q("2.3"), Unit: UnitPSI}, false}, // the value says bar
		{Item{Key: TyrePressureFront, Value: "2,3 bar", Quantity: q("230"), Unit: UnitBar}, false}, // not the value's number
		{Item{Key: WheelBoltTorque, Value: "140 Nm", Quantity: q("140"), Unit: UnitBar}, false},    // not the key's unit
		{Item{Key: EngineOilGrade, Value: "SAE 0W-30"}, true},
		{Item{Key: EngineOilGrade, Value: "SAE 5W-30"}, false},                              // 5 is not printed
		{Item{Key: EngineOilGrade, Value: "SAE 0W-30", Quantity: q("30"), Unit: ""}, false}, // a text key has no quantity
		{Item{Key: "top_speed", Value: "140 Nm", Quantity: q("140"), Unit: UnitNm}, false},  // no key
		{Item{Key: Coolant, Value: strings.Repeat("G13 ", 30)}, false},                      // too long
	} {
		if got := Verified(tc.it, page); got != tc.want {
			t.Errorf("Verified(%+v) = %v, want %v", tc.it, got, tc.want)
		}
	}
}

// FuzzExtract: the rules never panic, and every item they read holds up
// against its page.
func FuzzExtract(f *testing.F) {
	for _, s := range []string{
		"Tyre pressure Normal load Full load\nFront 2,3 bar (230 kPa) 2,5 bar (250 kPa)",
		"Engine oil SAE 0W-30 4.3 l", "燃油：92号汽油。", "Beladung\nvorn\nhinten\nVolle Beladung 2,5 bar 2,9 bar",
		"Tighten the lug nuts to 150 lb-ft (204 Nm).", "Coolant: G13 (TL 774 J", "1,2,3 l 4.5.6 bar",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		page := Page{Number: 1, Text: text}
		for _, it := range Extract([]Page{page}) {
			if !Verified(it, page) {
				t.Errorf("%+v does not hold up against %q", it, text)
			}
		}
	})
}
