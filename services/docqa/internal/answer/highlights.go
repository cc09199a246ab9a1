package answer

import (
	"context"
	"math"
	"time"

	"github.com/carhub/backend/services/docqa/internal/docqa"
	"github.com/carhub/backend/services/docqa/internal/pdftext"
)

// highlights gives hits' passages their lines on their pages: chunk id ->
// lines, as fractions of the page as shown (its crop box, turned by its
// /Rotate), the origin at the top left, rounded to four decimals (a tenth
// of a pixel at 1000 px, and short JSON). A passage OCR read has them
// stored with it (from OCR's word boxes at ingestion: its page has no text
// layer to find it in); the others are located in the kept originals at
// answer time (see proto-docs/docqa-decisions.md for why not at
// ingestion). Locating waits at most HighlightBudget; what is not found by
// then, or cannot be (no original kept, no page engine, the page engine
// busy, a passage the page's text does not hold, an OCR chunk stored
// without rectangles), gets none. The answer never fails for want of
// highlights.
//
// quoted holds, by chunk id, the sentences an answer quotes of a passage:
// such a passage's highlights are those sentences' lines (the tyre pressures
// quoted, not the whole page they sit on), or the whole passage's when none
// of them is found on the page. An OCR passage keeps its stored lines.
func (s *Service) highlights(ctx context.Context, hits []docqa.ScoredChunk, quoted map[string][]string) map[string][]docqa.Rect {
	stored := map[string][]docqa.Rect{}
	var text []docqa.ScoredChunk
	for _, hit := range hits {
		switch {
		case hit.Chunk.OCR && len(hit.Chunk.Rects) > 0:
			stored[hit.Chunk.ID] = roundedRects(hit.Chunk.Rects)
		case !hit.Chunk.OCR:
			text = append(text, hit)
		}
	}
	for id, rects := range s.locateInTime(ctx, text, quoted) {
		stored[id] = rects
	}
	return stored
}

// locateInTime locates hits (or their quoted sentences) in the kept originals within HighlightBudget.
func (s *Service) locateInTime(ctx context.Context, hits []docqa.ScoredChunk, quoted map[string][]string) map[string][]docqa.Rect {
	if s.cfg.Locator == nil || s.cfg.Originals == nil || len(hits) == 0 {
		return nil
	}
	start := time.Now()
	budget, cancel := context.WithTimeout(ctx, s.cfg.HighlightBudget)
	defer cancel()
	done := make(chan map[string][]docqa.Rect, 1)
	go func() { done <- s.locate(budget, hits, quoted) }()
	select {
	case out := <-done:
		s.log.DebugContext(ctx, "sources located on their pages", "sources", len(hits), "ms", time.Since(start).Milliseconds())
		return out
	case <-budget.Done():
		s.log.WarnContext(ctx, "sources sent without highlights: locating them took too long",
			"budget", s.cfg.HighlightBudget, "sources", len(hits))
		return nil
	}
}

// locate does highlights' work, one document at a time (one PDF engine
// instance each); wait bounds each wait for an instance.
func (s *Service) locate(wait context.Context, hits []docqa.ScoredChunk, quoted map[string][]string) map[string][]docqa.Rect {
	out := map[string][]docqa.Rect{}
	var order []string
	byDoc := map[string][]docqa.ScoredChunk{}
	for _, hit := range hits {
		md5 := hit.Document.FileMD5
		if _, ok := byDoc[md5]; !ok {
			order = append(order, md5)
		}
		byDoc[md5] = append(byDoc[md5], hit)
	}
	for _, md5 := range order {
		if wait.Err() != nil {
			break
		}
		f, err := s.cfg.Originals.Open(md5)
		if err != nil {
			continue // not kept: no highlights
		}
		st, err := f.Stat()
		if err != nil {
			f.Close()
			continue
		}
		docHits := byDoc[md5]
		// Each hit's passage, then its quoted sentences: one Locate for all.
		passages := make([]pdftext.Passage, len(docHits), 2*len(docHits))
		firstSentence := make([]int, len(docHits))
		for i, hit := range docHits {
			passages[i] = pdftext.Passage{Page: hit.Chunk.Page, Text: hit.Chunk.Text}
		}
		for i, hit := range docHits {
			firstSentence[i] = len(passages)
			for _, sentence := range quoted[hit.Chunk.ID] {
				passages = append(passages, pdftext.Passage{Page: hit.Chunk.Page, Text: sentence})
			}
		}
		rects, err := s.cfg.Locator.Locate(wait, f, st.Size(), passages)
		f.Close()
		if err != nil {
			s.log.InfoContext(wait, "sources of a document not located", "md5", md5, "err", err)
			continue
		}
		for i, hit := range docHits {
			var lines []pdftext.Rect
			for k := range quoted[hit.Chunk.ID] {
				lines = append(lines, rects[firstSentence[i]+k]...)
			}
			if len(lines) == 0 {
				lines = rects[i]
			}
			if len(lines) > 0 {
				out[hit.Chunk.ID] = pageRects(lines)
			}
		}
	}
	return out
}

// pageRects is the engine's lines (edges) as rounded Rects (edge and size).
func pageRects(rects []pdftext.Rect) []docqa.Rect {
	out := make([]docqa.Rect, len(rects))
	for i, r := range rects {
		out[i] = docqa.Rect{X: round4(r.Left), Y: round4(r.Top), W: round4(r.Right - r.Left), H: round4(r.Bottom - r.Top)}
	}
	return out
}

// roundedRects is the stored lines of an OCR passage, rounded.
func roundedRects(rects []docqa.Rect) []docqa.Rect {
	out := make([]docqa.Rect, len(rects))
	for i, r := range rects {
		out[i] = docqa.Rect{X: round4(r.X), Y: round4(r.Y), W: round4(r.W), H: round4(r.H)}
	}
	return out
}

// round4 keeps four decimals: a tenth of a pixel at 1000 px, and short JSON.
func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }
