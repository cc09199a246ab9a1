package furniture

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// book is a small manual as a book prints it: a roman-numbered contents
// page, chapters whose odd pages carry "Chapter N: Title <page>" and whose
// even pages carry "<page> Car Owner Manual", chapter openings with only a
// page number at the foot, and an index. Physical page n has label n-1.
func book() []Page {
	texts := []string{
		// 1, "i": contents, its foot a roman page number.
		"Contents\nIntroduction . . . . . . 1\nEngine oil . . . . . . 2\nCoolant . . . . . . 3\n" +
			"Brakes . . . . . . 4\nBrake pads . . . . . . 5\nTyres . . . . . . 8\nIndex . . . . . . 10\ni",
		// 2, "1": a chapter opening; its first line happens to start with
		// its page number, once.
		"1 Introduction\nThis manual explains the care of your car.\nRead it before the first drive.\n1",
		"2 Car Owner Manual\nThe engine needs oil of grade 5W-30.\nCheck the oil level every month.",
		"Chapter 1: Introduction 3\nThe coolant keeps the engine at its temperature.\nTop it up only when the engine is cold.",
		"Brakes\nBrake pads wear with every stop.\nA worn pad squeals.\n4",
		"Chapter 2: Brakes 5\nReplace the brake pads when the warning light shows.\nThe pads come in pairs.",
		"6 Car Owner Manual\nBrake fluid absorbs water over the years.\nChange it every two years.",
		"Chapter 2: Brakes 7\nThe handbrake holds the car on a slope.\nAdjust its cable when it travels far.",
		"8 Car Owner Manual\nTyres\nTyre pressure is 2.4 bar at the front.",
		"Chapter 3: Tyres 9\nRotate the tyres every 10000 kilometres.\nCheck the tread depth as well.",
		// 11, "10": the index.
		"10 Car Owner Manual\nIndex\nB\nbrake fluid, 6\nbrake pads, 4, 5\nC\ncoolant 3\nE\nengine oil 2\n" +
			"T\ntyre pressure 8\ntyres 8, 9",
	}
	pages := make([]Page, len(texts))
	for i, t := range texts {
		label := fmt.Sprint(i)
		if i == 0 {
			label = "i"
		}
		pages[i] = Page{Number: i + 1, Label: label, Text: t}
	}
	return pages
}

func TestStripBook(t *testing.T) {
	got := Strip(book())
	want := []struct {
		removed    []string
		head       string
		bookHead   string
		navigation bool
		firstLine  string
	}{
		{[]string{"i"}, "", "", true, "Contents"},
		{[]string{"1"}, "", "", false, "1 Introduction"},
		{[]string{"2 Car Owner Manual"}, "", "Car Owner Manual", false, "The engine needs oil of grade 5W-30."},
		{[]string{"Chapter 1: Introduction 3"}, "Chapter 1: Introduction", "", false, "The coolant keeps the engine at its temperature."},
		{[]string{"4"}, "", "", false, "Brakes"},
		{[]string{"Chapter 2: Brakes 5"}, "Chapter 2: Brakes", "", false, "Replace the brake pads when the warning light shows."},
		{[]string{"6 Car Owner Manual"}, "", "Car Owner Manual", false, "Brake fluid absorbs water over the years."},
		{[]string{"Chapter 2: Brakes 7"}, "Chapter 2: Brakes", "", false, "The handbrake holds the car on a slope."},
		{[]string{"8 Car Owner Manual"}, "", "Car Owner Manual", false, "Tyres"},
		{[]string{"Chapter 3: Tyres 9"}, "Chapter 3: Tyres", "", false, "Rotate the tyres every 10000 kilometres."},
		{[]string{"10 Car Owner Manual"}, "", "Car Owner Manual", true, "Index"},
	}
	for i, w := range want {
		g := got[i]
		if !slices.Equal(g.Removed, w.removed) || g.RunningHead != w.head || g.BookHead != w.bookHead || g.Navigation != w.navigation ||
			strings.Split(g.Text, "\n")[0] != w.firstLine {
			t.Errorf("page %d: removed %q head %q book head %q navigation %v first line %q; want %q %q %q %v %q",
				i+1, g.Removed, g.RunningHead, g.BookHead, g.Navigation, strings.Split(g.Text, "\n")[0], w.removed, w.head, w.bookHead, w.navigation, w.firstLine)
		}
		for _, f := range []string{"Car Owner Manual", "Chapter 1:", "Chapter 2:", "Chapter 3:"} {
			if strings.Contains(g.Text, f) {
				t.Errorf("page %d keeps furniture %q: %q", i+1, f, g.Text)
			}
		}
	}
	// The body's last lines stay whole, numbers and all.
	if !strings.HasSuffix(got[2].Text, "Check the oil level every month.") || !strings.HasSuffix(got[4].Text, "A worn pad squeals.") ||
		!strings.Contains(got[9].Text, "every 10000 kilometres") {
		t.Errorf("body lines lost: %q / %q / %q", got[2].Text, got[4].Text, got[9].Text)
	}
}

// Without /PageLabels the page number is the physical page plus an offset
// the pages share; a running foot without a number on every page goes by
// its share of pages; lines deeper in the page are never touched.
func TestStripWithoutLabels(t *testing.T) {
	var pages []Page
	for n := 1; n <= 10; n++ {
		body := fmt.Sprintf("Body of section %c.\nGNU Widget (version 2.1)\nMore text about widgets of kind %c.", 'A'+n, 'a'+n)
		pages = append(pages, Page{Number: n, Text: fmt.Sprintf("Widget guide %d\n%s\nGNU Widget (version 2.1)", n+4, body)})
	}
	got := Strip(pages)
	for i, g := range got {
		want := fmt.Sprintf("Body of section %c.\nGNU Widget (version 2.1)\nMore text about widgets of kind %c.", 'A'+i+1, 'a'+i+1)
		if g.Text != want {
			t.Errorf("page %d text %q, want %q", i+1, g.Text, want)
		}
		// The head is the same on every page: the book's, not the page's,
		// without its page number.
		if g.RunningHead != "" || g.BookHead != "Widget guide" {
			t.Errorf("page %d running head %q, book head %q; want \"\", \"Widget guide\"", i+1, g.RunningHead, g.BookHead)
		}
	}
}

// Precision: a document of two pages has no running furniture; a line at
// the top of a page that looks like a head but repeats on fewer than three
// pages stays; a number at the edge that is not the page's stays.
func TestStripKeepsWhatIsNotFurniture(t *testing.T) {
	pages := []Page{
		{Number: 1, Label: "1", Text: "Warning 12\nDo not open the radiator cap when hot.\n47"},
		{Number: 2, Label: "2", Text: "Warning 12\nWear gloves.\n2"},
		{Number: 3, Label: "3", Text: "Oil grades\nUse 5W-30 oil.\n3"},
		{Number: 4, Label: "4", Text: "Short page 4"},
	}
	got := Strip(pages)
	want := []string{
		"Warning 12\nDo not open the radiator cap when hot.\n47",
		"Warning 12\nWear gloves.",
		"Oil grades\nUse 5W-30 oil.",
		"Short page 4",
	}
	for i, w := range want {
		if got[i].Text != w {
			t.Errorf("page %d text %q, want %q", i+1, got[i].Text, w)
		}
	}
	two := Strip([]Page{{Number: 1, Text: "Guide 1\nAlpha."}, {Number: 2, Text: "Guide 2\nBeta."}})
	if two[0].Text != "Guide 1\nAlpha." || two[1].Text != "Guide 2\nBeta." {
		t.Errorf("two pages lost lines: %q %q", two[0].Text, two[1].Text)
	}
	// Pages that are nothing but what repeats (a short leaflet, the same
	// two lines on each page) keep their text: it is the document's.
	var leaflet []Page
	for n := 1; n <= 3; n++ {
		leaflet = append(leaflet, Page{Number: n, Text: fmt.Sprintf("Page %d of the leaflet.\nCheck the tyre pressure every month.", n)})
	}
	for i, r := range Strip(leaflet) {
		if r.Text != leaflet[i].Text || r.RunningHead != "" || r.BookHead != "" || len(r.Removed) != 0 {
			t.Errorf("leaflet page %d: %+v, want its text whole and nothing removed", i+1, r)
		}
	}
}

func TestIsNavigation(t *testing.T) {
	cases := []struct {
		name string
		text string
		want bool
	}{
		{"dot leaders", "Table of Contents\n1 Introduction . . . . . 2\n1.1 The R environment. . . . . 2\n1.2 Related software . . . . 3\n2 Vectors . . . . 8\n2.1 Assignment . . . . 8", true},
		{"index with lists", "A\nabs 9\nacos 9, 12\nadd1 21–23\nB\nboxplot 70\nbreak . . . . 44\nbrowser 52", true},
		{"roman front matter", "Preface ix\nAcknowledgements xi\nConventions xii\nIntroduction 1\nInstallation 5", true},
		{"body", "The engine needs oil of grade 5W-30.\nCheck the level every month.\nUse the dipstick.\nTop up to the mark.\nClose the cap.", false},
		{"decimals and sizes", "front 2.4\nrear 2.2\nspare 4.2\nvan 3.5\ntruck 6.5", false},
		{"numbers past the document", "year 1999\nyear 2004\nyear 2010\nyear 2015\nyear 2020", false},
		{"too few lines", "Intro 1\nUsage 2\nNotes", false},
		{"half body", "Intro 1\nUsage 2\nNotes 3\nMore 4\nAll of these lines are plain text.\nAnd so is this one.\nAnd this.\nAnd that.\nThe end.", false},
	}
	for _, c := range cases {
		if got := IsNavigation(c.text, 100); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestNumbers(t *testing.T) {
	for s, want := range map[string]int{"iv": 4, "XII": 12, "mcmxc": 1990, "7": 7, "00012": 12} {
		if n, ok := parseNumber(s); !ok || n != want {
			t.Errorf("parseNumber(%q) = %d, %v", s, n, ok)
		}
	}
	for _, s := range []string{"iiii", "Iv", "vx", "", "123456", "abc"} {
		if n, ok := parseNumber(s); ok {
			t.Errorf("parseNumber(%q) = %d", s, n)
		}
	}
	for line, want := range map[string]string{
		"Chapter 5: Arrays and matrices 21": "Chapter 5: Arrays and matrices",
		"21 GNU Octave":                     "GNU Octave",
		"Debian Guide 3 / 57":               "Debian Guide",
		"Kapitel 3: Notation 27 ¨":          "Kapitel 3: Notation",
	} {
		if got := headText(line, true); got != want {
			t.Errorf("headText(%q) = %q, want %q", line, got, want)
		}
	}
}

// A body sentence at the edge of a page that carries its page's number
// ("section 7" on page 7) on several pages is text, not a running foot:
// issue 58's torque line on pages 7, 11, 14 and 21 of a 30-page manual,
// a short sentence in the top band, and a long wrapped line without a
// full stop at the bottom. The running heads and feet around them still go.
func TestStripKeepsBodySentencesCarryingThePageNumber(t *testing.T) {
	titles := []string{"Introduction", "Engine", "Brakes", "Wheels and tyres", "Lights", "Electrics"}
	parts := []string{"oil level", "coolant", "brake fluid", "tyre pressure", "wiper blades"}
	times := []string{"every month", "every week", "before a long journey", "after a cold night", "each spring", "each autumn"}
	edges := map[int][2]string{} // page -> top-band line, bottom-band line
	for _, p := range []int{7, 11, 14, 21} {
		edges[p] = [2]string{"", fmt.Sprintf("Important: the torque for wheel bolts in section %d is 120 newton metres (service code QZX07ALPHA).", p)}
	}
	for _, p := range []int{5, 12, 25} {
		edges[p] = [2]string{fmt.Sprintf("Section %d covers the brakes in detail.", p), ""}
	}
	for _, p := range []int{4, 9, 16} {
		edges[p] = [2]string{"", fmt.Sprintf("the brake pads listed in section %d wear faster on cars that often tow a heavy trailer and", p)}
	}
	var pages []Page
	heads := map[int]string{}
	for p := 1; p <= 30; p++ {
		head := fmt.Sprintf("%d CarHub Owner's Manual", p)
		if p%2 == 1 {
			head = fmt.Sprintf("Chapter %d: %s %d", (p-1)/5+1, titles[(p-1)/5], p)
		}
		heads[p] = head
		// Each page's own sentences: the same sentence at the edge of
		// every page would be a foot by its share of pages.
		what, when := parts[p%len(parts)], times[p%len(times)]
		body := []string{"Check the " + what + " " + when + ".", "The dealer checks the " + what + " at each service.", "Ask the dealer about the " + what + " when in doubt."}
		if top := edges[p][0]; top != "" {
			body = append([]string{top}, body...)
		}
		if bottom := edges[p][1]; bottom != "" {
			body = append(body, bottom)
		}
		text := head + "\n" + strings.Join(body, "\n") + fmt.Sprintf("\nPage %d of 30", p)
		pages = append(pages, Page{Number: p, Label: fmt.Sprint(p), Text: text})
	}
	for i, r := range Strip(pages) {
		p := i + 1
		want := []string{heads[p], fmt.Sprintf("Page %d of 30", p)}
		if !slices.Equal(r.Removed, want) {
			t.Errorf("page %d removed %q, want %q", p, r.Removed, want)
		}
		for _, line := range edges[p] {
			if !strings.Contains(r.Text, line) {
				t.Errorf("page %d lost the body line %q: %q", p, line, r.Text)
			}
		}
		if wantHead := strings.TrimSuffix(heads[p], fmt.Sprint(" ", p)); p%2 == 1 && r.RunningHead != wantHead {
			t.Errorf("page %d running head %q, want %q", p, r.RunningHead, wantHead)
		}
		if p%2 == 0 && r.BookHead != "CarHub Owner's Manual" {
			t.Errorf("page %d book head %q, want \"CarHub Owner's Manual\"", p, r.BookHead)
		}
	}
}

func TestIsProse(t *testing.T) {
	for line, want := range map[string]bool{
		"Chapter 9: List of Commands in the Gri Language 85": false,
		"GNU Octave (version 7.3.0)":                         false,
		"Debian 参考手册 71 / 223":                               false,
		"Kapitel 3: Übliche Notation 27 ¨":                   false,
		"See also: [javachk], page 1058.":                    true,
		"See also: [isreal], page 67, [isnumeric], page 67,": true,
		"(see page 7.)":                                      true,
		"车轮螺栓的扭矩见第7节。":                                       true,
		"the brake pads listed in section 9 wear faster on cars that often tow a heavy trailer and":          true,
		"Important: the torque for wheel bolts in section 7 is 120 newton metres (service code QZX07ALPHA).": true,
	} {
		if got := isProse(line); got != want {
			t.Errorf("isProse(%q) = %v, want %v", line, got, want)
		}
	}
}

// knownLine is a line of a generated page and what it is.
type knownLine struct {
	text      string
	furniture bool
	// carries: a body line with the page's printed number in it
	carries bool
}

// generatedManual is a manual of n pages whose furniture is known: style
// picks its frame (0: odd pages "Chapter c: Title p", even pages "p
// CarHub Owner's Manual", a bare page number on chapter openings; 1: "CarHub
// Service Guide p / n" on top; 2: an unnumbered title on top and "Page p
// of n" at the foot; 3: a front matter numbered i, ii, iii, then the
// printed number at the foot and an unnumbered foot above it). Its body
// sentences are drawn at random; some pages have, next to the top or the
// bottom furniture, a body line that carries the page's printed number
// ("section 7" on page 7), each kind on several pages.
func generatedManual(rng *rand.Rand, style, n int) ([]Page, [][]knownLine) {
	titles := []string{"Introduction", "Engine", "Brakes", "Wheels and tyres", "Lights", "Electrics", "Body and paint", "Index"}
	subjects := []string{"the oil level", "the coolant", "the brake fluid", "the tyre pressure", "the wiper blades", "the battery", "the fuses", "the headlamp bulbs"}
	verbs := []string{"Check", "Inspect", "Clean", "Replace", "Top up", "Look at"}
	whens := []string{"every month", "every 10000 kilometres", "before a long journey", "after a cold night", "each spring", "at each service"}
	// The body lines that carry the page's number, by kind: a long
	// sentence (issue 58), a short one, a cross reference, a long wrapped
	// line without a full stop, a line ending in a comma, a sentence in
	// Chinese.
	edgeLines := []string{
		"Important: the torque for wheel bolts in section %d is 120 newton metres (service code QZX07ALPHA).",
		"Section %d covers the brakes in detail.",
		"See also: wheel bolts, page %d.",
		"the brake pads listed in section %d wear faster on cars that often tow a heavy trailer and",
		"Warning: the jack points are shown in figure %d,",
		"车轮螺栓的扭矩见第 %d 节。",
	}
	front := 0
	if style == 3 {
		front = 3
	}
	// Each kind sits at the top of its pages or at the bottom (where a
	// running head or foot would be on each of them).
	edgePages, edgeAtTop := make([]map[int]bool, len(edgeLines)), make([]bool, len(edgeLines))
	for k := range edgeLines {
		edgePages[k], edgeAtTop[k] = map[int]bool{}, rng.IntN(2) == 0
		for on := 3 + rng.IntN(3); len(edgePages[k]) < on; {
			edgePages[k][front+1+rng.IntN(n-front)] = true
		}
	}
	var pages []Page
	var truth [][]knownLine
	for p := 1; p <= n; p++ {
		printed := p - front
		label := fmt.Sprint(printed)
		if printed <= 0 {
			label = toRoman(p)
		}
		chapter := (p - 1) * len(titles) / n
		opening := p == 1 || (p-2)*len(titles)/n != chapter
		var head, foot []knownLine
		switch style {
		case 0:
			switch {
			case opening:
				foot = []knownLine{{text: label, furniture: true}}
			case p%2 == 1:
				head = []knownLine{{text: fmt.Sprintf("Chapter %d: %s %s", chapter+1, titles[chapter], label), furniture: true}}
			default:
				head = []knownLine{{text: label + " CarHub Owner's Manual", furniture: true}}
			}
		case 1:
			head = []knownLine{{text: fmt.Sprintf("CarHub Service Guide %d / %d", p, n), furniture: true}}
		case 2:
			head = []knownLine{{text: "CarHub Roadster Owner's Manual", furniture: true}}
			foot = []knownLine{{text: fmt.Sprintf("Page %d of %d", p, n), furniture: true}}
		case 3:
			foot = []knownLine{{text: "CarHub Roadster, edition 2026", furniture: true}, {text: label, furniture: true}}
		}
		var body []knownLine
		for range 3 + rng.IntN(5) {
			s := fmt.Sprintf("%s %s %s.", verbs[rng.IntN(len(verbs))], subjects[rng.IntN(len(subjects))], whens[rng.IntN(len(whens))])
			body = append(body, knownLine{text: s})
		}
		for k, line := range edgeLines {
			if !edgePages[k][p] {
				continue
			}
			edge := knownLine{text: fmt.Sprintf(line, printed), carries: true}
			if edgeAtTop[k] {
				body = append([]knownLine{edge}, body...)
			} else {
				body = append(body, edge)
			}
		}
		lines := slices.Concat(head, body, foot)
		texts := make([]string, len(lines))
		for i, l := range lines {
			texts[i] = l.text
		}
		// Styles 1 and 2 have no /PageLabels: their printed numbers are
		// read by their offset. (A roman front matter has labels: without
		// them "i" on page 1 is a number like any other.)
		if style == 1 || style == 2 {
			label = ""
		}
		pages = append(pages, Page{Number: p, Label: label, Text: strings.Join(texts, "\n")})
		truth = append(truth, lines)
	}
	return pages, truth
}

// What Strip removes from 40 generated manuals (1 724 pages) whose
// furniture is known: all of the furniture (2 585 lines), and not one of
// the 4 311 body lines in the bands, although 795 of them carry their
// page's number, each kind on several pages at the same edge. The rule
// before issue 58 removed the same furniture and 767 of those 795 lines.
func TestStripMeasuredOnGeneratedManuals(t *testing.T) {
	var furniture, furnitureRemoved, bandBody, bandCarrying, bodyRemoved int
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 58))
		pages, truth := generatedManual(rng, int(seed%4), 20+rng.IntN(40))
		for i, r := range Strip(pages) {
			kinds := map[string]bool{}
			for j, l := range truth[i] {
				kinds[l.text] = l.furniture
				if l.furniture {
					furniture++
				} else if j < bandLines || j >= len(truth[i])-bandLines {
					bandBody++
					if l.carries {
						bandCarrying++
					}
				}
			}
			for _, line := range r.Removed {
				isFurniture, known := kinds[line]
				switch {
				case !known:
					t.Fatalf("seed %d page %d: removed %q, not a line of the page", seed, i+1, line)
				case isFurniture:
					furnitureRemoved++
				default:
					bodyRemoved++
					t.Errorf("seed %d page %d: body line %q removed", seed, i+1, line)
				}
			}
		}
	}
	t.Logf("furniture removed %d of %d; body lines in the bands %d (%d carrying the page's number), removed %d",
		furnitureRemoved, furniture, bandBody, bandCarrying, bodyRemoved)
	if furnitureRemoved != furniture {
		t.Errorf("furniture removed %d of %d, want all", furnitureRemoved, furniture)
	}
	if bandCarrying < 500 {
		t.Errorf("only %d body lines in the bands carry their page's number: the corpus measures little", bandCarrying)
	}
}
