package httpapi

import (
	"context"
	"math"
	"time"

	"github.com/carhub/backend/services/docqa/internal/docqa"
	"github.com/carhub/backend/services/docqa/internal/pdftext"
)

// rectView is one highlighted line of a source's passage on its page: x,
// y, width and height as fractions (0..1) of the page as shown (its crop
// box, turned by its /Rotate), the origin at the TOP LEFT, so that
// multiplied by the size of GET .../pages/:n.png at any width they land on
// its pixels.
type rectView struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
	W float64 `json:"w"`
	H float64 `json:"h"`
}

// highlights gives hits' passages their lines on their pages: chunk id ->
// lines. A passage OCR read has them stored with it (from OCR's word boxes
// at ingestion: its page has no text layer to find it in); the others are
// located in the kept originals at answer time (see
// proto-docs/docqa-decisions.md for why not at ingestion). Locating waits
// at most HighlightBudget; what is not found by then, or cannot be (no
// original kept, no page engine, the page engine busy, a passage the
// page's text does not hold, an OCR chunk stored without rectangles), gets
// none. The answer never fails for want of highlights.
//
// quoted holds, by chunk id, the sentences an answer quotes of a passage:
// such a passage's highlights are those sentences' lines (the tyre pressures
// quoted, not the whole page they sit on), or the whole passage's when none
// of them is found on the page. An OCR passage keeps its stored lines.
func (h *handler) highlights(ctx context.Context, hits []docqa.ScoredChunk, quoted map[string][]string) map[string][]rectView {
	stored := map[string][]rectView{}
	var text []docqa.ScoredChunk
	for _, hit := range hits {
		switch {
		case hit.Chunk.OCR && len(hit.Chunk.Rects) > 0:
			stored[hit.Chunk.ID] = storedRectViews(hit.Chunk.Rects)
		case !hit.Chunk.OCR:
			text = append(text, hit)
		}
	}
	for id, rects := range h.locateInTime(ctx, text, quoted) {
		stored[id] = rects
	}
	return stored
}

// locateInTime locates hits (or their quoted sentences) in the kept originals within HighlightBudget.
func (h *handler) locateInTime(ctx context.Context, hits []docqa.ScoredChunk, quoted map[string][]string) map[string][]rectView {
	if h.cfg.Pages == nil || h.cfg.Originals == nil || len(hits) == 0 {
		return nil
	}
	start := time.Now()
	budget, cancel := context.WithTimeout(ctx, h.cfg.HighlightBudget)
	defer cancel()
	done := make(chan map[string][]rectView, 1)
	go func() { done <- h.locate(budget, hits, quoted) }()
	select {
	case out := <-done:
		h.log.DebugContext(ctx, "sources located on their pages", "sources", len(hits), "ms", time.Since(start).Milliseconds())
		return out
	case <-budget.Done():
		h.log.WarnContext(ctx, "sources sent without highlights: locating them took too long",
			"budget", h.cfg.HighlightBudget, "sources", len(hits))
		return nil
	}
}

// locate does highlights' work, one document at a time (one PDF engine
// instance each); wait bounds each wait for an instance.
func (h *handler) locate(wait context.Context, hits []docqa.ScoredChunk, quoted map[string][]string) map[string][]rectView {
	out := map[string][]rectView{}
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
		f, err := h.cfg.Originals.Open(md5)
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
			for _, s := range quoted[hit.Chunk.ID] {
				passages = append(passages, pdftext.Passage{Page: hit.Chunk.Page, Text: s})
			}
		}
		rects, err := h.cfg.Pages.Locate(wait, f, st.Size(), passages)
		f.Close()
		if err != nil {
			h.log.InfoContext(wait, "sources of a document not located", "md5", md5, "err", err)
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
				out[hit.Chunk.ID] = toRectViews(lines)
			}
		}
	}
	return out
}

func toRectViews(rects []pdftext.Rect) []rectView {
	out := make([]rectView, len(rects))
	for i, r := range rects {
		out[i] = rectView{X: round4(r.Left), Y: round4(r.Top), W: round4(r.Right - r.Left), H: round4(r.Bottom - r.Top)}
	}
	return out
}

func storedRectViews(rects []docqa.Rect) []rectView {
	out := make([]rectView, len(rects))
	for i, r := range rects {
		out[i] = rectView{X: round4(r.X), Y: round4(r.Y), W: round4(r.W), H: round4(r.H)}
	}
	return out
}

// round4 keeps four decimals: a tenth of a pixel at 1000 px, and short JSON.
func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }
