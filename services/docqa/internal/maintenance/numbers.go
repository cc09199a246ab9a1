package maintenance

import (
	"regexp"
	"strconv"
	"strings"
)

// Unit is what an interval is counted in.
type Unit int

// The units of an interval. Years are kept apart from months so that a
// page's "2 years" can be checked as printed; items count them in months.
const (
	NoUnit Unit = iota
	Km
	Miles
	Months
	Years
)

// Numbers as manuals print them: digits grouped by thousands with a comma
// (15,000), a point (15.000), a space, a no-break or a thin space
// (15 000), or not grouped at all (15000). A group separator is followed
// by exactly three digits; "9,999.9" reads 9999 and then a fraction that
// no unit follows. The alternatives are tried in order, so "15,000 12"
// (a table row: two cells) reads 15000 and 12.
const numberRE = `\d{1,3}(?:,\d{3})+|\d{1,3}(?:\.\d{3})+|\d{1,3}(?:[  \x{202F}\x{2009}]\d{3})+|\d+`

// noSpaceNumberRE is numberRE without grouping by spaces: a table row's
// cells "100 120" are two numbers, not one (see tableRow).
const noSpaceNumberRE = `\d{1,3}(?:,\d{3})+|\d{1,3}(?:\.\d{3})+|\d+`

var (
	numberPattern        = regexp.MustCompile(numberRE)
	noSpaceNumberPattern = regexp.MustCompile(noSpaceNumberRE)
)

// parseNumber reads one match of numberRE as an integer: its digits
// without the group separators. ok is false past a million kilometres'
// worth of digits (no interval is that long; it is a part number).
func parseNumber(s string) (int, bool) {
	var b strings.Builder
	for _, r := range s {
		if r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	digits := b.String()
	if len(digits) == 0 || len(digits) > 7 {
		return 0, false
	}
	n, err := strconv.Atoi(digits)
	return n, err == nil
}

// Unit words, longest first within each alternation so that "months" is
// not read as "month" followed by "s". Matching is case-insensitive.
const (
	kmRE     = `kilometres|kilometers|kilometre|kilometer|kilometern|km|公里|千米`
	milesRE  = `miles|mile|mi`
	monthsRE = `months|month|monaten|monate|monat|mths|mos|个月|個月`
	yearsRE  = `years|year|yrs|jahren|jahre|jahr|年`
)

// unitOf names the unit a matched unit word is.
func unitOf(word string) Unit {
	w := strings.ToLower(word)
	for _, u := range []struct {
		re   *regexp.Regexp
		unit Unit
	}{{kmWord, Km}, {milesWord, Miles}, {monthsWord, Months}, {yearsWord, Years}} {
		if u.re.MatchString(w) {
			return u.unit
		}
	}
	return NoUnit
}

var (
	kmWord     = regexp.MustCompile(`^(?:` + kmRE + `)$`)
	milesWord  = regexp.MustCompile(`^(?:` + milesRE + `)$`)
	monthsWord = regexp.MustCompile(`^(?:` + monthsRE + `|月)$`)
	yearsWord  = regexp.MustCompile(`^(?:` + yearsRE + `)$`)
)

// quantityRE is a number and its unit: "15,000 km", "12 Monate",
// "10000公里", "6 个月", "2-year". Whether the unit ends there (not "km/h", not
// "mileage") is checked by unitEnds.
const quantityRE = `(` + numberRE + `)\s*-?\s*(` + kmRE + `|` + milesRE + `|` + monthsRE + `|` + yearsRE + `)`

var quantityPattern = regexp.MustCompile(`(?i)` + quantityRE)

// unitEnds reports whether the unit word that ends at end of text ends
// there: not followed by a letter (so "mi" is not the start of "mileage")
// nor by "/" ("190 km/h", "5.8 l/100 km" is caught by its own "/"), nor is
// a CJK unit followed by "/" ("公里/小时").
func unitEnds(text string, end int) bool {
	if end >= len(text) {
		return true
	}
	r := []rune(text[end:min(len(text), end+4)])
	if len(r) == 0 {
		return true
	}
	next := r[0]
	if next == '/' || next == '／' {
		return false
	}
	// A Latin unit word followed by a Latin letter is part of a longer word.
	last := text[end-1]
	if last < 0x80 && (next >= 'a' && next <= 'z' || next >= 'A' && next <= 'Z') {
		return false
	}
	return true
}

// quantity is one number with its unit found in a text.
type quantity struct {
	value      int
	unit       Unit
	start, end int // byte offsets of the match
}

// quantities finds every number-with-unit of text that is an interval's
// kind of quantity.
func quantities(text string) []quantity {
	var out []quantity
	for _, m := range quantityPattern.FindAllStringSubmatchIndex(text, -1) {
		if !unitEnds(text, m[1]) || !numberStarts(text, m[2]) {
			continue
		}
		n, ok := parseNumber(text[m[2]:m[3]])
		if !ok || n == 0 {
			continue
		}
		out = append(out, quantity{value: n, unit: unitOf(text[m[4]:m[5]]), start: m[0], end: m[1]})
	}
	return out
}

// numberStarts reports whether the number at start of text is a whole
// number, not the fraction of "5,8" or "9,999.9" or the tail of a longer
// number.
func numberStarts(text string, start int) bool {
	if start == 0 {
		return true
	}
	prev := text[start-1]
	if prev >= '0' && prev <= '9' {
		return false
	}
	if (prev == '.' || prev == ',') && start >= 2 && text[start-2] >= '0' && text[start-2] <= '9' {
		return false
	}
	return true
}

// pageNumbers is every whole number printed on text, in any of the
// locales' groupings, plus each number followed by a year unit as that
// many times twelve months: the set a cited interval must be found in.
func pageNumbers(text string) map[int]bool {
	set := map[int]bool{}
	for _, re := range []*regexp.Regexp{numberPattern, noSpaceNumberPattern} {
		for _, m := range re.FindAllStringIndex(text, -1) {
			if !numberStarts(text, m[0]) {
				continue
			}
			if n, ok := parseNumber(text[m[0]:m[1]]); ok {
				set[n] = true
			}
		}
	}
	for _, q := range quantities(text) {
		if q.unit == Years {
			set[-q.value*12] = true // marked: months that the page prints as years
		}
	}
	return set
}

// printed reports whether an interval of n in unit is printed in numbers:
// n itself, or for months a number of years n/12.
func printed(numbers map[int]bool, n int, unit Unit) bool {
	if numbers[n] {
		return true
	}
	return unit == Months && n%12 == 0 && numbers[-n]
}
