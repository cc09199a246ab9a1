package furniture

import (
	"fmt"
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
