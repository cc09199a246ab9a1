package retrieval

import (
	"math"
	"slices"
	"testing"

	"github.com/carhub/backend/services/docqa/internal/docqa"
)

// scored is a ranking of chunks with the given ids and scores.
func scored(pairs ...any) []docqa.ScoredChunk {
	var out []docqa.ScoredChunk
	for i := 0; i < len(pairs); i += 2 {
		h := hit(pairs[i].(string))
		h.Score = float32(pairs[i+1].(float64))
		out = append(out, h)
	}
	return out
}

func checkFused(t *testing.T, got []docqa.ScoredChunk, wantIDs []string, wantScores []float64) {
	t.Helper()
	if !slices.Equal(ids(got), wantIDs) {
		t.Fatalf("order %v, want %v", ids(got), wantIDs)
	}
	for i, want := range wantScores {
		if math.Abs(float64(got[i].Score)-want) > 1e-6 {
			t.Fatalf("score of %s = %v, want %v", got[i].Chunk.ID, got[i].Score, want)
		}
	}
}

func TestFuseEdgeCases(t *testing.T) {
	a := []docqa.ScoredChunk{hit("a"), hit("b")}
	// One side empty: the other's order, scored 1/(k+rank).
	checkFused(t, Fuse(20, Ranking{nil, 2}, Ranking{a, 1}), []string{"a", "b"}, []float64{1.0 / 21, 1.0 / 22})
	checkFused(t, Fuse(20, Ranking{a, 2}, Ranking{nil, 1}), []string{"a", "b"}, []float64{2.0 / 21, 2.0 / 22})
	if got := Fuse(20, Ranking{nil, 1}, Ranking{nil, 1}); len(got) != 0 {
		t.Fatalf("two empty rankings gave %v", ids(got))
	}
	// A chunk listed twice by one ranking counts once, at its first place.
	checkFused(t, Fuse(20, Ranking{[]docqa.ScoredChunk{hit("a"), hit("b"), hit("a")}, 1}),
		[]string{"a", "b"}, []float64{1.0 / 21, 1.0 / 22})
	// Ties of the second ranking's own chunks keep its order.
	checkFused(t, Fuse(1, Ranking{[]docqa.ScoredChunk{hit("x")}, 1}, Ranking{[]docqa.ScoredChunk{hit("y"), hit("x")}, 1}),
		[]string{"x", "y"}, []float64{1.0/2 + 1.0/3, 1.0 / 2})
}

func TestConvexFuseMinMax(t *testing.T) {
	// Normalized: lexical a 1, b 0.5, c 0; vector c 1, d 0.5, a 0; a chunk
	// one ranking lacks gets 0 from it.
	lex := scored("a", 10.0, "b", 6.0, "c", 2.0)
	vec := scored("c", 0.75, "d", 0.5, "a", 0.25)
	for _, tc := range []struct {
		share  float64
		ids    []string
		scores []float64
	}{
		{0.7, []string{"a", "b", "c", "d"}, []float64{0.7, 0.35, 0.3, 0.15}},
		{0.3, []string{"c", "d", "a", "b"}, []float64{0.7, 0.35, 0.3, 0.15}},
		// a and c tie at 0.5, b and d at 0.25: the lexical ranking's
		// chunks came first.
		{0.5, []string{"a", "c", "b", "d"}, []float64{0.5, 0.5, 0.25, 0.25}},
		// Share 1 is the lexical order, then the vector ranking's own
		// chunks in its order (c and d, tied at 0 with c, keep theirs).
		{1, []string{"a", "b", "c", "d"}, []float64{1, 0.5, 0, 0}},
		{0, []string{"c", "d", "a", "b"}, []float64{1, 0.5, 0, 0}},
		// Out of range is clamped.
		{1.5, []string{"a", "b", "c", "d"}, []float64{1, 0.5, 0, 0}},
		{-1, []string{"c", "d", "a", "b"}, []float64{1, 0.5, 0, 0}},
	} {
		checkFused(t, ConvexFuse(MinMax, tc.share, lex, vec), tc.ids, tc.scores)
	}
}

// A page far ahead in BM25 stays first with convex fusion where reciprocal
// rank fusion, which sees only places, puts the vector ranking's first
// above it.
func TestConvexFuseKeepsDistance(t *testing.T) {
	lex := scored("a", 30.0, "b", 5.0, "c", 4.0)
	vec := scored("b", 0.9, "c", 0.85, "a", 0.8)
	if got := ids(Fuse(60, Ranking{lex, 1}, Ranking{vec, 1})); got[0] != "b" {
		t.Fatalf("RRF order %v, the fixture wants b first", got)
	}
	// a: 0.7·1 + 0.3·0; b: 0.7·1/26 + 0.3·1; c: 0 + 0.3·0.5.
	checkFused(t, ConvexFuse(MinMax, 0.7, lex, vec), []string{"a", "b", "c"}, []float64{0.7, 0.7/26 + 0.3, 0.15})
}

func TestConvexFuseZScore(t *testing.T) {
	// Lexical 10, 6, 2 and vector 0.75, 0.5, 0.25 both normalize to z,
	// 0, −z with z = √1.5; a chunk one ranking lacks gets −z from it.
	z := math.Sqrt(1.5)
	lex := scored("a", 10.0, "b", 6.0, "c", 2.0)
	vec := scored("c", 0.75, "d", 0.5, "a", 0.25)
	checkFused(t, ConvexFuse(ZScore, 0.7, lex, vec), []string{"a", "b", "c", "d"},
		[]float64{0.7*z - 0.3*z, -0.3 * z, -0.7*z + 0.3*z, -0.7 * z})
	// A chunk absent from the lexical ranking (d) gets the lowest lexical
	// z (c's), so with the vector ranking weighing most d comes second.
	checkFused(t, ConvexFuse(ZScore, 0.2, lex, vec), []string{"c", "d", "a", "b"},
		[]float64{-0.2*z + 0.8*z, -0.2 * z, 0.2*z - 0.8*z, 0 - 0.8*z})
}

func TestConvexFuseDegenerate(t *testing.T) {
	for _, n := range []Normalization{MinMax, ZScore} {
		if got := ConvexFuse(n, 0.7, nil, nil); len(got) != 0 {
			t.Fatalf("%s: two empty rankings gave %v", n, ids(got))
		}
	}
	lex := scored("a", 3.0, "b", 1.0)
	// One side empty: the other's order; min-max scores weigh its share.
	checkFused(t, ConvexFuse(MinMax, 0.7, lex, nil), []string{"a", "b"}, []float64{0.7, 0})
	checkFused(t, ConvexFuse(MinMax, 0.7, nil, lex), []string{"a", "b"}, []float64{0.3, 0})
	checkFused(t, ConvexFuse(ZScore, 0.7, lex, nil), []string{"a", "b"}, []float64{0.7, -0.7})
	// Equal scores: min-max makes each 1, z-score 0; the order stays.
	same := scored("a", 2.0, "b", 2.0)
	checkFused(t, ConvexFuse(MinMax, 0.5, same, nil), []string{"a", "b"}, []float64{0.5, 0.5})
	checkFused(t, ConvexFuse(ZScore, 0.5, same, nil), []string{"a", "b"}, []float64{0, 0})
	// One hit.
	checkFused(t, ConvexFuse(MinMax, 0.5, scored("a", 7.0), scored("b", 0.1)), []string{"a", "b"}, []float64{0.5, 0.5})
}

func TestParseNormalization(t *testing.T) {
	for in, want := range map[string]Normalization{"minmax": MinMax, " ZScore ": ZScore} {
		if got, err := ParseNormalization(in); err != nil || got != want {
			t.Errorf("ParseNormalization(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseNormalization("rank"); err == nil {
		t.Error("rank accepted")
	}
}
