package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/carhub/backend/services/docqa/internal/docqa"
)

// PageLabels checks that a store keeps each chunk's PageLabel, and gives
// "" for a chunk without one: vector and lexical search return it. open
// returns an empty store; reopen (may be nil) opens the same store again,
// so that the labels are read back from what was written.
func PageLabels(t *testing.T, open func(t *testing.T) docqa.VectorStore, reopen func(t *testing.T, s docqa.VectorStore) docqa.VectorStore) {
	s := open(t)
	d := document(alice, md5A, time.Date(2026, 11, 28, 8, 0, 0, 0, time.UTC),
		[]string{"foreword of the manual", "engine oil capacity", "tyre pressure table"}, vec(1, 0))
	d.chunks[0].PageLabel = "iii"
	d.chunks[1].PageLabel = "3-12"
	// chunk 2: a page without a label
	if err := s.Upsert(context.Background(), d.doc, d.chunks, "test:v1"); err != nil {
		t.Fatal(err)
	}
	if reopen != nil {
		s = reopen(t, s)
	}
	want := map[int]string{0: "iii", 1: "3-12", 2: ""}
	check := func(how string, hits []docqa.ScoredChunk, err error) {
		t.Helper()
		if err != nil || len(hits) != 3 {
			t.Fatalf("%s: %d hits, %v", how, len(hits), err)
		}
		for _, h := range hits {
			if h.Chunk.PageLabel != want[h.Chunk.Index] {
				t.Errorf("%s: chunk %d has page label %q, want %q", how, h.Chunk.Index, h.Chunk.PageLabel, want[h.Chunk.Index])
			}
		}
	}
	hits, err := s.Search(as(alice), vec(1, 0), docqa.Query{TopK: 3})
	check("Search", hits, err)
	if s.LexicalIndex() {
		hits, err = s.SearchText(as(alice), "foreword engine tyre", docqa.Query{TopK: 3})
		check("SearchText", hits, err)
	}
}
