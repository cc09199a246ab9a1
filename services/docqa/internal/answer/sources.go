package answer

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/carhub/backend/services/docqa/internal/docqa"
)

// Which passages are the answer's sources, and which of them it uses.

// quotedSentences returns the sentences quoted of each hit, by chunk id.
func quotedSentences(hits []docqa.ScoredChunk, quotes []docqa.Quote) map[string][]string {
	out := map[string][]string{}
	for _, q := range quotes {
		if q.Index >= 0 && q.Index < len(hits) {
			out[hits[q.Index].Chunk.ID] = q.Sentences
		}
	}
	return out
}

// chunkTexts returns the hits' texts.
func chunkTexts(hits []docqa.ScoredChunk) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Chunk.Text
	}
	return out
}

// splitQuoted returns the hits at the quoted positions, in the order
// quoted, and the others in their order.
func splitQuoted(hits []docqa.ScoredChunk, quoted []docqa.Quote) (used, rest []docqa.ScoredChunk) {
	in := make([]bool, len(hits))
	for _, q := range quoted {
		if i := q.Index; i >= 0 && i < len(hits) && !in[i] {
			in[i] = true
			used = append(used, hits[i])
		}
	}
	for i, h := range hits {
		if !in[i] {
			rest = append(rest, h)
		}
	}
	return used, rest
}

// citation is a model's "[2]" or "[2, 3]" (the prompt asks for [n] or [2][3]).
var citation = regexp.MustCompile(`\[(\d+(?:\s*[,，]\s*\d+)*)\]`)

// citedSources returns the 1-based positions in sources that answer cites,
// in the order first cited, one per (document, page); numbers outside the
// sources are ignored.
func citedSources(answer string, sources []docqa.ScoredChunk) []int {
	var ns []int
	for _, m := range citation.FindAllStringSubmatch(answer, -1) {
		for _, f := range strings.FieldsFunc(m[1], func(r rune) bool { return r == ',' || r == '，' || r == ' ' }) {
			if n, err := strconv.Atoi(f); err == nil && n >= 1 && n <= len(sources) {
				ns = append(ns, n)
			}
		}
	}
	return onePerPage(sources, ns)
}

// onePerPage keeps the first of ns (1-based positions in sources) per
// (document, page); it never returns nil, so the JSON is a list.
func onePerPage(sources []docqa.ScoredChunk, ns []int) []int {
	type page struct {
		md5 string
		n   int
	}
	seen := map[page]bool{}
	out := []int{}
	for _, n := range ns {
		s := sources[n-1]
		pg := page{s.Document.FileMD5, s.Chunk.Page}
		if !seen[pg] {
			seen[pg] = true
			out = append(out, n)
		}
	}
	return out
}

// seq is 1..n.
func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i + 1
	}
	return out
}
