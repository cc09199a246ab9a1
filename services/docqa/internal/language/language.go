// Package language tells which language a text is written in, among the
// languages of the alphabets manuals are printed in, so that the service
// can tell a German question from the English manuals it is asked of: the
// same script, so script.Other does not tell them apart, and a word for
// word match finds nothing worth quoting.
//
// Detection is whatlanggo's (character trigram profiles, Cavnar and
// Trenkle's method, as Franc and whatlang do), restricted to Latin and
// Cyrillic languages in wide use in vehicle manuals; Chinese, Japanese and
// Korean are told apart by script (package script). A short text is told
// only when the detector calls its guess reliable.
package language

import (
	"slices"

	"github.com/abadojack/whatlanggo"
	"github.com/carhub/backend/services/docqa/internal/script"
	xlanguage "golang.org/x/text/language"
	"golang.org/x/text/language/display"
)

// candidates are the languages detection chooses among.
var candidates = func() whatlanggo.Options {
	o := whatlanggo.Options{Whitelist: map[whatlanggo.Lang]bool{}}
	for _, l := range []whatlanggo.Lang{
		whatlanggo.Eng, whatlanggo.Deu, whatlanggo.Fra, whatlanggo.Spa, whatlanggo.Ita, whatlanggo.Por,
		whatlanggo.Nld, whatlanggo.Pol, whatlanggo.Ces, whatlanggo.Swe, whatlanggo.Dan, whatlanggo.Nob,
		whatlanggo.Fin, whatlanggo.Hun, whatlanggo.Ron, whatlanggo.Tur, whatlanggo.Rus, whatlanggo.Ukr,
	} {
		o.Whitelist[l] = true
	}
	return o
}()

// Of returns text's language as an ISO 639-1 code ("en", "de") and true,
// or "" and false when it is none of the candidates, the detector is not
// sure of it, or the text is not mostly in the Latin or Cyrillic alphabet
// (a Chinese question naming "apt-get" is Chinese, whatever its letters).
func Of(text string) (string, bool) {
	if sys := script.Of(text); sys != script.Latin && sys != "Cyrillic" {
		return "", false
	}
	info := whatlanggo.DetectWithOptions(text, candidates)
	if !info.IsReliable() || !candidates.Whitelist[info.Lang] {
		return "", false
	}
	return info.Lang.Iso6391(), true
}

// Name is a language's English name ("German" for "de"), the code itself
// when it has none.
func Name(code string) string {
	tag, err := xlanguage.Parse(code)
	if err != nil {
		return code
	}
	if name := display.English.Languages().Name(tag); name != "" {
		return name
	}
	return code
}

// Other reports whether question is in another language than every one of
// passages, when both are told: the question's language is sure, at least
// one passage's is, and no passage whose language is sure shares it. langs
// are the passages' languages, each once, in the passages' order. A
// passage whose language is not sure (a table, a list of codes) neither
// shares the question's language nor tells another.
func Other(question string, passages []string) (other bool, langs []string) {
	asked, ok := Of(question)
	if !ok {
		return false, nil
	}
	for _, p := range passages {
		l, ok := Of(p)
		if !ok {
			continue
		}
		if l == asked {
			return false, nil
		}
		if !slices.Contains(langs, l) {
			langs = append(langs, l)
		}
	}
	return len(langs) > 0, langs
}
