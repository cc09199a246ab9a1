package docpages

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/carhub/backend/services/docqa/internal/docqa"
)

// fixed answers each question with its chunks, checking the query.
type fixed struct {
	t       *testing.T
	answers map[string][]docqa.ScoredChunk
}

func (f fixed) Retrieve(_ context.Context, question string, q docqa.Query) ([]docqa.ScoredChunk, error) {
	if q.TopK != 7 || !slices.Equal(q.Documents, []string{"m5"}) {
		f.t.Errorf("query %+v, want topK 7 within m5", q)
	}
	return f.answers[question], nil
}

func chunk(page, index int, text string) docqa.ScoredChunk {
	return docqa.ScoredChunk{Chunk: docqa.Chunk{Page: page, PageLabel: "p" + text[:1], Index: index, Text: text}}
}

func TestFind(t *testing.T) {
	r := fixed{t, map[string][]docqa.ScoredChunk{
		"oil":   {chunk(4, 9, "b second chunk of page 4"), chunk(2, 3, "c page 2"), chunk(4, 8, "a first chunk of page 4")},
		"tyres": {chunk(2, 3, "c page 2")},
	}}
	got, err := Find(context.Background(), r, "m5", []string{"oil", "tyres"}, 7)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(got, func(a, b Candidate) int { return a.Number - b.Number })
	if len(got) != 2 {
		t.Fatalf("%d pages, want 2: %+v", len(got), got)
	}
	// Page 4's chunks in document order, whatever order retrieval gave.
	if got[1].Number != 4 || got[1].Text != "a first chunk of page 4\nb second chunk of page 4" || got[1].Label != "pb" {
		t.Errorf("page 4 = %+v", got[1])
	}
	// Scores: page 4 first for "oil" (rank 1); page 2 second for "oil" and first for "tyres".
	if want := 1.0 / (RRFK + 1); math.Abs(got[1].Score-want) > 1e-12 {
		t.Errorf("page 4 score %v, want %v (its best chunk's rank once)", got[1].Score, want)
	}
	if want := 1.0/(RRFK+2) + 1.0/(RRFK+1); math.Abs(got[0].Score-want) > 1e-12 {
		t.Errorf("page 2 score %v, want %v", got[0].Score, want)
	}
}
