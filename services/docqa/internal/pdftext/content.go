package pdftext

import (
	"context"
	"fmt"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ledongthuc/pdf"
	"golang.org/x/text/unicode/norm"
)

// matrix is a PDF transformation [a b c d e f] as a 3x3 affine matrix.
type matrix [6]float64

var identity = matrix{1, 0, 0, 1, 0, 0}

// mul returns m × n (apply m, then n).
func (m matrix) mul(n matrix) matrix {
	return matrix{
		m[0]*n[0] + m[1]*n[2], m[0]*n[1] + m[1]*n[3],
		m[2]*n[0] + m[3]*n[2], m[2]*n[1] + m[3]*n[3],
		m[4]*n[0] + m[5]*n[2] + n[4], m[4]*n[1] + m[5]*n[3] + n[5],
	}
}

func translate(x, y float64) matrix { return matrix{1, 0, 0, 1, x, y} }

func matrixOf(args []pdf.Value) (matrix, bool) {
	if len(args) != 6 {
		return identity, false
	}
	var m matrix
	for i, a := range args {
		m[i] = a.Float64()
	}
	return m, true
}

type graphics struct {
	ctm                    matrix
	font                   *font
	size, scale, charSpace float64
	wordSpace, lead, rise  float64
}

// interpreter runs one content stream (and the form XObjects it paints),
// sending each decoded glyph with its position to the layout.
type interpreter struct {
	ctx    context.Context
	ops    int // operators run, to look at ctx now and then
	doc    *document
	out    *layout
	forms  int             // form XObjects painted so far on this page
	active map[string]bool // forms being painted, by object number
}

// maxForms bounds the form XObjects painted per page: a form that paints
// itself twice would otherwise double the work at every level.
const maxForms = 4096

func (in *interpreter) run(contents, resources pdf.Value, ctm matrix, depth int) {
	if contents.IsNull() || depth > maxTreeDepth {
		return
	}
	g := graphics{ctm: ctm, scale: 1}
	var stack []graphics
	tm, tlm := identity, identity
	fonts := newFontTable(in.doc, resources)
	var xobjRefs map[string]string

	show := func(raw string) {
		f := g.font
		if f == nil {
			f = fallbackFont
		}
		for len(raw) > 0 {
			n := f.codeLen(raw)
			code := raw[:n]
			raw = raw[n:]
			w := f.width(code) * f.unitsScale
			render := matrix{g.size * g.scale, 0, 0, g.size, 0, g.rise}
			trm := render.mul(tm).mul(g.ctm)
			// The glyph ends where its own width ends; character and word
			// spacing only move the next glyph. Comparing the next glyph
			// with this end is what shows a gap between words, also when a
			// producer makes the gap with Tc instead of a space.
			end := render.mul(translate(w*g.size*g.scale, 0).mul(tm)).mul(g.ctm)
			adv := w*g.size + g.charSpace
			if n == 1 && code[0] == ' ' {
				adv += g.wordSpace
			}
			tm = translate(adv*g.scale, 0).mul(tm)
			in.out.glyph(trm[4], trm[5], end[4], end[5], math.Hypot(trm[2], trm[3]), f.decode(code), f.knownWidths())
		}
	}

	stream, ok := contentStream(contents, &in.doc.budget)
	if !ok {
		return
	}
	pdf.Interpret(stream, func(stk *pdf.Stack, op string) {
		if in.ops++; in.ops%4096 == 0 && in.ctx.Err() != nil {
			// Leave the page at once; pageText recovers and Extract
			// returns ctx.Err().
			panic(in.ctx.Err())
		}
		n := stk.Len()
		args := make([]pdf.Value, n)
		for i := n - 1; i >= 0; i-- {
			args[i] = stk.Pop()
		}
		arg := func(i int) float64 {
			if i < len(args) {
				return args[i].Float64()
			}
			return 0
		}
		switch op {
		case "q":
			if len(stack) < 256 {
				stack = append(stack, g)
			}
		case "Q":
			if len(stack) > 0 {
				g = stack[len(stack)-1]
				stack = stack[:len(stack)-1]
			}
		case "cm":
			if m, ok := matrixOf(args); ok {
				g.ctm = m.mul(g.ctm)
			}
		case "BT":
			tm, tlm = identity, identity
		case "ET":
		case "Tc":
			g.charSpace = arg(0)
		case "Tw":
			g.wordSpace = arg(0)
		case "Tz":
			g.scale = arg(0) / 100
		case "TL":
			g.lead = arg(0)
		case "Ts":
			g.rise = arg(0)
		case "Tf":
			if len(args) == 2 {
				g.font = fonts.get(args[0].Name())
				g.size = args[1].Float64()
			}
		case "Td", "TD":
			if op == "TD" {
				g.lead = -arg(1)
			}
			tlm = translate(arg(0), arg(1)).mul(tlm)
			tm = tlm
		case "Tm":
			if m, ok := matrixOf(args); ok {
				tm, tlm = m, m
			}
		case "T*":
			tlm = translate(0, -g.lead).mul(tlm)
			tm = tlm
		case "Tj":
			if len(args) == 1 {
				show(args[0].RawString())
			}
		case "'", "\"":
			if op == "\"" && len(args) == 3 {
				g.wordSpace, g.charSpace = arg(0), arg(1)
				args = args[2:]
			}
			tlm = translate(0, -g.lead).mul(tlm)
			tm = tlm
			if len(args) == 1 {
				show(args[0].RawString())
			}
		case "TJ":
			if len(args) != 1 {
				return
			}
			a := args[0]
			for i := 0; i < a.Len(); i++ {
				x := a.Index(i)
				if x.Kind() == pdf.String {
					show(x.RawString())
				} else {
					tm = translate(-x.Float64()/1000*g.size*g.scale, 0).mul(tm)
				}
			}
		case "Do":
			if len(args) != 1 {
				return
			}
			if in.forms >= maxForms {
				return
			}
			if xobjRefs == nil {
				xobjRefs = objectRefs(resources.Key("XObject"))
			}
			ref, isRef := xobjRefs[args[0].Name()]
			if isRef && in.active[ref] {
				return // a form that paints itself: painted once, as pdftotext does
			}
			xo := resources.Key("XObject").Key(args[0].Name())
			if xo.Key("Subtype").Name() != "Form" {
				return
			}
			in.forms++
			if isRef {
				if in.active == nil {
					in.active = map[string]bool{}
				}
				in.active[ref] = true
				defer delete(in.active, ref)
			}
			m, ok := matrixOf(arrayValues(xo.Key("Matrix")))
			if !ok {
				m = identity
			}
			res := xo.Key("Resources")
			if res.IsNull() {
				res = resources
			}
			in.run(xo, res, m.mul(g.ctm), depth+1)
		}
	})
}

func arrayValues(v pdf.Value) []pdf.Value {
	out := make([]pdf.Value, 0, v.Len())
	for i := 0; i < v.Len(); i++ {
		out = append(out, v.Index(i))
	}
	return out
}

// fontTable resolves the font names of one resource dictionary, sharing
// fonts across pages through the document's cache.
type fontTable struct {
	doc   *document
	res   pdf.Value         // the /Font resource dictionary
	refs  map[string]string // name -> "id gen" of indirect fonts
	local map[string]*font
}

func newFontTable(doc *document, resources pdf.Value) *fontTable {
	res := resources.Key("Font")
	return &fontTable{doc: doc, res: res, refs: objectRefs(res), local: map[string]*font{}}
}

// get returns the font for a Tf name. The text reader keeps no object cache:
// every lookup of an object inside a compressed object stream inflates that
// stream again. Fonts are therefore cached by their object number, read off
// the resource dictionary without resolving the font itself.
func (t *fontTable) get(name string) *font {
	if f, ok := t.local[name]; ok {
		return f
	}
	var v pdf.Value
	key, ok := t.refs[name]
	if !ok {
		v = t.res.Key(name)
		key = v.String() // a direct font dictionary: its text is its identity
	}
	f, cached := t.doc.fonts[key]
	if !cached {
		if ok {
			v = t.res.Key(name)
		}
		f = loadFont(v)
		t.doc.fonts[key] = f
	}
	t.local[name] = f
	return f
}

// objectRefs maps the keys of dict that hold indirect references to those
// references, as the text reader prints them ("/F1 12 0 R").
func objectRefs(dict pdf.Value) map[string]string {
	refs := map[string]string{}
	if dict.Kind() != pdf.Dict {
		return refs
	}
	printed := dict.String()
	for _, k := range dict.Keys() {
		marker := "/" + k + " "
		i := strings.Index(printed, marker)
		if i < 0 {
			continue
		}
		rest := printed[i+len(marker):]
		var id, gen int
		if n, _ := fmt.Sscanf(rest, "%d %d R", &id, &gen); n == 2 {
			refs[k] = fmt.Sprintf("%d %d", id, gen)
		}
	}
	return refs
}

// maxPageText bounds the text kept of one page, so that a small file whose
// streams inflate to gigabytes of text operators cannot exhaust memory. It is
// far beyond any real page (a dense page holds some 10 KB of text).
const maxPageText = 4 << 20

// layout joins glyphs into text: a new line when the baseline moves by more
// than half the font size, a space when a glyph starts a visible gap after
// the previous one (or jumps back along the line).
type layout struct {
	b                strings.Builder
	has              bool
	lastX, lastY     float64 // end of the previous glyph
	lastStartX, size float64
	spaceNext        bool // a space glyph was drawn since the last glyph
}

func (l *layout) glyph(x, y, endX, endY, size float64, text string, knownWidths bool) {
	if strings.TrimFunc(text, unicode.IsSpace) == "" {
		// Like pdftotext, spaces come from the gaps between glyphs, not
		// from space glyphs: producers draw those overlapping, or not at all.
		// Without the font's widths gaps cannot be measured, so there the
		// space glyph is taken at its word.
		if !knownWidths && l.has {
			l.spaceNext = true
		}
		return
	}
	if l.b.Len() > maxPageText {
		return
	}
	gap := 0.15
	if !knownWidths {
		gap = 0.6 // every glyph is guessed half an em wide
	}
	if size <= 0 {
		size = 1
	}
	if l.has {
		ref := math.Max(size, l.size)
		switch {
		case math.Abs(y-l.lastY) > 0.5*ref:
			l.b.WriteByte('\n')
		case l.spaceNext || x-l.lastX > gap*ref || x < l.lastStartX-0.5*ref:
			if r, _ := utf8.DecodeRuneInString(text); !endsWithSpace(&l.b) && !unicode.IsSpace(r) {
				l.b.WriteByte(' ')
			}
		}
	}
	l.b.WriteString(text)
	l.has, l.spaceNext = true, false
	l.lastX, l.lastY, l.lastStartX, l.size = endX, endY, x, size
}

func endsWithSpace(b *strings.Builder) bool {
	s := b.String()
	r, _ := utf8.DecodeLastRuneInString(s)
	return s == "" || unicode.IsSpace(r)
}

// String returns the page text: valid UTF-8, without NUL characters and
// trailing spaces on lines.
func (l *layout) String() string {
	s := fold(strings.ToValidUTF8(l.b.String(), "\uFFFD"))
	lines := strings.Split(s, "\n")
	for i, line := range lines {
		lines[i] = strings.TrimRight(line, " \t\r")
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// fold removes NUL characters and writes look-alike code points the way a
// reader types them: CJK and Kangxi radicals and CJK compatibility ideographs
// as unified ideographs, Latin
// ligatures (ﬁ, ﬂ, ...) as letters, as pdftotext does.
func fold(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == 0:
		case r >= 0x2E80 && r <= 0x2EFF:
			if u, ok := cjkRadicals[r]; ok {
				r = u
			}
			b.WriteRune(r)
		case r >= 0x2F00 && r <= 0x2FDF, r >= 0xF900 && r <= 0xFAFF, r >= 0xFB00 && r <= 0xFB06:
			var buf [utf8.UTFMax]byte
			b.Write(norm.NFKC.Bytes(buf[:utf8.EncodeRune(buf[:], r)]))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
