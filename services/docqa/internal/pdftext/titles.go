package pdftext

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
)

// isTitle says whether s, a document information dictionary's Title, names
// the document rather than the file it was made from or nothing at all.
// Producers fill the field with what they have: a browser or a converter
// the source file's name ("manual_en.html"), Word's printer driver
// "Microsoft Word - x.docx", templates "Untitled", "Document1". Such a
// title would stand for the manual wherever the app names it ("Which
// vehicle is manual_en.html for?"); the cover or the upload's file name
// says more.
func isTitle(s string) bool {
	s = strings.ToLower(strings.TrimSpace(s))
	if !strings.ContainsFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
		return false
	}
	return !isFileName(s) && !placeholder.MatchString(strings.Trim(s, "()[]<>{} ")) && !generator.MatchString(s)
}

// fileExtensions are the extensions of the files PDFs are made from, which
// producers leave at the end of the name they write as the title.
var fileExtensions = []string{
	"ai", "doc", "docm", "docx", "dot", "dotx", "dvi", "eps", "fm", "htm", "html", "indd", "key",
	"md", "numbers", "odp", "ods", "odt", "pages", "pdf", "ppt", "pptx", "ps", "pub", "qxd", "qxp",
	"rtf", "tex", "txt", "vsd", "vsdx", "wpd", "wps", "xhtml", "xls", "xlsx", "xml",
}

// isFileName says whether s (lower case) reads as a file's name or path:
// one of fileExtensions at its end, a path or URL, or one word joined by
// underscores ("owners_manual_rev4"), which people do not write as a
// title.
func isFileName(s string) bool {
	if dot := strings.LastIndexByte(s, '.'); dot >= 0 && slices.Contains(fileExtensions, s[dot+1:]) {
		return true
	}
	if strings.Contains(s, "://") || strings.ContainsRune(s, '\\') || strings.HasPrefix(s, "/") || strings.HasPrefix(s, "~/") {
		return true
	}
	if len(s) >= 3 && s[1] == ':' && (s[2] == '/' || s[2] == '\\') { // c:/
		return true
	}
	return !strings.ContainsRune(s, ' ') && strings.ContainsAny(s, "_/")
}

var (
	// placeholder matches the titles templates and producers give a
	// document nobody named, with or without a number after them
	// ("Document1", "Untitled-2", "Presentation 3").
	placeholder = regexp.MustCompile(`^(untitled|untitled (document|presentation|spreadsheet|drawing|form)|no title|title|unknown|anonymous|none|null|document|presentation|book|sheet|slide)[ _-]*\d*$`)
	// generator matches the prefix Office's printer drivers put before
	// the source file's name ("Microsoft Word - Owner Manual.docx"): what
	// follows is a file name even when Windows hid its extension.
	generator = regexp.MustCompile(`^microsoft (office )?(word|powerpoint|excel|visio|publisher|onenote) - `)
)

// Bounds of the cover's title (coverTitle).
const (
	// maxCoverChars is how many characters of the first page are read: a
	// cover's title comes early in reading order, and each character's
	// box is a call into the engine.
	maxCoverChars = 2000
	minCoverTitle = 3
	maxCoverTitle = 120
	// prominence is how much taller than the rest of the page's text a
	// line must be to be its title: headings are set at 1.2 times the
	// body and more, while fonts of one size differ by less in their
	// boxes.
	prominence = 1.2
	// displayShare: a line before the largest at least this share of its
	// size is display type too (prominentLine).
	displayShare = 0.7
	sizedPerLine = 8
)

// coverTitle returns the most prominent line of a document's first page,
// read from its text page tp, whose first characters are gs and whose text
// buildText made of them is text, at its bytes' characters: the run of
// consecutive lines in the page's largest characters, when the rest of the
// page's text is at least prominence times smaller, the run is
// minCoverTitle to maxCoverTitle characters long and isTitle. "" when there
// is none: a page of text in one size (nothing tells the title there), a
// page with no text layer, a large line that is a page number. Only the
// first maxCoverChars characters count.
//
// A character's size is the height of its loose box, its font's ascent to
// its descent as drawn, which counts the text matrix's scale that the font
// size alone (FPDFText_GetFontSize) misses. A line's size is that of the
// largest of its first sizedPerLine letters and digits: each box is a call
// into the engine, and the letters of one line are mostly of one size.
func coverTitle(inst pdfium.Pdfium, tp references.FPDF_TEXTPAGE, gs []glyph, text string, at []int) string {
	height := func(i int) (float32, bool) {
		g := gs[i]
		if !g.hasBox {
			// readGlyphs reads only the boxes the page's text needs.
			b, err := inst.FPDFText_GetLooseCharBox(&requests.FPDFText_GetLooseCharBox{TextPage: tp, Index: i})
			if err != nil {
				return 0, false
			}
			g.bottom, g.top = b.Rect.Bottom, b.Rect.Top
		}
		return g.top - g.bottom, g.top > g.bottom
	}
	var lines []coverLine
	for from := 0; from < len(text); {
		end := strings.IndexByte(text[from:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += from
		}
		line := coverLine{text: oneLine(text[from:end], maxTitleChars)}
		for p, r := range text[from:end] {
			i := at[from+p]
			if i >= maxCoverChars || len(line.sizes) == sizedPerLine || !sized(r) {
				continue
			}
			if h, ok := height(i); ok {
				line.sizes = append(line.sizes, h)
				line.size = max(line.size, h)
			}
		}
		if len(line.sizes) > 0 {
			lines = append(lines, line)
		}
		from = end + 1
	}
	return prominentLine(lines)
}

// sized says whether r's box tells its line's size: letters and digits,
// not spaces, punctuation or marks, whose boxes vary by producer.
func sized(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// coverLine is one line of the first page with the sizes of its letters and
// digits (in reading order) and their largest, its size.
type coverLine struct {
	text  string
	sizes []float32
	size  float32
}

// prominentLine is coverTitle's rule over the first page's lines that
// have letters or digits, in reading order.
func prominentLine(lines []coverLine) string {
	largest := float32(0)
	for _, l := range lines {
		largest = max(largest, l.size)
	}
	// The title is the first run of lines in the largest size (a title
	// set on two lines is one); "the same size" allows for the boxes of
	// one font at one size differing by a few percent between letters.
	same := func(l coverLine) bool { return l.size*1.05 >= largest }
	first := slices.IndexFunc(lines, same)
	if first < 0 {
		return ""
	}
	end := first + 1
	for end < len(lines) && same(lines[end]) {
		end++
	}
	var rest []float32
	for i, l := range lines {
		if i < first || i >= end {
			rest = append(rest, l.sizes...)
		}
	}
	if len(rest) == 0 {
		return ""
	}
	slices.Sort(rest)
	median := rest[len(rest)/2]
	if largest < prominence*median {
		return ""
	}
	// A line in display type before the largest (nearly as large, and
	// larger than the page's smallest) is the title, the largest a logo or
	// an emblem below it: asymptote.pdf's cover sets "Asymptote: the Vector
	// Graphics Language" above its logo's larger "symptote" (the A drawn,
	// not text). The title's own lines may be most of such a page's text,
	// so the median does not tell display type there.
	smallest := slices.Min(rest)
	display := func(l coverLine) bool { return l.size >= displayShare*largest && l.size >= prominence*smallest }
	if earlier := slices.IndexFunc(lines[:first], display); earlier >= 0 {
		size := lines[earlier].size
		first, end = earlier, earlier+1
		for end < len(lines) && lines[end].size*1.05 >= size && lines[end].size <= size*1.05 {
			end++
		}
	}
	var parts []string
	for _, l := range lines[first:end] {
		parts = append(parts, l.text)
	}
	title := strings.Join(parts, " ")
	if n := utf8.RuneCountInString(title); n < minCoverTitle || n > maxCoverTitle || !strings.ContainsFunc(title, unicode.IsLetter) || !isTitle(title) {
		return ""
	}
	return title
}
