package pdftext

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf16"

	"golang.org/x/text/unicode/bidi"
	"golang.org/x/text/unicode/norm"
)

// Right-to-left text (Arabic, Hebrew) is drawn from left to right on the
// page: a producer writes the glyphs of a line in visual order, and PDFium
// turns them into logical order only in part (the glyphs of Chromium's
// Arabic, each in an /ActualText span, come out word by word with the
// letters of some words reversed, "ليلد" for "دليل"; a Latin word or a
// number in a Hebrew line lands on the wrong side). A line that holds a
// right-to-left letter is therefore written again from its characters'
// boxes: in visual order (left to right), with a space wherever a gap or
// a space glyph stands between two characters, then put into logical order
// by the Unicode Bidirectional Algorithm (golang.org/x/text/unicode/bidi
// resolves each character's direction; the runs are reversed here).

// strongRTL says whether r is a letter written right to left (bidi class
// R or AL: Hebrew, Arabic, Syriac, Thaana, N'Ko, their presentation forms).
func strongRTL(r rune) bool {
	if r < 0x0590 {
		return false
	}
	p, _ := bidi.LookupRune(r)
	c := p.Class()
	return c == bidi.R || c == bidi.AL
}

// strongLTR says whether r is a letter written left to right (bidi class L).
func strongLTR(r rune) bool {
	p, _ := bidi.LookupRune(r)
	return p.Class() == bidi.L
}

// hasRTL says whether any character of gs is a right-to-left letter: the
// page's lines are then ordered from the boxes, which all must be read.
func hasRTL(gs []glyph) bool {
	return slices.ContainsFunc(gs, func(g glyph) bool { return strongRTL(g.r) })
}

// pageRTL says whether a page's text runs right to left: it has more
// right-to-left letters than left-to-right ones. It is the base direction
// of every line of the page that is reordered (a line of Latin words and a
// Hebrew phrase on a Hebrew page reads from the right, as pdftotext takes
// it); a line alone says too little (its first words may be Latin).
func pageRTL(gs []glyph) bool {
	rtl, ltr := 0, 0
	for _, g := range gs {
		switch {
		case strongRTL(g.r):
			rtl++
		case strongLTR(g.r):
			ltr++
		}
	}
	return rtl > ltr
}

// visualLine is a line reordered: its text in logical order and, for each
// byte, the index of the character it came from.
type visualLine struct {
	end  int // index of the first character after the line
	text string
	at   []int
}

// reorderLines returns the lines of gs that hold a right-to-left letter,
// written in logical order, by the index of their first character. A line
// whose characters cannot be placed (one has no box, they do not share a
// line's height: rotated or vertical text, a character outside the BMP)
// keeps PDFium's order.
func reorderLines(gs []glyph) map[int]visualLine {
	if !hasRTL(gs) {
		return nil
	}
	rtl := pageRTL(gs)
	out := map[int]visualLine{}
	start := 0
	for i := 0; i <= len(gs); i++ {
		if i < len(gs) && gs[i].r != '\n' && gs[i].r != '\r' {
			continue
		}
		if l, ok := reorderLine(gs, start, i, rtl); ok {
			out[start] = l
		}
		start = i + 1
	}
	return out
}

// cluster is a base character and the marks set on it (indexes into gs),
// with the box of them all. The other characters of the base's glyph (a
// ligature whose ToUnicode is two letters: lam and alef) count as marks:
// they keep PDFium's order, which is the ligature's logical order.
type cluster struct {
	base                     int
	marks                    []int
	left, right, bottom, top float32
	// split: the base and a mark have the same height, as when they
	// share the box of one /ActualText span, which PDFium cut into
	// parts: unless that is a loose box (the line's height, which every
	// character of a line has), the glyphs' own extent is unknown, and
	// so is the gap beside them.
	split bool
	// nonJoiner: a zero-width non-joiner follows the cluster (in logical
	// order).
	nonJoiner bool
}

// reorderLine writes gs[start:end] (one line, no line end in it) in
// logical order, with rtl (the page's direction) as the base direction
// unless the line has no left-to-right letter; ok is false when the line
// has no right-to-left letter or its characters cannot be placed.
func reorderLine(gs []glyph, start, end int, rtl bool) (l visualLine, ok bool) {
	defer func() {
		// golang.org/x/text/unicode/bidi has panicked on some input
		// (an index out of range in its level resolution); the line
		// then keeps PDFium's order.
		if recover() != nil {
			l, ok = visualLine{}, false
		}
	}()
	if end-start > maxReorderedLine {
		return visualLine{}, false
	}
	var idx []int        // the line's printing characters
	var gaps []float32   // the centres of its space glyphs that have a box of some width
	var points []float32 // where its spaces of no width stand (PDFium's spaces at word gaps)
	any, ltr := false, false
	for i := start; i < end; i++ {
		r := gs[i].r
		switch {
		case r == ' ' || r == '\u00a0':
			switch g := gs[i]; {
			case g.hasBox && g.right > g.left:
				gaps = append(gaps, (g.left+g.right)/2)
			case g.placed:
				points = append(points, g.left)
			}
			continue
		case unicode.IsSpace(r), unicode.IsControl(r), r == 0xFFFE, r == 0xFFFF, r == 0xFEFF:
			continue
		case utf16.IsSurrogate(r) || !gs[i].hasBox:
			return visualLine{}, false
		}
		any = any || strongRTL(r)
		ltr = ltr || strongLTR(r)
		idx = append(idx, i)
	}
	if !any {
		return visualLine{}, false
	}
	// A line with no left-to-right letter reads from the right, whatever
	// the page: a Persian sentence's last line, its full stop at the left
	// end, on a page of LaTeX code.
	rtl = rtl || !ltr
	// The line's height: its tallest box. A box much smaller is not a
	// loose box (ascent to descent, origin to advance) but the glyph's own
	// outline, or a share of it: PDFium gives each character of an
	// /ActualText span a part of the span's box. Marks do not count when
	// the line has letters: XeTeX raises a mark's loose box over its
	// letter (a tanwin of lshort-persian reaches 0.33 of the font size
	// above the letters), and a line that tall would take every letter's
	// loose box for an outline and every word gap for a letter's bearing.
	var h, hMarks float32
	for _, i := range idx {
		if unicode.In(gs[i].r, unicode.Mn, unicode.Me) {
			hMarks = max(hMarks, gs[i].top-gs[i].bottom)
			continue
		}
		h = max(h, gs[i].top-gs[i].bottom)
	}
	if h == 0 {
		h = hMarks
	}
	if h <= 0 {
		return visualLine{}, false
	}
	// Every character's vertical centre within the line's band.
	var cs []float32
	for _, i := range idx {
		cs = append(cs, (gs[i].top+gs[i].bottom)/2)
	}
	slices.Sort(cs)
	mid := cs[len(cs)/2]
	if cs[0] < mid-0.6*h || cs[len(cs)-1] > mid+0.6*h {
		return visualLine{}, false
	}

	centre := func(i int) float32 { return (gs[i].left + gs[i].right) / 2 }
	slices.SortStableFunc(idx, func(a, b int) int {
		switch ca, cb := centre(a), centre(b); {
		case ca < cb:
			return -1
		case ca > cb:
			return 1
		}
		return 0
	})
	clusters := clustersOf(gs, idx)
	slices.Sort(gaps)
	slices.Sort(points)

	// The visual line: clusters left to right, a space between two of
	// them when a space glyph stands between them or a gap wider than a
	// word space (wordBreakRTL). A space glyph over the letters of a word
	// stands for a zero-width non-joiner (nonJoinerBetween).
	var runes []rune
	var first []int // the cluster each rune belongs to, -1 for a space
	for k := range clusters {
		c := &clusters[k]
		if k > 0 {
			p := &clusters[k-1]
			switch {
			case wordBreakRTL(*p, *c, h) || spaceBetween(gaps, *p, *c) || pointBetween(points, *p, *c, h):
				runes, first = append(runes, ' '), append(first, -1)
			case nonJoinerBetween(gs, gaps, *p, *c):
				// Logically the right-hand letter comes first.
				c.nonJoiner = true
			}
		}
		runes, first = append(runes, gs[c.base].r), append(first, k)
		for _, m := range c.marks {
			runes, first = append(runes, gs[m].r), append(first, k)
		}
	}
	order := logicalOrder(runes, rtl)

	// Write the clusters (and the spaces between them) in logical order;
	// each cluster is composed (NFC), which also puts its marks in their
	// canonical order.
	var b []byte
	var at []int
	for n := 0; n < len(order); {
		p := order[n]
		if first[p] < 0 {
			b = append(b, ' ')
			at = append(at, spaceIndex(gs, start, end))
			n++
			continue
		}
		// The runes of one cluster are consecutive in order (a cluster
		// lies within one run), in either direction.
		k := first[p]
		c := clusters[k]
		for n < len(order) && first[order[n]] == k {
			n++
		}
		s := string(gs[c.base].r)
		for _, m := range c.marks {
			s += string(gs[m].r)
		}
		s = norm.NFC.String(decomposePresentationForms(s))
		if c.nonJoiner {
			s += "\u200c"
		}
		b = append(b, s...)
		for range len(s) {
			at = append(at, c.base)
		}
	}
	text := strings.TrimSpace(string(b))
	lead := len(b) - len(strings.TrimLeft(string(b), " "))
	return visualLine{end: end, text: text, at: at[lead : lead+len(text)]}, true
}

// Word gaps between the clusters of a reordered line, as shares of the
// line's height h. Loose boxes (nearly h tall) touch within a word: a gap
// over wordGap is a word break, as on other lines. Outline boxes (an
// /ActualText span's) leave the glyphs' side bearings between the letters
// of a word (up to 0.08 of h measured on Chromium's Arabic, after an alef,
// which does not join the next letter; a word space there is over 0.3):
// rtlOutlineGap. A span's box cut among a letter and its vowel points
// (cluster.split), and boxes under rtlMinBox of h (such a box is 0.07 of h
// in Chromium's pointed Hebrew; low Arabic letters are 0.28) are no measure
// at all: only a space glyph breaks there.
const (
	rtlLooseBox   = 0.9
	rtlMinBox     = 0.15
	rtlOutlineGap = 0.2
)

// wordBreakRTL says whether clusters p and c (c right of p) of a line of
// height h stand apart as two words.
func wordBreakRTL(p, c cluster, h float32) bool {
	hp, hc := p.top-p.bottom, c.top-c.bottom
	switch gap := c.left - p.right; {
	case p.split && hp < rtlLooseBox*h || c.split && hc < rtlLooseBox*h || hp < rtlMinBox*h || hc < rtlMinBox*h:
		return false
	case hp >= rtlLooseBox*h && hc >= rtlLooseBox*h:
		return gap > wordGap*h
	default:
		return gap > rtlOutlineGap*h
	}
}

// spaceIndex is the character a written space points at: the line's
// first space glyph, or its first character.
func spaceIndex(gs []glyph, start, end int) int {
	for i := start; i < end; i++ {
		if gs[i].r == ' ' {
			return i
		}
	}
	return start
}

// spaceBetween says whether a space glyph has its centre between clusters
// p and c (p left of c), in the gap between their boxes; gaps are the
// centres of the line's space glyphs, sorted.
func spaceBetween(gaps []float32, p, c cluster) bool {
	const eps = 1e-3
	lo := max((p.left+p.right)/2, p.right-eps)
	hi := min((c.left+c.right)/2, c.left+eps)
	k, _ := slices.BinarySearch(gaps, lo)
	for ; k < len(gaps) && gaps[k] <= hi; k++ {
		if gaps[k] > (p.left+p.right)/2 && gaps[k] < (c.left+c.right)/2 {
			return true
		}
	}
	return false
}

// pointBetween says whether a space of no width (PDFium's, at a word gap:
// lshort-persian's xdvipdfmx pages have one at every gap) stands in a gap
// between clusters p and c (p left of c), at either end of it: points are
// the spaces' x, sorted; h is the line's height. An end may lie a little
// inside a box (the pen stands left of an f's overhang: up to 0.04 of h in
// lshort-persian), hence pointSlack. PDFium puts such spaces inside words
// too: where the boxes leave no gap (between the /ActualText spans of
// Chromium's Arabic, and after an alef's tanwin), and among the tiny boxes
// of pointed Hebrew (under rtlMinBox), which say nothing of gaps: no word
// gap.
func pointBetween(points []float32, p, c cluster, h float32) bool {
	slack := pointSlack * h
	if c.left-p.right <= 0.01*h || p.top-p.bottom < rtlMinBox*h || c.top-c.bottom < rtlMinBox*h {
		return false
	}
	k, _ := slices.BinarySearch(points, p.right-slack)
	for ; k < len(points) && points[k] <= c.left+slack; k++ {
		if x := points[k]; x <= p.right+slack || x >= c.left-slack {
			return true
		}
	}
	return false
}

// pointSlack: how far inside a box (a share of the line's height) a space
// of no width may stand and still mark the gap beside it.
const pointSlack = 0.1

// nonJoinerBetween says whether a space glyph with a box stands over the
// joint of two right-to-left letters, p and c (p left of c, no word gap
// between them): its centre between theirs but not in a gap, as when the
// producer drew a space glyph for a zero-width non-joiner and took its
// advance back (xdvipdfmx's Persian: "رشته‌های", the font's glyph for
// U+200C being its space). gaps are the centres of the line's space glyphs
// with a box, sorted.
func nonJoinerBetween(gs []glyph, gaps []float32, p, c cluster) bool {
	if !arabicLetter(gs[p.base].r) || !arabicLetter(gs[c.base].r) {
		return false
	}
	lo, hi := (p.left+p.right)/2, (c.left+c.right)/2
	k, _ := slices.BinarySearch(gaps, lo)
	return k < len(gaps) && gaps[k] > lo && gaps[k] < hi
}

// arabicLetter says whether r is a letter of right-to-left script that
// joins its neighbours (bidi class AL: Arabic, Syriac, Thaana), where a
// zero-width non-joiner means something; Hebrew letters do not join.
func arabicLetter(r rune) bool {
	if r < 0x0600 || !unicode.IsLetter(r) {
		return false
	}
	p, _ := bidi.LookupRune(r)
	return p.Class() == bidi.AL
}

// decomposePresentationForms writes the Arabic presentation forms of s
// (U+FB50–U+FDFF, U+FE70–U+FEFE: the shapes a font draws, which a
// ToUnicode map sometimes names) as the letters they stand for, by their
// compatibility decomposition: a lam-alef ligature is lam then alef
// (U+FEFB is U+0644 U+0627), in logical order.
func decomposePresentationForms(s string) string {
	if !strings.ContainsFunc(s, presentationForm) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if presentationForm(r) {
			b.WriteString(norm.NFKC.String(string(r)))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func presentationForm(r rune) bool {
	return r >= 0xFB50 && r <= 0xFDFF || r >= 0xFE70 && r <= 0xFEFE
}

// maxReorderedLine bounds the characters of a line written again from
// its boxes (a printed line has a few hundred): a longer one, which only
// a hostile file has, keeps PDFium's order, so that its cost stays linear.
const maxReorderedLine = 4096

// clustersOf groups the characters idx (in visual order) into clusters: a
// combining mark (Mn, Me) goes with the base character beside it that it
// overlaps or comes nearer to, left or right, as its box sits over that
// letter or PDFium split an /ActualText span's box among its characters.
func clustersOf(gs []glyph, idx []int) []cluster {
	isMark := func(i int) bool { return unicode.In(gs[i].r, unicode.Mn, unicode.Me) }
	var out []cluster
	bases := slices.ContainsFunc(idx, func(j int) bool { return !isMark(j) })
	owner := make([]int, len(idx)) // cluster of each position, for bases
	for p, i := range idx {
		owner[p] = -1
		if !isMark(i) || !bases {
			g := gs[i]
			if n := len(out); n > 0 && p > 0 && owner[p-1] == n-1 && sameBox(g, gs[idx[p-1]]) {
				// A character of the glyph before it: PDFium gives
				// each character of a glyph's ToUnicode string the
				// glyph's box.
				owner[p] = n - 1
				out[n-1].marks = append(out[n-1].marks, i)
				continue
			}
			owner[p] = len(out)
			out = append(out, cluster{base: i, left: g.left, right: g.right, bottom: g.bottom, top: g.top})
		}
	}
	// The nearest base on each side of every position, -1 for none.
	leftBase, rightBase := make([]int, len(idx)), make([]int, len(idx))
	for p, last := 0, -1; p < len(idx); p++ {
		leftBase[p] = last
		if owner[p] >= 0 {
			last = owner[p]
		}
	}
	for p, next := len(idx)-1, -1; p >= 0; p-- {
		rightBase[p] = next
		if owner[p] >= 0 {
			next = owner[p]
		}
	}
	for p, i := range idx {
		if owner[p] >= 0 {
			continue
		}
		m := gs[i]
		to := pickBase(gs, m, out, leftBase[p], rightBase[p])
		c := &out[to]
		c.split = c.split || sameHeight(m, gs[c.base])
		c.marks = append(c.marks, i)
		c.left, c.right = min(c.left, m.left), max(c.right, m.right)
		c.bottom, c.top = min(c.bottom, m.bottom), max(c.top, m.top)
	}
	for k := range out {
		slices.Sort(out[k].marks)
	}
	return out
}

// pickBase returns the cluster, l or r (the nearest bases left and right
// of mark m in visual order, -1 for none), whose letter m belongs to: the
// one whose box has m's height exactly, when only one has (PDFium cut an
// /ActualText span's box among the span's characters); else the one whose
// box holds m's centre (a mark drawn over its letter), the nearer centre
// if both do; else the one m stands nearer to.
func pickBase(gs []glyph, m glyph, out []cluster, l, r int) int {
	switch {
	case l < 0:
		return r
	case r < 0:
		return l
	}
	lg, rg := gs[out[l].base], gs[out[r].base]
	if sl, sr := sameHeight(m, lg), sameHeight(m, rg); sl != sr {
		if sl {
			return l
		}
		return r
	}
	c := (m.left + m.right) / 2
	il, ir := c >= lg.left && c <= lg.right, c >= rg.left && c <= rg.right
	switch {
	case il && ir:
		if c-(lg.left+lg.right)/2 <= (rg.left+rg.right)/2-c {
			return l
		}
		return r
	case il:
		return l
	case ir:
		return r
	case rg.left-m.right < m.left-lg.right:
		return r
	}
	return l
}

// sameBox says whether a and b have the same box.
func sameBox(a, b glyph) bool {
	const eps = 1e-3
	return sameHeight(a, b) && a.left-b.left < eps && b.left-a.left < eps && a.right-b.right < eps && b.right-a.right < eps
}

// sameHeight says whether a and b have the same vertical extent.
func sameHeight(a, b glyph) bool {
	const eps = 1e-3
	return a.bottom-b.bottom < eps && b.bottom-a.bottom < eps && a.top-b.top < eps && b.top-a.top < eps
}

// logicalOrder returns the positions of runes (a line in visual order,
// left to right) in logical order, the line's base direction being right
// to left when rtl. The bidi package resolves each rune's direction (the
// rules are symmetric enough that the visual line resolves as its logical
// text would); what it gives is runs of one direction, not levels, so the
// levels are rebuilt: with a right-to-left base, left-to-right runs are
// level 2 and right-to-left ones 1; with a left-to-right base,
// right-to-left runs are 1, and left-to-right runs 2 when they hold a
// number and no left-to-right letter (a number inside Arabic or Hebrew
// words), else 0. Then each stretch at level 1 or more is reversed, and
// within it each level-2 run is put back (UAX #9, rule L2).
func logicalOrder(runes []rune, rtl bool) []int {
	// The package cannot be told that a paragraph is left to right (an
	// option for it is ignored): a mark of the base direction before the
	// line decides it.
	head := '\u200e' // LEFT-TO-RIGHT MARK
	if rtl {
		head = '\u200f' // RIGHT-TO-LEFT MARK
	}
	var p bidi.Paragraph
	if _, err := p.SetString(string(head) + string(runes)); err != nil {
		return identity(len(runes))
	}
	o, err := p.Order()
	if err != nil {
		return identity(len(runes))
	}
	type run struct{ start, end, level int } // positions in runes, end excluded
	var runs []run
	for k := range o.NumRuns() {
		r := o.Run(k)
		// Pos counts the head mark (position 0) and includes its end:
		// in runes, the run is [s-1, e).
		s, e := r.Pos()
		s = max(s-1, 0)
		if e <= s {
			continue
		}
		lvl := 0
		switch {
		case r.Direction() == bidi.RightToLeft:
			lvl = 1
		case rtl || numberOnly(runes[s:e]):
			lvl = 2
		}
		if !rtl && lvl == 2 && (len(runs) == 0 || runs[len(runs)-1].level == 0) {
			// A number after left-to-right text is read with it.
			lvl = 0
		}
		runs = append(runs, run{s, e, lvl})
	}
	order := make([]int, 0, len(runes))
	for k := 0; k < len(runs); {
		if runs[k].level == 0 {
			for p := runs[k].start; p < runs[k].end; p++ {
				order = append(order, p)
			}
			k++
			continue
		}
		j := k
		for j < len(runs) && runs[j].level > 0 {
			j++
		}
		// runs[k:j] is a stretch at level 1 or more: its runs in
		// reverse order, the right-to-left ones reversed inside.
		for m := j - 1; m >= k; m-- {
			r := runs[m]
			if r.level == 1 {
				for p := r.end - 1; p >= r.start; p-- {
					order = append(order, p)
				}
				continue
			}
			for p := r.start; p < r.end; p++ {
				order = append(order, p)
			}
		}
		k = j
	}
	return order
}

// numberOnly says whether rs holds a digit and no left-to-right letter.
func numberOnly(rs []rune) bool {
	digit := false
	for _, r := range rs {
		if strongLTR(r) {
			return false
		}
		digit = digit || unicode.IsDigit(r)
	}
	return digit
}

func identity(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}
