package receipt_test

import (
	"context"
	"errors"
	"image"
	"image/draw"
	"image/jpeg"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/carhub/backend/services/docqa/internal/ocr"
	"github.com/carhub/backend/services/docqa/internal/ocr/ocrtest"
	"github.com/carhub/backend/services/docqa/internal/receipt"
	"github.com/carhub/backend/services/docqa/internal/receiptscan"
	"github.com/carhub/backend/services/docqa/internal/tooltest"
)

// The photographs of the corpus, made by testdata/photograph.sh (a
// receipt printer's font on a slip, on a grey table, turned by up to 3.5
// degrees, blurred, noisy, JPEG quality 55) and committed: 35 images,
// under 1 MB.
const photoDir = "testdata/photos"

// photoDPI is what Tesseract is told of a phone photo of a receipt: the
// slip's 80 mm over about 800 pixels.
const photoDPI = 250

type photo struct {
	sample
	set, path string
}

func loadPhotos(tb testing.TB) []photo {
	tb.Helper()
	var out []photo
	for _, set := range []string{"dev", "heldout"} {
		for _, s := range loadSamples(tb, set) {
			path := filepath.Join(photoDir, set+"-"+s.name+".jpg")
			if _, err := os.Stat(path); err != nil {
				tb.Fatalf("%s: %v (run testdata/photograph.sh %s)", s.name, err, photoDir)
			}
			out = append(out, photo{sample: s, set: set, path: path})
		}
	}
	return out
}

// engine is Tesseract as the service runs it with OCR_LANGUAGES=auto:
// OSD tells the script, then its languages read.
func engine(tb testing.TB, concurrency int) *ocr.Engine {
	tb.Helper()
	command := ocrtest.Require(tb)
	langs := []string{"chi_sim", "deu", "eng"}
	if _, _, err := ocr.Check(context.Background(), command, append(langs, "osd")); err != nil {
		if errors.Is(err, ocr.ErrMissingLanguage) {
			tooltest.Missing(tb, err.Error())
		}
		tb.Fatal(err)
	}
	e, err := ocr.New(ocr.Config{Command: command, Languages: langs, Auto: true, Concurrency: concurrency})
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

// readScanned reads a photo as POST /api/receipts/scan does
// (receiptscan: decoded, the slip cut out and levelled, OCR, the rules).
func readScanned(tb testing.TB, s *receiptscan.Scanner, path string) receipt.Reading {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	got, err := s.Scan(context.Background(), data, "")
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	return got.Reading
}

// scanner is the service's receipt reader over e, with its second
// reading for a photo the first found nothing in: chi_sim with the Latin
// languages, as cmd/docqa-service sets it up under OCR_LANGUAGES=auto.
func scanner(tb testing.TB, e *ocr.Engine) *receiptscan.Scanner {
	tb.Helper()
	han, err := ocr.New(ocr.Config{Command: ocrtest.Require(tb), Languages: []string{"chi_sim", "deu", "eng"}})
	if err != nil {
		tb.Fatal(err)
	}
	return receiptscan.New(receiptscan.Config{OCR: e, Han: han, Now: func() time.Time { return now }})
}

// readPhoto reads a photo as photographed: decoded, grey, OCR, lines,
// the rules.
func readPhoto(tb testing.TB, e *ocr.Engine, path string) (receipt.Reading, string) {
	tb.Helper()
	gray := decodeGray(tb, path)
	page, err := e.Recognize(context.Background(), gray, photoDPI)
	if err != nil && !errors.Is(err, ocr.ErrUnreadable) {
		tb.Fatalf("%s: %v", path, err)
	}
	lines := receipt.FromWords(page.Words, gray.Rect.Dx(), gray.Rect.Dy())
	return receipt.ReadLines(lines, receipt.Options{Now: now}), page.Text
}

func decodeGray(tb testing.TB, path string) *image.Gray {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	img, err := jpeg.Decode(f)
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	gray, ok := img.(*image.Gray)
	if !ok {
		gray = image.NewGray(img.Bounds())
		draw.Draw(gray, gray.Rect, img, img.Bounds().Min, draw.Src)
	}
	return gray
}

// photoSubset: one photo of each language and kind, for a test that runs
// in a minute; BenchmarkPhotos reads them all.
var photoSubset = []string{
	"dev-01-uk-tesco-unleaded", "dev-05-de-aral-e10", "dev-07-fr-total-gazole", "dev-09-cn-sinopec-92",
	"dev-12-de-enbw-charge", "dev-13-de-workshop-invoice", "heldout-02-us-shell-diesel", "heldout-14-cn-teld-charge",
}

// TestPhotos reads photographs with real Tesseract: a wrong value is
// allowed on none of them, and most fields are read.
func TestPhotos(t *testing.T) {
	s := scanner(t, engine(t, 2))
	sc := newScore()
	for _, p := range loadPhotos(t) {
		if !slices.Contains(photoSubset, p.set+"-"+p.name) {
			continue
		}
		got := readScanned(t, s, p.path)
		check(t, got)
		if d := sc.add(p.sample, got); len(d) > 0 {
			t.Logf("%s-%s: %s", p.set, p.name, strings.Join(d, "; "))
		}
	}
	sc.log(t, "photos (subset)")
	if sc.kinds != len(photoSubset) {
		t.Fatalf("%d photos read, want %d", sc.kinds, len(photoSubset))
	}
	if sc.wrongShare() > photoMaxWrong || sc.accuracy() < photoMinAccuracy {
		t.Errorf("photos: accuracy %.3f (floor %.3f), wrong values %.3f (ceiling %.3f)",
			sc.accuracy(), photoMinAccuracy, sc.wrongShare(), photoMaxWrong)
	}
}

// The photos' floors: the ceiling on wrong values; an accuracy
// floor under what was measured.
const (
	photoMaxWrong    = 0.05
	photoMinAccuracy = 0.95
)

// BenchmarkPhotos reads every photograph of the corpus as the receipts
// endpoint does (receiptscan: the slip cut out and levelled first), one
// at a time as the service does on a busy machine, and reports field
// accuracy, the share of wrong values and milliseconds per photo (the
// median).
//
//	go test ./services/docqa/internal/receipt -run '^$' -bench Photos -benchtime 1x
func BenchmarkPhotos(b *testing.B) {
	s := scanner(b, engine(b, 1))
	benchPhotos(b, func(path string) receipt.Reading { return readScanned(b, s, path) })
}

// BenchmarkPhotosAsPhotographed is BenchmarkPhotos without the
// straightening: the photo as it is given to Tesseract, what the
// straightening is measured against.
func BenchmarkPhotosAsPhotographed(b *testing.B) {
	e := engine(b, 1)
	benchPhotos(b, func(path string) receipt.Reading {
		got, _ := readPhoto(b, e, path)
		return got
	})
}

func benchPhotos(b *testing.B, read func(path string) receipt.Reading) {
	photos := loadPhotos(b)
	for b.Loop() {
		sc := newScore()
		var ms []float64
		for _, p := range photos {
			start := time.Now()
			got := read(p.path)
			ms = append(ms, float64(time.Since(start).Microseconds())/1000)
			if d := sc.add(p.sample, got); len(d) > 0 {
				b.Logf("%s-%s: %s", p.set, p.name, strings.Join(d, "; "))
			}
		}
		slices.Sort(ms)
		b.ReportMetric(sc.accuracy(), "field-accuracy")
		b.ReportMetric(sc.wrongShare(), "wrong-share")
		b.ReportMetric(ms[len(ms)/2], "ms/photo-p50")
		b.ReportMetric(ms[len(ms)*9/10], "ms/photo-p90")
		sc.log(b, "photos")
	}
}
