package pdftext

import (
	"slices"
	"unicode"
)

// Ruby (furigana): the small kana set above Japanese characters to give
// their reading. TeX's ruby packages draw each ruby right after (or right
// before) its base characters, and PDFium, which follows the content
// stream, then breaks the base line at every ruby: "点検\nてんけん\nでは" for
// 点検では. A ruby is taken out of its base line, which is joined again,
// and written on a line of its own right before it, all the line's ruby in
// order, a space between two: "てんけん\n点検では". That is where pdftotext
// writes it (a line above another); PDFium, on files that draw a whole
// line's ruby after the line (Chromium's), writes it after, and is put
// right too, so that every producer's ruby reads the same.

// rubyMaxLetters bounds a ruby segment (one or a few readings).
const rubyMaxLetters = 24

// maxSiblingRubies bounds the other rubies skipped to find a ruby's base
// (a line has a few), so that a hostile page of them costs no more than
// a linear pass.
const maxSiblingRubies = 32

// rubyHeight is the largest share of its base characters' height a ruby's
// box may have: ruby is set at half the base's size, or a little more.
const rubyHeight = 0.7

// segment is a run of characters between PDFium's line ends: [start, end)
// in gs, then its line end, [end, next).
type segment struct {
	start, end, next         int
	left, right, bottom, top float32
	boxed                    bool // every printing character has a box
}

// rubyCandidates says whether a page may hold ruby: it has a Chinese
// character, and a segment of nothing but kana (and spaces) no longer
// than a ruby. Then every box is read, which placeRuby needs.
func rubyCandidates(gs []glyph) bool {
	if !hasHan(gs) {
		return false
	}
	for _, s := range segments(gs) {
		if kanaOnly(gs[s.start:s.end]) {
			return true
		}
	}
	return false
}

// hasHan says whether gs holds a Chinese character (a kanji).
func hasHan(gs []glyph) bool {
	return slices.ContainsFunc(gs, func(g glyph) bool { return g.r >= 0x2e80 && unicode.Is(unicode.Han, g.r) })
}

// kanaOnly says whether gs is a few kana, spaces between them allowed.
func kanaOnly(gs []glyph) bool {
	n := 0
	for _, g := range gs {
		switch {
		case g.r == ' ' || g.r == '\u3000':
		case unicode.In(g.r, unicode.Hiragana, unicode.Katakana) || g.r == 'ー':
			n++
		default:
			return false
		}
	}
	return n > 0 && n <= rubyMaxLetters
}

// segments splits gs at PDFium's line ends, with each segment's box (of
// its printing characters).
func segments(gs []glyph) []segment {
	var out []segment
	for i := 0; i < len(gs); {
		s := segment{start: i, boxed: true}
		for i < len(gs) && gs[i].r != '\r' && gs[i].r != '\n' {
			i++
		}
		s.end = i
		for i < len(gs) && (gs[i].r == '\r' || gs[i].r == '\n') {
			i++
		}
		s.next = i
		first := true
		for _, g := range gs[s.start:s.end] {
			if !needsBox(g.r) {
				continue
			}
			if !g.hasBox {
				s.boxed = false
				continue
			}
			if first {
				s.left, s.right, s.bottom, s.top, first = g.left, g.right, g.bottom, g.top, false
				continue
			}
			s.left, s.right = min(s.left, g.left), max(s.right, g.right)
			s.bottom, s.top = min(s.bottom, g.bottom), max(s.top, g.top)
		}
		s.boxed = s.boxed && !first
		out = append(out, s)
	}
	return out
}

// rubyOver says whether segment r (kana) is ruby set over segment b: much
// smaller, standing on b's top (touching it or a little apart), and over
// some of b's width.
func rubyOver(r, b segment) bool {
	if !r.boxed || !b.boxed {
		return false
	}
	rh, bh := r.top-r.bottom, b.top-b.bottom
	return rh <= rubyHeight*bh &&
		r.bottom >= b.top-0.3*rh && r.bottom <= b.top+0.6*bh &&
		r.left < b.right && r.right > b.left
}

// siblingRuby says whether segment o is kana of about the height of the
// ruby r, on its line: another ruby of the same base line.
func siblingRuby(gs []glyph, r, o segment) bool {
	rh, oh := r.top-r.bottom, o.top-o.bottom
	return kanaOnly(gs[o.start:o.end]) && sameRubyLine(r, o) && oh <= 1.2*rh && rh <= 1.2*oh
}

// sameRubyLine says whether segments a and b stand on one line: their boxes
// overlap by most of the smaller one's height.
func sameRubyLine(a, b segment) bool {
	lo, hi := max(a.bottom, b.bottom), min(a.top, b.top)
	return a.boxed && b.boxed && hi-lo >= 0.6*min(a.top-a.bottom, b.top-b.bottom)
}

// placeRuby returns gs with each ruby moved out of its base line to a line
// of its own before it (see above), and for each character of the result
// the index in gs it came from; gs itself when the page has no ruby. The
// characters it adds (spaces between rubies, the line end after them)
// point at a ruby character beside them.
func placeRuby(gs []glyph) ([]glyph, []int) {
	if !hasHan(gs) {
		return gs, nil
	}
	segs := segments(gs)
	base := make([]int, len(segs)) // the base segment of each ruby, -1 for none
	found := false
	for k, s := range segs {
		base[k] = -1
		if !kanaOnly(gs[s.start:s.end]) {
			continue
		}
		// Its base is the segment before it or after it in PDFium's
		// order, other rubies apart: TeX draws the ruby right after or
		// right before its base, Chromium a line's rubies after it.
		for _, d := range []int{-1, 1} {
			b := k + d
			for n := 0; n < maxSiblingRubies && b >= 0 && b < len(segs) && siblingRuby(gs, s, segs[b]); n++ {
				b += d
			}
			if b >= 0 && b < len(segs) && rubyOver(s, segs[b]) {
				base[k] = b
				break
			}
		}
		found = found || base[k] >= 0
	}
	if !found {
		return gs, nil
	}
	out := make([]glyph, 0, len(gs)+8)
	from := make([]int, 0, len(gs)+8)
	add := func(start, end int) {
		for i := start; i < end; i++ {
			out, from = append(out, gs[i]), append(from, i)
		}
	}
	for k := 0; k < len(segs); {
		// A group: base segments of one line that rubies split, and
		// those rubies.
		var bases, rubies []int
		j := k
		for ; j < len(segs); j++ {
			if b := base[j]; b >= 0 {
				if len(bases) > 0 && b > j && !sameRubyLine(segs[bases[len(bases)-1]], segs[b]) {
					break // the ruby of the next line's first characters
				}
				rubies = append(rubies, j)
				continue
			}
			if len(bases) > 0 && (base[j-1] < 0 || !sameRubyLine(segs[bases[len(bases)-1]], segs[j])) {
				break
			}
			bases = append(bases, j)
		}
		if len(bases) == 0 || len(rubies) == 0 {
			// Nothing to move (a ruby with no base of its line here
			// stays where it is).
			if j == k {
				j = k + 1
			}
			for _, s := range segs[k:j] {
				add(s.start, s.next)
			}
			k = j
			continue
		}
		slices.SortStableFunc(rubies, func(a, b int) int {
			switch {
			case segs[a].left < segs[b].left:
				return -1
			case segs[a].left > segs[b].left:
				return 1
			}
			return 0
		})
		for n, r := range rubies {
			if n > 0 {
				out, from = append(out, glyph{r: ' '}), append(from, segs[r].start)
			}
			add(segs[r].start, segs[r].end)
		}
		out, from = append(out, glyph{r: '\n'}), append(from, segs[rubies[len(rubies)-1]].end-1)
		for _, b := range bases {
			add(segs[b].start, segs[b].end)
		}
		last := segs[j-1]
		add(last.end, last.next)
		k = j
	}
	return out, from
}
