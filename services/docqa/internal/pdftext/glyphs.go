package pdftext

import (
	"slices"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
	"golang.org/x/text/unicode/norm"
)

// glyph is one character of PDFium's text page, in PDFium's order: its
// Unicode and its loose box in PDF user space (FPDFText_GetLooseCharBox:
// from the origin to the origin plus the advance width, and from the font's
// descent to its ascent, the box pdftotext measures with). PDFium's own
// spaces and line ends are glyphs too; hasBox is false where PDFium has no
// box for the character (a combining mark of no advance width has a box of
// no width: that counts as one).
type glyph struct {
	r                        rune
	left, bottom, right, top float32
	hasBox                   bool
	// placed says that PDFium gave the character a box, perhaps of no
	// size: a space it put at a word gap of a right-to-left line has a
	// box of no width and no height, where the gap is (rtl.go).
	placed bool
	// origin is the x of the character's origin (its pen position),
	// read only for a character after a space that looks stray (strayAt).
	origin    float32
	hasOrigin bool
}

// readGlyphs reads the first count characters of text page tp, with the
// boxes buildText needs (needsAllBoxes: a box costs more than the rest of
// the character's reading); measured says that every character has its
// box, so that buildText may measure every gap. Their Unicode comes from one FPDFText_GetText
// call, whose UTF-16 units are PDFium's characters one for one (a character
// outside the BMP is two of them, as PDFium counts it); where the count of
// units differs, from FPDFText_GetUnicode character by character.
func readGlyphs(inst pdfium.Pdfium, tp references.FPDF_TEXTPAGE, count int) (gs []glyph, measured bool, err error) {
	gs = make([]glyph, count)
	text, err := inst.FPDFText_GetText(&requests.FPDFText_GetText{TextPage: tp, StartIndex: 0, Count: count})
	if err != nil {
		return nil, false, err
	}
	units := utf16.Encode([]rune(text.Text))
	for i := range gs {
		if len(units) == count {
			gs[i].r = rune(units[i])
			continue
		}
		u, err := inst.FPDFText_GetUnicode(&requests.FPDFText_GetUnicode{TextPage: tp, Index: i})
		if err != nil {
			return nil, false, err
		}
		gs[i].r = rune(u.Unicode)
	}
	rtl := hasRTL(gs)
	all := needsAllBoxes(gs) || rtl || rubyCandidates(gs) || generatedSpaces(inst, tp, gs)
	box := func(i int) {
		g := &gs[i]
		// A failure here is a character without a box (PDFium's own
		// line ends have none): it is kept, and never moved.
		if b, err := inst.FPDFText_GetLooseCharBox(&requests.FPDFText_GetLooseCharBox{TextPage: tp, Index: i}); err == nil {
			g.left, g.bottom, g.right, g.top = b.Rect.Left, b.Rect.Bottom, b.Rect.Right, b.Rect.Top
			g.hasBox = g.right >= g.left && g.top > g.bottom
			g.placed = g.right >= g.left && g.top >= g.bottom
		}
	}
	spaces := 0 // before i
	for i := range gs {
		if needsBox(gs[i].r) && (all || nearMark(gs, i) || spaces < sampledSpaces && besideSpace(gs, i)) {
			box(i)
		}
		if gs[i].r == ' ' {
			spaces++
		}
	}
	// A space whose neighbours touch gets its own box and the origin of
	// the character after it, which say whether it is stray (strayAt).
	confirm := func() (stray bool) {
		for i := 1; i < len(gs); i++ {
			if gs[i].r != ' ' || gs[i-1].r == ' ' || gs[i].hasBox {
				continue
			}
			j := i + 1
			for j < len(gs) && gs[j].r == ' ' {
				j++
			}
			if j == len(gs) || !tight(gs[i-1], gs[j]) {
				continue
			}
			box(i)
			if o, err := inst.FPDFText_GetCharOrigin(&requests.FPDFText_GetCharOrigin{TextPage: tp, Index: j}); err == nil {
				gs[j].origin, gs[j].hasOrigin = float32(o.X), true
			}
			stray = stray || strayAt(gs, i)
		}
		return stray
	}
	// A space that stands for no gap says that the producer placed the
	// glyphs itself, spaces or not: then every gap is measured.
	if confirm() && !all {
		for i := range gs {
			if needsBox(gs[i].r) && !gs[i].hasBox {
				box(i)
			}
		}
		confirm()
		all = true
	}
	if rtl {
		// Lines written right to left are set again from the boxes
		// (rtl.go), their spaces' too.
		for i := range gs {
			if gs[i].r == ' ' && !gs[i].hasBox {
				box(i)
			}
		}
	}
	return gs, all, nil
}

// needsAllBoxes says whether buildText needs the box of every character
// of a page: when its words as PDFium spaced them look run together (longer
// than words are on average, or one of them very long), so that word gaps
// must be measured between every two characters. Otherwise readGlyphs reads
// the boxes of accents and combining marks and of the characters beside
// them, which say where the marks go, and of the characters beside the
// page's first sampledSpaces spaces, which say whether a space stands for a
// gap; one that does not (strayAt) makes it read every box after all.
// Chinese and Japanese characters, written without spaces, do not count as
// letters of a word here.
func needsAllBoxes(gs []glyph) bool {
	words, letters, run := 0, 0, 0
	prev := rune(0)
	for _, g := range gs {
		if unicode.IsLetter(g.r) && !noWordSpaces(g.r) {
			if run == 0 {
				words++
			}
			run++
			letters++
			// An identifier in camel case is words of its own.
			if unicode.IsUpper(g.r) && unicode.IsLower(prev) {
				run = 1
			}
			if run >= longWord {
				return true
			}
			prev = g.r
			continue
		}
		run, prev = 0, 0
	}
	return words > 0 && float64(letters)/float64(words) > meanWordLetters
}

// generatedSpaces says whether PDFium made up any of the page's first
// sampledSpaces spaces (FPDFText_IsGenerated): the producer wrote no space
// characters there and placed the words itself (pdfTeX does, with kerns), so
// PDFium's own guess spaced the page, and every gap is measured.
func generatedSpaces(inst pdfium.Pdfium, tp references.FPDF_TEXTPAGE, gs []glyph) bool {
	n := 0
	for i, g := range gs {
		if g.r != ' ' {
			continue
		}
		if n++; n > sampledSpaces {
			return false
		}
		if r, err := inst.FPDFText_IsGenerated(&requests.FPDFText_IsGenerated{TextPage: tp, Index: i}); err == nil && r.IsGenerated {
			return true
		}
	}
	return false
}

// Words PDFium ran together: a page whose words have more letters than
// meanWordLetters on average (English has about 4.7, French 4.8, German
// about 6; the corpus' pages reach 7.25, a slide of long words), or one word
// of longWord letters (camel case apart, in the corpus only a hexadecimal
// constant on a slide reaches it).
const (
	meanWordLetters = 7.5
	longWord        = 20
)

// strayAt says whether the space at i (the first of a run of them) stands
// for no gap: the characters before and after the run touch (tight), and
// the pen stands before the space's middle when the character after it is
// drawn, so that the producer took the space's advance back. The pen, not
// the character's box: a glyph such as j reaches left of its origin into a
// real space before it (Walden's "a journal").
func strayAt(gs []glyph, i int) bool {
	j := i
	for j < len(gs) && gs[j].r == ' ' {
		j++
	}
	if i == 0 || j == len(gs) || !gs[i].hasBox || !gs[j].hasOrigin || !tight(gs[i-1], gs[j]) {
		return false
	}
	return gs[j].origin < (gs[i].left+gs[i].right)/2
}

// sampledSpaces is how many of a page's first spaces strayAt looks at
// (the characters beside them get their boxes) when the page's words look
// right: a producer that writes stray spaces writes them all over.
const sampledSpaces = 64

// nearMark says whether the character at i is an accent or a combining
// mark, or stands beside one.
func nearMark(gs []glyph, i int) bool {
	return combining(gs[i].r) != 0 || i > 0 && combining(gs[i-1].r) != 0 || i+1 < len(gs) && combining(gs[i+1].r) != 0
}

// besideSpace says whether the character at i has a space on either side.
func besideSpace(gs []glyph, i int) bool {
	return i > 0 && gs[i-1].r == ' ' || i+1 < len(gs) && gs[i+1].r == ' '
}

// needsBox: the characters whose position buildText looks at. Spaces and
// control characters never are.
func needsBox(r rune) bool {
	return r > ' ' && !unicode.IsControl(r) && r != 0xFFFE && r != 0xFFFF
}

// wordGap is the share of the font size (the loose box's height, ascent to
// descent) beyond which a horizontal gap between two characters of a line
// is a word break. pdftotext breaks words at 0.1 of the font size measured
// the same way (origin plus advance to the next origin); the loose box is
// somewhat taller than the font size (ascent minus descent is about 1.1 to
// 1.2 of it), so this is about the same bar. Measured on the corpus
// (proto-docs/docqa-pdf-decisions.md, "Accents and spaces from positions").
const wordGap = 0.12

// spaceGap is the share of the font size under which a space character
// between two characters of a line stands for no gap at all: it is dropped.
// Lower than wordGap: a real space is often narrow (a fifth of the font size
// in justified text), and a glyph's loose box may overhang its advance (an
// italic f), which eats into the gap measured (measured on the corpus).
const spaceGap = 0.05

// spacingAccents maps the spacing accents that TeX's OT1 fonts (and other
// fonts of the 1980s) draw as glyphs of their own, over or under a letter,
// to the combining marks they stand for.
var spacingAccents = map[rune]rune{
	'\u00B4': '\u0301', // acute
	'\u0060': '\u0300', // grave
	'\u00A8': '\u0308', // diaeresis
	'\u00AF': '\u0304', // macron
	'\u02C9': '\u0304', // modifier letter macron
	'\u02C7': '\u030C', // caron
	'\u02D8': '\u0306', // breve
	'\u02DA': '\u030A', // ring above
	'\u02DC': '\u0303', // small tilde
	'\u02C6': '\u0302', // modifier letter circumflex
	'\u00B8': '\u0327', // cedilla
	'\u02D9': '\u0307', // dot above
	'\u02DD': '\u030B', // double acute
	'\u02DB': '\u0328', // ogonek
}

// combining returns the combining mark r stands for: r itself when it is
// one (category Mn), its combining form when it is a spacing accent, 0
// otherwise. Called for every character: the common ones answer first.
func combining(r rune) rune {
	switch {
	case r < 0x60 || r > 0x60 && r < 0xA8:
		return 0
	case r < 0x300:
		return spacingAccent(r)
	}
	if unicode.Is(unicode.Mn, r) {
		return r
	}
	return 0
}

// spacingAccent returns the combining form of the spacing accent r, 0 if
// r is none.
func spacingAccent(r rune) rune {
	if r < 0x60 || r > 0x2DD {
		return 0
	}
	return spacingAccents[r]
}

// centreOver says whether a's horizontal centre lies within b's box: an
// accent drawn over (or under) the letter b.
func centreOver(a, b glyph) bool {
	if !a.hasBox || !b.hasBox {
		return false
	}
	c := (a.left + a.right) / 2
	return c >= b.left && c <= b.right
}

// onLineAfter says whether b stands on a's line, upright, where a line goes on
// after a: the boxes overlap by most of the smaller one's height (rotated
// or vertical text has boxes that do not), and b does not start well left
// of a's end (a new column, text set right to left, a character drawn
// twice).
func onLineAfter(a, b glyph) bool {
	if !a.hasBox || !b.hasBox {
		return false
	}
	ha, hb := a.top-a.bottom, b.top-b.bottom
	lo, hi := max(a.bottom, b.bottom), min(a.top, b.top)
	return hi-lo >= 0.6*min(ha, hb) && b.left-a.right > -0.3*max(ha, hb)
}

// tight says whether b follows a on its line with next to no gap between
// them (under spaceGap of the font size): a space character between them is
// not a word break.
func tight(a, b glyph) bool {
	return onLineAfter(a, b) && b.left-a.right < spaceGap*max(a.top-a.bottom, b.top-b.bottom)
}

// wordBreak says whether b, which follows a with no space between them in
// PDFium's text, stands far enough to the right of a on the same line to be
// the start of another word: further than wordGap of the font size beyond
// track, the letter spacing of the line (letterSpacing).
func wordBreak(a, b glyph, track float32) bool {
	if noWordSpaces(a.r) || noWordSpaces(b.r) || !onLineAfter(a, b) {
		return false
	}
	return b.left-a.right-track > wordGap*max(a.top-a.bottom, b.top-b.bottom)
}

// letterSpacing gives each character the letter spacing of its line (a
// line ends at PDFium's line ends): the median gap between two characters
// of the line that PDFium put nothing between, or 0 when that is below 0
// or there are too few. Text set with extra letter spacing (Tc: the gaps
// between the letters of a word are then as wide as a narrow space)
// breaks into words only at gaps wider than that, as pdftotext takes the
// character spacing off each advance. Letters run together by missing
// spaces are a few pairs among many: the median does not see them.
func letterSpacing(gs []glyph) []float32 {
	const minSpacingPairs = 5 // fewer pairs, as on a line of two short words, say nothing
	track := make([]float32, len(gs))
	var gaps []float32
	start := 0
	end := func(i int) {
		if len(gaps) >= minSpacingPairs {
			slices.Sort(gaps)
			if m := gaps[(len(gaps)-1)/2]; m > 0 {
				for k := start; k < i; k++ {
					track[k] = m
				}
			}
		}
		gaps, start = gaps[:0], i
	}
	for i := range gs {
		switch {
		case gs[i].r == '\n' || gs[i].r == '\r':
			end(i + 1)
		case i > 0 && gs[i].r != ' ' && gs[i-1].r != ' ' && combining(gs[i].r) == 0 && combining(gs[i-1].r) == 0 && onLineAfter(gs[i-1], gs[i]):
			gaps = append(gaps, gs[i].left-gs[i-1].right)
		}
	}
	end(len(gs))
	return track
}

// noWordSpaces: scripts written without spaces between words (Chinese,
// Japanese kana), whose characters are often set apart on purpose.
func noWordSpaces(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) ||
		(r >= 0x3000 && r <= 0x303F) || (r >= 0xFF00 && r <= 0xFFEF)
}

// buildText turns PDFium's characters into the page's text, and gives, for
// each byte of it, the index of the character it came from. It does what
// clean does to PDFium's text (line ends "\n", the hyphen-join mark and
// control characters dropped), and two things PDFium does not:
//
//   - An accent drawn as a glyph of its own before the letter it stands
//     over (as TeX does: \'e is the acute, then the e beneath it) goes after
//     that letter as a combining mark, and the pair is composed (NFC) where
//     a precomposed character exists: "é", not "´e". A spacing accent drawn
//     after the letter it stands over is composed with it likewise.
//   - Where two characters of a line stand further apart than wordGap of
//     the font size and PDFium put no space between them (text set glyph by
//     glyph, without space characters), a space goes between them.
func buildText(gs []glyph, measured bool) (string, []int) {
	b := make([]byte, 0, len(gs)+len(gs)/8)
	at := make([]int, 0, cap(b))
	emit := func(s string, i int) {
		b = append(b, s...)
		for range len(s) {
			at = append(at, i)
		}
	}
	var buf [4 * utf8.UTFMax]byte
	var track []float32
	if measured {
		track = letterSpacing(gs)
	}
	// A word gap is measured only where every gap of the page was: boxes
	// read here and there (beside spaces, beside accents) say nothing of
	// the line's letter spacing.
	breakBefore := func(a glyph, b, i int) bool {
		return measured && wordBreak(a, gs[b], track[i])
	}
	var lines map[int]visualLine
	var from []int // the index in gs of each character, when placeRuby moved some
	if measured {
		gs, from = placeRuby(gs)
		lines = reorderLines(gs)
	}
	last := -1  // index of the last letter-like glyph written, -1 after a space or line end
	lastAt := 0 // where its bytes begin in b
	for i := 0; i < len(gs); i++ {
		if i == 0 || gs[i-1].r == '\n' || gs[i-1].r == '\r' && gs[i].r != '\n' {
			if j := frameLineEnd(gs, i); j > i {
				i = j - 1
				continue
			}
		}
		if lines != nil {
			// A line with right-to-left letters, written in logical order.
			if l, ok := lines[i]; ok {
				b = append(b, l.text...)
				at = append(at, l.at...)
				last = -1
				i = l.end - 1
				continue
			}
		}
		g := gs[i]
		// PDFium gives a character outside the BMP as its two UTF-16
		// halves, each a character of its own.
		if utf16.IsSurrogate(g.r) && i+1 < len(gs) {
			if r := utf16.DecodeRune(g.r, gs[i+1].r); r != utf8.RuneError {
				if last >= 0 && breakBefore(gs[last], i, i) {
					emit(" ", i)
				}
				lastAt = len(b)
				emit(string(r), i)
				at[len(at)-1] = i + 1
				last = i + 1
				i++
				continue
			}
		}
		switch r := g.r; {
		case r == '\r':
			if i+1 < len(gs) && gs[i+1].r == '\n' {
				i++
			}
			emit("\n", i)
			last = -1
			continue
		case r == '\n' || r == '\t':
			emit(string(r), i)
			last = -1
			continue
		case unicode.IsControl(r), utf16.IsSurrogate(r), r == 0xFFFE, r == 0xFFFF, r == 0xFEFF, r < 0, r > unicode.MaxRune:
			continue
		case r == ' ' && last >= 0:
			// Spaces that stand for no gap (strayAt) are dropped, as
			// pdftotext drops them: producers that place every glyph
			// themselves sometimes leave space characters inside words
			// ("gro und") and none between them.
			j := i + 1
			for j < len(gs) && gs[j].r == ' ' {
				j++
			}
			if last == i-1 && strayAt(gs, i) {
				i = j - 1
				continue
			}
			for ; i < j; i++ {
				emit(" ", i)
			}
			i--
			last = -1
			continue
		case unicode.IsSpace(r):
			emit(string(r), i)
			last = -1
			continue
		}
		// A mark before the letter it stands over: the letter, then the mark.
		if c := combining(g.r); c != 0 && i+1 < len(gs) && unicode.IsLetter(gs[i+1].r) && centreOver(g, gs[i+1]) {
			n := gs[i+1]
			if last >= 0 && breakBefore(gs[last], i+1, i) {
				emit(" ", i)
			}
			lastAt = len(b)
			emit(compose(utf8.AppendRune(buf[:0], n.r), c), i+1)
			at[len(at)-1] = i // the pair's last byte points at the mark
			last = i + 1
			i++
			continue
		}
		// A spacing accent after the letter it stands over: the letter,
		// written just before, is written again with it.
		if c := spacingAccent(g.r); c != 0 && last >= 0 && last == i-1 && unicode.IsLetter(gs[last].r) && centreOver(g, gs[last]) {
			pair := compose(append(buf[:0], b[lastAt:]...), c)
			b, at = b[:lastAt], at[:lastAt]
			emit(pair, last)
			at[len(at)-1] = i
			continue
		}
		if last >= 0 && breakBefore(gs[last], i, i) {
			emit(" ", i)
		}
		lastAt = len(b)
		emit(string(g.r), i)
		last = i
	}
	if from != nil {
		for k, i := range at {
			at[k] = from[i]
		}
	}
	return string(b), at
}

// frameGlyphs are what PDFium reads for the corners of the frame that
// texinfo draws around an example (@cartouche, in R's manuals among
// others): quarter circles of the LCIRCLE10 font, which has no ToUnicode
// map and whose glyphs are named like ZapfDingbats' a8 to a11, so that
// PDFium gives U+271F (a8, the top right corner), U+2720 (a9, bottom
// right), U+2721 (a10, bottom left) and U+261B (a11, top left). pdftotext
// gives nothing for them. They are dropped only where a line holds
// nothing else (frameLineEnd): the same symbols in a sentence are text.
var frameGlyphs = [...]rune{'\u261B', '\u271F', '\u2720', '\u2721'}

// frameLineEnd returns, when the line starting at start holds frame
// corners and nothing else but spaces, the index after its line end (or
// len(gs)), and -1 otherwise.
func frameLineEnd(gs []glyph, start int) int {
	corners := false
	for i := start; i < len(gs); i++ {
		switch r := gs[i].r; {
		case r == '\r':
			if i+1 < len(gs) && gs[i+1].r == '\n' {
				i++
			}
			fallthrough
		case r == '\n':
			if corners {
				return i + 1
			}
			return -1
		case r == ' ':
		case slices.Contains(frameGlyphs[:], r):
			corners = true
		default:
			return -1
		}
	}
	if corners {
		return len(gs)
	}
	return -1
}

// compose returns base (the UTF-8 of a letter, perhaps with marks) followed
// by mark, composed (NFC) where Unicode has a precomposed character. A
// dotless i or j under a mark above is the i or j (TeX writes í as \'\i,
// the acute over a dotless i): "í", not "ı́".
func compose(base []byte, mark rune) string {
	if r, size := utf8.DecodeRune(base); (r == 'ı' || r == 'ȷ') && norm.NFC.PropertiesString(string(mark)).CCC() == above {
		dotted := byte('i')
		if r == 'ȷ' {
			dotted = 'j'
		}
		base = append([]byte{dotted}, base[size:]...)
	}
	return string(norm.NFC.Append(nil, utf8.AppendRune(base, mark)...))
}

// above is the canonical combining class of the marks set above a letter.
const above = 230
