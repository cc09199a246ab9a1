package pdftext

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/carhub/backend/services/docqa/internal/tooltest"
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

// lshortPersianPage21 is what PDFium reads from three lines of page 21 of
// lshort-persian (lshort.pdf of Debian's texlive-lang-arabic, set by
// XeTeX, written by xdvipdfmx 0.7.9), the captions of figures 1.1 and 1.2:
// each character's Unicode and loose box (left, right, bottom, top), or
// the Unicode alone for a character without one (line ends). The
// characters come in logical order; the word gaps hold spaces of no size
// at one end of the gap; the lam-alef ligature of "لاتک" is one glyph,
// two characters with one box; the zero-width non-joiner of
// "فرمان‌هایی" is the font's space glyph drawn with its advance taken
// back (a space with a box, over the letters); the tanwin of "بعداً"
// comes among the digits of "۲.۱", its box raised above the letters.
const lshortPersianPage21 = `
0634 318.1152 324.50787 559.0382 569.9472
06A9 312.68253 318.73703 559.0382 570.97266
0644 306.9444 313.30435 559.0382 570.38354
0020 306.9444 306.9444 563.86 563.86
06F1 299.679 305.13348 559.0382 570.14355
0020 299.679 301.5008 559.0382 569.9472
002E 297.2572 299.679 559.0382 569.9472
0020 297.2463 299.0681 559.0382 569.9472
003A 289.37 291.79178 559.0382 569.9472
06F1 291.79178 297.24628 559.0382 570.14355
0020 286.954 286.954 563.86 563.86
06CC 284.2595 286.954 559.0382 569.9472
06A9 275.25955 284.8813 559.0382 571.0272
0020 275.25955 275.25955 563.86 563.86
0641 270.12143 273.44867 559.0382 569.99084
0627 267.86325 270.74323 559.0382 570.4272
06CC 265.31055 268.00507 559.0382 569.9472
0644 259.57242 265.93237 559.0382 570.38354
0020 259.57242 259.57242 563.86 563.86
0644 251.42339 257.7615 559.0382 570.97266
0627 251.42339 257.7615 559.0382 570.97266
062A 248.90341 251.68521 559.0382 569.9472
06A9 239.90349 249.52522 559.0382 571.0272
0020 239.90349 239.90349 563.86 563.86
0646 235.50716 238.09259 559.0382 569.9472
0645 230.68538 236.13988 559.0382 569.9472
0648 226.45268 231.29628 559.0382 569.9472
0646 225.29633 227.88176 559.0382 569.9472
0647 221.98 225.91815 559.0382 569.9472
000D
000A
0634 446.17975 452.57242 182.70825 193.61725
06A9 440.74707 446.80157 182.70825 194.6427
0644 435.00894 441.3689 182.70825 194.05362
0020 435.00894 435.00894 187.53003 187.53003
06F1 427.20898 432.66348 182.70825 193.81361
0020 427.20898 429.0308 182.70825 193.61725
002E 424.7872 427.20898 182.70825 193.61725
0020 424.7763 426.5981 182.70825 193.61725
003A 416.9 419.32178 182.70825 193.61725
06F2 419.32178 424.77628 182.70825 193.7918
0020 162.46815 162.46815 188.31006 188.31006
064B 159.75182 162.12997 183.48828 197.24454
0020 413.386 413.386 187.53003 187.53003
0645 409.28424 413.386 182.70825 193.61725
062B 406.87335 409.90604 182.70825 193.61725
0627 404.61517 407.49515 182.70825 194.09724
0644 401.81158 404.61517 182.70825 194.55542
06CC 395.85526 402.43338 182.70825 193.61725
0020 395.85526 395.85526 187.53003 187.53003
0627 391.43713 393.49893 182.70825 193.97725
0632 387.32443 391.43713 182.70825 193.61725
0020 387.32443 387.32443 187.53003 187.53003
06CC 382.27356 384.9681 182.70825 193.61725
06A9 373.27365 382.8954 182.70825 194.69724
0020 373.27365 373.27365 187.53003 187.53003
0641 367.60098 370.92822 182.70825 193.66089
0627 365.34283 368.22278 182.70825 194.09724
06CC 362.80103 365.49554 182.70825 193.61725
0644 357.0629 363.42285 182.70825 194.05362
0020 357.0629 357.0629 187.53003 187.53003
0645 350.6048 354.70654 182.70825 193.61725
0642 346.9939 351.2266 182.70825 193.61725
0627 344.73572 347.61572 182.70825 194.09724
0644 341.93213 344.73572 182.70825 194.55542
0647 338.61578 342.55396 182.70825 193.61725
0020 338.61578 338.61578 187.53003 187.53003
0645 332.15765 336.25946 182.70825 193.61725
062C 325.525 332.77948 182.70825 193.61725
0644 322.52502 326.1577 182.70825 194.45724
0647 319.20868 323.14685 182.70825 193.61725
002E 316.78687 319.20868 182.70825 193.61725
0020 316.78687 316.78687 187.53003 187.53003
062A 309.96875 312.75055 182.70825 193.61725
0645 305.14697 310.60147 182.70825 193.61725
0627 302.8888 305.7688 182.70825 194.09724
0645 298.81976 302.88882 182.69734 193.61725
0020 298.81976 298.81976 187.53003 187.53003
0641 293.1471 296.4743 182.70825 193.66089
0631 289.38348 293.7689 182.70825 193.61725
0645 286.55804 290.65982 182.70825 193.61725
0627 284.29987 287.17987 182.70825 194.09724
0646 278.95447 284.29987 182.70825 193.61725
0020 278.95447 280.77628 182.70825 193.61725
0647 273.8927 278.95447 182.70825 193.61725
0627 271.63452 274.5145 182.70825 194.09724
06CC 269.09274 271.78726 182.70825 193.61725
06CC 263.1364 269.71454 182.70825 193.61725
0020 263.1364 263.1364 187.53003 187.53003
06A9 256.26373 260.7801 182.70825 193.8027
0647 252.94742 256.88556 182.70825 193.61725
0020 252.94742 252.94742 187.53003 187.53003
062F 246.77292 250.59106 182.70825 193.61725
0631 242.66022 246.77292 182.70825 193.61725
0020 242.66022 242.66022 187.53003 187.53003
0627 238.25299 240.31479 182.70825 193.97725
06CC 235.64574 238.34026 182.70825 193.61725
0646 229.94034 236.26755 182.70825 193.61725
0020 229.94034 229.94034 187.53003 187.53003
0645 223.48221 227.58398 182.70825 193.61725
062B 221.07132 224.10402 182.70825 193.61725
0627 218.81316 221.69313 182.70825 194.09724
0644 213.24956 218.81314 182.70825 194.57724
0020 213.24956 213.24956 187.53003 187.53003
0648 206.33325 210.90411 182.70825 193.61725
062C 200.75876 207.29324 182.70825 193.61725
0648 196.52606 201.36966 182.70825 193.61725
062F 193.76608 197.58423 182.70825 193.61725
0020 193.76608 193.76608 187.53003 187.53003
062F 187.60251 191.42065 182.70825 193.61725
0627 185.54071 187.60251 182.70825 193.97725
0631 181.42801 185.54071 182.70825 193.61725
0646 179.99893 182.58437 182.70825 193.61725
062F 175.52625 180.63165 182.70825 193.61725
0020 175.52625 175.52625 187.53003 187.53003
0628 170.59537 173.1808 182.70825 193.61725
0639 166.38449 171.22809 182.70825 193.61725
062F 161.9118 167.01721 182.70825 193.61725
0627 159.85 161.9118 182.70825 193.97725
0020 157.47583 157.47583 187.53003 187.53003
062F 153.65768 157.47583 182.70825 193.61725
0631 149.54498 153.65768 182.70825 193.61725
0020 149.54498 149.54498 187.53003 187.53003
0645 143.08687 147.18866 182.70825 193.61725
0642 139.47598 143.70868 182.70825 193.61725
062F 135.0033 140.1087 182.70825 193.61725
0645 130.90152 135.0033 182.70825 193.61725
0647 127.585175 131.52332 182.70825 193.61725
0020 127.585175 127.585175 187.53003 187.53003
0634 118.84706 125.23973 182.70825 193.61725
0631 115.08346 119.46887 182.70825 193.61725
062D 109.06169 116.35981 182.69734 193.61725
0020 109.06169 109.06169 187.53003 187.53003
062F 102.8981 106.71625 182.70825 193.61725
0627 100.8363 102.8981 182.70825 193.97725
062F 97.01816 100.83631 182.70825 193.61725
0647 93.92 97.01816 182.70825 193.61725
000D
000A
062E 446.027 452.5615 166.27826 177.18726
0648 441.7943 446.6379 166.27826 177.18726
0627 440.9543 443.0161 166.27826 177.54726
0647 435.89255 440.9543 166.27826 177.18726
0646 433.48166 436.51434 166.27826 177.18726
062F 429.00897 434.11438 166.27826 177.18726
0020 429.00897 429.00897 171.10004 171.10004
0634 420.7945 427.18716 166.27826 177.18726
062F 416.32178 421.42722 166.27826 177.18726
002E 413.9 416.32178 166.27826 177.18726
`

// glyphsOf reads a fixture written like lshortPersianPage21.
func glyphsOf(tb testing.TB, fixture string) []glyph {
	tb.Helper()
	var gs []glyph
	for _, l := range strings.Fields(strings.ReplaceAll(fixture, " ", ",")) {
		f := strings.Split(l, ",")
		r, err := strconv.ParseUint(f[0], 16, 32)
		if err != nil {
			tb.Fatal(err)
		}
		g := glyph{r: rune(r)}
		if len(f) == 5 {
			var box [4]float32
			for k := range box {
				v, err := strconv.ParseFloat(f[k+1], 32)
				if err != nil {
					tb.Fatal(err)
				}
				box[k] = float32(v)
			}
			g.left, g.right, g.bottom, g.top = box[0], box[1], box[2], box[3]
			g.hasBox = g.right >= g.left && g.top > g.bottom
			g.placed = true
		}
		gs = append(gs, g)
	}
	return gs
}

// Persian set by XeTeX: the lam-alef ligature reads lam then alef (its
// characters' shared box must not reverse them), the zero-width
// non-joiner stays, every word gap PDFium marked with a space of no size
// is a space (a tanwin's tall box on the line made the letters' loose
// boxes look like outlines, whose word gaps are wider), and the last line,
// which has no Latin letter, reads from the right on a page of LaTeX code.
// pdftotext reads these lines the same but for the non-joiner, which its
// presentation forms only imply ("ﻓﺮﻣﺎنﻫﺎﯾﯽ").
func TestBuildTextPersianFromXeTeX(t *testing.T) {
	// The page's LaTeX code (above the captions, more letters than
	// theirs) makes it a left-to-right page.
	code := `\begin{document}\maketitle\tableofcontents\section{Some Interesting Words}\end{document}`
	gs := append(line(code+"\r\n"+code+"\r\n"), glyphsOf(t, lshortPersianPage21)...)
	got, at := buildText(gs, true)
	want := code + "\n" + code + "\n" +
		"شکل ۱.۱: یک فایل لاتک نمونه\n" +
		"شکل ۲.۱: مثالی از یک فایل مقاله مجله. تمام فرمان\u200cهایی که در این مثال وجود دارند بعداً در مقدمه شرح داده\n" +
		"خواهند شد."
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if len(at) != len(got) {
		t.Errorf("%d byte indexes for %d bytes", len(at), len(got))
	}
}

// A lam-alef ligature reads lam then alef, whether PDFium gives it as the
// two letters of one glyph (one box, in the ligature's order) or as the
// presentation form itself (U+FEFB, whose compatibility decomposition is
// U+0644 U+0627).
func TestBuildTextLamAlef(t *testing.T) {
	// "علامت" drawn left to right: ت, م, the ligature, ع.
	box := func(r rune, x float32) glyph {
		return glyph{r: r, left: x, right: x + 5, bottom: 700, top: 710, hasBox: true, placed: true}
	}
	for _, tc := range []struct {
		name string
		gs   []glyph
	}{
		{"one glyph, two letters", []glyph{box('ع', 115), box('ل', 110), box('ا', 110), box('م', 105), box('ت', 100)}},
		{"one glyph, the word in visual order", []glyph{box('ت', 100), box('م', 105), box('ل', 110), box('ا', 110), box('ع', 115)}},
		{"presentation form", []glyph{box('ع', 115), box('\uFEFB', 110), box('م', 105), box('ت', 100)}},
		{"final form with hamza", []glyph{box('ع', 115), box('\uFEF8', 110), box('م', 105), box('ت', 100)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := "علامت"
			if tc.name == "final form with hamza" {
				want = "عل\u0623مت"
			}
			if got, _ := buildText(tc.gs, true); got != want {
				t.Errorf("got %q (%U), want %q", got, []rune(got), want)
			}
		})
	}
}

// A space glyph over the joint of two Hebrew letters is no non-joiner:
// Hebrew letters do not join.
func TestBuildTextNonJoinerOnlyBetweenJoiningLetters(t *testing.T) {
	gs := visual("םולש", nil)
	gs = append(gs, glyph{r: ' ', left: 105, right: 107, bottom: 700, top: 710, hasBox: true, placed: true})
	if got, _ := buildText(gs, true); got != "שלום" {
		t.Errorf("got %q (%U), want %q", got, []rune(got), "שלום")
	}
}

// lshortPersian is lshort in Persian as Debian's texlive-lang-arabic
// installs it: 147 pages set by XeTeX (xdvipdfmx). The package is not one
// the tests install, so the test that reads it skips without it, under CI
// as well.
const lshortPersian = "/usr/share/doc/texlive-doc/latex/lshort-persian/lshort.pdf"

// TestLshortPersianAgainstPdftotext scores lshort-persian against
// pdftotext run now, page by page: 0.58 of its words before lam-alef,
// word gaps and non-joiners were read (ligatures reversed, words run
// together). pdftotext writes Arabic presentation forms, which say where a
// zero-width non-joiner stands but have none: the non-joiners are taken
// out of the text scored, else every word with one would count as two.
func TestLshortPersianAgainstPdftotext(t *testing.T) {
	if _, err := os.Stat(lshortPersian); err != nil {
		tooltest.Missing(t, lshortPersian+" is not installed (apt-get install texlive-lang-arabic)")
	}
	pdftotext := tooltest.RequireTool(t, "pdftotext")
	ref, err := exec.Command(pdftotext, "-q", "-enc", "UTF-8", lshortPersian, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	f, size := mustOpen(t, lshortPersian)
	doc, err := engine.Extract(context.Background(), f, size, nil)
	if err != nil {
		t.Fatal(err)
	}
	refPages := strings.Split(strings.TrimSuffix(string(ref), "\f"), "\f")
	if len(refPages) != len(doc.Pages) {
		t.Fatalf("%d pages, pdftotext %d", len(doc.Pages), len(refPages))
	}
	var s score
	var text strings.Builder
	for i, p := range doc.Pages {
		s.add(words(refPages[i]), words(strings.ReplaceAll(p.Text, "\u200c", "")))
		text.WriteString(p.Text)
	}
	t.Logf("recall %.4f, precision %.4f, pair recall %.4f (%d words, %d pages)",
		s.recall(), s.precision(), s.pairRecall(), s.refItems, len(doc.Pages))
	if s.recall() < 0.95 || s.precision() < 0.95 {
		t.Errorf("recall %.4f, precision %.4f: want >= 0.95 each", s.recall(), s.precision())
	}
	// The words of the issue, read right and wrong.
	for _, w := range []string{"اطلاعات", "علامت", "رشته\u200cهای", "ترازش پاراگراف\u200cها"} {
		if !strings.Contains(text.String(), w) {
			t.Errorf("%q is missing", w)
		}
	}
	for _, w := range []string{"اطالعات", "عالمت", "رشتههای", "ترازشپاراگراف"} {
		if strings.Contains(text.String(), w) {
			t.Errorf("%q is there", w)
		}
	}
}
