package pdftext

import (
	"testing"
)

// run sets text from x on the line whose box spans bottom to bottom+size,
// one character per size units; then PDFium's line end.
func run(text string, x, bottom, size float32) []glyph {
	return append(runOn(text, x, bottom, size), glyph{r: '\r'}, glyph{r: '\n'})
}

// runOn is run without the line end: the line goes on.
func runOn(text string, x, bottom, size float32) []glyph {
	var gs []glyph
	for _, r := range text {
		gs = append(gs, glyph{r: r, left: x, right: x + size, bottom: bottom, top: bottom + size, hasBox: true})
		x += size
	}
	return gs
}

func concat(runs ...[]glyph) []glyph {
	var out []glyph
	for _, r := range runs {
		out = append(out, r...)
	}
	return out
}

func TestBuildTextPlacesRuby(t *testing.T) {
	for _, tc := range []struct {
		name string
		gs   []glyph
		want string
	}{
		// TeX's way: each ruby drawn right after its base; PDFium
		// breaks the line there.
		{"after each base", concat(
			runOn("毎日の", 100, 700, 12), run("点検", 136, 700, 12), run("てんけん", 136, 712.5, 6),
			runOn("では", 160, 700, 12), run("空気圧", 184, 700, 12), run("くうきあつ", 187, 712.5, 6),
			run("と", 220, 700, 12),
			run("次の行です。", 100, 670, 12)),
			"てんけん くうきあつ\n毎日の点検では空気圧と\n次の行です。"},
		// A ruby drawn before its base, at the start of a line.
		{"before its base", concat(
			run("前の行。", 100, 730, 12),
			run("ふゆ", 100, 712.5, 6), runOn("冬", 100, 700, 12), run("には", 112, 700, 12)),
			"前の行。\nふゆ\n冬には"},
		// Chromium's way: the whole line's ruby after it.
		{"after the line", concat(
			run("車両の点検", 100, 700, 12), run("しゃりょう", 97, 712.5, 6), run("てんけん", 136, 712.5, 6),
			run("次の行", 100, 670, 12)),
			"しゃりょう てんけん\n車両の点検\n次の行"},
		// Kana of the text's own size is no ruby; nor is small kana
		// beside a line rather than over it.
		{"kana line", concat(run("漢字の行", 100, 700, 12), run("ひらがなのぎょう", 100, 686, 12)), "漢字の行\nひらがなのぎょう\n"},
		{"small kana below", concat(run("漢字の行", 100, 700, 12), run("ちいさい", 100, 690, 6)), "漢字の行\nちいさい\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, at := buildText(tc.gs, true)
			if got != tc.want && got != tc.want+"\n" {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			if len(at) != len(got) {
				t.Fatalf("%d byte indexes for %d bytes", len(at), len(got))
			}
			for i, k := range at {
				if k < 0 || k >= len(tc.gs) {
					t.Fatalf("byte %d points at character %d of %d", i, k, len(tc.gs))
				}
			}
		})
	}
}

// Only pages with Chinese characters and a segment of kana read every box
// for ruby.
func TestRubyCandidates(t *testing.T) {
	if !rubyCandidates(concat(run("点検", 0, 0, 12), run("てんけん", 0, 12, 6))) {
		t.Error("a kanji line and a kana line: no candidate")
	}
	if rubyCandidates(concat(run("ひらがな", 0, 0, 12), run("てんけん", 0, 12, 6))) {
		t.Error("no kanji: a candidate")
	}
	if rubyCandidates(run("点検では、タイヤ", 0, 0, 12)) {
		t.Error("one line of mixed text: a candidate")
	}
}
