package pdftext

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/draw"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/carhub/backend/services/docqa/internal/ingest/ingesttest"
	"github.com/carhub/backend/services/docqa/internal/splitter"
	"github.com/carhub/backend/services/docqa/internal/tooltest"
)

// labelled has four pages numbered i, ii, then 3-12, 3-13 (a chapter
// prefix and a start) by its /PageLabels; page 3 is landscape.
var labelledPages = []ingesttest.Page{
	{Text: "Contents\nSafety first"},
	{Text: "Foreword\nRead this manual before driving."},
	{Text: "Maintenance\nChange the engine oil every 15000 km.\nReplace the brake fluid every two years.\nCheck the tyre pressure monthly.\nRotate the wheels at each service.", Width: 792, Height: 612},
	{Text: "Index"},
}

const labelledLabels = "<< /Nums [0 << /S /r >> 2 << /S /D /P (3-) /St 12 >>] >>"

func labelled() []byte { return ingesttest.Book(labelledLabels, labelledPages...) }

func TestExtractReadsPageLabels(t *testing.T) {
	pdf := labelled()
	doc, err := engine.Extract(context.Background(), bytes.NewReader(pdf), int64(len(pdf)), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range doc.Pages {
		got = append(got, p.Label)
	}
	if want := []string{"i", "ii", "3-12", "3-13"}; !slices.Equal(got, want) {
		t.Errorf("labels %q, want %q", got, want)
	}
	plain := ingesttest.PDF("one page without labels")
	doc, err = engine.Extract(context.Background(), bytes.NewReader(plain), int64(len(plain)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Pages[0].Label != "" {
		t.Errorf("a PDF without /PageLabels: label %q, want none", doc.Pages[0].Label)
	}
	label, pages, err := engine.PageLabel(context.Background(), bytes.NewReader(pdf), int64(len(pdf)), 3)
	if err != nil || label != "3-12" || pages != 4 {
		t.Errorf("PageLabel(3) = %q, %d, %v; want 3-12, 4, nil", label, pages, err)
	}
}

func TestRenderKeepsTheAspectRatio(t *testing.T) {
	pdf := labelled()
	for _, tc := range []struct {
		page, width  int
		wantW, wantH int
		pageW, pageH float64
	}{
		{1, 1000, 1000, 1295, 612, 792}, // portrait: ceil(1000*792/612)
		{3, 1000, 1000, 773, 792, 612},  // landscape
		{1, 200, 200, 259, 612, 792},
		{3, 2000, 2000, 1546, 792, 612},
		{1, 5000, 2000, 2589, 612, 792}, // clamped to MaxRenderWidth
		{1, 10, 200, 259, 612, 792},     // and to MinRenderWidth
	} {
		img, err := engine.Render(context.Background(), bytes.NewReader(pdf), int64(len(pdf)), tc.page, tc.width)
		if err != nil {
			t.Fatalf("page %d at %d: %v", tc.page, tc.width, err)
		}
		b := img.Bounds()
		if b.Dx() != tc.wantW || b.Dy() != tc.wantH {
			t.Errorf("page %d at %d: %dx%d, want %dx%d", tc.page, tc.width, b.Dx(), b.Dy(), tc.wantW, tc.wantH)
		}
		if got, want := float64(b.Dy())/float64(b.Dx()), tc.pageH/tc.pageW; math.Abs(got-want) > 1.0/float64(b.Dx()) {
			t.Errorf("page %d at %d: aspect %.4f, the page's %.4f", tc.page, tc.width, got, want)
		}
		// White paper, black text: the corner is white, some pixel dark.
		if c := img.RGBAAt(b.Max.X-1, b.Max.Y-1); c.R != 255 || c.G != 255 || c.B != 255 || c.A != 255 {
			t.Errorf("page %d: corner pixel %v, want opaque white", tc.page, c)
		}
		dark := false
		for i := 0; i < len(img.Pix) && !dark; i += 4 {
			dark = img.Pix[i] < 160
		}
		if !dark {
			t.Errorf("page %d: no dark pixel: the text was not drawn", tc.page)
		}
	}
}

func TestPageOutOfRange(t *testing.T) {
	pdf := labelled()
	for _, n := range []int{0, -1, 5} {
		_, err := engine.Render(context.Background(), bytes.NewReader(pdf), int64(len(pdf)), n, 1000)
		if !errors.Is(err, ErrPageRange) {
			t.Errorf("Render page %d: %v, want ErrPageRange", n, err)
		}
		if _, _, err := engine.PageLabel(context.Background(), bytes.NewReader(pdf), int64(len(pdf)), n); !errors.Is(err, ErrPageRange) {
			t.Errorf("PageLabel page %d: %v, want ErrPageRange", n, err)
		}
	}
	bad := []byte("%PDF-1.4\nnot really")
	if _, err := engine.Render(context.Background(), bytes.NewReader(bad), int64(len(bad)), 1, 1000); !errors.Is(err, ErrCorrupt) {
		t.Errorf("Render of a corrupt file: %v, want ErrCorrupt", err)
	}
}

func TestPagesAreBusyWhenEveryPageInstanceIs(t *testing.T) {
	e := Start(Config{CacheDir: engineCacheDir(), PageInstances: 1})
	t.Cleanup(func() { e.Close() })
	if err := e.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.pageSlots <- struct{}{} // the one page instance is taken
	pdf := labelled()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := e.Render(ctx, bytes.NewReader(pdf), int64(len(pdf)), 1, 1000); !errors.Is(err, ErrBusy) {
		t.Errorf("Render with no free page instance: %v, want ErrBusy", err)
	}
	// Extraction has instances of its own.
	if _, err := e.Extract(context.Background(), bytes.NewReader(pdf), int64(len(pdf)), nil); err != nil {
		t.Errorf("Extract while the page instance is busy: %v", err)
	}
	<-e.pageSlots
	if _, err := e.Render(context.Background(), bytes.NewReader(pdf), int64(len(pdf)), 1, 1000); err != nil {
		t.Errorf("Render once the instance is free: %v", err)
	}
}

// word is a word's box from pdftotext -bbox, normalised to its page.
type word struct {
	text                     string
	left, top, right, bottom float64
}

var (
	bboxPage = regexp.MustCompile(`<page width="([\d.]+)" height="([\d.]+)">`)
	bboxWord = regexp.MustCompile(`<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</word>`)
)

// bboxWords runs pdftotext -bbox on page of pdf: poppler's word boxes, the
// reference the highlights are checked against.
func bboxWords(t *testing.T, pdf []byte, page int) []word {
	t.Helper()
	path := filepath.Join(t.TempDir(), "in.pdf")
	if err := os.WriteFile(path, pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	n := strconv.Itoa(page)
	out, err := exec.Command(tooltest.RequireTool(t, "pdftotext"), "-bbox", "-f", n, "-l", n, path, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext -bbox: %v", err)
	}
	m := bboxPage.FindSubmatch(out)
	if m == nil {
		t.Fatalf("pdftotext -bbox: no page in %s", out)
	}
	pw, _ := strconv.ParseFloat(string(m[1]), 64)
	ph, _ := strconv.ParseFloat(string(m[2]), 64)
	var words []word
	for _, m := range bboxWord.FindAllSubmatch(out, -1) {
		f := func(i int) float64 { v, _ := strconv.ParseFloat(string(m[i]), 64); return v }
		words = append(words, word{text: string(m[5]), left: f(1) / pw, top: f(2) / ph, right: f(3) / pw, bottom: f(4) / ph})
	}
	return words
}

func TestLocateLandsOnThePassagesWords(t *testing.T) {
	pdf := labelled()
	passage := "Replace the brake fluid every two years.\nCheck the tyre pressure monthly."
	rects, err := engine.Locate(context.Background(), bytes.NewReader(pdf), int64(len(pdf)), []Passage{
		{Page: 3, Text: passage},
		{Page: 3, Text: "text that is not on the page"},
		{Page: 9, Text: passage},
	})
	if err != nil {
		t.Fatal(err)
	}
	if rects[1] != nil || rects[2] != nil {
		t.Errorf("a passage not on its page got %v, one on no page %v; want nil", rects[1], rects[2])
	}
	got := rects[0]
	if len(got) != 2 {
		t.Fatalf("%d rectangles %v, want 2 (one per line)", len(got), got)
	}
	words := bboxWords(t, pdf, 3)
	const tol = 0.01 // of the page: about 8 points across, 6 down
	inPassage := map[string]bool{}
	for _, w := range strings.Fields(passage) {
		inPassage[w] = true
	}
	lines := []string{"Replace the brake fluid every two years.", "Check the tyre pressure monthly."}
	for i, line := range lines {
		r := got[i]
		box, ok := lineBox(words, line)
		if !ok {
			t.Fatalf("no line %q in pdftotext's boxes %v", line, words)
		}
		if math.Abs(r.Left-box.left) > tol || math.Abs(r.Right-box.right) > tol ||
			math.Abs(r.Top-box.top) > tol || math.Abs(r.Bottom-box.bottom) > tol {
			t.Errorf("line %d: rectangle %+v, pdftotext's words of %q span %+v (tolerance %g)", i, r, line, box, tol)
		}
	}
	// No rectangle covers a word of the lines around the passage.
	for _, w := range words {
		if inPassage[w.text] {
			continue
		}
		cy := (w.top + w.bottom) / 2
		for _, r := range got {
			if cy > r.Top && cy < r.Bottom && w.right > r.Left && w.left < r.Right {
				t.Errorf("word %q (%+v) outside the passage lies under %+v", w.text, w, r)
			}
		}
	}
}

func TestMergeLines(t *testing.T) {
	got := mergeLines([]Rect{
		{0.1, 0.10, 0.3, 0.12}, {0.3, 0.101, 0.5, 0.121}, // one line in two fonts
		{0.1, 0.13, 0.4, 0.15},
		{0.7, 0.13, 0.9, 0.15}, // the next column, same height: another line
		{0.2, 0.2, 0.2, 0.3},   // empty
	})
	want := []Rect{{0.1, 0.10, 0.5, 0.121}, {0.1, 0.13, 0.4, 0.15}, {0.7, 0.13, 0.9, 0.15}}
	if !slices.Equal(got, want) {
		t.Errorf("mergeLines = %v, want %v", got, want)
	}
}

// lineBox is the box around the words of pdftotext's line that reads
// line: its words are those sharing one yMin, in order.
func lineBox(words []word, line string) (word, bool) {
	byTop := map[float64][]word{}
	for _, w := range words {
		byTop[w.top] = append(byTop[w.top], w)
	}
	for _, ws := range byTop {
		var texts []string
		box := ws[0]
		for _, w := range ws {
			texts = append(texts, w.text)
			box.left, box.right = math.Min(box.left, w.left), math.Max(box.right, w.right)
			box.top, box.bottom = math.Min(box.top, w.top), math.Max(box.bottom, w.bottom)
		}
		if strings.Join(texts, " ") == line {
			return box, true
		}
	}
	return word{}, false
}

// engineCacheDir is the tests' compilation cache.
func engineCacheDir() string { return engine.cfg.CacheDir }

// benchDoc is a real document of 18 pages of text (Adobe's errata of the
// PDF reference), for the page benchmarks.
const benchDoc = "testdata/corpus/pdfcpu-adobe_errata.pdf"

// BenchmarkRender draws one page of a real document 1000 px wide (what a
// phone asks for by default), then encodes it as the HTTP layer may: the
// time of each step and the bytes of each encoding.
func BenchmarkRender(b *testing.B) {
	f, size := mustOpen(b, benchDoc)
	img, err := engine.Render(context.Background(), f, size, 2, 1000)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("render-1000px", func(b *testing.B) {
		for b.Loop() {
			if _, err := engine.Render(context.Background(), f, size, 2, 1000); err != nil {
				b.Fatal(err)
			}
		}
	})
	gray := image.NewGray(img.Bounds())
	draw.Draw(gray, gray.Bounds(), img, image.Point{}, draw.Src)
	for _, tc := range []struct {
		name  string
		img   image.Image
		level png.CompressionLevel
	}{
		{"png-rgb-default", img, png.DefaultCompression},
		{"png-rgb-bestspeed", img, png.BestSpeed},
		{"png-gray-default", gray, png.DefaultCompression},
		{"png-gray-bestspeed", gray, png.BestSpeed},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var n int
			for b.Loop() {
				var buf bytes.Buffer
				if err := (&png.Encoder{CompressionLevel: tc.level}).Encode(&buf, tc.img); err != nil {
					b.Fatal(err)
				}
				n = buf.Len()
			}
			b.ReportMetric(float64(n)/1024, "KiB")
		})
	}
}

// BenchmarkLocate measures the two places highlights could be computed:
// at answer time, five passages of one document located in its original
// (open, load the pages' text, find them); and what ingestion would add,
// every chunk of the document located (to set beside BenchmarkExtract of
// the same document, extract-doc).
func BenchmarkLocate(b *testing.B) {
	f, size := mustOpen(b, benchDoc)
	doc, err := engine.Extract(context.Background(), f, size, nil)
	if err != nil {
		b.Fatal(err)
	}
	split, err := splitter.New()
	if err != nil {
		b.Fatal(err)
	}
	var all []Passage
	for _, p := range doc.Pages {
		for _, c := range split.Split(p.Text) {
			all = append(all, Passage{Page: p.Number, Text: c})
		}
	}
	// Five passages on five pages, as a chat answer's sources.
	var five []Passage
	for i := 0; len(five) < 5 && i < len(all); i += max(1, len(all)/5) {
		five = append(five, all[i])
	}
	for _, tc := range []struct {
		name     string
		passages []Passage
	}{{"open-only", nil}, {"answer-time-5-sources", five}, {"ingestion-every-chunk", all}} {
		b.Run(tc.name, func(b *testing.B) {
			found := 0
			for b.Loop() {
				rects, err := engine.Locate(context.Background(), f, size, tc.passages)
				if err != nil {
					b.Fatal(err)
				}
				found = 0
				for _, r := range rects {
					if len(r) > 0 {
						found++
					}
				}
			}
			if found != len(tc.passages) {
				b.Errorf("%d of %d passages found", found, len(tc.passages))
			}
			b.ReportMetric(float64(len(tc.passages)), "passages")
		})
	}
	b.Run("extract-doc", func(b *testing.B) {
		for b.Loop() {
			if _, err := engine.Extract(context.Background(), f, size, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// The highlights and the rendered image agree, on pages turned by /Rotate
// too: each rectangle covers ink of the drawn page, a band around a line
// holds no ink outside its rectangle, and a turned page's lines run the
// way it is shown (a 90 or 270 turn makes them vertical).
func TestHighlightsLandOnTheDrawnText(t *testing.T) {
	text := "Line one of the rotated page.\nReplace the brake fluid every two years.\nLine three."
	for _, rotate := range []int{0, 90, 180, 270} {
		t.Run(strconv.Itoa(rotate), func(t *testing.T) {
			pdf := ingesttest.Book("", ingesttest.Page{Text: text, Width: 500, Height: 300, Rotate: rotate})
			rects, err := engine.Locate(context.Background(), bytes.NewReader(pdf), int64(len(pdf)),
				[]Passage{{Page: 1, Text: "Replace the brake fluid every two years."}})
			if err != nil || len(rects[0]) != 1 {
				t.Fatalf("Locate = %v, %v; want one line", rects, err)
			}
			r := rects[0][0]
			if vertical := r.Bottom-r.Top > r.Right-r.Left; vertical != (rotate%180 != 0) {
				t.Errorf("rectangle %+v: vertical %v at /Rotate %d", r, vertical, rotate)
			}
			img, err := engine.Render(context.Background(), bytes.NewReader(pdf), int64(len(pdf)), 1, 1000)
			if err != nil {
				t.Fatal(err)
			}
			b := img.Bounds()
			ink := func(x0, y0, x1, y1 float64) int {
				n := 0
				for y := int(y0 * float64(b.Dy())); y < int(y1*float64(b.Dy())); y++ {
					for x := int(x0 * float64(b.Dx())); x < int(x1*float64(b.Dx())); x++ {
						if img.RGBAAt(x, y).R < 128 {
							n++
						}
					}
				}
				return n
			}
			inside := ink(r.Left, r.Top, r.Right, r.Bottom)
			if inside < 200 {
				t.Errorf("rectangle %+v covers %d dark pixels of the drawn page: it is not on the text", r, inside)
			}
			// Along the line, past its ends, there is no ink of it.
			var before, after int
			if rotate%180 == 0 {
				before, after = ink(0, r.Top, r.Left-0.005, r.Bottom), ink(r.Right+0.005, r.Top, 1, r.Bottom)
			} else {
				before, after = ink(r.Left, 0, r.Right, r.Top-0.005), ink(r.Left, r.Bottom+0.005, r.Right, 1)
			}
			if before+after > 0 {
				t.Errorf("rectangle %+v: %d + %d dark pixels on its line outside it", r, before, after)
			}
		})
	}
}
