package provider

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/carhub/backend/services/docqa/internal/docqa"
	"github.com/carhub/backend/services/docqa/internal/relevance"
)

// Limits of the extractive answer.
const (
	extractivePassages   = 3   // sources quoted at most
	extractiveQuoteRunes = 400 // characters quoted per source at most
)

// NoSourcesAnswer is the whole answer of ExtractiveChat when nothing was
// retrieved.
const NoSourcesAnswer = "No passage of the stored documents matches this question, so there is nothing to quote."

// ExtractiveChat is the local fallback docqa.ChatModel. It writes no prose:
// it quotes the best sentences of the best retrieved passages, one per line,
// as "[n] file.pdf, p. 3: ..." where n is the source's position in
// req.Sources (the numbering the client sees in the sources event), so the
// answer reads the same in any language.
type ExtractiveChat struct {
	lex *LexicalEmbedder
	// counts weighs a question's words by how rare they are in the store
	// (relevance.Question.Weighted); nil, or a store without a lexical
	// index, weighs every word the same.
	counts docqa.TermCounter
}

var _ docqa.Quoter = (*ExtractiveChat)(nil)

// NewExtractiveChat returns the local fallback chat model, which weighs a
// question's words by counts (nil: each the same).
func NewExtractiveChat(counts docqa.TermCounter) *ExtractiveChat {
	return &ExtractiveChat{lex: NewLexicalEmbedder(), counts: counts}
}

// Name identifies the fallback.
func (*ExtractiveChat) Name() string { return "local:extractive" }

// Stream sends one delta per quoted passage (or NoSourcesAnswer) and returns
// "stop". It fails only when ctx ends or onDelta fails.
func (e *ExtractiveChat) Stream(ctx context.Context, req docqa.ChatRequest, onDelta func(content string) error) (string, error) {
	picks := e.picks(ctx, req.Question, req.Sources)
	if len(picks) == 0 {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		if err := onDelta(NoSourcesAnswer); err != nil {
			return "", err
		}
		return "stop", nil
	}
	for k, p := range picks {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		sep := ""
		if k > 0 {
			sep = "\n\n"
		}
		src := req.Sources[p.index]
		piece := fmt.Sprintf("%s[%d] %s, p. %d: %s", sep, p.index+1, src.Document.FileName, src.Chunk.Page, p.quote)
		if err := onDelta(piece); err != nil {
			return "", err
		}
	}
	return "stop", nil
}

// Quoted returns the passages Stream quotes, with the sentences it quotes of each.
func (e *ExtractiveChat) Quoted(ctx context.Context, question string, sources []docqa.ScoredChunk) []docqa.Quote {
	picks := e.picks(ctx, question, sources)
	out := make([]docqa.Quote, len(picks))
	for i, p := range picks {
		out[i] = docqa.Quote{Index: p.index, Sentences: p.sentences}
	}
	return out
}

type pick struct {
	index     int      // in the sources
	quote     string   // what is quoted of it
	sentences []string // the passage's sentences the quote holds
}

// picks chooses the passages to quote: the leading sources that answer the
// question (relevance.Question.Matches), best first, up to
// extractivePassages, skipping one whose page is already quoted or whose
// quote is a repeat. None when no source answers it: the chat then says
// that the manuals do not seem to cover the question.
func (e *ExtractiveChat) picks(ctx context.Context, question string, sources []docqa.ScoredChunk) []pick {
	q := e.lex.Vector(question)
	asked := e.asked(ctx, question)
	type page struct {
		md5, file string
		n         int
	}
	pages := map[page]bool{}
	quotes := map[string]bool{}
	var out []pick
	for i, src := range sources {
		if len(out) == extractivePassages {
			break
		}
		pg := page{src.Document.FileMD5, src.Document.FileName, src.Chunk.Page}
		if pages[pg] || !asked.Matches(relevance.Text(src)) {
			continue
		}
		quote, sentences := e.quote(src.Chunk.Text, q, asked)
		if quote == "" || quotes[quote] {
			continue
		}
		pages[pg], quotes[quote] = true, true
		out = append(out, pick{i, quote, sentences})
	}
	return out
}

// asked is the question's content, weighed by the store's counts when it
// has them.
func (e *ExtractiveChat) asked(ctx context.Context, question string) relevance.Question {
	asked := relevance.Analyze(question)
	if e.counts == nil {
		return asked
	}
	df, n, err := e.counts.DocFreq(ctx, asked.Terms())
	if err != nil {
		return asked // no lexical index (or the store is gone, which retrieval has said already)
	}
	return asked.Weighted(df, n)
}

// quote picks the sentences of text most similar to the question vector q
// that hold some of the question's content (asked.Holds: a sentence that
// shares no word with the question says nothing of it), in their original
// order, up to extractiveQuoteRunes characters; "" when none holds any. Sentences
// are quoted whole: sentences that were not next to each other are joined
// by " … ", a quote that begins where the passage begins in the middle of a
// sentence starts with "…", one that ends where the passage is cut off ends
// with "…", and a single sentence longer than the budget is cut at the last
// word that fits, followed by "…", never inside a word. kept are the
// sentences quoted, whole, in their order.
func (e *ExtractiveChat) quote(text string, q []float32, asked relevance.Question) (_ string, kept []string) {
	sentences := splitSentences(text)
	type scored struct {
		i     int
		score float32
	}
	var ranked []scored
	for i, s := range sentences {
		if asked.Holds(s) {
			ranked = append(ranked, scored{i, dot(e.lex.Vector(s), q)})
		}
	}
	if len(ranked) == 0 {
		return "", nil
	}
	slices.SortStableFunc(ranked, func(a, b scored) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return a.i - b.i
	})
	var keep []int
	used := 0
	for _, r := range ranked {
		n := len([]rune(sentences[r.i]))
		if used > 0 && used+n > extractiveQuoteRunes {
			continue
		}
		keep = append(keep, r.i)
		used += n + len(" … ") // the joiner, at most
		if used >= extractiveQuoteRunes {
			break
		}
	}
	slices.Sort(keep)
	var b strings.Builder
	for k, i := range keep {
		kept = append(kept, sentences[i])
		switch {
		case k == 0:
		case i == keep[k-1]+1:
			b.WriteString(" ")
		default:
			b.WriteString(" … ")
		}
		b.WriteString(sentences[i])
	}
	out, cut := cutAtWord(b.String(), extractiveQuoteRunes)
	if keep[0] == 0 && startsMidSentence(text) {
		out = "…" + out
	}
	if !cut && keep[len(keep)-1] == len(sentences)-1 && !endsSentence(text) {
		out += "…"
	}
	return out, kept
}

// startsMidSentence tells a passage that begins inside a sentence (the
// splitter cut it there): its first character is a lower-case letter or a
// mark that only follows something.
func startsMidSentence(text string) bool {
	text = strings.TrimLeftFunc(text, unicode.IsSpace)
	r, _ := utf8.DecodeRuneInString(text)
	return unicode.IsLower(r) || strings.ContainsRune(",;:)]}、，；：）」", r)
}

// endsSentence tells a passage whose last character ends a sentence (or a
// clause a heading or list item ends with).
func endsSentence(text string) bool {
	text = strings.TrimRightFunc(text, unicode.IsSpace)
	r, _ := utf8.DecodeLastRuneInString(text)
	return strings.ContainsRune(".?!:;。？！：；)）\"”」", r)
}

// cutAtWord returns s if it has at most n characters, else its first n
// characters up to the last white space among them (all n when there is
// none, as in Chinese, where each character is a word) followed by "…";
// cut says whether it cut.
func cutAtWord(s string, n int) (_ string, cut bool) {
	rs := []rune(s)
	if len(rs) <= n {
		return s, false
	}
	head := rs[:n]
	if !unicode.IsSpace(rs[n]) {
		for i := len(head) - 1; i > 0; i-- {
			if unicode.IsSpace(head[i]) {
				head = head[:i]
				break
			}
		}
	}
	return strings.TrimRightFunc(string(head), unicode.IsSpace) + "…", true
}

// splitSentences cuts after 。？！, after . ? ! followed by a space (so "3.5"
// stays whole), and at line breaks, collapsing white space in each sentence.
func splitSentences(text string) []string {
	var out []string
	var cur strings.Builder
	flush := func() {
		s := strings.Join(strings.Fields(cur.String()), " ")
		if s != "" {
			out = append(out, s)
		}
		cur.Reset()
	}
	rs := []rune(text)
	for i, r := range rs {
		if r == '\n' {
			flush()
			continue
		}
		cur.WriteRune(r)
		switch r {
		case '。', '？', '！':
			flush()
		case '.', '?', '!':
			if i+1 == len(rs) || unicode.IsSpace(rs[i+1]) {
				flush()
			}
		}
	}
	flush()
	return out
}

func dot(a, b []float32) float32 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}
