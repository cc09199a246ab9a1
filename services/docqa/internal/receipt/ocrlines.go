package receipt

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/carhub/backend/services/docqa/internal/ocr"
)

// FromWords makes the lines of a receipt from the words Tesseract read on
// an image width x height pixels: a visual line a Line, its box as
// fractions of the image, its confidence the mean of its words'.
//
// Tesseract's own lines are where it starts; but on a receipt it often
// puts the label column and the amount column in different blocks
// ("Total" in one, "£61.34" in another), which would part a label from
// its value. So lines of different blocks side by side (their vertical
// middles within half a line's height of each other, their spans across
// not overlapping) are one line, read left to right.
func FromWords(words []ocr.Word, width, height int) []Line {
	if width <= 0 || height <= 0 {
		return nil
	}
	type group struct {
		words                  []ocr.Word
		left, top, right, bott int
	}
	var groups []*group
	index := map[[3]int]*group{}
	for _, w := range words {
		k := [3]int{w.Block, w.Paragraph, w.Line}
		g := index[k]
		if g == nil {
			g = &group{left: w.Left, top: w.Top, right: w.Left + w.Width, bott: w.Top + w.Height}
			index[k] = g
			groups = append(groups, g)
		}
		g.words = append(g.words, w)
		g.left, g.top = min(g.left, w.Left), min(g.top, w.Top)
		g.right, g.bott = max(g.right, w.Left+w.Width), max(g.bott, w.Top+w.Height)
	}
	slices.SortStableFunc(groups, func(a, b *group) int { return cmp.Compare(a.top+a.bott, b.top+b.bott) })
	var merged []*group
	for _, g := range groups {
		if n := len(merged); n > 0 {
			m := merged[n-1]
			h := min(m.bott-m.top, g.bott-g.top)
			mid, gmid := (m.top+m.bott)/2, (g.top+g.bott)/2
			if abs(mid-gmid)*2 <= h && !slices.ContainsFunc(m.words, func(w ocr.Word) bool {
				return w.Left < g.right && g.left < w.Left+w.Width
			}) {
				m.words = append(m.words, g.words...)
				m.left, m.top = min(m.left, g.left), min(m.top, g.top)
				m.right, m.bott = max(m.right, g.right), max(m.bott, g.bott)
				continue
			}
		}
		merged = append(merged, g)
	}
	lines := make([]Line, 0, len(merged))
	for _, g := range merged {
		slices.SortStableFunc(g.words, func(a, b ocr.Word) int { return cmp.Compare(a.Left, b.Left) })
		sum := 0.0
		var text strings.Builder
		for i, w := range g.words {
			sum += w.Confidence
			if i > 0 {
				prev := g.words[i-1]
				// A word cut in two by a block's edge (07:5 | 8) has no
				// gap; Chinese has no spaces between its words.
				gap := w.Left - (prev.Left + prev.Width)
				if gap*10 > 3*min(w.Height, prev.Height) && !(lastHan(prev.Text) && firstHan(w.Text)) {
					text.WriteByte(' ')
				}
			}
			text.WriteString(w.Text)
		}
		lines = append(lines, Line{
			Text: text.String(),
			Box: Box{X: float64(g.left) / float64(width), Y: float64(g.top) / float64(height),
				W: float64(g.right-g.left) / float64(width), H: float64(g.bott-g.top) / float64(height)},
			Confidence: sum / float64(len(g.words)),
		})
	}
	return lines
}

func firstHan(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.Is(unicode.Han, r)
}

func lastHan(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return unicode.Is(unicode.Han, r)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
