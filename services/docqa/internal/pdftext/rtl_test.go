package pdftext

import (
	"slices"
	"testing"
)

// visual sets text on one line of loose boxes from left to right, as a
// page shows it (a right-to-left word thus reversed), in the order the
// characters are given to placed: chars[i] is the rune at visual
// position order[i]. A space is a space glyph with its box.
func visual(text string, order []int) []glyph {
	rs := []rune(text)
	gs := make([]glyph, len(rs))
	for i, r := range rs {
		x := float32(100 + 5*i)
		gs[i] = glyph{r: r, left: x, bottom: 700, right: x + 5, top: 710, hasBox: true}
	}
	if order == nil {
		return gs
	}
	out := make([]glyph, len(order))
	for i, p := range order {
		out[i] = gs[p]
	}
	return out
}

func reversed(n int) []int {
	o := make([]int, n)
	for i := range o {
		o[i] = n - 1 - i
	}
	return o
}

func TestBuildTextRightToLeftLines(t *testing.T) {
	for _, tc := range []struct {
		name  string
		shown string // the line as drawn, left to right
		order []int  // PDFium's order of the drawn characters (nil: as drawn)
		want  string
	}{
		// Hebrew drawn left to right: read from the right.
		{"hebrew", "םולש הדות", nil, "תודה שלום"},
		// PDFium's order does not matter: the boxes decide.
		{"hebrew, any order", "םולש הדות", reversed(9), "תודה שלום"},
		{"hebrew, shuffled", "םולש הדות", []int{3, 0, 8, 1, 5, 2, 7, 4, 6}, "תודה שלום"},
		// A number and a Latin word inside a right-to-left line keep
		// their own order and their place in the sentence.
		{"number", "רטמוליק 10,000 לכ", nil, "כל 10,000 קילומטר"},
		{"latin", "שי 4 DOT אוה", nil, "הוא DOT 4 יש"},
		// Arabic (class AL) with Arabic-Indic digits.
		{"arabic", "ةرايسلا ١٢ ليلد", nil, "دليل ١٢ السيارة"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gs := visual(tc.shown, tc.order)
			got, at := buildText(gs, true)
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			if len(at) != len(got) {
				t.Fatalf("%d byte indexes for %d bytes", len(at), len(got))
			}
			for i, k := range at {
				if k < 0 || k >= len(gs) {
					t.Fatalf("byte %d points at character %d of %d", i, k, len(gs))
				}
			}
		})
	}
}

// A Latin sentence quoting Hebrew on a Hebrew page reads from the right,
// as the page does.
func TestBuildTextLatinLineOnHebrewPage(t *testing.T) {
	gs := visual("year ןנסמה תא :The manual", nil)
	gs = append(gs, glyph{r: '\n'})
	for _, g := range visual("םיגימצה ץחל תא וקדב", nil) {
		g.bottom, g.top = 680, 690
		gs = append(gs, g)
	}
	got, _ := buildText(gs, true)
	if want := "The manual: את המסנן year\nבדקו את לחץ הצמיגים"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// A left-to-right page with a Hebrew phrase: the line reads from the left.
func TestBuildTextHebrewPhraseOnLatinPage(t *testing.T) {
	gs := visual("The workshop wrote: ןנסמהו ןמשה in the book", nil)
	got, _ := buildText(gs, true)
	if want := "The workshop wrote: השמן והמסנן in the book"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// Marks stay with their letters, composed in canonical order, whichever
// side of the letter PDFium put their box.
func TestBuildTextRightToLeftMarks(t *testing.T) {
	// "שָׁלוֹם" drawn left to right: ם, ו with holam, ל, ש with
	// qamats and shin dot. The shin's marks sit over it (boxes inside
	// its box); the holam's box was cut from one span with its vav
	// (the same height), to its left.
	gs := []glyph{
		{r: 'ם', left: 100, right: 107, bottom: 700, top: 713, hasBox: true},
		{r: 'ו', left: 108, right: 110, bottom: 702, top: 712, hasBox: true},
		{r: '\u05b9', left: 107, right: 108, bottom: 702, top: 712, hasBox: true},
		{r: 'ל', left: 110, right: 117, bottom: 700, top: 713, hasBox: true},
		{r: '\u05b8', left: 120, right: 121, bottom: 700, top: 702, hasBox: true},
		{r: 'ש', left: 117, right: 125, bottom: 700, top: 713, hasBox: true},
		{r: '\u05c1', left: 123, right: 124, bottom: 712, top: 713, hasBox: true},
	}
	got, _ := buildText(gs, true)
	if want := "שָׁלוֹם"; got != want {
		t.Errorf("got %q (%U), want %q", got, []rune(got), want)
	}
}

// Lines whose characters do not sit on one line (rotated text), or lack a
// box, keep PDFium's order; so do pages without right-to-left letters.
func TestBuildTextRightToLeftFallsBack(t *testing.T) {
	gs := visual("םולש", nil)
	gs[2].bottom, gs[2].top = 600, 610
	if got, _ := buildText(gs, true); got != "םולש" {
		t.Errorf("off the line: got %q", got)
	}
	gs = visual("םולש", nil)
	gs[1].hasBox = false
	if got, _ := buildText(gs, true); got != "םולש" {
		t.Errorf("no box: got %q", got)
	}
	if reorderLines(visual("plain text", nil)) != nil {
		t.Error("a page without right-to-left letters was reordered")
	}
}

func TestLogicalOrder(t *testing.T) {
	for _, tc := range []struct {
		visual string
		rtl    bool
		want   string
	}{
		{"cba", true, "cba"}, // Latin reads left to right in any paragraph
		{"abc", false, "abc"},
		{"גבא", false, "אבג"},
		{"גבא", true, "אבג"},
		{"ab 12 גבא", false, "ab 12 אבג"},
		{"ab גבא", true, "אבג ab"},
		{"12 גבא", false, "12 אבג"},
		{"12 גבא", true, "אבג 12"},
		{"גבא 12 דה", false, "הד 12 אבג"}, // a number between Hebrew words, on a Latin page
	} {
		rs := []rune(tc.visual)
		var got []rune
		for _, p := range logicalOrder(rs, tc.rtl) {
			got = append(got, rs[p])
		}
		if string(got) != tc.want {
			t.Errorf("logicalOrder(%q, rtl %v) = %q, want %q", tc.visual, tc.rtl, string(got), tc.want)
		}
		if o := logicalOrder(rs, tc.rtl); !slices.Equal(slices.Sorted(slices.Values(o)), identity(len(rs))) {
			t.Errorf("logicalOrder(%q) = %v is no permutation", tc.visual, o)
		}
	}
}

// A line past maxReorderedLine characters (only a hostile file has one)
// keeps PDFium's order; one within it is reordered.
func TestBuildTextLongRightToLeftLine(t *testing.T) {
	long := func(n int) string {
		rs := make([]rune, n)
		for i := range rs {
			rs[i] = 'א' + rune(i%3)
		}
		return string(rs)
	}
	within := long(maxReorderedLine)
	if got, _ := buildText(visual(within, nil), true); got != reverseRunes(within) {
		t.Errorf("a line of %d characters was not reordered", maxReorderedLine)
	}
	past := long(maxReorderedLine + 1)
	if got, _ := buildText(visual(past, nil), true); got != past {
		t.Errorf("a line of %d characters was reordered", maxReorderedLine+1)
	}
}

func reverseRunes(s string) string {
	rs := []rune(s)
	slices.Reverse(rs)
	return string(rs)
}
