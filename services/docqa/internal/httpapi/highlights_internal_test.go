package httpapi

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"testing"

	"github.com/carhub/backend/services/docqa/internal/docqa"
)

// A passage OCR read gets the rectangles stored with it, without the
// original or a page engine; one stored before OCR kept them gets none
// (its page's text layer cannot place it); a text passage is left to the
// page engine, which here is missing, so it gets none either.
func TestHighlightsOfOCRChunksAreTheStoredRects(t *testing.T) {
	h := &handler{log: slog.New(slog.DiscardHandler)}
	hits := []docqa.ScoredChunk{
		{Chunk: docqa.Chunk{ID: "scan", OCR: true, Rects: []docqa.Rect{{X: 0.10004, Y: 0.2, W: 0.5, H: 0.0125}, {X: 0.1, Y: 0.22, W: 0.3, H: 0.0125}}}},
		{Chunk: docqa.Chunk{ID: "old-scan", OCR: true}},
		{Chunk: docqa.Chunk{ID: "text"}},
	}
	got := h.highlights(context.Background(), hits, nil)
	want := map[string][]rectView{"scan": {{X: 0.1, Y: 0.2, W: 0.5, H: 0.0125}, {X: 0.1, Y: 0.22, W: 0.3, H: 0.0125}}}
	if !maps.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("highlights = %v, want %v", got, want)
	}
}
