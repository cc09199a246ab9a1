package provider

import (
	"context"
	"hash/fnv"
	"math"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/carhub/backend/services/docqa/internal/docqa"
)

// LexicalEmbedder is the local fallback docqa.Embedder: a bag of hashed
// features in docqa.Dimension buckets, L2-normalised so that cosine
// similarity measures shared vocabulary. It needs no model files and no
// network, and the same text always gets the same vector.
//
// Features, after NFKC normalisation (full-width forms fold to ASCII) and
// Unicode lower-casing:
//   - every word of letters and digits outside the CJK scripts, plus its
//     character trigrams at a lower weight (so "engine" meets "engines", and
//     inflected languages match on stems);
//   - in Han, Hiragana, Katakana and Hangul runs, which have no spaces, every
//     character and every pair of neighbouring characters.
//
// Very common English and Chinese function words are left out. Term counts
// are damped (1 + ln tf) so one repeated word does not dominate.
type LexicalEmbedder struct{}

var _ docqa.Embedder = (*LexicalEmbedder)(nil)

// NewLexicalEmbedder returns the local fallback embedder.
func NewLexicalEmbedder() *LexicalEmbedder { return &LexicalEmbedder{} }

// Name identifies the feature scheme; change it when features change, so
// that the vector store refuses to mix old and new vectors.
func (*LexicalEmbedder) Name() string { return "lexical:v1" }

// Embed never fails except for a cancelled ctx.
func (l *LexicalEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		out[i] = l.Vector(t)
	}
	return out, nil
}

// Feature weights.
const (
	wordWeight    = 1.0
	trigramWeight = 0.25
	cjkCharWeight = 0.5
	cjkPairWeight = 1.0
)

// Vector embeds one text. An empty text (or one of stop words only) gets a
// fixed unit vector, so cosine similarity stays defined.
func (*LexicalEmbedder) Vector(text string) []float32 {
	counts := map[string]float64{}
	forEachFeature(text, func(f string, w float64) { counts[f] += w })

	acc := make([]float64, docqa.Dimension)
	for f, w := range counts {
		h := hash64(f)
		sign := 1.0
		if h>>63 == 1 { // signed hashing: collisions cancel out on average
			sign = -1
		}
		// Damp repetition: a weight of w (several occurrences) counts 1+ln(w)
		// relative to a single occurrence of the same feature type.
		acc[h%docqa.Dimension] += sign * damp(w)
	}
	var sum float64
	for _, x := range acc {
		sum += x * x
	}
	v := make([]float32, docqa.Dimension)
	if sum == 0 {
		v[0] = 1
		return v
	}
	norm := math.Sqrt(sum)
	for i, x := range acc {
		v[i] = float32(x / norm)
	}
	return v
}

func damp(w float64) float64 {
	if w <= 1 {
		return w
	}
	return 1 + math.Log(w)
}

func hash64(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// isCJK reports runes of scripts written without spaces between words.
func isCJK(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
}

// forEachFeature calls emit with each feature of text and its weight.
func forEachFeature(text string, emit func(feature string, weight float64)) {
	text = strings.ToLower(norm.NFKC.String(text))
	var word []rune
	var cjk []rune
	flushWord := func() {
		if len(word) > 0 {
			w := string(word)
			if !stopWords[w] {
				emit("w:"+w, wordWeight)
				if len(word) > 3 {
					padded := append(append([]rune{'^'}, word...), '$')
					for i := 0; i+3 <= len(padded); i++ {
						emit("t:"+string(padded[i:i+3]), trigramWeight)
					}
				}
			}
			word = word[:0]
		}
	}
	flushCJK := func() {
		for i, r := range cjk {
			if !cjkStop[r] {
				emit("c:"+string(r), cjkCharWeight)
			}
			if i+1 < len(cjk) {
				emit("b:"+string(cjk[i:i+2]), cjkPairWeight)
			}
		}
		cjk = cjk[:0]
	}
	for _, r := range text {
		switch {
		case isCJK(r):
			flushWord()
			cjk = append(cjk, r)
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			flushCJK()
			word = append(word, r)
		default:
			flushWord()
			flushCJK()
		}
	}
	flushWord()
	flushCJK()
}

// stopWords are English function words that carry no topic. Other Latin
// languages are left alone: a wrong guess would drop real words.
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

// cjkStop are Chinese particles whose single characters carry no topic;
// they still take part in character pairs.
var cjkStop = map[rune]bool{'的': true, '了': true, '是': true, '在': true, '和': true, '吗': true, '呢': true, '么': true, '我': true, '你': true}
