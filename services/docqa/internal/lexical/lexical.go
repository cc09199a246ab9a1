// Package lexical ranks chunks by BM25 over their words: the analysis of a
// text into terms, and an in-memory inverted index (Index) that the
// embedded store keeps beside its vectors.
//
// Scripts written without spaces need their own treatment: a tokenizer that
// splits at spaces and punctuation takes a whole run of Chinese or Japanese
// as one token, so a Chinese question could only match a page that holds
// the very same run. Prepare therefore rewrites every run of Han, Hiragana
// and Katakana into its overlapping character pairs (a lone character stays
// itself), the n-gram scheme of Lucene's CJK analyzer. Hangul is written
// with spaces between words and is split like the alphabets. Index and
// question go through the same analysis, so they always agree.
package lexical

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Version names the analysis; an index kept on disk (Milvus's sparse
// vectors) built by another version must be built again.
const Version = "snowball-cjk2:v1"

// MaxQueryTerms bounds the terms of one query, so a long question cannot
// make one search read the whole index.
const MaxQueryTerms = 64

// IsCJK reports the runes of scripts written without spaces between words.
func IsCJK(r rune) bool {
	if r < 0x2E80 { // below the CJK radicals: every alphabet, Hangul Jamo too
		return false
	}
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r)
}

// Prepare returns text in NFKC form (full-width letters and digits become
// ASCII) with every CJK run replaced by its character pairs, separated from
// each other and from the rest by spaces.
func Prepare(text string) string {
	text = norm.NFKC.String(text)
	var b strings.Builder
	b.Grow(len(text) + len(text)/2)
	var run []rune
	flush := func() {
		if len(run) == 0 {
			return
		}
		b.WriteByte(' ')
		if len(run) == 1 {
			b.WriteRune(run[0])
		}
		for i := 0; i+1 < len(run); i++ {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteRune(run[i])
			b.WriteRune(run[i+1])
		}
		b.WriteByte(' ')
		run = run[:0]
	}
	for _, r := range text {
		if IsCJK(r) {
			run = append(run, r)
			continue
		}
		flush()
		b.WriteRune(r)
	}
	flush()
	return b.String()
}

// Terms returns the distinct words of a prepared text as a question would
// search them: runs of letters, digits and combining marks, lower-cased,
// without the English function words, in order of first appearance, at
// most MaxQueryTerms.
func Terms(prepared string) []string {
	var terms []string
	seen := map[string]bool{}
	for _, w := range words(prepared) {
		if seen[w] || stopWords[w] {
			continue
		}
		if len(terms) == MaxQueryTerms {
			break
		}
		seen[w] = true
		terms = append(terms, w)
	}
	return terms
}

// words splits a prepared text into runs of letters, digits and combining
// marks, lower-cased, in order, repeats included.
func words(prepared string) []string {
	var out []string
	eachWord(prepared, func(w string) { out = append(out, w) })
	return out
}

// eachWord calls f with each word of a prepared text as words lists them.
func eachWord(prepared string, f func(word string)) {
	start := -1
	for i, r := range prepared {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			f(strings.ToLower(prepared[start:i]))
			start = -1
		}
	}
	if start >= 0 {
		f(strings.ToLower(prepared[start:]))
	}
}

// IsStopWord reports whether a lower-cased word is one of the English
// function words that carry no topic.
func IsStopWord(w string) bool { return stopWords[w] }

// stopWords are English function words that carry no topic; a question is
// full of them and every page holds them, so they only cost time. Words of
// other languages are left alone: BM25's inverse document frequency weighs
// them down anyway.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or but if of to in on at by for with from as is are was were be been
		being it its this that these those there here what which who whom how why when where do does did
		can could should would will shall may might must i you he she we they me him her us them my your
		our their not no so than then too very into over about`) {
		m[w] = true
	}
	return m
}()
