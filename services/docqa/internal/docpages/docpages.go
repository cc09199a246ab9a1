// Package docpages finds the pages of one stored document that speak of a
// subject, by asking retrieval several questions within that document: how
// the maintenance plan and the specifications card find the pages they
// read.
package docpages

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/carhub/backend/services/docqa/internal/docqa"
)

// Page is one page of a manual as the extraction reads it: its number, its
// printed label, and the text of its chunks that retrieval found, in
// document order.
type Page struct {
	Number int
	Label  string
	Text   string
}

// Candidate is a page retrieval found, with its retrieval score.
type Candidate struct {
	Page
	Score float64
}

// Retriever finds a question's chunks (retrieval.Retriever).
type Retriever interface {
	Retrieve(ctx context.Context, question string, q docqa.Query) ([]docqa.ScoredChunk, error)
}

// RRFK is the rank constant of the reciprocal rank fusion of the
// questions' ranks of a page, as in retrieval.DefaultK.
const RRFK = 20

// Find asks r each of queries within the document md5 (topK chunks each)
// and returns the pages found: each page's text is its found chunks in
// document order, and its score the reciprocal rank fusion of the
// queries' ranks of its best chunk. The pages are in no particular order.
func Find(ctx context.Context, r Retriever, md5 string, queries []string, topK int) ([]Candidate, error) {
	type found struct {
		label  string
		chunks map[int]string // chunk index -> text
		score  float64
	}
	byPage := map[int]*found{}
	for _, q := range queries {
		hits, err := r.Retrieve(ctx, q, docqa.Query{TopK: topK, Documents: []string{md5}})
		if err != nil {
			return nil, err
		}
		ranked := map[int]bool{}
		for rank, h := range hits {
			f := byPage[h.Chunk.Page]
			if f == nil {
				f = &found{label: h.Chunk.PageLabel, chunks: map[int]string{}}
				byPage[h.Chunk.Page] = f
			}
			f.chunks[h.Chunk.Index] = h.Chunk.Text
			if !ranked[h.Chunk.Page] {
				ranked[h.Chunk.Page] = true
				f.score += 1 / float64(RRFK+rank+1)
			}
		}
	}
	out := make([]Candidate, 0, len(byPage))
	for n, f := range byPage {
		texts := make([]string, 0, len(f.chunks))
		for _, i := range slices.Sorted(maps.Keys(f.chunks)) {
			texts = append(texts, f.chunks[i])
		}
		out = append(out, Candidate{Page: Page{Number: n, Label: f.label, Text: strings.Join(texts, "\n")}, Score: f.score})
	}
	return out, nil
}
