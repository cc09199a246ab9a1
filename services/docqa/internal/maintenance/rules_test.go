package maintenance

import (
	"encoding/json"
	"testing"
)

// short is an item in a line: title, km, miles, months, conditions.
type short struct {
	Title             string
	Km, Miles, Months int
	Conditions        string
}

func shorten(items []Item) []short {
	out := []short{}
	for _, it := range items {
		out = append(out, short{it.Title, deref(it.EveryKm), deref(it.EveryMiles), deref(it.EveryMonths), it.Conditions})
	}
	return out
}

func TestExtract(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []short
	}{
		{"english grouped by commas", "Change the engine oil every 15,000 km or 12 months, whichever comes first.",
			[]short{{"Engine oil", 15000, 0, 12, ""}}},
		{"miles", "Rotate the tires every 10,000 miles.", []short{{"Tires", 0, 10000, 0, ""}}},
		{"german grouped by points", "Motoröl: alle 15.000 km oder 12 Monate wechseln.", []short{{"Motoröl", 15000, 0, 12, ""}}},
		{"grouped by a space and a no-break space", "Spark plugs: every 60 000 km.\nAir filter: every 30\u00a0000 km.",
			[]short{{"Spark plugs", 60000, 0, 0, ""}, {"Air filter", 30000, 0, 0, ""}}},
		{"chinese", "机油：每 10000 公里或 12 个月更换。", []short{{"机油", 10000, 0, 12, ""}}},
		{"chinese without spaces", "空气滤清器每行驶5000公里检查。", []short{{"空气滤清器", 5000, 0, 0, ""}}},
		{"years are months", "Brake fluid: replace every 2 years.", []short{{"Brake fluid", 0, 0, 24, ""}}},
		{"km and miles in parentheses", "Coolant: every 15,000 km (10,000 miles) or 12 months.", []short{{"Coolant", 15000, 10000, 12, ""}}},
		{"a condition", "Under severe conditions, change the oil every 5,000 km.", []short{{"Oil", 5000, 0, 0, "Under severe conditions"}}},
		{"a sentence across lines", "The timing belt must be replaced every\n90,000 km or 60 months.", []short{{"Timing belt", 90000, 0, 60, ""}}},
		{"two intervals in one sentence", "Replace the cabin filter every 15,000 km and the air filter every 30,000 km.",
			[]short{{"Cabin filter", 15000, 0, 0, ""}, {"Air filter", 30000, 0, 0, ""}}},
		{"not intervals", "Top speed 190 km/h. Consumption 5.8 l/100 km. Warranty: 3 years or 100,000 km. First inspection at 1,000 km. Every 5,8 km.",
			[]short{}},
		{"no unit", "Replace the wiper blades every season.", []short{}},
		{"mileage is no mile", "Check the oil every 500 mileage points.", []short{}},
		{"a table", "Item Every km Every months\nEngine oil 15,000 12\nBrake fluid - 24\nSpark plugs 60 000 48\nNote 5 6 7 8",
			[]short{{"Engine oil", 15000, 0, 12, ""}, {"Brake fluid", 0, 0, 24, ""}, {"Spark plugs", 60000, 0, 48, ""}}},
		{"a table's cells that look grouped", "Part km months\nBelt 100 120", []short{{"Belt", 100, 0, 120, ""}}},
		{"a chinese table", "项目 每公里 每月\n火花塞 40000 48", []short{{"火花塞", 40000, 0, 48, ""}}},
		{"a one-column table", "Item Interval (km)\nDrive belt 20,000", []short{{"Drive belt", 20000, 0, 0, ""}}},
		{"prose that names a unit is no header", "Distances are shown in km\nTop speed 190", []short{}},
		{"a table ends at a line that is no row", "Item km months\nOil 15,000 12\nSee also the notes below\nTop speed 190 5",
			[]short{{"Oil", 15000, 0, 12, ""}}},
		{"a heading is no title", "Additional maintenance\nTyre rotation: every 10,000 km.", []short{{"Tyre rotation", 10000, 0, 0, ""}}},
		{"duplicates", "Oil: every 10,000 km.\nOIL: every 10,000 km.", []short{{"Oil", 10000, 0, 0, ""}}},
		{"the interval first, then a colon", "Every 60,000 km: replace the air filter.\nEvery 30,000 km or 2 years, whichever comes first: change the\nbrake fluid and the coolant.",
			[]short{{"Air filter", 60000, 0, 0, ""}, {"Brake fluid and the coolant", 30000, 0, 24, ""}}},
		{"list items without full stops", "Every 40,000 km: replace the spark plugs\nEvery 2 years: renew the brake fluid",
			[]short{{"Spark plugs", 40000, 0, 0, ""}, {"Brake fluid", 0, 0, 24, ""}}},
		{"an english interval first names no job without a colon", "Every 2 years the vehicle must be inspected by an authority.", []short{}},
		{"at intervals", "Inspect the drive belt at 40,000 km intervals. Replace the wiper blades at 1-year intervals.",
			[]short{{"Drive belt", 40000, 0, 0, ""}, {"Wiper blades", 0, 0, 12, ""}}},
		{"counts in words", "Renew the brake fluid every second year. The coolant should be replaced every five years. Check the lights every year.",
			[]short{{"Brake fluid", 0, 0, 24, ""}, {"Coolant", 0, 0, 60, ""}, {"Lights", 0, 0, 12, ""}}},
		{"adverbs", "Annually: replace the pollen filter.\nDer Innenraumfilter wird jährlich ersetzt.\nHalbjährlich: Wischerblätter prüfen.\nDie jährliche Hauptuntersuchung ist Pflicht.",
			[]short{{"Pollen filter", 0, 0, 12, ""}, {"Innenraumfilter", 0, 0, 12, ""}, {"Wischerblätter", 0, 0, 6, ""}}},
		{"german distances and the latest time", "Das Motoröl ist im Abstand von 20.000 km, spätestens jedes Jahr zu wechseln.\nDie Bremsflüssigkeit muss jedes zweite Jahr erneuert werden.\nIn Abständen von 30.000 km den Luftfilter erneuern.\nAlle 90.000 km: Zahnriemen ersetzen.",
			[]short{{"Motoröl", 20000, 0, 12, ""}, {"Bremsflüssigkeit", 0, 0, 24, ""}, {"Luftfilter", 30000, 0, 0, ""}, {"Zahnriemen", 90000, 0, 0, ""}}},
		{"chinese ten thousands and counts in words", "机油：每行驶1万公里或每年更换一次。\n制动液每两年更换一次。\n空调滤清器每半年检查一次。\n每隔6万公里：更换火花塞。\n每2万公里更换空气滤清器。",
			[]short{{"机油", 10000, 0, 12, ""}, {"制动液", 0, 0, 24, ""}, {"空调滤清器", 0, 0, 6, ""}, {"火花塞", 60000, 0, 0, ""}, {"空气滤清器", 20000, 0, 0, ""}}},
		{"a grid of thousands", "Maintenance intervals (× 1,000 km)\nItem 10 20 30 40 50 60\nEngine oil ✓ ✓ ✓ ✓ ✓ ✓\nAir filter – ✓ – ✓ – ✓\nTiming belt – – – – – ✓\nUneven – ✓ ✓ – – ✓\nNever – – – – – –\nTop speed 190",
			[]short{{"Engine oil", 10000, 0, 0, ""}, {"Air filter", 20000, 0, 0, ""}, {"Timing belt", 60000, 0, 0, ""}}},
		{"a grid's caption in its header line", "Service (x 1000 km) 15 30 45 60\nBrake pads ● ● ● ●\nCoolant – – – ●",
			[]short{{"Brake pads", 15000, 0, 0, ""}, {"Coolant", 60000, 0, 0, ""}}},
		{"a grid whose empty cells print nothing", "Operation\nx 1000 km\n15 30 45 60\nOil ✓ ✓ ✓ ✓\nAir filter ✓ ✓\nBelt ✓\nOdd ✓ ✓ ✓\nBrake fluid: every 2 years.",
			[]short{{"Oil", 15000, 0, 0, ""}, {"Air filter", 30000, 0, 0, ""}, {"Brake fluid", 0, 0, 24, ""}}},
		{"a table in thousands of km", "Operation km x 1000 Months\nEngine oil 15 12\nAir filter 30 24",
			[]short{{"Engine oil", 15000, 0, 12, ""}, {"Air filter", 30000, 0, 24, ""}}},
		{"a german table of normal and severe times", "Wartungsarbeit Normal Erschwerte Bedingungen\nBremsflüssigkeit alle 2 Jahre jährlich\nKühlmittel alle 5 Jahre alle 4 Jahre",
			[]short{{"Bremsflüssigkeit", 0, 0, 24, "Erschwerte Bedingungen: jährlich"}, {"Kühlmittel", 0, 0, 60, "Erschwerte Bedingungen: alle 4 Jahre"}}},
		{"a german condition and an adverb joined", "Bei erschwerten Betriebsbedingungen (Anhängerbetrieb, Kurzstrecken) ist das\nMotoröl alle 15.000 km oder jährlich zu wechseln.",
			[]short{{"Motoröl", 15000, 0, 12, "Bei erschwerten Betriebsbedingungen (Anhängerbetrieb, Kurzstrecken)"}}},
		{"a grid in miles", "Interval (× 1,000 miles)\nItem 5 10 15\nOil ✓ ✓ ✓\nPlugs – – ✓", []short{{"Oil", 0, 5000, 0, ""}, {"Plugs", 0, 15000, 0, ""}}},
		{"a row of numbers without a caption is no grid", "Item 10 20 30\nOil ✓ ✓ ✓", []short{}},
		{"a table's header row of a severe column", "Item Normal service Severe service\nTransmission\nfluid\nEvery 60,000 miles (96,000 km)\nEvery 30,000 miles (48,000\nkm)",
			[]short{{"Transmission fluid", 96000, 60000, 0, "Severe service: every 30,000 miles (48,000 km)"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := shorten(Extract([]Page{{Number: 1, Text: tc.text}}))
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(tc.want)
			if string(g) != string(w) {
				t.Errorf("got  %s\nwant %s", g, w)
			}
		})
	}
}

// TestTitlesAndQuotesOfRows: a table read as lines (rows in prose,
// without a full stop, under a header that names the interval) gives each
// row its own title and quote, never the header's words nor the whole
// table; a sentence stays whole; no quote is longer than maxQuoteRunes.
func TestTitlesAndQuotesOfRows(t *testing.T) {
	type tq struct{ Title, Quote string }
	long := "Replace the engine oil and the oil filter every 15,000 km or 12 months, whichever comes first, with an oil of the grade " +
		"this manual names on page 212 and in the quantity it gives there, and reset the service indicator afterwards as shown."
	for _, tc := range []struct {
		name, text string
		want       []tq
	}{
		{"chinese table as lines", "保养计划\n项目 保养周期\n发动机机油及机油滤清器 每5000公里或6个月\n空气滤清器 每20000公里或12个月\n制动液 每24个月",
			[]tq{{"发动机机油及机油滤清器", "发动机机油及机油滤清器 每5000公里或6个月"}, {"空气滤清器", "空气滤清器 每20000公里或12个月"}, {"制动液", "制动液 每24个月"}}},
		{"english table as lines", "Item Interval\nEngine oil and oil filter every 15,000 km or 12 months\nAir filter every 30,000 km",
			[]tq{{"Engine oil and oil filter", "Engine oil and oil filter every 15,000 km or 12 months"}, {"Air filter", "Air filter every 30,000 km"}}},
		{"a sentence across lines stays whole", "Replace the engine oil and\nthe oil filter every 15,000 km or 12 months. Check the tyres monthly.",
			[]tq{{"Engine oil and the oil filter", "Replace the engine oil and the oil filter every 15,000 km or 12 months."}}},
		{"a sentence that begins with an interval word is no header", "Every two years, or\nwhen the car is used for towing, replace the brake fluid every 24 months.",
			[]tq{{"Brake fluid", "Every two years, or when the car is used for towing, replace the brake fluid every 24 months."}}},
		{"a long sentence is cut", long, []tq{{"Engine oil and the oil filter",
			"Replace the engine oil and the oil filter every 15,000 km or 12 months, whichever comes first, with an oil of the grade this manual names on page 212 and in the quantity it gives there, and reset…"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []tq
			for _, it := range Extract([]Page{{Number: 1, Text: tc.text}}) {
				got = append(got, tq{it.Title, it.Quote})
				if n := len([]rune(it.Quote)); n > maxQuoteRunes {
					t.Errorf("quote of %d characters: %q", n, it.Quote)
				}
			}
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(tc.want)
			if string(g) != string(w) {
				t.Errorf("got  %s\nwant %s", g, w)
			}
		})
	}
}

func TestVerified(t *testing.T) {
	page := Page{Number: 4, Text: "Engine oil 15.000 km / 12 Monate\nZahnriemen 90 000\nBremsflüssigkeit alle 2 Jahre\nReifendruck 2,3 bar"}
	n := func(v int) *int { return &v }
	for _, tc := range []struct {
		name string
		it   Item
		want bool
	}{
		{"grouped by a point", Item{EveryKm: n(15000), EveryMonths: n(12)}, true},
		{"grouped by a space", Item{EveryKm: n(90000)}, true},
		{"years as months", Item{EveryMonths: n(24)}, true},
		{"months not printed", Item{EveryMonths: n(36)}, false},
		{"one number of two not printed", Item{EveryKm: n(15000), EveryMiles: n(10000)}, false},
		{"no interval", Item{}, false},
		{"a fraction is no number", Item{EveryKm: n(3)}, false},
	} {
		if got := Verified(tc.it, page); got != tc.want {
			t.Errorf("%s: Verified = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestSelectPages(t *testing.T) {
	var cands []Candidate
	// Eight pages of schedule lists, one of specifications, one warranty
	// page: six are kept, the best first by intervals, then by retrieval.
	for i := 1; i <= 8; i++ {
		text := "Oil: every 10,000 km."
		if i%2 == 0 {
			text += "\nFilter: every 20,000 km."
		}
		cands = append(cands, Candidate{Page: Page{Number: i, Text: text}, Score: float64(i)})
	}
	cands = append(cands,
		Candidate{Page: Page{Number: 9, Text: "Top speed 190 km/h, range 860 km."}, Score: 100},
		Candidate{Page: Page{Number: 10, Text: "Warranty 3 years or 100,000 km; corrosion 12 years."}, Score: 100})
	got := SelectPages(cands)
	var numbers []int
	for _, p := range got {
		numbers = append(numbers, p.Number)
	}
	want := []int{2, 4, 5, 6, 7, 8}
	if len(numbers) != len(want) {
		t.Fatalf("pages %v, want %v", numbers, want)
	}
	for i := range want {
		if numbers[i] != want[i] {
			t.Fatalf("pages %v, want %v", numbers, want)
		}
	}
}

func FuzzExtract(f *testing.F) {
	for _, s := range []string{"every 15,000 km or 12 months", "Item km months\nOil 1 2", "每行驶5000公里", "(((every 1 km)", "alle 9.999,9 km"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, it := range Extract([]Page{{Number: 1, Text: text}}) {
			if it.Title == "" || it.EveryKm == nil && it.EveryMiles == nil && it.EveryMonths == nil {
				t.Fatalf("item %+v", it)
			}
		}
	})
}
