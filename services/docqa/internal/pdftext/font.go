package pdftext

import (
	"strings"
	"unicode/utf16"

	"github.com/ledongthuc/pdf"
	pdffont "github.com/pdfcpu/pdfcpu/pkg/font"
)

// font is what the interpreter needs of a PDF font: how many bytes a
// character code takes, its advance width, and its Unicode text.
type font struct {
	twoByte    bool
	ucs2       bool           // a Type0 font whose codes are UTF-16 (Uni*-UCS2-H and the like)
	spaces     [4][][2]string // codespace ranges by code length - 1
	toUnicode  map[string]string
	fallback   pdf.TextEncoding
	first      int
	widths     []float64
	cidWidths  map[int]float64
	defWidth   float64
	unitsScale float64 // glyph space to text space: 1/1000, or a Type3 FontMatrix
}

// ucs2Encodings are the predefined CMaps whose character codes are UTF-16:
// with them a Type0 font needs no ToUnicode map (older Chinese, Japanese and
// Korean PDFs rely on that, with non-embedded fonts such as STSong-Light).
var ucs2Encodings = map[string]bool{
	"UniGB-UCS2-H": true, "UniGB-UCS2-V": true, "UniGB-UTF16-H": true, "UniGB-UTF16-V": true,
	"UniCNS-UCS2-H": true, "UniCNS-UCS2-V": true, "UniCNS-UTF16-H": true, "UniCNS-UTF16-V": true,
	"UniJIS-UCS2-H": true, "UniJIS-UCS2-V": true, "UniJIS-UTF16-H": true, "UniJIS-UTF16-V": true,
	"UniKS-UCS2-H": true, "UniKS-UCS2-V": true, "UniKS-UTF16-H": true, "UniKS-UTF16-V": true,
}

// fallbackFont serves text shown before any Tf.
var fallbackFont = &font{defWidth: 500, unitsScale: 0.001}

func loadFont(v pdf.Value) *font {
	f := &font{unitsScale: 0.001, defWidth: 500}
	defer func() {
		// A malformed part leaves the defaults in place.
		_ = recover()
	}()
	switch v.Key("Subtype").Name() {
	case "Type0":
		f.twoByte = true
		f.ucs2 = ucs2Encodings[v.Key("Encoding").Name()]
		f.defWidth = 1000
		desc := v.Key("DescendantFonts").Index(0)
		if dw := desc.Key("DW"); dw.Kind() == pdf.Integer || dw.Kind() == pdf.Real {
			f.defWidth = dw.Float64()
		}
		f.cidWidths = parseW(desc.Key("W"))
	case "Type3":
		if m := v.Key("FontMatrix"); m.Len() == 6 {
			f.unitsScale = m.Index(0).Float64()
		}
		fallthrough
	default:
		f.first = int(v.Key("FirstChar").Int64())
		w := v.Key("Widths")
		for i := 0; i < w.Len() && i < 65536; i++ {
			f.widths = append(f.widths, w.Index(i).Float64())
		}
	}
	if !f.twoByte && len(f.widths) == 0 {
		f.coreWidths(v.Key("BaseFont").Name())
	}
	if tu := v.Key("ToUnicode"); tu.Kind() == pdf.Stream {
		f.readCMap(tu, v)
	}
	enc := pdf.Font{V: v}
	f.fallback = enc.Encoder()
	return f
}

// coreAliases names the standard 14 font that common system fonts stand in
// for when a PDF refers to them without widths.
var coreAliases = map[string]string{
	"Arial": "Helvetica", "Arial,Bold": "Helvetica-Bold", "Arial,Italic": "Helvetica-Oblique",
	"ArialMT": "Helvetica", "Arial-BoldMT": "Helvetica-Bold", "Arial-ItalicMT": "Helvetica-Oblique",
	"TimesNewRoman": "Times-Roman", "TimesNewRoman,Bold": "Times-Bold", "TimesNewRoman,Italic": "Times-Italic",
	"TimesNewRomanPSMT": "Times-Roman", "TimesNewRomanPS-BoldMT": "Times-Bold", "TimesNewRomanPS-ItalicMT": "Times-Italic",
	"CourierNew": "Courier", "CourierNewPSMT": "Courier", "CourierNew,Bold": "Courier-Bold",
}

// coreWidths fills in the widths of a standard 14 font (PDFs may leave them
// out) from the metrics pdfcpu ships.
func (f *font) coreWidths(base string) {
	if i := strings.IndexByte(base, '+'); i >= 0 {
		base = base[i+1:]
	}
	if alias, ok := coreAliases[base]; ok {
		base = alias
	}
	if !pdffont.IsCoreFont(base) {
		return
	}
	f.first = 0
	f.widths = make([]float64, 256)
	for c := range f.widths {
		if w, err := pdffont.CharWidth(base, rune(c)); err == nil {
			f.widths[c] = float64(w)
		}
	}
}

// parseW reads a CIDFont W array: "c [w1 w2 ...]" and "cFirst cLast w".
func parseW(w pdf.Value) map[int]float64 {
	out := map[int]float64{}
	for i := 0; i < w.Len() && len(out) < maxEntries; {
		c := int(w.Index(i).Int64())
		if i+1 < w.Len() && w.Index(i+1).Kind() == pdf.Array {
			ws := w.Index(i + 1)
			for j := 0; j < ws.Len() && j < 65536; j++ {
				out[c+j] = ws.Index(j).Float64()
			}
			i += 2
			continue
		}
		if i+2 >= w.Len() {
			break
		}
		last, width := int(w.Index(i+1).Int64()), w.Index(i+2).Float64()
		for cid := c; cid <= last && cid-c < 65536; cid++ {
			out[cid] = width
		}
		i += 3
	}
	return out
}

func (f *font) codeLen(raw string) int {
	for n := 1; n <= 4 && n <= len(raw); n++ {
		for _, r := range f.spaces[n-1] {
			if r[0] <= raw[:n] && raw[:n] <= r[1] {
				return n
			}
		}
	}
	if f.twoByte && len(raw) >= 2 {
		return 2
	}
	return 1
}

func (f *font) width(code string) float64 {
	c := 0
	for i := 0; i < len(code); i++ {
		c = c<<8 | int(code[i])
	}
	if f.twoByte {
		if w, ok := f.cidWidths[c]; ok {
			return w
		}
		return f.defWidth
	}
	if i := c - f.first; i >= 0 && i < len(f.widths) {
		return f.widths[i]
	}
	return f.defWidth
}

// knownWidths reports whether the font gives glyph widths (Widths, W); the
// standard 14 fonts may omit them.
func (f *font) knownWidths() bool {
	return f.twoByte || len(f.widths) > 0
}

func (f *font) decode(code string) string {
	if s, ok := f.toUnicode[code]; ok {
		return s
	}
	if f.ucs2 {
		return string(utf16.Decode(utf16Units(code)))
	}
	if f.twoByte {
		// Without a mapping a CID says nothing about its character.
		return ""
	}
	if f.fallback != nil {
		return f.fallback.Decode(code)
	}
	return code
}

// readCMap parses a ToUnicode CMap into a map from code bytes to text.
// fontDict stands in for the dictionaries that the CMap's PostScript
// prologue creates (findresource, begincmap); it is never written back.
func (f *font) readCMap(cm, fontDict pdf.Value) {
	f.toUnicode = map[string]string{}
	popAll := func(stk *pdf.Stack) []pdf.Value {
		vs := make([]pdf.Value, stk.Len())
		for i := len(vs) - 1; i >= 0; i-- {
			vs[i] = stk.Pop()
		}
		return vs
	}
	pdf.Interpret(cm, func(stk *pdf.Stack, op string) {
		switch op {
		case "findresource":
			stk.Pop()
			stk.Pop()
			stk.Push(fontDict)
		case "begincmap":
			stk.Push(fontDict)
		case "endcmap", "defineresource":
			popAll(stk)
		case "begincodespacerange", "beginbfchar", "beginbfrange", "begincidrange", "beginnotdefrange":
			popAll(stk)
		case "endcodespacerange":
			vs := popAll(stk)
			for i := 0; i+1 < len(vs); i += 2 {
				lo, hi := vs[i].RawString(), vs[i+1].RawString()
				if n := len(lo); n >= 1 && n <= 4 && len(hi) == n {
					f.spaces[n-1] = append(f.spaces[n-1], [2]string{lo, hi})
				}
			}
		case "endbfchar":
			vs := popAll(stk)
			for i := 0; i+1 < len(vs) && len(f.toUnicode) < maxEntries; i += 2 {
				f.toUnicode[vs[i].RawString()] = utf16Text(vs[i+1].RawString())
			}
		case "endbfrange":
			vs := popAll(stk)
			for i := 0; i+2 < len(vs); i += 3 {
				f.addRange(vs[i].RawString(), vs[i+1].RawString(), vs[i+2])
			}
		default:
			popAll(stk)
		}
	})
}

// maxRange bounds one bfrange, maxEntries all codes of a font, so that a
// hostile CMap or W array cannot make the maps huge (a real CJK font maps
// some 30000 codes).
const (
	maxRange   = 1 << 16
	maxEntries = 1 << 18
)

func (f *font) addRange(lo, hi string, dst pdf.Value) {
	if len(lo) == 0 || len(lo) != len(hi) || len(lo) > 4 {
		return
	}
	l, h := codeInt(lo), codeInt(hi)
	if h < l || h-l >= maxRange {
		return
	}
	for c := l; c <= h && len(f.toUnicode) < maxEntries; c++ {
		code := intCode(c, len(lo))
		off := c - l
		switch dst.Kind() {
		case pdf.String:
			u := utf16Units(dst.RawString())
			if len(u) == 0 {
				continue
			}
			u[len(u)-1] += uint16(off)
			f.toUnicode[code] = string(utf16.Decode(u))
		case pdf.Array:
			if off < dst.Len() {
				f.toUnicode[code] = utf16Text(dst.Index(off).RawString())
			}
		}
	}
}

func codeInt(s string) int {
	c := 0
	for i := 0; i < len(s); i++ {
		c = c<<8 | int(s[i])
	}
	return c
}

func intCode(c, n int) string {
	b := make([]byte, n)
	for i := n - 1; i >= 0; i-- {
		b[i] = byte(c)
		c >>= 8
	}
	return string(b)
}

func utf16Units(s string) []uint16 {
	u := make([]uint16, 0, len(s)/2)
	for i := 0; i+1 < len(s); i += 2 {
		u = append(u, uint16(s[i])<<8|uint16(s[i+1]))
	}
	return u
}

// utf16Text decodes a CMap destination (UTF-16BE) into UTF-8.
func utf16Text(s string) string {
	if len(s) == 1 { // some producers write single bytes
		return strings.ToValidUTF8(s, "")
	}
	return string(utf16.Decode(utf16Units(s)))
}
