package retrieval

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/carhub/backend/services/docqa/internal/docqa"
)

// Ranking is one ranked list and its weight in the fusion.
type Ranking struct {
	Hits   []docqa.ScoredChunk
	Weight float64
}

// Fuse merges rankings by reciprocal rank fusion with constant k: a chunk
// scores the sum of weight/(k+rank) over the rankings that hold it. Ties
// keep the order of first appearance (the first ranking's order first).
// A chunk is known by its id; the first ranking's copy of it is kept.
func Fuse(k int, rankings ...Ranking) []docqa.ScoredChunk {
	return fuse(rankings, func(_ int, rk Ranking) []float64 {
		out := make([]float64, len(rk.Hits))
		for rank := range rk.Hits {
			out[rank] = rk.Weight / float64(k+rank+1)
		}
		return out
	}, nil)
}

// Normalization maps one ranking's scores onto a common scale before
// ConvexFuse adds them: BM25 scores are unbounded and depend on the
// question's length and rarity of words, cosines lie in [-1, 1].
type Normalization string

// The normalizations, both per question over the candidates one ranking
// returned.
const (
	// MinMax maps the best score to 1 and the worst to 0; when all scores
	// are equal (one hit, say) each is 1.
	MinMax Normalization = "minmax"
	// ZScore subtracts the mean and divides by the standard deviation;
	// when all scores are equal each is 0.
	ZScore Normalization = "zscore"
)

// ParseNormalization reads a normalization's name, case-insensitively.
func ParseNormalization(s string) (Normalization, error) {
	switch n := Normalization(strings.ToLower(strings.TrimSpace(s))); n {
	case MinMax, ZScore:
		return n, nil
	}
	return "", fmt.Errorf("%q is none of minmax, zscore", s)
}

// normalize returns hits' scores normalized by n, in hits' order, and the
// value a chunk absent from hits gets: the lowest of them (0 for MinMax),
// since such a chunk ranked below every candidate. An empty ranking gives
// every chunk 0.
func normalize(n Normalization, hits []docqa.ScoredChunk) (scores []float64, absent float64) {
	if len(hits) == 0 {
		return nil, 0
	}
	scores = make([]float64, len(hits))
	lo, hi, sum := math.Inf(1), math.Inf(-1), 0.0
	for i, h := range hits {
		scores[i] = float64(h.Score)
		lo, hi, sum = min(lo, scores[i]), max(hi, scores[i]), sum+scores[i]
	}
	switch n {
	case ZScore:
		mean := sum / float64(len(scores))
		var ss float64
		for _, s := range scores {
			ss += (s - mean) * (s - mean)
		}
		sd := math.Sqrt(ss / float64(len(scores)))
		for i, s := range scores {
			if sd == 0 {
				scores[i] = 0
			} else {
				scores[i] = (s - mean) / sd
			}
		}
		if sd == 0 {
			return scores, 0
		}
		return scores, (lo - mean) / sd
	default:
		for i, s := range scores {
			if hi == lo {
				scores[i] = 1
			} else {
				scores[i] = (s - lo) / (hi - lo)
			}
		}
		return scores, 0
	}
}

// ConvexFuse merges a lexical and a vector ranking by their scores: each
// ranking's scores are normalized by n over its own candidates, and a chunk
// scores lexicalShare × its lexical score + (1 − lexicalShare) × its vector
// score, taking a ranking's lowest normalized score where that ranking does
// not hold it. Unlike RRF it keeps how far apart the candidates are: a page
// far ahead in BM25 stays ahead unless the vector ranking disagrees as
// strongly. Ties keep the order of first appearance (lexical first), and
// the lexical ranking's copy of a chunk is kept. lexicalShare is clamped
// to [0, 1].
func ConvexFuse(n Normalization, lexicalShare float64, lexical, vector []docqa.ScoredChunk) []docqa.ScoredChunk {
	share := min(max(lexicalShare, 0), 1)
	absent := make([]float64, 2)
	return fuse([]Ranking{{lexical, share}, {vector, 1 - share}}, func(i int, rk Ranking) []float64 {
		scores, low := normalize(n, rk.Hits)
		absent[i] = rk.Weight * low
		for j := range scores {
			scores[j] *= rk.Weight
		}
		return scores
	}, absent)
}

// fuse adds up, per chunk, what contrib gives its place in each ranking
// (contrib(i, rankings[i]) answers one value per hit, in order; it is
// called once per ranking, in order); absent, when not nil, holds what
// ranking i gives a chunk it does not hold, read after every contrib call.
// Ties keep the order of first appearance.
func fuse(rankings []Ranking, contrib func(int, Ranking) []float64, absent []float64) []docqa.ScoredChunk {
	type fused struct {
		hit   docqa.ScoredChunk
		score float64
		in    []bool
	}
	byID := map[string]*fused{}
	var order []*fused
	for r, rk := range rankings {
		for rank, c := range contrib(r, rk) {
			h := rk.Hits[rank]
			f, ok := byID[h.Chunk.ID]
			if !ok {
				f = &fused{hit: h, in: make([]bool, len(rankings))}
				byID[h.Chunk.ID] = f
				order = append(order, f)
			}
			if !f.in[r] { // a chunk twice in one ranking counts once, at its best place
				f.in[r] = true
				f.score += c
			}
		}
	}
	if absent != nil {
		for _, f := range order {
			for r, in := range f.in {
				if !in {
					f.score += absent[r]
				}
			}
		}
	}
	slices.SortStableFunc(order, func(a, b *fused) int { return cmp.Compare(b.score, a.score) })
	out := make([]docqa.ScoredChunk, len(order))
	for i, f := range order {
		out[i] = f.hit
		out[i].Score = float32(f.score)
	}
	return out
}
