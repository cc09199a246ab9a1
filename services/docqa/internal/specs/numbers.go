package specs

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// Units of an item's quantity, as the API names them.
const (
	UnitLitre  = "l"
	UnitQuart  = "qt"
	UnitBar    = "bar"
	UnitKPa    = "kPa"
	UnitPSI    = "psi"
	UnitNm     = "Nm"
	UnitLbFt   = "lb-ft"
	UnitRON    = "RON"
	UnitAh     = "Ah"
	unitNumber = "" // a number without a unit word
)

// numberRE is a decimal as specifications print it: "4.3", "4,3", "230",
// "1,200" (a separator followed by exactly three digits groups
// thousands; see parseDecimal).
const numberRE = `\d+(?:[.,]\d+)?`

// unitWords are the words of each unit, longest first within each so that
// "Liter" is not read as "L" followed by "iter", and lb-ft before the
// litre's "l" (an alternation takes its first match, and unitEnds then
// refuses "l" before "b"). A unit word ends where unitEnds says.
var unitWords = []struct {
	unit string
	re   string
}{
	{UnitLbFt, `lb[-·.\s]?ft|lbf[-·.\s]?ft|ft[-·.\s]?lbs?`},
	{UnitLitre, `(?i:litres|liters|litre|litern|liter|ltr)|l|L|公升|升`},
	{UnitQuart, `quarts|quart|qts|qt`},
	{UnitBar, `bar`},
	{UnitKPa, `kPa|KPa|kpa|千帕`},
	{UnitPSI, `psi|PSI`},
	{UnitNm, `N\s?·\s?m|N\s?•\s?m|N\.m|N\s?m|Nm|牛·米|牛米`},
	{UnitRON, `RON|ROZ|(?i:octane|oktan)|号`},
	{UnitAh, `Ah`},
}

var (
	// quantityPattern is a number and its unit: "4.3 l", "2,3 bar",
	// "230 kPa", "110 N·m", "95 RON", "92号".
	quantityPattern = regexp.MustCompile(`(` + numberRE + `)\s?(` + allUnits() + `)`)
	// octaneFirstPattern is the other order of an octane rating: "ROZ 95",
	// "RON 95", "Super 95" is not read.
	octaneFirstPattern = regexp.MustCompile(`(RON|ROZ)\s?(\d{2,3})`)
	numberPattern      = regexp.MustCompile(numberRE)
	unitPatterns       = compileUnits()
)

func allUnits() string {
	parts := make([]string, len(unitWords))
	for i, u := range unitWords {
		parts[i] = u.re
	}
	return strings.Join(parts, "|")
}

func compileUnits() map[string]*regexp.Regexp {
	out := map[string]*regexp.Regexp{}
	for _, u := range unitWords {
		out[u.unit] = regexp.MustCompile(`^(?:` + u.re + `)$`)
	}
	return out
}

// unitOf names the unit a matched unit word is, "" for none.
func unitOf(word string) string {
	for _, u := range unitWords {
		if unitPatterns[u.unit].MatchString(word) {
			return u.unit
		}
	}
	return unitNumber
}

// quantity is a number with its unit as a text prints it.
type quantity struct {
	text       string // as printed: "2,3 bar"
	number     string // a decimal with a point: "2.3"
	unit       string
	start, end int // byte offsets in the text
}

// quantities finds every number-with-unit of text: whole numbers (not the
// fraction of "5,8" nor the tail of "205/55"), a unit that ends there (not
// "l/100 km", not "Liter" read as "L"), and octane ratings printed either
// way round.
func quantities(text string) []quantity {
	var out []quantity
	for _, m := range quantityPattern.FindAllStringSubmatchIndex(text, -1) {
		unit := unitOf(text[m[4]:m[5]])
		if !numberStarts(text, m[2]) || !unitEnds(text, m[1], unit) {
			continue
		}
		n, ok := parseDecimal(text[m[2]:m[3]])
		if !ok {
			continue
		}
		out = append(out, quantity{text: text[m[0]:m[1]], number: n, unit: unit, start: m[0], end: m[1]})
	}
	for _, m := range octaneFirstPattern.FindAllStringSubmatchIndex(text, -1) {
		if !wordStarts(text, m[0]) || !numberEnds(text, m[1]) {
			continue
		}
		out = append(out, quantity{text: text[m[0]:m[1]], number: text[m[4]:m[5]], unit: UnitRON, start: m[0], end: m[1]})
	}
	return out
}

// numberStarts reports whether the number at start of text is a whole
// number: not the fraction of "5,8", the tail of a longer number, or the
// second half of "205/55".
func numberStarts(text string, start int) bool {
	if start == 0 {
		return true
	}
	prev := text[start-1]
	if prev >= '0' && prev <= '9' || prev == '/' || prev == '-' && start >= 2 && isASCIIAlnum(text[start-2]) {
		return false
	}
	if (prev == '.' || prev == ',') && start >= 2 && text[start-2] >= '0' && text[start-2] <= '9' {
		return false
	}
	return true
}

// numberEnds reports whether a number ends at end of text.
func numberEnds(text string, end int) bool {
	if end >= len(text) {
		return true
	}
	c := text[end]
	if c >= '0' && c <= '9' {
		return false
	}
	return !((c == '.' || c == ',') && end+1 < len(text) && text[end+1] >= '0' && text[end+1] <= '9')
}

// wordStarts reports whether a Latin word starts at start of text.
func wordStarts(text string, start int) bool {
	return start == 0 || !isASCIIAlnum(text[start-1])
}

func isASCIIAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// unitEnds reports whether the unit word of unit that ends at end of text
// ends there: not followed by a Latin letter or digit ("l" is not the
// start of "litre" nor "ltr", "bar" of "barrier"), and a volume not by "/"
// ("5.8 l/100 km" is a consumption; "2.3 bar/33 psi" and "250 Nm/1500
// rpm" read).
func unitEnds(text string, end int, unit string) bool {
	if end >= len(text) {
		return true
	}
	next, _ := utf8.DecodeRuneInString(text[end:])
	if (next == '/' || next == '／') && (unit == UnitLitre || unit == UnitQuart) {
		return false
	}
	last := text[end-1]
	return last >= 0x80 || next >= 0x80 || !isASCIIAlnum(byte(next))
}

// parseDecimal reads a number as a decimal with a point, as printed
// ("4,3" is "4.3", "4.0" stays "4.0"); a separator followed by exactly
// three digits groups thousands ("1,200" and "1.200" are "1200"). ok is
// false for more than 7 digits (a part number, no specification).
func parseDecimal(s string) (string, bool) {
	i := strings.IndexAny(s, ".,")
	digits := strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, s)
	if len(digits) > 7 || digits == "" {
		return "", false
	}
	if i < 0 || len(s)-i-1 == 3 {
		return canonical(digits), true
	}
	whole := strings.TrimLeft(s[:i], "0")
	if whole == "" {
		whole = "0"
	}
	return whole + "." + s[i+1:], true
}

// sameNumber reports whether two decimals are the same number: "4" and
// "4.0", "2.30" and "2.3".
func sameNumber(a, b string) bool { return canonical(a) == canonical(b) }

// canonical is a decimal without trailing zeros in its fraction.
func canonical(d string) string {
	d = strings.Replace(d, ",", ".", 1)
	if strings.Contains(d, ".") {
		d = strings.TrimRight(strings.TrimRight(d, "0"), ".")
	}
	d = strings.TrimLeft(d, "0")
	if d == "" || d[0] == '.' {
		d = "0" + d
	}
	return d
}

// pageNumbers is every number printed on text, canonical: the set an
// item's numbers must be found in. A number with a separator is also
// read the other way ("1,200" as 1200 and as 1.2), so the check is never
// stricter than the page's locale.
func pageNumbers(text string) map[string]bool {
	set := map[string]bool{}
	for _, m := range numberPattern.FindAllStringIndex(text, -1) {
		s := text[m[0]:m[1]]
		if n, ok := parseDecimal(s); ok {
			set[canonical(n)] = true
		}
		set[canonical(s)] = true
	}
	return set
}

// valueNumbers is every number printed in a value, canonical.
func valueNumbers(value string) []string {
	var out []string
	for _, s := range numberPattern.FindAllString(value, -1) {
		n, ok := parseDecimal(s)
		if !ok {
			n = s
		}
		out = append(out, canonical(n))
	}
	return out
}
