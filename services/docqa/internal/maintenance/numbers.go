package maintenance

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
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
const quantityRE = `(` + numberRE + `)(\s*万)?\s*-?\s*(` + kmRE + `|` + milesRE + `|` + monthsRE + `|` + yearsRE + `)`

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
// kind of quantity: in digits ("15,000 km", "8万公里"), in words ("two
// years", "zweite Jahr", "两年", "半年") and as adverbs ("annually",
// "jährlich", "halbjährlich"), in text order.
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
		if m[4] >= 0 { // 万: ten thousand
			n *= 10000
		}
		out = append(out, quantity{value: n, unit: unitOf(text[m[6]:m[7]]), start: m[0], end: m[1]})
	}
	taken := func(start, end int) bool {
		for _, q := range out {
			if start < q.end && q.start < end {
				return true
			}
		}
		return false
	}
	for _, m := range wordQuantityPattern.FindAllStringSubmatchIndex(text, -1) {
		n := numberWords[strings.ToLower(text[m[2]:m[3]])]
		unit := unitOf(text[m[4]:m[5]])
		if n == halfWord { // 半年: half a year
			n, unit = 6, Months
		}
		if n > 0 && unit != NoUnit && unitEnds(text, m[1]) && !taken(m[0], m[1]) {
			out = append(out, quantity{value: n, unit: unit, start: m[0], end: m[1]})
		}
	}
	for _, m := range adverbPattern.FindAllStringIndex(text, -1) {
		if !taken(m[0], m[1]) && unitEnds(text, m[1]) && !letterBefore(text, m[0]) {
			out = append(out, quantity{value: adverbMonths[strings.ToLower(text[m[0]:m[1]])], unit: Months, start: m[0], end: m[1]})
		}
	}
	slices.SortFunc(out, func(a, b quantity) int { return a.start - b.start })
	return out
}

// halfWord marks 半 ("half") in numberWords: 半年 is six months.
const halfWord = -1

// numberWords are the counts a manual writes in words before a unit of
// time: "every two years", "every second year" (English and German
// ordinals mean the same spacing), "alle zwei Jahre", "每两年", "每半年".
var numberWords = map[string]int{
	"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
	"twelve": 12, "eighteen": 18, "twenty-four": 24,
	"second": 2, "other": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6,
	"ein": 1, "einem": 1, "zwei": 2, "drei": 3, "vier": 4, "fünf": 5, "sechs": 6, "sieben": 7, "acht": 8, "zehn": 10, "zwölf": 12,
	"zweite": 2, "zweiten": 2, "dritte": 3, "dritten": 3, "vierte": 4, "vierten": 4, "fünfte": 5, "fünften": 5,
	"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10, "十二": 12, "半": halfWord,
}

// wordQuantityPattern is a count in words followed by a unit of time. The
// Latin words stand alone (\b); CJK numerals stand right before 年 or 个月.
var wordQuantityPattern = regexp.MustCompile(`(?i)` + wordQuantityRE)

// wordQuantityRE is a count in words and its unit of time (two groups).
const wordQuantityRE = `(\b(?:twenty-four|eighteen|twelve|one|two|three|four|five|six|seven|eight|nine|ten|second|other|third|fourth|fifth|sixth|zweiten|zweite|dritten|dritte|vierten|vierte|fünften|fünfte|einem|ein|zwei|drei|vier|fünf|sechs|sieben|acht|zehn|zwölf)|十二|[一二两三四五六七八九十半])\s*-?\s*(` + monthsRE + `|` + yearsRE + `)`

// adverbMonths are the adverbs of an interval and their months.
var adverbMonths = map[string]int{"annually": 12, "yearly": 12, "jährlich": 12, "alljährlich": 12, "halbjährlich": 6}

// adverbPattern finds them; letterBefore and unitEnds keep them whole
// words ("jährliche", an adjective, is not one; "halbjährlich" is not read
// as "jährlich").
var adverbPattern = regexp.MustCompile(`(?i)` + adverbRE)

// adverbRE is the adverbs of adverbMonths, longest first.
const adverbRE = `(?:annually|yearly|halbjährlich|alljährlich|jährlich)`

// letterBefore reports whether a letter ends text[:i].
func letterBefore(text string, i int) bool {
	r, _ := utf8.DecodeLastRuneInString(text[:i])
	return i > 0 && unicode.IsLetter(r)
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
// many times twelve months, and, on a page that counts distances in
// thousands, each small number as that many thousands: the set a cited
// interval must be found in.
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
	// A grid or table counting thousands ("x 1000 km", "km x 1000")
	// prints 15 for 15,000 km.
	if thousandsPattern.MatchString(text) || unitThousands.MatchString(text) {
		for n := range set {
			if n > 0 && n < 1000 {
				set[n*1000] = true
			}
		}
	}
	for _, q := range quantities(text) {
		switch {
		case q.unit == Years:
			set[-q.value*12] = true // marked: months that the page prints as years
		default:
			set[q.value] = true // 8万 as 80000, "two months", "annually" as 12
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
