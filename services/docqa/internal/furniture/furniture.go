// Package furniture finds a document's page furniture (running heads,
// running feet, printed page numbers) and its table-of-contents and index
// pages, from the text of all its pages at once. It works on whole lines at
// the top and bottom of each page's text, never inside a line: the order
// and spacing of the characters are pdftext's business.
//
// The rule (proto-docs/docqa-pdf-decisions.md, "Page furniture"):
//
//   - The candidates are the first two and the last two non-empty lines of
//     each page (the top band and the bottom band). A line among them that
//     reads as text is never furniture and counts for nothing below: it has
//     more than MaxWords words, or it ends like a sentence or a clause
//     (. ! ? , ; : or their CJK forms, closing quotes and brackets after
//     the mark aside). A head or foot is a short title; a body sentence
//     that sits at the edge and carries its page's number ("the torque for
//     wheel bolts in section 7 is ...", "See also: [eq], page 165.") is
//     text however often its shape repeats.
//   - A line's key is its words lower-cased, every number (arabic or roman)
//     written "#", punctuation and spacing ignored: "Chapter 5: Arrays 21"
//     and "Chapter 5: Arrays 22" share the key "chapter # arrays #".
//   - A line carries its page's number when one of its numbers is the
//     page's printed label, or the physical page number plus an offset that
//     at least MinPages pages of the document share in their bands.
//   - A key of one band is furniture on a page when at least MinPages
//     pages have a line of that key carrying their page number there (a
//     running head or foot with the page number; odd and even pages have
//     different ones, each key counts alone); or when the line carries its
//     page number at one end and at least MinPages pages have a line in
//     that band with the page number at the same end and the same first
//     word (chapter heads change every few pages: "Chapter 2: Brakes 5",
//     "Chapter 3: Tyres 9"); or the very line, numbers and all, appears in that band on at least
//     MinShare of the document's pages and MinPages pages (a head or foot
//     without a page number: a book title, a version line). A line that is
//     only a number (or numbers: "3 / 70") is a page number, and furniture,
//     when it carries its page's number.
//   - An offset is the document's when at least OffsetShare of its pages
//     (and MinPages) have a number in a band at that offset.
//   - A head whose key's pages do not span HeadMaxSpan of the document (a
//     chapter's head), with its page number taken out, is the page's
//     RunningHead; one whose pages do (the book's title on every page or
//     every other page: "gnuplot 5.4") is its BookHead.
package furniture

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Thresholds of the rule (see the package comment).
const (
	MinPages    = 3
	MinShare    = 0.3
	HeadMaxSpan = 0.6
	OffsetShare = 0.1
	// MaxWords is the most words (letter and digit runs, numbers
	// included) a furniture line has. The longest of the 2 914 furniture
	// lines of the benchmark manuals has 10: "Chapter 9: List of Commands
	// in the Gri Language 85".
	MaxWords  = 12
	bandLines = 2
)

// Page is one page of a document as the extractor read it.
type Page struct {
	Number int    // 1-based physical page number
	Label  string // printed label from /PageLabels, "" when none
	Text   string
}

// Result is one page with its furniture taken out.
type Result struct {
	// Text is the page's text without its furniture lines.
	Text string
	// RunningHead is the page's running head without its page number, ""
	// when the page has none or it is the same on most pages.
	RunningHead string
	// BookHead is the page's running head, without its page number, when
	// it is the same on most of the document's pages (the book's title, a
	// "gnuplot 5.4"), "" otherwise.
	BookHead string
	// Removed are the lines taken out, top first.
	Removed []string
	// Navigation says that the page is mostly a table of contents or an
	// index: lines that point at pages (see IsNavigation).
	Navigation bool
}

type band int

const (
	top band = iota
	bottom
)

type candidate struct {
	line    int // index into the page's lines
	band    band
	key     string
	exact   string // the key with its numbers written out
	numbers []int
	bare    bool // the line is only numbers
	prose   bool // the line reads as text (see isProse), never furniture
	carries bool // one of its numbers is the page's number
	// labelled: one of its numbers is the page's printed label
	labelled bool
	// sign is the line's band, the end of the line its page number is at
	// and its first word ("chapter"), when it carries the page number at
	// one end; "" otherwise.
	sign string
}

type groupKey struct {
	band band
	key  string
}

// Strip finds the furniture of a document's pages and returns each page
// without it, in order. A document of fewer than MinPages pages has no
// running furniture; its bare page-number lines are still taken out when
// they match the page's label.
func Strip(pages []Page) []Result {
	lines := make([][]string, len(pages))
	cands := make([][]candidate, len(pages))
	offsets := map[int]map[int]bool{} // number - page number -> pages
	for i, p := range pages {
		lines[i] = strings.Split(p.Text, "\n")
		cands[i] = candidates(lines[i])
		for _, c := range cands[i] {
			if c.prose {
				continue
			}
			for _, n := range c.numbers {
				if offsets[n-p.Number] == nil {
					offsets[n-p.Number] = map[int]bool{}
				}
				offsets[n-p.Number][i] = true
			}
		}
	}
	// An offset is the document's when enough pages share it: with many
	// numbers in the bands (section numbers, "3 / 223") a handful of pages
	// share any offset by chance.
	shared := map[int]bool{}
	for off, on := range offsets {
		if len(on) >= max(MinPages, int(math.Ceil(OffsetShare*float64(len(pages))))) {
			shared[off] = true
		}
	}
	carrying := map[groupKey]map[int]bool{} // pages where the key carries the page number
	signed := map[string]map[int]bool{}     // pages where a line of the sign carries it
	seen := map[groupKey]map[int]bool{}     // pages where the key is in the band
	same := map[groupKey]map[int]bool{}     // pages where the very line is in the band
	for i, p := range pages {
		label, hasLabel := parseNumber(p.Label)
		for j := range cands[i] {
			c := &cands[i][j]
			if c.prose {
				continue
			}
			for _, n := range c.numbers {
				// The printed label, or the physical number plus an
				// offset the document's pages share.
				if n > 0 && hasLabel && n == label {
					c.carries, c.labelled = true, true
				}
				if n > 0 && shared[n-p.Number] {
					c.carries = true
				}
			}
			c.sign = signOf(c, func(n int) bool { return n > 0 && (hasLabel && n == label || shared[n-p.Number]) })
			if c.sign != "" {
				if signed[c.sign] == nil {
					signed[c.sign] = map[int]bool{}
				}
				signed[c.sign][i] = true
			}
			k := groupKey{c.band, c.key}
			if seen[k] == nil {
				seen[k] = map[int]bool{}
			}
			seen[k][i] = true
			if e := (groupKey{c.band, c.exact}); same[e] == nil {
				same[e] = map[int]bool{}
			}
			same[groupKey{c.band, c.exact}][i] = true
			if c.carries {
				if carrying[k] == nil {
					carrying[k] = map[int]bool{}
				}
				carrying[k][i] = true
			}
		}
	}
	byShare := int(math.Ceil(MinShare * float64(len(pages))))
	// A head whose pages span most of the document is the book's title,
	// not its page's: no heading.
	spread := map[groupKey]bool{}
	for k, on := range seen {
		first, last := len(pages), -1
		for i := range on {
			first, last = min(first, i), max(last, i)
		}
		spread[k] = float64(last-first+1) >= HeadMaxSpan*float64(len(pages))
	}
	out := make([]Result, len(pages))
	for i := range pages {
		drop := map[int]bool{}
		head, bookHead := "", ""
		for _, c := range cands[i] {
			if drop[c.line] || c.prose {
				continue
			}
			k := groupKey{c.band, c.key}
			// A page of one line has no body to tell its furniture
			// from: only a bare page number goes.
			running := len(cands[i]) > 1 && (c.carries && len(carrying[k]) >= MinPages ||
				c.sign != "" && len(signed[c.sign]) >= MinPages ||
				len(pages) >= MinPages && len(same[groupKey{c.band, c.exact}]) >= max(MinPages, byShare))
			furn := c.bare && c.labelled && len(c.numbers) <= 2 || running
			if !furn {
				continue
			}
			drop[c.line] = true
			out[i].Removed = append(out[i].Removed, strings.TrimSpace(lines[i][c.line]))
			if c.band == top && !c.bare {
				if spread[k] && bookHead == "" {
					bookHead = headText(lines[i][c.line], c.carries)
				} else if !spread[k] && head == "" {
					head = headText(lines[i][c.line], c.carries)
				}
			}
		}
		kept := make([]string, 0, len(lines[i]))
		for j, l := range lines[i] {
			if !drop[j] {
				kept = append(kept, l)
			}
		}
		out[i].Text = strings.Trim(strings.Join(kept, "\n"), "\n")
		if strings.TrimSpace(out[i].Text) == "" && strings.TrimSpace(pages[i].Text) != "" {
			// Nothing but furniture is no page: what repeats on every
			// page of a short document (a form, a leaflet of two lines a
			// page) is its text, not its frame. The page stays whole.
			text := strings.Trim(pages[i].Text, "\n")
			out[i] = Result{Text: text, Navigation: IsNavigation(text, len(pages))}
			continue
		}
		out[i].RunningHead = head
		out[i].BookHead = bookHead
		out[i].Navigation = IsNavigation(out[i].Text, len(pages))
	}
	return out
}

// candidates are the lines of a page's top and bottom bands. A line in
// both (a page of few lines) is a top candidate.
func candidates(lines []string) []candidate {
	var out []candidate
	taken := map[int]bool{}
	add := func(j int, b band) {
		if taken[j] {
			return
		}
		key, numbers, bare := keyOf(lines[j])
		if key == "" {
			return
		}
		taken[j] = true
		exact := strings.ToLower(strings.Join(tokens(lines[j]), " "))
		out = append(out, candidate{line: j, band: b, key: key, exact: exact, numbers: numbers, bare: bare,
			prose: !bare && isProse(lines[j])})
	}
	for j, n := 0, 0; j < len(lines) && n < bandLines; j++ {
		if strings.TrimSpace(lines[j]) != "" {
			add(j, top)
			n++
		}
	}
	for j, n := len(lines)-1, 0; j >= 0 && n < bandLines; j-- {
		if strings.TrimSpace(lines[j]) != "" {
			add(j, bottom)
			n++
		}
	}
	return out
}

// isProse says whether a line reads as text rather than as a head or a
// foot: it has more than MaxWords words, or it ends a sentence or a clause
// (a wrapped sentence's line ending in a comma goes on below it). Closing
// quotes and brackets after the mark do not hide it; a line ending in a
// bracket without a mark before it ("GNU Octave (version 7.3.0)") is a
// title.
func isProse(line string) bool {
	if len(tokens(line)) > MaxWords {
		return true
	}
	end := strings.TrimRight(line, " \t)]}\"'”’»」』）")
	r, _ := utf8.DecodeLastRuneInString(end)
	return strings.ContainsRune(".!?,;:。！？，；：、", r)
}

// signOf is c's sign (see candidate), page telling whether a number is
// the page's.
func signOf(c *candidate, page func(int) bool) string {
	parts := strings.Fields(c.key)
	word := ""
	for _, p := range parts {
		if p != "#" {
			word = p
			break
		}
	}
	if word == "" || len(c.numbers) == 0 {
		return ""
	}
	switch {
	case parts[0] == "#" && page(c.numbers[0]):
		return fmt.Sprint(c.band, " first ", word)
	case parts[len(parts)-1] == "#" && page(c.numbers[len(c.numbers)-1]):
		return fmt.Sprint(c.band, " last ", word)
	}
	return ""
}

// tokens splits a line into runs of letters and digits (a CJK run is one
// token).
func tokens(line string) []string {
	return strings.FieldsFunc(line, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// keyOf is a line's key, its numbers (arabic and roman), and whether it is
// only numbers.
func keyOf(line string) (key string, numbers []int, bare bool) {
	toks := tokens(line)
	if len(toks) == 0 {
		return "", nil, false
	}
	bare = true
	parts := make([]string, len(toks))
	for i, t := range toks {
		if n, ok := parseNumber(t); ok {
			parts[i] = "#"
			numbers = append(numbers, n)
			continue
		}
		bare = false
		parts[i] = strings.ToLower(t)
	}
	return strings.Join(parts, " "), numbers, bare
}

// parseNumber reads an arabic number (at most 5 digits) or a roman numeral
// in lower or upper case (not mixed).
func parseNumber(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	if len(s) <= 5 {
		if n, err := strconv.Atoi(s); err == nil && n >= 0 {
			return n, true
		}
	}
	if strings.ToLower(s) != s && strings.ToUpper(s) != s {
		return 0, false
	}
	return roman(strings.ToLower(s))
}

// roman reads a well-formed roman numeral below 4000.
func roman(s string) (int, bool) {
	if s == "" || len(s) > 15 {
		return 0, false
	}
	val := map[byte]int{'i': 1, 'v': 5, 'x': 10, 'l': 50, 'c': 100, 'd': 500, 'm': 1000}
	n := 0
	for i := 0; i < len(s); i++ {
		v, ok := val[s[i]]
		if !ok {
			return 0, false
		}
		if i+1 < len(s) && val[s[i+1]] > v {
			n -= v
		} else {
			n += v
		}
	}
	if n <= 0 || n >= 4000 || toRoman(n) != s {
		return 0, false
	}
	return n, true
}

func toRoman(n int) string {
	vals := []int{1000, 900, 500, 400, 100, 90, 50, 40, 10, 9, 5, 4, 1}
	syms := []string{"m", "cm", "d", "cd", "c", "xc", "l", "xl", "x", "ix", "v", "iv", "i"}
	var b strings.Builder
	for i, v := range vals {
		for n >= v {
			b.WriteString(syms[i])
			n -= v
		}
	}
	return b.String()
}

// headText is a running head without its page number: a number at either
// end of the line, with a "/ 70" or "of 70" after it, goes; so do
// separators left at the ends.
func headText(line string, numbered bool) string {
	fields := strings.Fields(line)
	// Stray marks at the ends ("27 ¨": an accent the extractor set apart).
	for len(fields) > 0 && len(tokens(fields[len(fields)-1])) == 0 {
		fields = fields[:len(fields)-1]
	}
	for len(fields) > 0 && len(tokens(fields[0])) == 0 {
		fields = fields[1:]
	}
	if numbered {
		isNum := func(s string) bool { _, ok := parseNumber(strings.Trim(s, ".:-–—|·")); return ok }
		// "3 / 70" and "3 of 70" at the end.
		if n := len(fields); n >= 3 && isNum(fields[n-1]) && (fields[n-2] == "/" || strings.EqualFold(fields[n-2], "of")) && isNum(fields[n-3]) {
			fields = fields[:n-3]
		} else if n >= 1 && isNum(fields[n-1]) {
			fields = fields[:n-1]
		} else if len(fields) >= 1 && isNum(fields[0]) {
			fields = fields[1:]
		}
	}
	return strings.Trim(strings.Join(fields, " "), " |·-–—:/")
}

// Thresholds of IsNavigation.
const (
	// NavigationShare is the share of a page's lines that must point at
	// pages; NavigationMinLines how many at least.
	NavigationShare    = 0.5
	NavigationMinLines = 5
)

// IsNavigation says whether text (a page without its furniture) is mostly
// a table of contents or an index: at least NavigationShare of its
// non-empty lines, and NavigationMinLines, are words followed by a page
// reference (a page number or a list of them, after spaces or a dot
// leader), where no number exceeds the document's pages by more than a
// front matter could explain. A line of a single letter (an index's
// "C" group) is not counted either way.
func IsNavigation(text string, pages int) bool {
	total, refs := 0, 0
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if r := []rune(l); len(r) == 1 && unicode.IsLetter(r[0]) {
			continue
		}
		total++
		if pointsAtPage(l, pages) {
			refs++
		}
	}
	return refs >= NavigationMinLines && float64(refs) >= NavigationShare*float64(total)
}

// pageRef is a line of words, then one page reference or a list of them,
// after spaces or a dot leader: "1.2 Vectors . . . . 8", "cbind 22, 24",
// "Preface ix". A decimal ("4.1") is no reference: one dot is no leader.
var pageRef = regexp.MustCompile(`^(.*?\pL.*?)(?:\s*(?:\.\s*){2,}|\s+|…+\s*)((?:\d{1,5}|[ivxlcdm]{1,8})(?:\s*[,–-]\s*(?:\d{1,5}|[ivxlcdm]{1,8}))*)$`)

var refNumber = regexp.MustCompile(`\d{1,5}|[ivxlcdm]{1,8}`)

// pointsAtPage says whether a line is a pageRef whose numbers are all
// within the document's pages (plus what a front matter could add).
func pointsAtPage(line string, pages int) bool {
	m := pageRef.FindStringSubmatch(line)
	if m == nil {
		return false
	}
	for _, t := range refNumber.FindAllString(m[2], -1) {
		if n, ok := parseNumber(t); !ok || n > pages+100 {
			return false
		}
	}
	return true
}
