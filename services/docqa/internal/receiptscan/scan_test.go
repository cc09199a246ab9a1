package receiptscan

import (
	"context"
	"errors"
	"image"
	"testing"
	"time"

	"github.com/carhub/backend/services/docqa/internal/ocr"
	"github.com/carhub/backend/services/docqa/internal/ocr/ocrtest"
	"github.com/carhub/backend/services/docqa/internal/receipt"
	"github.com/carhub/backend/services/docqa/internal/tooltest"
)

var testNow = time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)

// engine is Tesseract as the service runs it with OCR_LANGUAGES=auto.
func engine(tb testing.TB) *ocr.Engine {
	tb.Helper()
	command := ocrtest.Require(tb)
	langs := []string{"chi_sim", "deu", "eng"}
	if _, _, err := ocr.Check(context.Background(), command, append(langs, "osd")); err != nil {
		if errors.Is(err, ocr.ErrMissingLanguage) {
			tooltest.Missing(tb, err.Error())
		}
		tb.Fatal(err)
	}
	e, err := ocr.New(ocr.Config{Command: command, Languages: langs, Auto: true, Concurrency: 2})
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

// Photos of the corpus whose total Tesseract's page layout loses when
// the photo is read as it is (the amounts' column at the turned slip's
// right edge: receipt's BenchmarkPhotosAsPhotographed reads them so, in
// make bench); straightened, the total and the date are read.
func TestScanStraightensTurnedPhotos(t *testing.T) {
	s := New(Config{OCR: engine(t), Now: func() time.Time { return testNow }})
	for _, c := range []struct{ photo, date, total string }{
		{"dev-02-uk-shell-diesel-shop", "2026-11-22", "59.18"},
		{"dev-07-fr-total-gazole", "2026-11-30", "68.88"},
	} {
		t.Run(c.photo, func(t *testing.T) {
			data := mustRead(t, "../receipt/testdata/photos/"+c.photo+".jpg")
			got, err := s.Scan(context.Background(), data, "")
			if err != nil {
				t.Fatal(err)
			}
			if got.Fields[receipt.Total] != c.total || got.Fields[receipt.Date] != c.date {
				t.Errorf("straightened: total %q, date %q; want %s, %s (%v)\n%s",
					got.Fields[receipt.Total], got.Fields[receipt.Date], c.total, c.date, got.Fields, got.Text)
			}
		})
	}
}

// A photo of no text (a white sheet) is a reading of kind unknown with no
// fields, not an error.
func TestScanBlankPhoto(t *testing.T) {
	s := New(Config{OCR: engine(t), Now: func() time.Time { return testNow }})
	blank := image.NewGray(image.Rect(0, 0, 600, 900))
	for i := range blank.Pix {
		blank.Pix[i] = 250
	}
	got, err := s.Scan(context.Background(), mustPNG(t, blank), "")
	if err != nil {
		t.Fatal(err)
	}
	if got.Kind != receipt.Unknown || len(got.Fields) != 0 {
		t.Fatalf("blank photo: %s %v", got.Kind, got.Fields)
	}
}

// fakeOCR answers the words it is given, and counts its calls.
type fakeOCR struct {
	words []ocr.Word
	calls int
}

func (f *fakeOCR) Recognize(_ context.Context, img *image.Gray, _ int) (ocr.Page, error) {
	f.calls++
	return ocr.Judge(f.words, 0, 0)
}

func line(n int, text string) ocr.Word {
	return ocr.Word{Text: text, Confidence: 90, Left: 40, Top: 40 + 30*n, Width: 300, Height: 24, Block: 1, Paragraph: 1, Line: n}
}

// A Chinese receipt OSD took for Latin reads as nothing; the second
// reading, chi_sim with the Latin languages, is then taken. A reading that
// found something, or found Chinese, is not read twice.
func TestScanRereadsInChineseWhenNothingWasFound(t *testing.T) {
	photo := mustPNG(t, image.NewGray(image.Rect(0, 0, 400, 600)))
	latin := &fakeOCR{words: []ocr.Word{line(1, "HRA"), line(2, "S 4 4, GE 5")}}
	han := &fakeOCR{words: []ocr.Word{line(1, "中国石化"), line(2, "日期:2026-11-25"), line(3, "实收金额:328.40元")}}
	s := New(Config{OCR: latin, Han: han, Now: func() time.Time { return testNow }})
	got, err := s.Scan(context.Background(), photo, "")
	if err != nil {
		t.Fatal(err)
	}
	if han.calls != 1 || got.Fields[receipt.Total] != "328.40" || got.Fields[receipt.Date] != "2026-11-25" {
		t.Fatalf("second reading: %d calls, %v", han.calls, got.Fields)
	}

	english := &fakeOCR{words: []ocr.Word{line(1, "SHELL"), line(2, "21/11/2026"), line(3, "TOTAL £12.00")}}
	han.calls = 0
	s = New(Config{OCR: english, Han: han, Now: func() time.Time { return testNow }})
	if got, err := s.Scan(context.Background(), photo, "GB"); err != nil || han.calls != 0 || got.Fields[receipt.Total] != "12.00" {
		t.Fatalf("a receipt read the first time: %v, %d second readings, %v", err, han.calls, got.Fields)
	}
}
