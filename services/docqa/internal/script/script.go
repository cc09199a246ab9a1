// Package script tells which writing system a text is in, from the Unicode
// script of its letters (the unicode package's tables), so that the service
// can tell a question from manuals it cannot be matched with word for word.
//
// A text's system is the one with the most units among its letters; digits,
// punctuation, symbols and white space are ignored. A unit is one letter of
// a script that writes a syllable or a word per character (Han, Hiragana,
// Katakana, Hangul) and one word (a run of letters and marks) of any other
// script, except codes and abbreviations: a word next to a digit ("5W-30",
// "P0420") or one of a cased script without a lower-case letter ("ABS")
// counts for none. So "ABS warning light 亮了怎么办" has two Latin units
// and five Han ones and is Han, "What does 机油 mean?" has three Latin units
// and two Han ones and is Latin, and "5W-30" has none. A tie goes to a
// script other than Latin (a question mixing Latin words with its own is in
// its own words), then to the name first in alphabetical order.
//
// Two systems are more than one script, as ISO 15924 counts them: Japanese
// (Jpan: Han, Hiragana and Katakana), a text whose kana are at least a fifth
// of its Han and kana letters (Japanese prose has a third or more; a Chinese
// passage naming a product in katakana has less), and Hangul, whose Han
// letters (rare in modern Korean) count with its Hangul when Hangul letters
// are at least a tenth of them. Every other system is named by its Unicode script ("Latin", "Han",
// "Cyrillic", "Greek", "Arabic", "Hebrew", "Thai", "Devanagari", ...).
package script

import (
	"slices"
	"sort"
	"strings"
	"unicode"
)

// Names of the systems the package folds or prefers.
const (
	Latin    = "Latin"
	Han      = "Han"
	Japanese = "Japanese" // Han with Hiragana and Katakana
	Hangul   = "Hangul"   // with the Han letters of Korean text
)

// common are the scripts looked up first, in this order; any other letter
// is looked up in unicode.Scripts.
var common = []struct {
	name  string
	table *unicode.RangeTable
}{
	{"Latin", unicode.Latin},
	{"Han", unicode.Han},
	{"Hiragana", unicode.Hiragana},
	{"Katakana", unicode.Katakana},
	{"Hangul", unicode.Hangul},
	{"Cyrillic", unicode.Cyrillic},
	{"Greek", unicode.Greek},
	{"Arabic", unicode.Arabic},
	{"Hebrew", unicode.Hebrew},
	{"Thai", unicode.Thai},
	{"Devanagari", unicode.Devanagari},
}

// others are the names of unicode.Scripts' other tables (not Common nor
// Inherited, which hold no script's letters), sorted, so that a lookup is
// the same on every run.
var others = func() []string {
	skip := map[string]bool{"Common": true, "Inherited": true}
	for _, c := range common {
		skip[c.name] = true
	}
	var out []string
	for name := range unicode.Scripts {
		if !skip[name] {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}()

// perCharacter are the scripts whose every letter is a unit.
var perCharacter = map[string]bool{"Han": true, "Hiragana": true, "Katakana": true, "Hangul": true}

// of returns the script of letter r ("" when it is in no script's table).
func of(r rune) string {
	for _, c := range common {
		if unicode.Is(c.table, r) {
			return c.name
		}
	}
	for _, name := range others {
		if unicode.Is(unicode.Scripts[name], r) {
			return name
		}
	}
	return ""
}

// Of returns the writing system of text: "" when it holds no letter.
func Of(text string) string {
	units := map[string]int{}
	notInToken := func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsMark(r) && !unicode.IsDigit(r) }
	for _, token := range strings.FieldsFunc(text, notInToken) {
		countToken(token, units)
	}
	han, kana, hangul := units["Han"], units["Hiragana"]+units["Katakana"], units["Hangul"]
	switch {
	case kana > 0 && kana*5 >= han+kana:
		units[Japanese] = han + kana
		delete(units, "Han")
	case hangul > 0 && hangul*10 >= han+hangul:
		units[Hangul] = han + hangul
		delete(units, "Han")
	case kana > 0:
		units[Han] += kana // stray kana in Chinese text
	}
	delete(units, "Hiragana")
	delete(units, "Katakana")
	best, most := "", 0
	for name, n := range units {
		if n > most || (n == most && better(name, best)) {
			best, most = name, n
		}
	}
	return best
}

// countToken adds to units those of a token (a run of letters, marks and
// digits). A combining mark belongs to its letter's word. A word of a cased
// script with no lower-case letter ("ABS", "OBD") and any word of a token
// holding a digit ("5W", "P0420", "km" in "15000km") is a code or an
// abbreviation, written the same in any language, and counts for none.
func countToken(token string, units map[string]int) {
	code := strings.IndexFunc(token, unicode.IsDigit) >= 0
	word, upper, lower := "", false, false // the word being read: its script, its cases
	flush := func() {
		if word != "" && !code && (lower || !upper) {
			units[word]++
		}
		word, upper, lower = "", false, false
	}
	for _, r := range token {
		if unicode.IsMark(r) {
			continue
		}
		s := ""
		if unicode.IsLetter(r) {
			s = of(r)
		}
		switch {
		case s == "": // a digit, or a letter of no script
			flush()
		case perCharacter[s]:
			flush()
			units[s]++
		default:
			if s != word {
				flush()
				word = s
			}
			upper = upper || unicode.IsUpper(r)
			lower = lower || unicode.IsLower(r)
		}
	}
	flush()
}

// better breaks a tie between two systems with as many units.
func better(a, b string) bool {
	if (a == Latin) != (b == Latin) {
		return b == Latin
	}
	return a < b
}

// Shares tells whether a passage in system passage can be matched with a
// question in system question word for word: the same system, or a question
// of Han letters only against a Japanese passage (a question of kanji alone
// may be Japanese). A Japanese question (with kana) does not share Chinese
// passages (Han only), nor does a Han question a Hangul one.
func Shares(question, passage string) bool {
	return question == passage || (question == Han && passage == Japanese)
}

// Other tells whether a question is in another system than every passage:
// the question and at least one passage have letters, and no passage with
// letters shares the question's system. It returns the passages' systems,
// each once, in the order of the passages (best first).
func Other(question string, passages []string) (other bool, systems []string) {
	q := Of(question)
	if q == "" {
		return false, nil
	}
	for _, p := range passages {
		s := Of(p)
		if s == "" {
			continue
		}
		if Shares(q, s) {
			return false, nil
		}
		if !slices.Contains(systems, s) {
			systems = append(systems, s)
		}
	}
	return len(systems) > 0, systems
}
