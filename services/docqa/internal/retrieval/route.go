package retrieval

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// quotePairs are the quotation marks whose content NamesIdentifier takes
// for a quoted phrase: code and straight quotes, typographic ones of the
// languages the service meets, and the CJK corner brackets. The straight
// single quote is handled apart (see singleQuoted), since it is also an
// apostrophe.
var quotePairs = [][2]rune{
	{'`', '`'}, {'"', '"'}, {'“', '”'}, {'„', '“'}, {'„', '”'}, {'«', '»'}, {'‹', '›'},
	{'「', '」'}, {'『', '』'}, {'‘', '’'},
}

// NamesIdentifier reports what in question names something verbatim, the
// way a user quotes a command, an option, an error code or a part number:
// the first such span, or "" when there is none. Routed retrieval answers
// such a question from the lexical ranking alone, since a verbatim name is
// what BM25 matches and a fusion with a second, fuzzier ranking can only
// push the page that names it down.
//
// The spans, in this order:
//
//  1. A quoted phrase: a non-blank text between a pair of quotePairs on
//     one line, or between straight single quotes when the opening one
//     follows a space, an opening bracket or the start and the closing one
//     precedes a space, punctuation or the end (so "don't" is no quote).
//  2. A token (a run of characters other than spaces and CJK letters and
//     punctuation, with sentence punctuation trimmed from its ends) that
//     is one of:
//     - a TeX or LilyPond command, `\` and a letter: \key;
//     - a command-line option, one or two `-` and a letter: -debug, --help;
//     - a variable, `$` or `%` and a letter: $HOME;
//     - a path: `/` and a letter or digit, `~/` or `./` and a letter,
//     digit or dot; a dot file, `.` and a letter: .Rprofile;
//     - a call, a name and `()`: size();
//     - an `_` or `=` between letters or digits: R_PROFILE_USER, stroke=true;
//     - a `.` between two letters or digits with two letters on one side
//     (instead.nosave, but not e.g. nor 3.14);
//     - camel case, a lower-case letter followed by an upper-case one:
//     PubkeyAuthentication;
//     - letters and digits mixed (dgrid3d, A1, IN2, P0420), except a
//     number followed by one or two letters, an ordinal or a unit (3D,
//     2nd, 5V);
//     - a code in capitals, two or more upper-case letters and no lower
//     case: GND, CSV;
//     - a part number, groups of digits (and letters) joined by `-`:
//     90915-10001.
//  3. In a question written in Chinese or Japanese (it holds Han, Hiragana
//     or Katakana letters), a word of two or more Latin letters: there it
//     is a command or a name (chmod, iconv).
func NamesIdentifier(question string) string {
	if q := quoted(question); q != "" {
		return q
	}
	cjk := strings.ContainsFunc(question, isCJK)
	for _, tok := range tokens(question) {
		if identifierToken(tok) || (cjk && latinWord(tok)) {
			return tok
		}
	}
	return ""
}

func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// quoted returns the first quoted phrase of s with its quotes, "" when
// there is none.
func quoted(s string) string {
	best, bestAt := "", len(s)
	for _, p := range quotePairs {
		from := 0
		for from < len(s) {
			i := strings.IndexRune(s[from:], p[0])
			if i < 0 {
				break
			}
			i += from
			open := i + utf8.RuneLen(p[0])
			j := strings.IndexRune(s[open:], p[1])
			if j < 0 {
				break
			}
			inner := s[open : open+j]
			end := open + j + utf8.RuneLen(p[1])
			if strings.TrimSpace(inner) != "" && !strings.ContainsRune(inner, '\n') {
				if i < bestAt {
					best, bestAt = s[i:end], i
				}
				break
			}
			from = open + j + utf8.RuneLen(p[1]) // an empty pair: look on after it
		}
	}
	if q, at := singleQuoted(s); q != "" && at < bestAt {
		return q
	}
	return best
}

// singleQuoted finds 'text' between straight single quotes that stand
// apart from words, and where it starts.
func singleQuoted(s string) (string, int) {
	for i := 0; i < len(s); i++ {
		if s[i] != '\'' {
			continue
		}
		if i > 0 {
			prev, _ := utf8.DecodeLastRuneInString(s[:i])
			if !unicode.IsSpace(prev) && !strings.ContainsRune("([{", prev) {
				continue
			}
		}
		for j := i + 1; j < len(s); j++ {
			if s[j] == '\n' {
				break
			}
			if s[j] != '\'' {
				continue
			}
			next, _ := utf8.DecodeRuneInString(s[j+1:])
			if j+1 < len(s) && !unicode.IsSpace(next) && !unicode.IsPunct(next) {
				continue
			}
			if inner := s[i+1 : j]; strings.TrimSpace(inner) != "" && !unicode.IsSpace(rune(inner[0])) {
				return s[i : j+1], i
			}
			break
		}
	}
	return "", -1
}

// tokens splits s at spaces, CJK letters and CJK punctuation, and trims
// sentence punctuation from each token's ends (a call's "()" stays).
func tokens(s string) []string {
	fields := strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || isCJK(r) || (r >= 0x3000 && r <= 0x303f) || (r >= 0xff00 && r <= 0xffef && !unicode.IsLetter(r) && !unicode.IsDigit(r))
	})
	out := fields[:0]
	for _, f := range fields {
		if g := strings.TrimRight(f, ".,;:!?"); strings.HasSuffix(g, "()") {
			f = g
		} else {
			f = strings.TrimRight(f, ".,;:!?)]}»\"'’”")
		}
		f = strings.TrimLeft(f, "([{«\"'‘“¿¡")
		if f != "" {
			out = append(out, f)
		}
	}
	return out
}

func isAlnum(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// identifierToken is rule 2 of NamesIdentifier.
func identifierToken(tok string) bool {
	rs := []rune(tok)
	at := func(i int) rune {
		if i < 0 || i >= len(rs) {
			return 0
		}
		return rs[i]
	}
	switch {
	case at(0) == '\\' && unicode.IsLetter(at(1)):
		return true
	case at(0) == '-' && (unicode.IsLetter(at(1)) || at(1) == '-' && unicode.IsLetter(at(2))):
		return true
	case (at(0) == '$' || at(0) == '%') && unicode.IsLetter(at(1)):
		return true
	case at(0) == '/' && isAlnum(at(1)), (at(0) == '~' || at(0) == '.') && at(1) == '/' && (isAlnum(at(2)) || at(2) == '.'):
		return true
	case at(0) == '.' && unicode.IsLetter(at(1)):
		return true
	case len(rs) > 2 && strings.HasSuffix(tok, "()") && isAlnum(at(len(rs)-3)):
		return true
	}
	var letters, digits, upper, lower int
	for i, r := range rs {
		switch {
		case unicode.IsUpper(r):
			upper++
			letters++
			if i > 0 && unicode.IsLower(rs[i-1]) {
				return true // camel case
			}
		case unicode.IsLetter(r):
			lower++
			letters++
		case unicode.IsDigit(r):
			digits++
		case (r == '_' || r == '=') && isAlnum(at(i-1)) && isAlnum(at(i+1)):
			return true
		case r == '.' && isAlnum(at(i-1)) && isAlnum(at(i+1)) && (lettersAround(rs, i-1, -1) >= 2 || lettersAround(rs, i+1, 1) >= 2):
			return true
		case r == '-' && unicode.IsDigit(at(i-1)) && isAlnum(at(i+1)):
			return true // a part number: digits joined to the next group
		}
	}
	if letters > 0 && digits > 0 && !ordinalOrUnit(rs) {
		return true
	}
	return upper >= 2 && lower == 0
}

// lettersAround counts the letters of the run of letters and digits that
// starts at rs[i] and goes in direction step.
func lettersAround(rs []rune, i, step int) int {
	n := 0
	for ; i >= 0 && i < len(rs) && isAlnum(rs[i]); i += step {
		if unicode.IsLetter(rs[i]) {
			n++
		}
	}
	return n
}

// ordinalOrUnit reports whether rs is digits followed by one or two
// letters and nothing else: 3D, 2nd, 10V.
func ordinalOrUnit(rs []rune) bool {
	i := 0
	for i < len(rs) && unicode.IsDigit(rs[i]) {
		i++
	}
	if i == 0 || len(rs)-i < 1 || len(rs)-i > 2 {
		return false
	}
	for _, r := range rs[i:] {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

// latinWord reports whether tok holds two or more letters of the Latin
// script.
func latinWord(tok string) bool {
	n := 0
	for _, r := range tok {
		if unicode.Is(unicode.Latin, r) {
			n++
		}
	}
	return n >= 2
}
