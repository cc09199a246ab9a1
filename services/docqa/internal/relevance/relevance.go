// Package relevance tells whether a retrieved passage holds what a question
// asks about, from the words they share, so that the service can say that
// the manuals do not seem to cover a question rather than quote the nearest
// passages as if they answered it.
//
// A ranking always has a first place: retrieval orders passages, it does not
// judge them. What it cannot tell is whether the first passage is about the
// question at all. The measure here is how much of the question's content a
// passage holds. Each content word of the question (its lexical terms,
// stemmed as the index stems them, without the function words of the
// languages the service meets) is a unit, and so is each character of a
// Chinese or Japanese run, held when one of the run's character pairs that
// contains it is in the passage. Units weigh how rare their terms are among
// the stored passages (Weighted: "oil" says more than "change"), relative
// to a term no passage holds, which weighs 1.
//
// A passage answers a question (Matches) when it holds at least
// MinCoverage of the question's weight, or, for a long question that a
// manual answers in other words than it asks, at least MinHeld in all. Both
// were chosen on the dev split of the retrieval benchmark with questions no
// manual of it answers (testdata/retrieval/unanswerable.json;
// proto-docs/docqa-retrieval-decisions.md, "When the manuals do not
// answer"), so that no answerable question is turned away.
package relevance

import (
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/carhub/backend/services/docqa/internal/docqa"
	"github.com/carhub/backend/services/docqa/internal/lexical"
	"github.com/carhub/backend/services/docqa/internal/script"
)

// The thresholds of Matches.
const (
	// MinCoverage is the share of a question's weight a passage that
	// answers it holds at least.
	MinCoverage = 0.5
	// MinHeld is the weight a passage that answers a question holds at
	// least when it holds less than MinCoverage of it: a word no passage
	// holds weighs 1, the commonest words little.
	MinHeld = 1.25
)

// Question is a question's content, analysed once and matched against many
// passages.
type Question struct {
	words []string   // content terms outside CJK runs
	runs  [][]string // each CJK run's character pairs (a lone character is its own)
	units int        // len(words) plus the characters of the runs
	// weights, once Weighted: each word's, then each run's pairs', in
	// Terms' order, negative for a pair no passage holds (heldCharacters);
	// nil weighs every unit 1.
	weights []float64
}

// Analyze returns the content of question. A question in an alphabet
// leaves out the Chinese or Japanese it quotes ("Which item do I check at
// every inspection (每次检查)?"): the words of its own say what it asks,
// and a manual in its language holds those. A Chinese or Japanese question
// keeps the Latin words it holds: names and codes ("apt-cache policy"),
// printed as such in any manual.
func Analyze(question string) Question {
	var q Question
	seen := map[string]bool{}
	sys := script.Of(question)
	cjkQuestion := sys == script.Han || sys == script.Japanese
	for _, w := range cjkQuestionWords {
		question = strings.ReplaceAll(question, w, " ")
	}
	for _, run := range splitRuns(question) {
		if run.cjk && !cjkQuestion {
			continue
		}
		if run.cjk {
			pairs := cjkPairs(run.text)
			if len(pairs) > 0 {
				q.runs = append(q.runs, pairs)
				q.units += utf8.RuneCountInString(run.text)
			}
			continue
		}
		for _, t := range lexical.Analyze(run.text) {
			if seen[t] || questionWords[t] {
				continue
			}
			seen[t] = true
			q.words = append(q.words, t)
			q.units++
		}
	}
	return q
}

// Units is how many units the question has: its content words and the
// characters of its CJK runs. A question of none (only function words, or
// punctuation) is matched by any passage.
func (q Question) Units() int { return q.units }

// Terms are the index terms q is matched by: its words, then the pairs of
// its CJK runs, in order, for the document frequencies Weighted takes.
func (q Question) Terms() []string {
	out := slices.Clone(q.words)
	for _, pairs := range q.runs {
		out = append(out, pairs...)
	}
	return out
}

// Weighted returns q with each unit weighed by how rare its term is among
// the n passages stored: df[i] passages hold the i-th of q.Terms(). A word
// weighs its BM25 inverse document frequency, ln(1 + (n − df + 0.5) / (df
// + 0.5)), over that of a term no passage holds (so at most 1), so that a question is matched by what it asks about ("oil",
// "AdBlue") more than by the words of any page ("change", "engine"); a
// word no passage holds weighs the most, as it should: nothing stored
// speaks of it. A CJK character weighs the most of its pairs' idfs, where a
// pair no passage holds counts only when the character has no other pair:
// the pairs across two words of a question ("置网" of "配置网络") are in
// no text and say nothing, while a character none of whose pairs is in any
// text ("轮胎" in a manual of computers) is what nothing stored speaks of.
func (q Question) Weighted(df []int, n int) Question {
	if len(df) != len(q.Terms()) {
		return q
	}
	idf := func(d int) float64 {
		return math.Log(1 + (float64(n)-float64(d)+0.5)/(float64(d)+0.5))
	}
	unknown := idf(0)
	w := make([]float64, len(df))
	k := 0
	for range q.words {
		w[k] = idf(df[k]) / unknown
		k++
	}
	for _, pairs := range q.runs {
		for range pairs {
			w[k] = idf(df[k]) / unknown
			if df[k] == 0 {
				w[k] = -1 // in no text: see heldCharacters
			}
			k++
		}
	}
	q.weights = w
	return q
}

// Coverage returns the share of q's weight that text holds, in [0, 1]; 1
// for a question without units (or whose units all weigh nothing).
func (q Question) Coverage(text string) float64 {
	coverage, _ := q.Match(text)
	return coverage
}

// Match returns the share of q's weight that text holds (1 for a question
// of no weight) and that weight.
func (q Question) Match(text string) (coverage, held float64) {
	held, total := q.held(text)
	if total == 0 {
		return 1, 0
	}
	return held / total, held
}

// Matches reports whether text holds enough of q to answer it: at least
// MinCoverage of its weight, or MinHeld in all.
func (q Question) Matches(text string) bool {
	coverage, held := q.Match(text)
	return coverage >= MinCoverage || held >= MinHeld
}

// held returns the weight of q's units that text holds, and q's whole
// weight.
func (q Question) held(text string) (held, total float64) {
	terms := map[string]bool{}
	for _, t := range lexical.Analyze(text) {
		terms[t] = true
	}
	weight := func(k int) float64 {
		if q.weights == nil {
			return 1
		}
		return q.weights[k]
	}
	k := 0
	for _, w := range q.words {
		total += weight(k)
		if terms[w] {
			held += weight(k)
		}
		k++
	}
	for _, pairs := range q.runs {
		h, t := heldCharacters(pairs, terms, func(i int) float64 { return weight(k + i) })
		held, total = held+h, total+t
		k += len(pairs)
	}
	return held, total
}

// Holds reports whether text holds any of q's units: a sentence that holds
// none says nothing of what was asked.
func (q Question) Holds(text string) bool {
	return q.units == 0 || q.Coverage(text) > 0
}

// heldCharacters weighs the characters of a CJK run, given as its pairs
// (pair i covers characters i and i+1; a lone character is a run of one
// "pair" of one character), and those of them a pair of terms covers: a
// character weighs the most of its pairs' weights (weight(i) is pair i's),
// where a negative weight is a pair in no text, which counts (as 1, the
// weight of a term no passage holds) only when the character has no other.
func heldCharacters(pairs []string, terms map[string]bool, weight func(i int) float64) (held, total float64) {
	if len(pairs) == 1 && utf8.RuneCountInString(pairs[0]) == 1 {
		if terms[pairs[0]] {
			return weight(0), weight(0)
		}
		return 0, weight(0)
	}
	for c := 0; c <= len(pairs); c++ {
		var w, unknown float64
		covered := false
		for _, i := range []int{c - 1, c} { // the pairs that hold character c
			if i < 0 || i >= len(pairs) {
				continue
			}
			if wi := weight(i); wi >= 0 {
				w = max(w, wi)
			} else {
				unknown = 1
			}
			covered = covered || terms[pairs[i]]
		}
		if w == 0 {
			w = unknown
		}
		total += w
		if covered {
			held += w
		}
	}
	return held, total
}

type run struct {
	text string
	cjk  bool
}

// splitRuns cuts text into runs of CJK letters (without the particles that
// carry no topic) and runs of anything else.
func splitRuns(text string) []run {
	var out []run
	var cur strings.Builder
	cjk := false
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, run{cur.String(), cjk})
			cur.Reset()
		}
	}
	for _, r := range text {
		isCJK := lexical.IsCJK(r)
		if isCJK && cjkFunction[r] {
			flush() // a particle ends a run: the pairs across it are not words
			continue
		}
		if isCJK != cjk {
			flush()
			cjk = isCJK
		}
		cur.WriteRune(r)
	}
	flush()
	return out
}

// cjkPairs returns a CJK run's overlapping character pairs, as the lexical
// index analyses it, or the run itself when it is one character.
func cjkPairs(run string) []string {
	rs := []rune(run)
	if len(rs) == 1 {
		return []string{run}
	}
	out := make([]string, 0, len(rs)-1)
	for i := 0; i+1 < len(rs); i++ {
		out = append(out, string(rs[i:i+2]))
	}
	return out
}

// cjkFunction are Chinese and Japanese characters that ask or join rather
// than name a topic: question particles, the possessive, the copula,
// pronouns, the kana particles of Japanese.
var cjkFunction = func() map[rune]bool {
	m := map[rune]bool{}
	for _, r := range "的了是在和吗呢么我你他她它们该要应请何怎哪谁吧啊" + "はがをにでともへやかのねよ" + "？！，。、：；" {
		m[r] = true
	}
	return m
}()

// cjkQuestionWords are the Chinese and Japanese words of more than one
// character that ask rather than name (how, what, how long, how much...).
var cjkQuestionWords = []string{"如何", "怎么", "怎样", "什么", "多少", "多久", "哪里", "哪个", "为什么", "是否", "可以", "应该", "需要",
	"どのくらい", "どのように", "どうやって", "ですか", "ますか", "方法"}

// questionWords are the function words of questions in the languages the
// service meets beside English (whose function words the lexical analysis
// drops already), as lexical.Analyze leaves them (lower-cased, without
// diacritics, Latin words stemmed by the English stemmer).
var questionWords = func() map[string]bool {
	m := map[string]bool{}
	for _, text := range []string{
		// English words the lexical analysis keeps that ask rather than name
		"much many often long way need want use get make one",
		// German
		"wie was wo wann warum welche welcher welches welchen wer wem wen woran womit wozu " +
			"ich man mein meine meinen meinem du sie er es wir ihr der die das den dem des ein eine einen einem einer " +
			"und oder aber mit ohne im in am an auf aus bei fur von vom zu zum zur uber nach " +
			"ist sind war wird werden wurde kann konnen muss mussen soll sollte darf mochte hat haben gibt " +
			"nicht kein keine auch noch schon oft viel viele sich",
		// French
		"comment quel quelle quels quelles quand pourquoi ou qui que quoi est sont je il elle on nous vous " +
			"le la les un une des du de et au aux avec sans pour par sur dans ce cette mon ma mes faut peut dois",
		// Spanish
		"como que cual cuales cuando donde por quien cuanto cuanta cuantos cuantas es son hay " +
			"el la los las un una unos unas del al de y o con sin para en se mi mis debo puedo tengo cada",
		// Russian
		"как что где когда почему какой какая какое какие кто сколько ли это на в во с со и или не для по из к у " +
			"я мне мой моя ты вы он она оно они можно нужно надо",
	} {
		for _, w := range strings.Fields(text) {
			for _, t := range lexical.Analyze(w) {
				m[t] = true
			}
		}
	}
	return m
}()

// Text is what of a retrieved passage a question is matched against: its
// document's title, its heading and its text, as the lexical index weighs
// them all.
func Text(h docqa.ScoredChunk) string {
	return h.Document.Title + "\n" + h.Chunk.Heading + "\n" + h.Chunk.Text
}

// Best returns the position of the first of hits that Matches q, or of
// the one that holds the most of it when none does (the first of those),
// and whether it matches; -1 when there are no hits.
func (q Question) Best(hits []docqa.ScoredChunk) (at int, matches bool) {
	at = -1
	best := -1.0
	for i, h := range hits {
		text := Text(h)
		if q.Matches(text) {
			return i, true
		}
		if c := q.Coverage(text); c > best {
			at, best = i, c
		}
	}
	return at, false
}
