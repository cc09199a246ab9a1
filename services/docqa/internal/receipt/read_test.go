package receipt_test

import (
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/carhub/backend/services/docqa/internal/ocr"
	"github.com/carhub/backend/services/docqa/internal/receipt"
)

func read(text string, region string) receipt.Reading {
	return receipt.Read(text, receipt.Options{Region: region, Now: now})
}

// TestDateOrder: a slashed date is read by the receipt's own clues, else
// the owner's region, else not at all.
func TestDateOrder(t *testing.T) {
	for _, tc := range []struct {
		name, text, region, want string
	}{
		{"no clue, no region: absent", "Total 49.50\nDate 10/11/2026", "", ""},
		{"no clue, US owner", "Total 49.50\nDate 10/11/2026", "US", "2026-10-11"},
		{"no clue, German owner", "Total 49.50\nDate 10/11/2026", "DE", "2026-11-10"},
		{"dollars and gallons are the US", "Total $49.50\n10/11/2026\n12.000 GAL", "DE", "2026-10-11"},
		{"pounds are day first", "Total £49.50\n10/11/2026", "US", "2026-11-10"},
		{"a day over 12 tells", "Total 49.50\n30/11/2026", "", "2026-11-30"},
		{"dots are day first", "Total 49.50\n10.11.2026", "US", "2026-11-10"},
		{"two-digit year", "Summe 49,50 EUR\n10.11.26", "", "2026-11-10"},
		{"ISO", "Total 49.50\n2026-11-10", "", "2026-11-10"},
		{"Chinese", "合计 49.50元\n2026年11月10日", "", "2026-11-10"},
		{"month name", "Total $49.50\nNov 10, 2026", "", "2026-11-10"},
		{"German month name", "Summe 49,50 EUR\n10. November 2026", "", "2026-11-10"},
		{"a future date is none", "Total 49.50\n10.11.2027", "", ""},
		{"not a calendar date", "Total 49.50\n31.11.2026", "", ""},
		{"a due date is not the receipt's", "Total 49.50 EUR\nZahlbar bis 12.12.2026\n", "", ""},
		{"the labelled date wins", "Total 49.50 EUR\nGutschein gültig bis 01.12.2026\nDatum: 10.11.2026", "", "2026-11-10"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := read(tc.text, tc.region).Fields[receipt.Date]
			if got != tc.want {
				t.Fatalf("date %q, want %q", got, tc.want)
			}
		})
	}
}

// TestNumbers: decimal commas, groups, OCR's letters, pence.
func TestNumbers(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       map[string]string
	}{
		{"decimal commas", "Diesel 52,18 l x 1,689 EUR/l 88,13 EUR\nSumme 88,13 EUR",
			map[string]string{receipt.Quantity: "52.18", receipt.UnitPrice: "1.689", receipt.Total: "88.13", receipt.Currency: "EUR"}},
		{"grouped total", "Rechnung Werkstatt Inspektion\nGesamtbetrag 1.207,12 EUR",
			map[string]string{receipt.Total: "1207.12", receipt.Currency: "EUR"}},
		{"grouped, points", "Invoice Labour Parts\nTotal $1,207.12",
			map[string]string{receipt.Total: "1207.12", receipt.Currency: "USD"}},
		{"Swiss apostrophe", "Rechnung Werkstatt Service\nTotal CHF 1'207.10",
			map[string]string{receipt.Total: "1207.10", receipt.Currency: "CHF"}},
		{"pence per litre", "Unleaded 40.12 L @ 152.9p/L £61.34\nTotal £61.34",
			map[string]string{receipt.Quantity: "40.12", receipt.UnitPrice: "1.529", receipt.Total: "61.34", receipt.Currency: "GBP"}},
		{"cents per litre", "Super 45,32 l 175,9 ct/l 79,72 €\nSumme 79,72 €",
			map[string]string{receipt.Quantity: "45.32", receipt.UnitPrice: "1.759", receipt.Total: "79.72", receipt.Currency: "EUR"}},
		{"O and l read as digits", "Unleaded 4O.l2 L @ 152.9p/L\nT0TAL £6l.34",
			map[string]string{receipt.Quantity: "40.12", receipt.UnitPrice: "1.529", receipt.Total: "61.34", receipt.Currency: "GBP"}},
		{"a litre's l read as 1", "Diesel\nMenge: 52,18 1\nPreis/l: 1,689 €\nBetrag: 88,13 €",
			map[string]string{receipt.Quantity: "52.18", receipt.Unit: "l", receipt.UnitPrice: "1.689", receipt.Total: "88.13"}},
		{"a price per 1", "Autogas LPG 38,40 l\n0,999 €/1 38,36 €\nSumme 38,36 €",
			map[string]string{receipt.UnitPrice: "0.999", receipt.Quantity: "38.40", receipt.Energy: "lpg"}},
		{"a yuan's ¥ read as Y", "0号柴油 数量 48.60升 单价 7.52 金额 365.47\n合计 Y365.47",
			map[string]string{receipt.Total: "365.47", receipt.Currency: "CNY"}},
		{"a lost decimal point put back by the rule", "Diesel 3850 L 1,789 €/L 68,88 €\nTotal 68,88 €",
			map[string]string{receipt.Quantity: "38.50", receipt.UnitPrice: "1.789", receipt.Total: "68.88", receipt.Currency: "EUR"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := read(tc.text, "")
			for f, want := range tc.want {
				if !sameField(f, want, got.Fields[f]) {
					t.Errorf("%s = %q, want %q (all: %v)", f, got.Fields[f], want, got.Fields)
				}
			}
		})
	}
}

func sameField(f, want, got string) bool { return got != "" && same(f, want, got) }

// TestAbsentRatherThanGuessed: what the receipt does not settle is left
// out.
func TestAbsentRatherThanGuessed(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		absent     []string
		present    map[string]string
	}{
		{"two totals of equal standing", "Super 45,32 l\nTotal 79,72 EUR\nTotal 84,10 EUR",
			[]string{receipt.Total, receipt.UnitPrice}, map[string]string{receipt.Quantity: "45.32"}},
		{"quantity with shop items: no price from the total", "Unleaded 30.00 L\nSandwich 3.50\nTotal £52.40",
			[]string{receipt.UnitPrice}, map[string]string{receipt.Quantity: "30.00", receipt.Total: "52.40"}},
		{"quantity and total alone: the price put back", "Unleaded 30.00 L\nTotal £52.20",
			nil, map[string]string{receipt.UnitPrice: "1.740", receipt.Total: "52.20"}},
		{"a price that does not divide to the cent is not put back", "Unleaded 30.00 L\nTotal £52.21",
			[]string{receipt.UnitPrice}, map[string]string{receipt.Total: "52.21"}},
		{"no total printed, no total", "Unleaded 30.00 L @ 1.740/L",
			[]string{receipt.Total}, map[string]string{receipt.Quantity: "30.00", receipt.UnitPrice: "1.740"}},
		{"a total label whose value OCR lost: the line's amount is not the total",
			"Diesel\nMenge: 52,18 l\nPreis/l: 1,689 €\nBetrag: 88,13 €\nAdBlue 10 l Kanister\nGesamt\ngirocard",
			[]string{receipt.Total}, map[string]string{receipt.Quantity: "52.18"}},
		{"a brand named Total is no total label", "TOTAL\nGAZOLE 38,50 L 1,789 €/L\nMontant 68,88 €",
			nil, map[string]string{receipt.Total: "68.88", receipt.Vendor: "TOTAL"}},
		{"VAT and subtotal are not the total", "Subtotal 44.00\nVAT 8.80",
			[]string{receipt.Total}, nil},
		{"change is not the total", "Diesel 20.00 L @ 1.500/L 30.00\nCash £40.00\nChange £10.00",
			nil, map[string]string{receipt.Total: "30.00"}},
		{"AdBlue is no fuel", "AdBlue 10,00 l x 1,290 €/l 12,90 €\nSumme 12,90 €",
			[]string{receipt.Quantity, receipt.UnitPrice, receipt.Energy}, map[string]string{receipt.Total: "12.90"}},
		{"a workshop's oil is no refuel", "Rechnung Werkstatt\nMotoröl 4,5 l x 18,90 85,05\nArbeitslohn 74,50\nGesamtbetrag 159,55 EUR\nkm-Stand 87.412",
			[]string{receipt.Quantity, receipt.UnitPrice, receipt.Energy, receipt.Unit},
			map[string]string{receipt.Total: "159.55", receipt.Odometer: "87412"}},
		{"two currencies as often", "Total 10.00 EUR\nPaid 11.00 USD",
			[]string{receipt.Currency}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := read(tc.text, "")
			for _, f := range tc.absent {
				if v, ok := got.Fields[f]; ok {
					t.Errorf("%s = %q, want it absent (all: %v)", f, v, got.Fields)
				}
			}
			for f, want := range tc.present {
				if !sameField(f, want, got.Fields[f]) {
					t.Errorf("%s = %q, want %q (all: %v)", f, got.Fields[f], want, got.Fields)
				}
			}
		})
	}
}

// TestKinds: fuels to the fuel service's energies, kWh to a charge, a
// bill to an expense, nothing to unknown.
func TestKinds(t *testing.T) {
	for _, tc := range []struct {
		text   string
		kind   receipt.Kind
		energy string
	}{
		{"Super E10 40,00 l 1,759 EUR/l 70,36 EUR", receipt.Fuel, "gasoline"},
		{"SP95 40,00 L 1,759 €/L 70,36 €", receipt.Fuel, "gasoline"},
		{"Premium Diesel 40.00 L @ 1.759/L 70.36", receipt.Fuel, "diesel"},
		{"GAZOLE 40,00 L 1,759 €/L 70,36 €", receipt.Fuel, "diesel"},
		{"0号柴油 40.00升 7.52元/升 300.80元", receipt.Fuel, "diesel"},
		{"95号汽油 40.00升 8.21元/升 328.40元", receipt.Fuel, "gasoline"},
		{"CNG 12,00 kg 1,299 €/kg 15,59 €", receipt.Fuel, "cng"},
		{"Wasserstoff H2 5,00 kg 13,85 €/kg 69,25 €", receipt.Fuel, "hydrogen"},
		{"Ladevorgang 30,00 kWh 0,59 €/kWh 17,70 €", receipt.Charge, "electricity"},
		{"Car wash deluxe\nTotal £12.00", receipt.Expense, ""},
		{"", receipt.Unknown, ""},
		{"~~ ,,, ;; --\n. . .", receipt.Unknown, ""},
	} {
		got := read(tc.text, "")
		if got.Kind != tc.kind || got.Fields[receipt.Energy] != tc.energy {
			t.Errorf("%q: kind %s energy %q, want %s %q (all: %v)", tc.text, got.Kind, got.Fields[receipt.Energy], tc.kind, tc.energy, got.Fields)
		}
		if got.Kind == receipt.Unknown && len(got.Fields) > 0 {
			t.Errorf("%q: unknown with fields %v", tc.text, got.Fields)
		}
	}
}

// TestTime: 12-hour clocks, Chinese, and numbers that are no times.
func TestTime(t *testing.T) {
	for text, want := range map[string]string{
		"Total £1.00\n30/11/2026 5:47 PM":       "17:47",
		"Total £1.00\n30/11/2026 12:05 AM":      "00:05",
		"Total 1,00 €\nLe 30/11/2026 à 17h45":   "17:45",
		"合计 1.00元\n2026年11月30日 10时22分":          "10:22",
		"Total £1.00\n30/11/2026 Ratio 1:12.50": "",
	} {
		if got := read(text, "").Fields[receipt.Time]; got != want {
			t.Errorf("%q: time %q, want %q", text, got, want)
		}
	}
}

// TestBoxesAndConfidence: a field's box is its line's; a line read with
// low confidence lowers its fields'.
func TestBoxesAndConfidence(t *testing.T) {
	lines := []receipt.Line{
		{Text: "ARAL", Box: receipt.Box{X: 0.4, Y: 0.02, W: 0.2, H: 0.03}, Confidence: 95},
		{Text: "Super E10 45,32 l x 1,759 EUR/l 79,72 EUR", Box: receipt.Box{X: 0.05, Y: 0.3, W: 0.9, H: 0.03}, Confidence: 93},
		{Text: "Summe EUR 79,72", Box: receipt.Box{X: 0.05, Y: 0.4, W: 0.9, H: 0.03}, Confidence: 45},
		{Text: "30.11.2026 16:05", Box: receipt.Box{X: 0.05, Y: 0.5, W: 0.5, H: 0.03}, Confidence: 96},
	}
	got := receipt.ReadLines(lines, receipt.Options{Now: now})
	if got.Fields[receipt.Total] != "79.72" || got.Boxes[receipt.Total] != lines[2].Box {
		t.Fatalf("total %q box %+v, want 79.72 in %+v", got.Fields[receipt.Total], got.Boxes[receipt.Total], lines[2].Box)
	}
	if got.Boxes[receipt.Date] != lines[3].Box || got.Boxes[receipt.Quantity] != lines[1].Box {
		t.Fatalf("boxes %+v", got.Boxes)
	}
	if c := got.Confidence[receipt.Total]; c >= got.Confidence[receipt.Quantity] || c > 0.5 {
		t.Fatalf("a total read at OCR confidence 45 has confidence %.2f (quantity %.2f)", c, got.Confidence[receipt.Quantity])
	}
	for f := range got.Fields {
		if c, ok := got.Confidence[f]; !ok || c <= 0 || c > 1 {
			t.Errorf("%s: confidence %v", f, c)
		}
	}
	// Plain text has no boxes.
	if plain := receipt.Read("ARAL\nSumme EUR 79,72", receipt.Options{Now: now}); len(plain.Boxes) != 0 {
		t.Fatalf("boxes from plain text: %v", plain.Boxes)
	}
}

// TestFromWords: Tesseract's blocks side by side are one line; boxes are
// fractions of the image.
func TestFromWords(t *testing.T) {
	words := []ocr.Word{
		{Text: "ARAL", Confidence: 96, Left: 160, Top: 10, Width: 80, Height: 20, Block: 1, Paragraph: 1, Line: 1},
		{Text: "Summe", Confidence: 95, Left: 20, Top: 100, Width: 90, Height: 20, Block: 2, Paragraph: 1, Line: 1},
		{Text: "EUR", Confidence: 91, Left: 120, Top: 102, Width: 50, Height: 20, Block: 2, Paragraph: 1, Line: 1},
		{Text: "79,72", Confidence: 90, Left: 300, Top: 104, Width: 80, Height: 20, Block: 3, Paragraph: 1, Line: 1},
		{Text: "30.11.2026", Confidence: 97, Left: 20, Top: 150, Width: 160, Height: 20, Block: 4, Paragraph: 1, Line: 1},
		// A time cut by a block's edge: no gap, one word.
		{Text: "07:5", Confidence: 95, Left: 200, Top: 150, Width: 60, Height: 20, Block: 4, Paragraph: 1, Line: 1},
		{Text: "8", Confidence: 95, Left: 262, Top: 151, Width: 14, Height: 20, Block: 5, Paragraph: 1, Line: 1},
	}
	lines := receipt.FromWords(words, 400, 200)
	var texts []string
	for _, l := range lines {
		texts = append(texts, l.Text)
	}
	if want := []string{"ARAL", "Summe EUR 79,72", "30.11.2026 07:58"}; !slices.Equal(texts, want) {
		t.Fatalf("lines %q, want %q", texts, want)
	}
	if b := lines[1].Box; b != (receipt.Box{X: 0.05, Y: 0.5, W: 0.9, H: 0.12}) {
		t.Fatalf("box %+v", b)
	}
	if c := lines[1].Confidence; c < 91.9 || c > 92.1 {
		t.Fatalf("confidence %.2f, want 92", c)
	}
	if receipt.FromWords(words, 0, 0) != nil {
		t.Fatal("lines of an image without size")
	}
}

var (
	isoDay  = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	hhmm    = regexp.MustCompile(`^([01]\d|2[0-3]):[0-5]\d$`)
	isoCode = regexp.MustCompile(`^[A-Z]{3}$`)
)

// FuzzRead: any text reads without a panic into fields of their form.
func FuzzRead(f *testing.F) {
	for _, set := range []string{"dev", "heldout"} {
		for _, s := range loadSamples(f, set) {
			f.Add(s.text)
		}
	}
	f.Add("4O.l2 L @ 152.9p/L\n\nT0TAL £6l.34 ,,,. 1.2.3.4 99/99/9999 25:99")
	f.Fuzz(func(t *testing.T, text string) {
		got := receipt.Read(text, receipt.Options{Now: now})
		check(t, got)
	})
}

func check(t *testing.T, got receipt.Reading) {
	t.Helper()
	if !slices.Contains([]receipt.Kind{receipt.Fuel, receipt.Charge, receipt.Expense, receipt.Unknown}, got.Kind) {
		t.Fatalf("kind %q", got.Kind)
	}
	for _, f := range slices.Sorted(maps.Keys(got.Fields)) {
		v := got.Fields[f]
		ok := true
		switch f {
		case receipt.Date:
			_, err := time.Parse("2006-01-02", v)
			ok = err == nil && isoDay.MatchString(v)
		case receipt.Time:
			ok = hhmm.MatchString(v)
		case receipt.Quantity, receipt.UnitPrice, receipt.Total, receipt.Odometer:
			d, err := decimal.NewFromString(v)
			ok = err == nil && !d.IsNegative()
		case receipt.Unit:
			ok = slices.Contains([]string{"l", "gal", "kWh", "kg"}, v)
		case receipt.Currency:
			ok = isoCode.MatchString(v)
		case receipt.Energy:
			ok = slices.Contains([]string{"gasoline", "diesel", "lpg", "cng", "electricity", "hydrogen"}, v)
		case receipt.Vendor:
			ok = strings.TrimSpace(v) != ""
		default:
			ok = false
		}
		if !ok {
			t.Fatalf("%s = %q is not of its form", f, v)
		}
		if c := got.Confidence[f]; c <= 0 || c > 1 {
			t.Fatalf("%s: confidence %v", f, c)
		}
	}
}

// TestOddInput: letters whose lower case is longer or shorter, long
// lines and many lines read without a panic and quickly.
func TestOddInput(t *testing.T) {
	for _, text := range []string{
		"ẞẞẞ 12,50 €\nİİİ 45,32 L 1,759 €/L 79,72 €\nKILOMÉTRAGE ẞ 112 540 km\nTotal 79,72 €",
		strings.Repeat("30.11.2026 ", 3000),
		strings.Repeat("1.2 € ", 3000),
		strings.Repeat("Diesel 40.12 L 1.529 61.34 12.50 3.99\n", 1000),
	} {
		start := time.Now()
		got := read(text, "")
		check(t, got)
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%d bytes read in %v", len(text), d)
		}
	}
	got := read("ẞẞẞ 12,50 €\nİİİ 45,32 L 1,759 €/L 79,72 €\nTotal 79,72 €", "")
	if got.Fields[receipt.Total] != "79.72" || got.Fields[receipt.Quantity] != "45.32" {
		t.Fatalf("fields %v", got.Fields)
	}
}

// OCR that loses a total's decimal comma ("79,72" read "79112") leaves the
// total absent rather than a hundred times too large; the fuel line's
// amount, printed with cents, says the receipt prints cents.
func TestTotalWithoutItsSeparatorIsAbsent(t *testing.T) {
	got := receipt.Read("ARAL Tankstelle\nSuper E10 45,32 l x 1,759 EUR/L 79,72 EUR\nSumme EUR 79112\nDatum 30.11.2026 Zeit 16:05",
		receipt.Options{Now: now})
	if v, ok := got.Fields[receipt.Total]; ok {
		t.Fatalf("total %q, want absent", v)
	}
	got = receipt.Read("ARAL Tankstelle\nSuper E10 45,32 l x 1,759 EUR/L 79,72 EUR\nSumme EUR 79,72\nDatum 30.11.2026 Zeit 16:05",
		receipt.Options{Now: now})
	if got.Fields[receipt.Total] != "79.72" {
		t.Fatalf("total %q, want 79.72", got.Fields[receipt.Total])
	}
}
