// Package splitter cuts one page of text into chunks with the numbers of
// Spring AI's TokenTextSplitter (the reference splitter of the original
// design): windows of 400 cl100k_base tokens, each cut moved back to the last
// sentence end when that lies past the 200th character, pieces of 5
// characters or fewer dropped; unlike it, cuts fall only between characters. The tokenizer's data is embedded in the binary (tiktoken-go-loader),
// so nothing is downloaded at run time.
package splitter

import (
	"fmt"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/carhub/backend/services/docqa/internal/docqa"
	"github.com/clipperhouse/uax29/v2/graphemes"
	"github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
)

// maxChunksPerText is Spring AI's maxNumChunks. It bounds the loop over one
// text (one page here); the per-file cap of docqa.MaxChunks is the caller's.
const maxChunksPerText = docqa.MaxChunks

// sentenceEnds are the marks a cut moves back to: Spring AI's `. ? ! \n`
// plus the full-width Chinese/Japanese sentence ends of proto-docs/contract.md, "Chunking".
const sentenceEnds = ".?!\n。？！"

// Splitter splits page text into chunks. It is safe for concurrent use.
type Splitter struct {
	enc           *tiktoken.Tiktoken
	chunkTokens   int
	minChunkChars int
	minLength     int
	maxChunks     int
}

var loaderOnce sync.Once

// New loads the embedded cl100k_base encoding; it never touches the network.
func New() (*Splitter, error) {
	loaderOnce.Do(func() { tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader()) })
	enc, err := tiktoken.GetEncoding(tiktoken.MODEL_CL100K_BASE)
	if err != nil {
		return nil, fmt.Errorf("load cl100k_base: %w", err)
	}
	return &Splitter{
		enc:           enc,
		chunkTokens:   docqa.ChunkTokens,
		minChunkChars: docqa.MinChunkChars,
		minLength:     docqa.MinChunkLength,
		maxChunks:     maxChunksPerText,
	}, nil
}

// maxRunBytes bounds the work of the tokenizer on one run of characters.
// cl100k_base first cuts text into pieces with a regular expression, in
// linear time (regexp2: 1-7 ms for 40 KB of any kind), then merges each
// piece's bytes pair by pair, and that merge (tiktoken-go's bytePairMerge:
// a scan of the whole piece per merge) is quadratic in the piece's length:
// 40 KB of one run of letters, punctuation, spaces, line ends or CJK took
// 0.6-1.3 s, a 100 KB page 4-15 s, 100 KB of invalid bytes 100 s; digits
// are pieces of at most three and cost nothing. A piece is at most one
// character more than a run of letters, of spaces, or of characters that
// are neither letters nor digits, plus a run of line ends after the last
// kind. So the text is encoded in segments, cut inside any such run at the
// first character boundary at or past maxRunBytes bytes as the tokenizer
// reads them (an invalid byte as the three of U+FFFD): each piece is then
// at most about twice maxRunBytes and the work is linear in the text, a
// 1 MiB run costing about what 1 MiB of prose does (0.3-0.5 s).
//
// Text without such a run (prose, a run of up to 85 CJK characters without
// punctuation) is one segment, encoded whole: its tokens are exactly
// cl100k_base's. A cut changes the tokens next to it: on runs of each kind
// the count moved by 0 or 1 per cut, by up to 3 on a run of one repeated
// character (line ends, "=") that a leading character shifts against the
// merge's pairs; measured, not a property that BPE guarantees.
const maxRunBytes = 256

// segmentEnds returns the ends of the segments text is encoded in, the
// last one len(text).
func segmentEnds(text string) []int {
	var ends []int
	class, width := runClass(-1), 0 // of the run at i; its bytes since its start or the last cut
	for i := 0; i < len(text); {
		r, n, w := decodeRune(text[i:])
		if c := classOf(r); c != class {
			class, width = c, 0
		}
		if class != digit && width >= maxRunBytes {
			ends, width = append(ends, i), 0
		}
		width += w
		i += n
	}
	return append(ends, len(text))
}

// runClass is the class of a character for cl100k_base's pre-tokenizer:
// its \s (regexp2's is unicode.IsSpace), \p{L}, \p{N}, or none of them.
type runClass int

const (
	space runClass = iota
	letter
	digit
	other
)

func classOf(r rune) runClass {
	switch {
	case unicode.IsSpace(r):
		return space
	case unicode.IsLetter(r):
		return letter
	case unicode.IsNumber(r):
		return digit
	}
	return other
}

// decodeRune returns the first character of text, its length n in text,
// and its length w as the tokenizer reads it: the tokenizer reads each byte
// of invalid UTF-8 as U+FFFD, three bytes.
func decodeRune(text string) (r rune, n, w int) {
	r, n = utf8.DecodeRuneInString(text)
	if r == utf8.RuneError && n == 1 {
		return r, n, utf8.RuneLen(utf8.RuneError)
	}
	return r, n, n
}

// CountTokens returns the number of cl100k_base tokens of text, encoded in
// segments (see maxRunBytes): exact for text without a run longer than
// maxRunBytes, within about one token per cut otherwise. Special tokens such
// as <|endoftext|> count as ordinary text.
func (s *Splitter) CountTokens(text string) int {
	n, from := 0, 0
	for _, end := range segmentEnds(text) {
		n += len(s.enc.EncodeOrdinary(text[from:end]))
		from = end
	}
	return n
}

// Split returns one page's chunks, in order. It keeps the numbers of
// Spring AI's TokenTextSplitter.doSplit (400-token windows, the cut moved
// back to the last sentence end past character 200 when more than 400
// tokens remain, pieces of 5 characters or fewer dropped, at most
// maxChunks rounds) but cuts only between characters:
//
//  1. a blank text (Java's trim: characters <= U+0020) has no chunks;
//  2. the text is encoded once, and each token's end is known as a byte
//     offset in the text (cl100k_base's tokens are its bytes, in order);
//  3. a window is the text from the current position to the end of the
//     400th token from there, moved back to the last boundary of a
//     user-perceived character (a grapheme cluster, UAX #29: a combining
//     mark, a Thai vowel sign or an emoji's ZWJ sequence stays with its
//     base), or forward to the first one when that would leave nothing;
//  4. a window that is blank is skipped;
//  5. only when more than 400 tokens remain, the window is cut after its
//     last sentence end if that lies past character 200 (UTF-16 code
//     units, as Java's String.lastIndexOf counts);
//  6. the piece is trimmed and kept when longer than 5 characters;
//  7. the position moves past exactly the bytes of the window, so the
//     windows tile the text: no character is repeated or skipped, and no
//     U+FFFD appears that the text did not have;
//  8. after maxChunks rounds, whatever is left becomes one last chunk
//     (unlike Spring AI, its line ends are kept: the tiling holds).
func (s *Splitter) Split(pageText string) []string {
	var chunks []string
	for _, w := range s.windows(pageText) {
		if piece := javaTrim(w); utf16Len(piece) > s.minLength {
			chunks = append(chunks, piece)
		}
	}
	return chunks
}

// windows returns the pieces of pageText that Split trims into chunks,
// blank ones included: put together they are pageText, byte for byte.
func (s *Splitter) windows(pageText string) []string {
	if javaTrim(pageText) == "" {
		return nil
	}
	ends := s.tokenEnds(pageText)
	var out []string
	pos, next := 0, 0 // byte position; index of the first token ending after it
	for rounds := 0; pos < len(pageText) && rounds < s.maxChunks; {
		last := min(next+s.chunkTokens, len(ends)) - 1
		window := pageText[pos:graphemeCut(pageText, pos, ends[last])]
		if javaTrim(window) != "" {
			if len(ends)-next > s.chunkTokens {
				window = s.cutAtSentenceEnd(window)
			}
			rounds++
		}
		out = append(out, window)
		pos += len(window)
		for next < len(ends) && ends[next] <= pos {
			next++
		}
	}
	if pos < len(pageText) {
		out = append(out, pageText[pos:])
	}
	return out
}

// tokenEnds returns, for each cl100k_base token of text (encoded in
// segments, see maxRunBytes), the byte offset at which it ends; the last
// token of each segment ends at the segment's end.
func (s *Splitter) tokenEnds(text string) []int {
	var ends []int
	from := 0
	for _, end := range segmentEnds(text) {
		for _, e := range s.segmentTokenEnds(text[from:end]) {
			ends = append(ends, from+e)
		}
		from = end
	}
	return ends
}

// segmentTokenEnds returns, for each cl100k_base token of text, the byte
// offset at which it ends. The tokens' bytes are the text's bytes in order, except
// that the tokenizer reads each byte of invalid UTF-8 as U+FFFD (three
// bytes): the offsets follow the text through those, so a window of text
// that is not valid UTF-8 still holds 400 tokens, not 400 tokens' worth of
// bytes. A token that ends inside a character ends as far into it as into
// that character's bytes (inside a U+FFFD read for an invalid byte: before
// that byte). The last token ends at the end of the text.
func (s *Splitter) segmentTokenEnds(text string) []int {
	tokens := s.enc.EncodeOrdinary(text)
	ends := make([]int, len(tokens))
	one := make([]int, 1)
	// decoded: the tokens' bytes so far; t: the text's offset of the first
	// character not wholly among them; d: the tokens' bytes before it.
	decoded, t, d := 0, 0, 0
	for i, tok := range tokens {
		one[0] = tok
		decoded += len(s.enc.Decode(one))
		size := 0 // of the character at t, when the token ends inside it
		for t < len(text) {
			_, n, w := decodeRune(text[t:])
			if d+w > decoded {
				size = n
				break
			}
			t, d = t+n, d+w
		}
		ends[i] = t + min(decoded-d, max(size-1, 0))
	}
	if len(ends) > 0 {
		ends[len(ends)-1] = len(text)
	}
	return ends
}

// graphemeCut returns the last grapheme cluster boundary of text in
// (pos, end], or, when there is none (a single cluster longer than the
// window), the end of the cluster that starts at pos. pos is a boundary.
func graphemeCut(text string, pos, end int) int {
	if end >= len(text) {
		return len(text)
	}
	cut := -1
	g := graphemes.FromString(text[pos:])
	for g.Next() {
		e := pos + g.End()
		if e > end {
			if cut < 0 {
				return e
			}
			return cut
		}
		cut = e
	}
	return len(text)
}

// cutAtSentenceEnd keeps text up to and including its last sentence end when
// that end's UTF-16 index is greater than minChunkChars.
func (s *Splitter) cutAtSentenceEnd(text string) string {
	last, cut := -1, 0
	u16 := 0
	for i, r := range text {
		if strings.ContainsRune(sentenceEnds, r) {
			last, cut = u16, i+utf8.RuneLen(r)
		}
		u16 += utf16Units(r)
	}
	if last > s.minChunkChars {
		return text[:cut]
	}
	return text
}

// javaTrim is Java's String.trim: it removes leading and trailing characters
// whose code is at most U+0020 (spaces and control characters), nothing else.
func javaTrim(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
}

func utf16Units(r rune) int {
	if r > 0xFFFF {
		return 2
	}
	return 1
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16Units(r)
	}
	return n
}
