package pdftext

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/carhub/backend/services/docqa/internal/tooltest"
)

// line sets text on one line of 10-unit loose boxes (font size about 9):
// each rune takes width 5 after the gap before it, given in gaps (one
// per rune, the first ignored); '\r', '\n' and the other control
// characters get no box, as PDFium's own line ends have none.
func line(text string, gaps ...float32) []glyph {
	var gs []glyph
	x := float32(100)
	for i, r := range []rune(text) {
		if r < ' ' {
			gs = append(gs, glyph{r: r})
			continue
		}
		if i > 0 && i < len(gaps) {
			x += gaps[i]
		}
		gs = append(gs, glyph{r: r, left: x, bottom: 700, right: x + 5, top: 710, hasBox: true, origin: x, hasOrigin: true})
		x += 5
	}
	return gs
}

func TestBuildTextMovesAccentsAfterTheirLetter(t *testing.T) {
	for _, tc := range []struct {
		name string
		gs   []glyph
		want string
	}{
		// TeX's \'e: the acute is drawn first, over the e (its box
		// centred on the e's), then the e; then "t" and "e" follow.
		{"acute over e", []glyph{
			{r: 'd', left: 0, right: 5, bottom: 0, top: 10, hasBox: true},
			{r: '\u00B4', left: 5.5, right: 9.5, bottom: 0, top: 10, hasBox: true},
			{r: 'e', left: 5, right: 10, bottom: 0, top: 10, hasBox: true},
			{r: 't', left: 10, right: 14, bottom: 0, top: 10, hasBox: true},
		}, "dét"},
		// A combining mark (Mn) before its letter, and one (a caron
		// over x) for which Unicode has no precomposed character.
		{"Mn before letter", []glyph{
			{r: '\u0308', left: 0, right: 5, bottom: 0, top: 10, hasBox: true},
			{r: 'u', left: 0, right: 5, bottom: 0, top: 10, hasBox: true},
			{r: '\u02C7', left: 5, right: 10, bottom: 0, top: 10, hasBox: true},
			{r: 'x', left: 5, right: 10, bottom: 0, top: 10, hasBox: true},
		}, "ü" + "x\u030C"},
		// Macron and dot-less letters of transliterated Arabic: ā, ī.
		{"macrons", []glyph{
			{r: 'q', left: 0, right: 5, bottom: 0, top: 10, hasBox: true},
			{r: '\u00AF', left: 5, right: 10, bottom: 0, top: 10, hasBox: true},
			{r: 'a', left: 5, right: 10, bottom: 0, top: 10, hasBox: true},
			{r: 'd', left: 10, right: 15, bottom: 0, top: 10, hasBox: true},
			{r: '\u00AF', left: 15, right: 18, bottom: 0, top: 10, hasBox: true},
			{r: 'i', left: 15, right: 18, bottom: 0, top: 10, hasBox: true},
		}, "qādī"},
		// A spacing accent after the letter it stands over.
		{"accent after its letter", []glyph{
			{r: 'c', left: 0, right: 5, bottom: 0, top: 10, hasBox: true},
			{r: '\u00B8', left: 0.5, right: 4.5, bottom: 0, top: 10, hasBox: true},
			{r: 'a', left: 5, right: 10, bottom: 0, top: 10, hasBox: true},
		}, "ça"},
		// An accent standing alone, apart from any letter, stays.
		{"lone accent", line("a ´ b"), "a ´ b"},
		{"accent with nothing after it", line("e´"), "e´"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, at := buildText(tc.gs, true)
			if got != tc.want {
				t.Errorf("buildText = %q, want %q", got, tc.want)
			}
			if len(at) != len(got) {
				t.Fatalf("%d indexes for %d bytes", len(at), len(got))
			}
		})
	}
}

func TestBuildTextMapsBytesToCharacters(t *testing.T) {
	gs := []glyph{
		{r: 'd', left: 0, right: 5, bottom: 0, top: 10, hasBox: true},
		{r: '\u00B4', left: 5.5, right: 9.5, bottom: 0, top: 10, hasBox: true},
		{r: 'e', left: 5, right: 10, bottom: 0, top: 10, hasBox: true},
		{r: 'x', left: 15, right: 20, bottom: 0, top: 10, hasBox: true}, // a word break before it
		{r: '\r'}, {r: '\n'}, {r: 0xFFFE}, {r: 0x01},
		{r: 0xD835, left: 0, right: 5, bottom: -20, top: -10, hasBox: true}, // 𝐵, as PDFium gives it: two halves
		{r: 0xDC35, left: 0, right: 5, bottom: -20, top: -10, hasBox: true},
	}
	got, at := buildText(gs, true)
	if want := "dé x\n𝐵"; got != want {
		t.Fatalf("buildText = %q, want %q", got, want)
	}
	// d; é (two bytes: the e, then the acute's index on the last); the
	// space and x from x; the line end from its "\n"; 𝐵 (four bytes) from
	// its two halves.
	want := []int{0, 2, 1, 3, 3, 5, 8, 8, 8, 9}
	if len(at) != len(want) {
		t.Fatalf("at = %v, want %v", at, want)
	}
	for i := range want {
		if at[i] != want[i] {
			t.Fatalf("at = %v, want %v", at, want)
		}
	}
}

func TestBuildTextSpacesFromPositions(t *testing.T) {
	const h = 10 // the loose boxes' height
	for _, tc := range []struct {
		name string
		gs   []glyph
		want string
	}{
		// Glyph by glyph without spaces: a gap of 0.3 of the height is
		// a word break; 0.1, kerning (negative) and none are not.
		{"word gaps", line("isacompiled", 0, 0, 0.3*h, 0.3*h, 0.1*h, -0.05*h, 0, 0, 0.02*h, 0, 0), "is a compiled"},
		// Just above and just below the bar.
		{"at the bar", line("abc", 0, (wordGap+0.01)*h, (wordGap-0.01)*h), "a bc"},
		// A space PDFium has is kept where there is a gap (narrow, as in
		// justified text); one between letters that touch is dropped.
		{"spaces kept", line("of the", 0, 0, 0.08*h, 0, 0, 0), "of the"},
		{"space inside a word dropped", line("gro und", 0, 0, 0, 0, -5, 0, 0), "ground"},
		{"spaces inside a word dropped", line("gro  und", 0, 0, 0, 0, -5, -5, 0, 0), "ground"},
		{"space before an overhanging j kept", overhang, "a j"},
		// Line ends stay; no space is added across them.
		{"line end", line("ab\r\ncd", 0, 0, 0, 0, 0.5*h, 0), "ab\ncd"},
		// Chinese and Japanese set apart are not split into words.
		{"CJK", line("点检タイヤ", 0, 0.5*h, 0.5*h, 0.5*h, 0.5*h), "点检タイヤ"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, _ := buildText(tc.gs, true); got != tc.want {
				t.Errorf("buildText = %q, want %q", got, tc.want)
			}
		})
	}
	// The next line (below), a new column (far left) and rotated text
	// (boxes that do not overlap in height) are no word gaps on a line.
	a := glyph{r: 'a', left: 100, right: 105, bottom: 700, top: 710, hasBox: true}
	for _, b := range []glyph{
		{r: 'b', left: 120, right: 125, bottom: 688, top: 698, hasBox: true},
		{r: 'b', left: 20, right: 25, bottom: 700, top: 710, hasBox: true},
		{r: 'b', left: 120, right: 125, bottom: 705, top: 715, hasBox: true},
	} {
		if got, _ := buildText([]glyph{a, b}, true); got != "ab" {
			t.Errorf("a then b at %+v: %q, want \"ab\"", b, got)
		}
	}
	// Nor is a space next to one of them dropped.
	for _, b := range []glyph{
		{r: 'b', left: 105, right: 110, bottom: 688, top: 698, hasBox: true},
		{r: 'b', left: 20, right: 25, bottom: 700, top: 710, hasBox: true},
	} {
		if got, _ := buildText([]glyph{a, {r: ' '}, b}, true); got != "a b" {
			t.Errorf("a, space, b at %+v: %q, want \"a b\"", b, got)
		}
	}
}

func TestComposeDotlessI(t *testing.T) {
	for _, tc := range []struct {
		base string
		mark rune
		want string
	}{
		{"ı", '\u0301', "í"},
		{"ı", '\u0308', "ï"},
		{"ı", '\u0304', "ī"},
		{"ȷ", '\u030C', "ǰ"},
		{"ı", '\u0327', "ı\u0327"}, // a cedilla is below: the letter stays dotless
		{"e", '\u0301', "é"},
		{"t", '\u030C', "ť"},
		{"x", '\u030C', "x\u030C"},
	} {
		if got := compose([]byte(tc.base), tc.mark); got != tc.want {
			t.Errorf("compose(%q, %U) = %q, want %q", tc.base, tc.mark, got, tc.want)
		}
	}
}

// combining's fast paths answer as the plain definition does.
func TestCombining(t *testing.T) {
	for r := rune(0); r < 0x20000; r++ {
		want := rune(0)
		if c, ok := spacingAccents[r]; ok {
			want = c
		} else if unicode.Is(unicode.Mn, r) {
			want = r
		}
		if got := combining(r); got != want {
			t.Fatalf("combining(%U) = %U, want %U", r, got, want)
		}
	}
	for accent, mark := range map[rune]rune{'´': '\u0301', '`': '\u0300', '¨': '\u0308', '¯': '\u0304', 'ˇ': '\u030C',
		'˘': '\u0306', '˚': '\u030A', '˜': '\u0303', 'ˆ': '\u0302', '¸': '\u0327', '˙': '\u0307', '˝': '\u030B', '˛': '\u0328'} {
		if got := combining(accent); got != mark {
			t.Errorf("combining(%q) = %U, want %U", accent, got, mark)
		}
	}
}

// "a journal": the j's box reaches left of its origin, almost to the a.
var overhang = []glyph{
	{r: 'a', left: 100, right: 105, bottom: 700, top: 710, hasBox: true, origin: 100, hasOrigin: true},
	{r: ' ', left: 105, right: 108.3, bottom: 700, top: 710, hasBox: true, origin: 105, hasOrigin: true},
	{r: 'j', left: 105.2, right: 111, bottom: 700, top: 710, hasBox: true, origin: 108.3, hasOrigin: true},
}

func TestWhichBoxesAreRead(t *testing.T) {
	plain := line("The oil is checked every month.")
	if needsAllBoxes(plain) {
		t.Error("a page of ordinary words needs every box")
	}
	for _, text := range []string{
		"Theoilischeckedeverymonthandbeforealongjourney",  // one run-together word
		"Theoil ischecked everymonth beforea longjourney", // words run together on average
	} {
		if !needsAllBoxes(line(text)) {
			t.Errorf("%q: its word gaps are not all measured", text)
		}
	}
	if needsAllBoxes(line("the entry is read by extractXRefTableEntriesFromXRefStream in the file")) {
		t.Error("a camel-case identifier counts as one word")
	}
	if needsAllBoxes(line("点检点检点检点检点检点检点检点检点检点检点检点检")) {
		t.Error("Chinese counts as one long word")
	}
	// A space between letters that touch, its advance taken back, is
	// stray; one at a gap is not, nor one whose next glyph reaches back
	// into it (a j) while the pen stands after it.
	if !strayAt(line("gro und", 0, 0, 0, 0, -5, 0, 0), 3) {
		t.Error("a space inside a word is not stray")
	}
	if strayAt(line("of the"), 2) {
		t.Error("a space at a gap is stray")
	}
	if strayAt(overhang, 1) {
		t.Error("a space before a j reaching back into it is stray")
	}
	// Beside a space, and next to an accent.
	gs := line("ab cd´ef")
	var near, beside []int
	for i := range gs {
		if nearMark(gs, i) {
			near = append(near, i)
		}
		if besideSpace(gs, i) {
			beside = append(beside, i)
		}
	}
	if fmt.Sprint(near) != "[4 5 6]" || fmt.Sprint(beside) != "[1 3]" {
		t.Errorf("near a mark %v (want [4 5 6]), beside a space %v (want [1 3])", near, beside)
	}
}

func TestBuildTextLetterSpacing(t *testing.T) {
	const h = 10
	// Letters 0.2 of the height apart (letter-spaced), words 0.6 apart:
	// the words, not the letters.
	gaps := []float32{0}
	for range len("Thisisatour") - 1 {
		gaps = append(gaps, 0.2*h)
	}
	gaps[4], gaps[6], gaps[7] = 0.6*h, 0.6*h, 0.6*h // before "is", "a", "tour"
	if got, _ := buildText(line("Thisisatour", gaps...), true); got != "This is a tour" {
		t.Errorf("letter-spaced: %q, want \"This is a tour\"", got)
	}
	// Too few letters on a line to tell its spacing: 0.
	if got := letterSpacing(line("ab", 0, 0.2*h)); got[1] != 0 {
		t.Errorf("spacing of a two-letter line %v, want 0", got)
	}
	// Each line its own spacing.
	gs := append(line("abcdefg", 0, 2, 2, 2, 2, 2, 2), glyph{r: '\n'})
	gs = append(gs, line("hijklmn")...)
	got := letterSpacing(gs)
	if got[0] != 2 || got[6] != 2 || got[8] != 0 || got[len(got)-1] != 0 {
		t.Errorf("letterSpacing = %v, want 2 on the first line, 0 on the second", got)
	}
}

// Where readGlyphs read boxes here and there only, no gap is measured: a
// page PDFium spaced from the producer's spaces keeps its words.
func TestBuildTextMeasuresGapsOnlyWhereAllWereRead(t *testing.T) {
	gs := line("isacompiled", 0, 0, 3, 3, 0, 0, 0, 0, 0, 0, 0)
	if got, _ := buildText(gs, false); got != "isacompiled" {
		t.Errorf("not measured: %q", got)
	}
	if got, _ := buildText(gs, true); got != "is a compiled" {
		t.Errorf("measured: %q", got)
	}
}

// The corners of texinfo's example frames (@cartouche) in R's manuals,
// which PDFium reads as dingbats: a line of them and nothing else is
// dropped with its line end, as pdftotext gives nothing for them; the
// same symbols beside words are kept. The lines are PDFium's for page 39
// of R-intro.pdf (Debian's r-doc-pdf): "☛ ✟" above the example and
// "✡ ✠" below it, a space PDFium made up between the two corners.
func TestBuildTextDropsFrameCornerLines(t *testing.T) {
	for _, tc := range []struct {
		name, text, want string
	}{
		{"R-intro example", "look as follows.\r\n☛ ✟\r\nInput file form\r\n01 52.00 111.0\r\n✡ ✠\r\nBy default",
			"look as follows.\nInput file form\n01 52.00 111.0\nBy default"},
		{"first and last line", "☛ ✟\r\nInput\r\n✡ ✠", "Input\n"},
		{"line ends without CR", "a\n✡ ✠\nb", "a\nb"},
		{"one corner alone", "a\r\n ✟ \r\nb", "a\nb"},
		{"a symbol in a sentence", "☛ See the note.\r\nThe ✠ marks a date.", "☛ See the note.\nThe ✠ marks a date."},
		{"other dingbats", "✓ ✗\r\nb", "✓ ✗\nb"},
		{"a blank line stays", "a\r\n \r\nb", "a\n \nb"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gs := line(tc.text)
			got, at := buildText(gs, true)
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			if len(at) != len(got) {
				t.Fatalf("%d byte indexes for %d bytes", len(at), len(got))
			}
			for i, k := range at {
				if gs[k].r != []rune(tc.text)[k] {
					t.Fatalf("byte %d points at %q", i, gs[k].r)
				}
			}
		})
	}
}

// rIntro is R's introduction as Debian's r-doc-pdf installs it (the
// retrieval benchmark reads it too). The package is not one the tests
// install, so the tests that read it skip without it, under CI as well.
const rIntro = "/usr/share/R/doc/manual/R-intro.pdf"

// TestRIntroExamplesHaveNoFrameCorners reads the pages of R-intro whose
// examples are framed (@cartouche; 39 and 40 hold four frames): no corner
// is left, and the text of the examples and around them is.
func TestRIntroExamplesHaveNoFrameCorners(t *testing.T) {
	if _, err := os.Stat(rIntro); err != nil {
		tooltest.Missing(t, rIntro+" is not installed (apt-get install r-doc-pdf)")
	}
	f, size := mustOpen(t, rIntro)
	doc, err := engine.Extract(context.Background(), f, size, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Pages) < 40 {
		t.Fatalf("%d pages", len(doc.Pages))
	}
	var text strings.Builder
	for _, p := range doc.Pages {
		if strings.ContainsFunc(p.Text, func(r rune) bool { return slices.Contains(frameGlyphs[:], r) }) {
			t.Errorf("page %d keeps a frame corner: %q", p.Number, p.Text)
		}
		text.WriteString(p.Text)
	}
	for _, want := range []string{
		"look as follows.\nInput file form with names and row labels:\n",
		"05 59.75 93.0 900 5 1.9 yes\n...\nBy default numeric items",
		"Input file form without row labels:\n",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("missing %q", want)
		}
	}
}
