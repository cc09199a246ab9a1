package pdftext

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/carhub/backend/services/docqa/internal/ocr"
	"github.com/carhub/backend/services/docqa/internal/ocr/ocrtest"
	"github.com/carhub/backend/services/docqa/internal/pdftext/pdftexttest"
)

// BenchmarkExtractOCR reads text PDFs with OCR off and with the service's
// default OCR=auto (Tesseract, eng, one process at a time, 60 s a page),
// one document after the other on one engine instance, and reports pages/s
// and pages/cpu-s (Tesseract's CPU time included) of each: the cost of
// deciding which pages OCR reads, and of reading them. The files are
// DOCQA_BENCH_PDFS (paths separated by spaces), else the corpus of
// testdata/corpus with the retrieval set's Debian manuals that are
// installed (testdata/retrieval/README.md; the gzipped two unpacked).
//
//	go test -run '^$' -bench ExtractOCR -benchtime 1x -cpu 1 ./internal/pdftext
//	DOCQA_BENCH_PDFS=/usr/share/doc/octave/octave.pdf go test -run '^$' -bench ExtractOCR -benchtime 1x -cpu 1 ./internal/pdftext
func BenchmarkExtractOCR(b *testing.B) {
	tess := ocrtest.Require(b)
	files := benchPDFs(b)
	rec, err := ocr.New(ocr.Config{Command: tess, Languages: []string{"eng"}})
	if err != nil {
		b.Fatal(err)
	}
	for _, mode := range []struct {
		name string
		ocr  Recognizer
	}{{"off", nil}, {"auto", rec}} {
		b.Run(mode.name, func(b *testing.B) {
			e := Start(Config{CacheDir: pdftexttest.CacheDir(), OCR: mode.ocr})
			defer e.Close()
			if err := e.Wait(context.Background()); err != nil {
				b.Fatal(err)
			}
			pages, ocrPages, skipped := 0, 0, 0
			cpu0 := cpuTime()
			for b.Loop() {
				for _, path := range files {
					f, size := mustOpen(b, path)
					doc, err := e.Extract(context.Background(), f, size, nil)
					if err != nil {
						b.Fatalf("%s: %v", path, err)
					}
					pages += len(doc.Pages)
					ocrPages += doc.OCRPages
					skipped += len(doc.Skipped)
				}
			}
			b.ReportMetric(float64(pages)/b.Elapsed().Seconds(), "pages/s")
			// Tesseract's processes are children: their time counts.
			b.ReportMetric(float64(pages)/(cpuTime()-cpu0).Seconds(), "pages/cpu-s")
			b.ReportMetric(float64(ocrPages)/float64(b.N), "ocr-pages")
			b.ReportMetric(float64(skipped)/float64(b.N), "skipped-pages")
		})
	}
}

// benchPDFs are the files of BenchmarkExtractOCR.
func benchPDFs(tb testing.TB) []string {
	tb.Helper()
	if list := strings.Fields(os.Getenv("DOCQA_BENCH_PDFS")); len(list) > 0 {
		return list
	}
	files := corpus(tb)
	data, err := os.ReadFile("../../testdata/retrieval/manuals.json")
	if err != nil {
		tb.Fatal(err)
	}
	var manuals []struct {
		Path string `json:"path"`
		Gzip bool   `json:"gzip"`
	}
	if err := json.Unmarshal(data, &manuals); err != nil {
		tb.Fatal(err)
	}
	dir := tb.TempDir()
	for _, m := range manuals {
		if _, err := os.Stat(m.Path); err != nil {
			continue
		}
		path := m.Path
		if m.Gzip {
			path = filepath.Join(dir, strings.TrimSuffix(filepath.Base(m.Path), ".gz"))
			gunzip(tb, m.Path, path)
		}
		files = append(files, path)
	}
	return files
}

func gunzip(tb testing.TB, from, to string) {
	tb.Helper()
	in, err := os.Open(from)
	if err != nil {
		tb.Fatal(err)
	}
	defer in.Close()
	z, err := gzip.NewReader(in)
	if err != nil {
		tb.Fatal(err)
	}
	out, err := os.Create(to)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := io.Copy(out, z); err != nil {
		tb.Fatal(err)
	}
	if err := out.Close(); err != nil {
		tb.Fatal(err)
	}
}
