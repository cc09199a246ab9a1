package receipt

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/shopspring/decimal"
)

// role is what a number on a receipt is, from what is printed beside it.
type role int

const (
	anyRole   role = iota // nothing beside it says
	qtyRole               // a unit follows it: 40.12 l, 32,5 kWh, 12.345 G
	priceRole             // a unit price: 1,759 €/l, 152.9p/l, @ 3.459
	moneyRole             // a currency is beside it: £61.34, 79,72 EUR
)

// num is one number printed on a line.
type num struct {
	line       int
	val        decimal.Decimal
	text       string // as printed (after the OCR repairs)
	frac       int    // digits after the decimal separator
	grouped    bool   // it had a group separator (1.234,56)
	start, end int    // byte offsets in the line's text
	repaired   bool   // an O, l or I was read as a digit in it
	role       role
	unit       string // l, gal, kWh, kg for qtyRole and priceRole
	minor      bool   // a price in minor units (p/l, ct/l)
	currency   string // ISO code of the currency printed beside it
	variant    bool   // its decimal separator was inferred (the OCR lost it)
}

// confusable digits: letters OCR reads for digits (and the digits for
// letters, see keywordText).
var letterDigit = map[rune]rune{'O': '0', 'o': '0', 'D': '0', 'l': '1', 'I': '1', '|': '1', 'S': '5'}

func isDigit(r byte) bool { return r >= '0' && r <= '9' }
func isSep(r byte) bool   { return r == '.' || r == ',' }

// repairDigits reads letters as digits inside numbers: 7O.12 -> 70.12,
// 4O,l2 -> 40,12, l2.50 -> 12.50. A letter is a digit when it sits between
// digits or separators with a digit on one side at least, or starts a
// number (after a space or a sign) and a digit follows it (O, l, I only:
// a leading S is as often a $). A word's letters stay (E10, SP95, B7,
// 40.12l): a letter touching another letter is left alone.
func repairDigits(s string) (string, bool) {
	b := []byte(s)
	changed := false
	for pass := 0; pass < 3; pass++ {
		again := false
		for i := range b {
			d, ok := letterDigit[rune(b[i])]
			if !ok {
				continue
			}
			var prev, next byte = ' ', ' '
			if i > 0 {
				prev = b[i-1]
			}
			if i+1 < len(b) {
				next = b[i+1]
			}
			if isLetter(prev) || isLetter(next) && !(next == 'l' || next == 'p') {
				continue
			}
			between := (isDigit(prev) || isSep(prev)) && (isDigit(next) || isSep(next)) && (isDigit(prev) || isDigit(next))
			// The separator must have a digit on its far side too.
			if between && isSep(prev) && (i < 2 || !isDigit(b[i-2])) {
				between = false
			}
			if between && isSep(next) && (i+2 >= len(b) || !isDigit(b[i+2])) {
				between = false
			}
			leading := (prev == ' ' || prev == '-' || prev == '$' || prev == ':') && isDigit(next) && b[i] != 'S' && b[i] != 'D'
			if between || leading {
				b[i] = byte(d)
				changed, again = true, true
			}
		}
		if !again {
			break
		}
	}
	return string(b), changed
}

// OCR reads a litre's l as 1 (52,18 1; €/1) and a yuan's ¥ as Y.
var (
	perOne       = regexp.MustCompile(`([€$£p]|eur|ct)\s?/\s?1\b`)
	litreAsOne   = regexp.MustCompile(`(\d[.,]\d{2,3}) ?1($|\s+[^\d\s])`)
	yuanAsY      = regexp.MustCompile(`(^|[^A-Za-z])[Y]\s?(\d)`)
	yuanAsYAfter = regexp.MustCompile(`(\d)\s?Y($|[^A-Za-z])`)
)

// repairUnits reads back the units OCR misreads: €/1 is €/l (no price is
// per one), a decimal number followed by a lone 1 and then words or
// nothing is that many litres (a count would stand before it), and on a
// Chinese receipt a Y beside digits is ¥.
func repairUnits(s string, han bool) string {
	s = perOne.ReplaceAllString(s, "$1/l")
	s = litreAsOne.ReplaceAllString(s, "$1 l$2")
	if han {
		s = yuanAsY.ReplaceAllString(s, "$1¥$2")
		s = yuanAsYAfter.ReplaceAllString(s, "$1¥$2")
	}
	return s
}

// asciiLower lower-cases ASCII letters only, so that byte offsets in the
// result are those of s (strings.ToLower changes the length of some
// letters: ẞ, İ).
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func isLetter(c byte) bool { return c < 0x80 && unicode.IsLetter(rune(c)) }

var numberRE = regexp.MustCompile(`\d+(?:[.,'’]\d+)*`)

// parseNumber reads a printed number: the last of two different
// separators is the decimal one (1.234,56; 1,234.56); one kind of
// separator used twice or more groups thousands (1.234.567); a single
// separator is decimal (45,32; 1.529), which fits every quantity, price
// and amount on a receipt (grouped reads odometers, see parseCount).
func parseNumber(s string) (d decimal.Decimal, frac int, grouped bool, ok bool) {
	s = strings.NewReplacer("'", "", "’", "").Replace(s)
	lastDot, lastComma := strings.LastIndexByte(s, '.'), strings.LastIndexByte(s, ',')
	dec := -1
	switch {
	case lastDot >= 0 && lastComma >= 0:
		dec = max(lastDot, lastComma)
		grouped = true
	case lastDot >= 0 && strings.Count(s, ".") == 1:
		dec = lastDot
	case lastComma >= 0 && strings.Count(s, ",") == 1:
		dec = lastComma
	case lastDot >= 0 || lastComma >= 0:
		grouped = true
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case isDigit(s[i]):
			b.WriteByte(s[i])
		case i == dec:
			b.WriteByte('.')
			frac = len(s) - i - 1
		}
	}
	d, err := decimal.NewFromString(b.String())
	return d, frac, grouped, err == nil
}

// parseCount reads a count such as an odometer: a separator followed by
// exactly three digits groups (87.412, 87,412, 87 412); a decimal part is
// dropped (45.230,5 km reads 45230).
func parseCount(s string) (decimal.Decimal, bool) {
	s = strings.NewReplacer("'", "", "’", "", " ", "", "\u00a0", "", "\u202f", "").Replace(s)
	parts := strings.FieldsFunc(s, func(r rune) bool { return r == '.' || r == ',' })
	if len(parts) == 0 {
		return decimal.Decimal{}, false
	}
	var b strings.Builder
	b.WriteString(parts[0])
	for i, p := range parts[1:] {
		if len(p) != 3 {
			if i == len(parts)-2 { // a decimal part at the end
				break
			}
			return decimal.Decimal{}, false
		}
		b.WriteString(p)
	}
	d, err := decimal.NewFromString(b.String())
	return d, err == nil
}

// Units and currencies beside a number.
var (
	qtySuffix = regexp.MustCompile(`^\s?(l|ltr|lt|lit|liters?|litres?|gal|gallons?|g|kwh|kg|升|公升|度|千瓦时|公斤)(?:$|[^a-z/])`)
	// A price per unit: an optional currency or minor unit, then /unit.
	priceSuffix    = regexp.MustCompile(`^\s?(€|eur|£|gbp|\$|usd|chf|fr\.?|元|rmb|cny|¥|p|ct|cent|cents|c)?\s?(?:/|per |pro |je )\s?(l\b|ltr|lit|liter|litre|gal|g\b|kwh|kg|升|公升|千瓦时|度|公斤)`)
	currencyAfter  = regexp.MustCompile(`^\s?(€|eur|£|gbp|\$|usd|chf|fr\b|元|rmb|cny|¥)`)
	currencyBefore = regexp.MustCompile(`(€|eur|£|gbp|\$|usd|us\$|chf|fr\.|¥|rmb|cny)\s?-?$`)
	atBefore       = regexp.MustCompile(`(@|[x×*])\s?(€|eur|£|\$|chf|¥)?\s?$`)
)

// unitOf names a printed unit as the API does.
func unitOf(s string) string {
	switch s {
	case "l", "ltr", "lt", "lit", "liter", "liters", "litre", "litres", "升", "公升":
		return "l"
	case "gal", "gallon", "gallons", "g":
		return "gal"
	case "kwh", "度", "千瓦时":
		return "kWh"
	case "kg", "公斤":
		return "kg"
	}
	return ""
}

// currencyOf names a printed currency as ISO 4217 ("" when it cannot
// tell: ¥ is yen or yuan, decided by the receipt's script).
func currencyOf(s string) string {
	switch strings.TrimSuffix(s, ".") {
	case "€", "eur":
		return "EUR"
	case "£", "gbp", "p":
		return "GBP"
	case "$", "usd", "us$":
		return "USD"
	case "chf", "fr":
		return "CHF"
	case "元", "rmb", "cny":
		return "CNY"
	case "¥":
		return "¥"
	case "ct", "cent", "cents", "c":
		return "" // euro or dollar cents: the receipt's other symbols tell
	}
	return ""
}

// numbers finds the numbers of line i (its text already repaired, dates
// and times masked) with what is printed beside them.
func numbers(i int, text string, repaired bool) []num {
	lower := asciiLower(text)
	var out []num
	for _, m := range numberRE.FindAllStringIndex(text, -1) {
		s, e := m[0], m[1]
		// A number glued to a word (E10, SP95, B7, A4) is a name.
		if s > 0 && isLetter(text[s-1]) {
			continue
		}
		if e < len(text) && (text[e] == '%' || strings.HasPrefix(text[e:], "号")) {
			continue
		}
		v, frac, grouped, ok := parseNumber(text[s:e])
		if !ok {
			continue
		}
		n := num{line: i, val: v, text: text[s:e], frac: frac, grouped: grouped, start: s, end: e, repaired: repaired}
		// What is printed beside it: a few characters either side (the
		// regular expressions read them whole).
		after, before := lower[e:], lower[max(0, s-12):s]
		if len(after) > 24 {
			after = after[:24]
		}
		if m := priceSuffix.FindStringSubmatch(after); m != nil {
			n.role, n.unit = priceRole, unitOf(strings.TrimSpace(m[2]))
			switch m[1] {
			case "p", "ct", "cent", "cents", "c":
				n.minor = true
			}
			n.currency = currencyOf(m[1])
		} else if m := qtySuffix.FindStringSubmatch(after); m != nil {
			n.role, n.unit = qtyRole, unitOf(m[1])
		} else if m := currencyAfter.FindStringSubmatch(after); m != nil {
			n.role, n.currency = moneyRole, currencyOf(m[1])
		}
		if m := currencyBefore.FindStringSubmatch(before); m != nil && n.role != qtyRole {
			n.currency = currencyOf(m[1])
			if n.role == anyRole {
				n.role = moneyRole
			}
		}
		if atBefore.MatchString(before) && n.role != qtyRole && n.role != priceRole {
			n.role = priceRole
			if strings.HasSuffix(strings.TrimSpace(before), "@") || n.frac >= 3 {
				n.role = priceRole
			}
		}
		out = append(out, n)
	}
	return out
}

// major is a price in major units of its currency (152.9p -> 1.529).
func (n num) major() decimal.Decimal {
	if n.minor {
		return n.val.Shift(-2)
	}
	return n.val
}
