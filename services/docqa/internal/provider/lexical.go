package provider

import (
	"context"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/carhub/backend/services/docqa/internal/docqa"
	"github.com/carhub/backend/services/docqa/internal/lexical"
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
	counts := make(map[uint64]float64, len(text)/2)
	forEachFeature(text, func(h uint64, w float64) { counts[h] += w })

	acc := make([]float64, docqa.Dimension)
	for h, w := range counts {
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

// FNV-1a, written out so that a feature is hashed from its prefix and its
// text without building the concatenated string.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func fnvAdd(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	return h
}

// feature is the hash of prefix+text.
func feature(prefix, text string) uint64 { return fnvAdd(fnvAdd(fnvOffset, prefix), text) }

// isCJK reports runes of scripts written without spaces between words.
func isCJK(r rune) bool {
	if r < 0x1100 { // below Hangul Jamo: Latin, Greek, Cyrillic, Arabic, Indic...
		return false
	}
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
}

// forEachFeature calls emit with the hash of each feature of text and its
// weight.
func forEachFeature(text string, emit func(feature uint64, weight float64)) {
	text = strings.ToLower(norm.NFKC.String(text))
	wordStart := -1 // byte offset of the word being read, -1 outside words
	var cjk []rune
	flushWord := func(end int) {
		if wordStart < 0 {
			return
		}
		w := text[wordStart:end]
		wordStart = -1
		if lexical.IsStopWord(w) {
			return
		}
		emit(feature("w:", w), wordWeight)
		if utf8.RuneCountInString(w) <= 3 {
			return
		}
		padded := "^" + w + "$"
		// Byte offsets of the runes of padded, to cut trigrams in place.
		var offs []int
		for i := range padded {
			offs = append(offs, i)
		}
		offs = append(offs, len(padded))
		for i := 0; i+3 < len(offs); i++ {
			emit(feature("t:", padded[offs[i]:offs[i+3]]), trigramWeight)
		}
	}
	var buf [2 * utf8.UTFMax]byte
	flushCJK := func() {
		for i, r := range cjk {
			if !cjkStop[r] {
				n := utf8.EncodeRune(buf[:], r)
				emit(feature("c:", string(buf[:n])), cjkCharWeight)
			}
			if i+1 < len(cjk) {
				n := utf8.EncodeRune(buf[:], r)
				n += utf8.EncodeRune(buf[n:], cjk[i+1])
				emit(feature("b:", string(buf[:n])), cjkPairWeight)
			}
		}
		cjk = cjk[:0]
	}
	for i, r := range text {
		switch {
		case isCJK(r):
			flushWord(i)
			cjk = append(cjk, r)
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			flushCJK()
			if wordStart < 0 {
				wordStart = i
			}
		default:
			flushWord(i)
			flushCJK()
		}
	}
	flushWord(len(text))
	flushCJK()
}

// cjkStop are Chinese particles whose single characters carry no topic;
// they still take part in character pairs.
var cjkStop = map[rune]bool{'的': true, '了': true, '是': true, '在': true, '和': true, '吗': true, '呢': true, '么': true, '我': true, '你': true}
