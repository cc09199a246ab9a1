// Package splitter cuts one page of text into chunks the way Spring AI's
// TokenTextSplitter does (the reference splitter of the original design):
// windows of 400 cl100k_base tokens, each cut moved back to the last sentence
// end when that lies past the 200th character, pieces of 5 characters or fewer
// dropped. The tokenizer's data is embedded in the binary (tiktoken-go-loader),
// so nothing is downloaded at run time.
package splitter

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/carhub/backend/services/docqa/internal/docqa"
	"github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
)

// maxChunksPerText is Spring AI's maxNumChunks. It bounds the loop over one
// text (one page here); the per-file cap of docqa.MaxChunks is the caller's.
const maxChunksPerText = docqa.MaxChunks

// sentenceEnds are the marks a cut moves back to: Spring AI's `. ? ! \n`
// plus the full-width Chinese/Japanese sentence ends of decisions.md.
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

// CountTokens returns the number of cl100k_base tokens of text. Special
// tokens such as <|endoftext|> count as ordinary text.
func (s *Splitter) CountTokens(text string) int {
	return len(s.enc.EncodeOrdinary(text))
}

// Split returns one page's chunks, in order. It follows
// TokenTextSplitter.doSplit step by step:
//
//  1. a blank text (Java's trim: characters <= U+0020) has no chunks;
//  2. the text is encoded once; each round decodes the next 400 tokens
//     (a cut inside a multi-byte character decodes to U+FFFD, as Java's
//     new String(bytes, UTF_8) does);
//  3. a window that decodes to blank text is skipped;
//  4. only when more than 400 tokens remain, the window is cut after its last
//     sentence end if that lies past character 200 (UTF-16 code units, as
//     Java's String.lastIndexOf counts);
//  5. the piece is trimmed and kept when longer than 5 characters;
//  6. the cut text is encoded again and that many tokens are consumed;
//  7. after maxNumChunks rounds, whatever is left becomes one last chunk.
//
// Deviations, both to stay total on any input: special-token text is encoded
// as ordinary text (jtokkit's encode throws on it), and the tokens consumed
// in step 6 are capped at what is left (Java's subList would throw).
func (s *Splitter) Split(pageText string) []string {
	if javaTrim(pageText) == "" {
		return nil
	}
	tokens := s.enc.EncodeOrdinary(pageText)
	var chunks []string
	for rounds := 0; len(tokens) > 0 && rounds < s.maxChunks; {
		window := tokens[:min(s.chunkTokens, len(tokens))]
		text := s.decode(window)
		if javaTrim(text) == "" {
			tokens = tokens[len(window):]
			continue
		}
		if len(tokens) > s.chunkTokens {
			text = s.cutAtSentenceEnd(text)
		}
		if piece := javaTrim(text); utf16Len(piece) > s.minLength {
			chunks = append(chunks, piece)
		}
		used := len(s.enc.EncodeOrdinary(text))
		tokens = tokens[min(used, len(tokens)):]
		rounds++
	}
	if len(tokens) > 0 {
		rest := javaTrim(strings.ReplaceAll(s.decode(tokens), "\n", " "))
		if utf16Len(rest) > s.minLength {
			chunks = append(chunks, rest)
		}
	}
	return chunks
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

func (s *Splitter) decode(tokens []int) string {
	return decodeUTF8LikeJava(s.enc.Decode(tokens))
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

// decodeUTF8LikeJava turns token bytes into a valid string, replacing each
// maximal ill-formed subsequence with one U+FFFD, which is what Java's
// UTF-8 decoder (and so jtokkit's decode) produces. Go's own conversions
// differ: a range loop yields one U+FFFD per byte, strings.ToValidUTF8 one
// per run.
func decodeUTF8LikeJava(b string) string {
	if utf8.ValidString(b) {
		return b
	}
	var sb strings.Builder
	sb.Grow(len(b) + 8)
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRuneInString(b[i:])
		if r != utf8.RuneError || n > 1 {
			sb.WriteString(b[i : i+n])
			i += n
			continue
		}
		sb.WriteRune(utf8.RuneError)
		i += maximalSubpart(b[i:])
	}
	return sb.String()
}

// maximalSubpart returns the length of the longest prefix of b that starts a
// well-formed UTF-8 sequence (at least 1), following Unicode's table 3-7.
func maximalSubpart(b string) int {
	lo, hi := byte(0x80), byte(0xBF)
	var need int
	switch c := b[0]; {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c == 0xE0:
		need, lo = 2, 0xA0
	case c == 0xED:
		need, hi = 2, 0x9F
	case c >= 0xE1 && c <= 0xEF:
		need = 2
	case c == 0xF0:
		need, lo = 3, 0x90
	case c >= 0xF1 && c <= 0xF3:
		need = 3
	case c == 0xF4:
		need, hi = 3, 0x8F
	default:
		return 1
	}
	n := 1
	for k := 0; k < need && n < len(b); k++ {
		x := b[n]
		if k > 0 {
			lo, hi = 0x80, 0xBF
		}
		if x < lo || x > hi {
			break
		}
		n++
	}
	return n
}
