package answer

import (
	"context"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/carhub/backend/services/docqa/internal/docqa"
	"github.com/carhub/backend/services/docqa/internal/pdftext"
)

// A passage OCR read gets the rectangles stored with it, without the
// original or a page engine; one stored before OCR kept them gets none
// (its page's text layer cannot place it); a text passage is left to the
// page engine, which here is missing, so it gets none either.
func TestHighlightsOfOCRChunksAreTheStoredRects(t *testing.T) {
	s := New(Config{Chat: &writer{}})
	hits := []docqa.ScoredChunk{
		{Chunk: docqa.Chunk{ID: "scan", OCR: true, Rects: []docqa.Rect{{X: 0.10004, Y: 0.2, W: 0.5, H: 0.0125}, {X: 0.1, Y: 0.22, W: 0.3, H: 0.0125}}}},
		{Chunk: docqa.Chunk{ID: "old-scan", OCR: true}},
		{Chunk: docqa.Chunk{ID: "text"}},
	}
	got := s.highlights(context.Background(), hits, nil)
	want := map[string][]docqa.Rect{"scan": {{X: 0.1, Y: 0.2, W: 0.5, H: 0.0125}, {X: 0.1, Y: 0.22, W: 0.3, H: 0.0125}}}
	if !maps.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("highlights = %v, want %v", got, want)
	}
}

// dir keeps originals as files named by their MD5.
type dir string

func (d dir) Open(md5 string) (*os.File, error) { return os.Open(filepath.Join(string(d), md5)) }

// lines is a Locator that finds a passage by its text: each known text has
// its lines; it records the passages it was asked and waits delay first.
type lines struct {
	byText map[string][]pdftext.Rect
	delay  time.Duration
	asked  []pdftext.Passage
}

func (l *lines) Locate(ctx context.Context, _ io.ReaderAt, _ int64, passages []pdftext.Passage) ([][]pdftext.Rect, error) {
	select {
	case <-time.After(l.delay):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	l.asked = append(l.asked, passages...)
	out := make([][]pdftext.Rect, len(passages))
	for i, p := range passages {
		out[i] = l.byText[p.Text]
	}
	return out, nil
}

// A quoted passage's highlights are its quoted sentences' lines, or its
// own when none of them is found; a passage not quoted has its own; a
// document whose original is not kept, or a passage the page does not
// hold, has none.
func TestHighlightsOfTextChunksAreLocated(t *testing.T) {
	d := t.TempDir()
	if err := os.WriteFile(filepath.Join(d, "m1"), []byte("%PDF-"), 0o600); err != nil {
		t.Fatal(err)
	}
	loc := &lines{byText: map[string][]pdftext.Rect{
		"page one":     {{Left: 0.1, Top: 0.1, Right: 0.9, Bottom: 0.15}, {Left: 0.1, Top: 0.15, Right: 0.5, Bottom: 0.2}},
		"front 2.3":    {{Left: 0.2, Top: 0.3, Right: 0.40004, Bottom: 0.33}},
		"page two":     {{Left: 0, Top: 0, Right: 1, Bottom: 1}},
		"page three":   {{Left: 0, Top: 0.5, Right: 1, Bottom: 0.6}},
		"another text": {{Left: 0, Top: 0, Right: 1, Bottom: 1}},
	}}
	s := New(Config{Chat: &writer{}, Locator: loc, Originals: dir(d)})
	hits := []docqa.ScoredChunk{
		hit("one", "m1", 1, "page one"),
		hit("two", "m1", 2, "page two"),
		hit("three", "m1", 3, "page three"),
		hit("unlocated", "m1", 4, "not on the page"),
		hit("unkept", "m2", 1, "another text"),
	}
	quoted := map[string][]string{"two": {"front 2.3", "rear 2.5"}, "three": {"not there"}}
	got := s.highlights(context.Background(), hits, quoted)
	want := map[string][]docqa.Rect{
		"one":   {{X: 0.1, Y: 0.1, W: 0.8, H: 0.05}, {X: 0.1, Y: 0.15, W: 0.4, H: 0.05}},
		"two":   {{X: 0.2, Y: 0.3, W: 0.2, H: 0.03}},
		"three": {{X: 0, Y: 0.5, W: 1, H: 0.1}},
	}
	if !maps.EqualFunc(got, want, slices.Equal) {
		t.Errorf("highlights = %v, want %v", got, want)
	}
	// One Locate for the kept document: its four passages, then the
	// quoted sentences.
	wantAsked := []pdftext.Passage{
		{Page: 1, Text: "page one"}, {Page: 2, Text: "page two"}, {Page: 3, Text: "page three"}, {Page: 4, Text: "not on the page"},
		{Page: 2, Text: "front 2.3"}, {Page: 2, Text: "rear 2.5"}, {Page: 3, Text: "not there"},
	}
	if !slices.Equal(loc.asked, wantAsked) {
		t.Errorf("asked %v, want %v", loc.asked, wantAsked)
	}
}

// Past the budget the sources go without located highlights, on time;
// stored ones are kept.
func TestHighlightsPastTheBudget(t *testing.T) {
	d := t.TempDir()
	if err := os.WriteFile(filepath.Join(d, "m1"), []byte("%PDF-"), 0o600); err != nil {
		t.Fatal(err)
	}
	loc := &lines{byText: map[string][]pdftext.Rect{"page one": {{Right: 1, Bottom: 1}}}, delay: time.Minute}
	s := New(Config{Chat: &writer{}, Locator: loc, Originals: dir(d), HighlightBudget: 50 * time.Millisecond})
	hits := []docqa.ScoredChunk{
		hit("one", "m1", 1, "page one"),
		{Chunk: docqa.Chunk{ID: "scan", OCR: true, Rects: []docqa.Rect{{W: 1, H: 1}}}},
	}
	start := time.Now()
	got := s.highlights(context.Background(), hits, nil)
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("highlights took %v past a 50 ms budget", took)
	}
	if want := map[string][]docqa.Rect{"scan": {{W: 1, H: 1}}}; !maps.EqualFunc(got, want, slices.Equal) {
		t.Errorf("highlights = %v, want %v", got, want)
	}
}
