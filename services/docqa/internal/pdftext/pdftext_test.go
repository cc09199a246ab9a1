package pdftext

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode"
	"unicode/utf8"
)

// Recall targets against pdftotext (poppler 22.12), whose output for every
// corpus file is committed beside it as NAME.pdftotext.txt.
const (
	minWordRecall = 0.95 // English and other space-separated text
	minCharRecall = 0.97 // Chinese and Japanese
)

func mustOpen(tb testing.TB, path string) (*os.File, int64) {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { f.Close() })
	st, err := f.Stat()
	if err != nil {
		tb.Fatal(err)
	}
	return f, st.Size()
}

func corpus(tb testing.TB) []string {
	tb.Helper()
	files, err := filepath.Glob("testdata/corpus/*.pdf")
	if err != nil || len(files) == 0 {
		tb.Fatalf("no corpus in testdata/corpus (%v)", err)
	}
	return files
}

func isCJK(path string) bool {
	base := filepath.Base(path)
	return strings.HasPrefix(base, "zh-") || strings.HasPrefix(base, "ja-")
}

func TestRecallAgainstPdftotext(t *testing.T) {
	for _, path := range corpus(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			f, size := mustOpen(t, path)
			pages, err := Extract(context.Background(), f, size, nil)
			if err != nil {
				t.Fatalf("Extract: %v", err)
			}
			ref, err := os.ReadFile(strings.TrimSuffix(path, ".pdf") + ".pdftotext.txt")
			if err != nil {
				t.Fatal(err)
			}
			// pdftotext ends every page with a form feed.
			refPages := strings.Split(strings.TrimSuffix(string(ref), "\f"), "\f")
			if len(pages) != len(refPages) {
				t.Fatalf("%d pages, pdftotext has %d", len(pages), len(refPages))
			}
			var hit, total int
			for i, p := range pages {
				if p.Number != i+1 {
					t.Fatalf("page %d has Number %d", i+1, p.Number)
				}
				if !utf8.ValidString(p.Text) {
					t.Fatalf("page %d is not valid UTF-8", p.Number)
				}
				// Pages are compared one by one, so text put on the wrong
				// page counts as missing.
				var h, n int
				if isCJK(path) {
					h, n = recall(chars(refPages[i]), chars(p.Text))
				} else {
					h, n = recall(words(refPages[i]), words(p.Text))
				}
				hit, total = hit+h, total+n
			}
			if total == 0 {
				t.Fatal("the reference has no text")
			}
			got, want, unit := float64(hit)/float64(total), minWordRecall, "word"
			if isCJK(path) {
				want, unit = minCharRecall, "character"
			}
			t.Logf("%s recall %.4f over %d %ss in %d pages", unit, got, total, unit, len(pages))
			if got < want {
				t.Fatalf("%s recall %.4f, want at least %.2f", unit, got, want)
			}
		})
	}
}

// words splits text into lower-cased runs of letters and digits.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// chars lists the characters of s that are not white space.
func chars(s string) []string {
	var out []string
	for _, r := range s {
		if !unicode.IsSpace(r) {
			out = append(out, string(r))
		}
	}
	return out
}

// recall counts how many items of ref (as a multiset) got contains.
func recall(ref, got []string) (hit, total int) {
	have := map[string]int{}
	for _, g := range got {
		have[g]++
	}
	for _, r := range ref {
		if have[r] > 0 {
			have[r]--
			hit++
		}
	}
	return hit, len(ref)
}

func TestExtractErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		data func(t *testing.T) []byte
		want error
	}{
		{"empty file", func(*testing.T) []byte { return nil }, ErrEmpty},
		{"CSV file", file("testdata/bad/not-a-pdf.csv"), ErrNotPDF},
		{"PNG image", func(*testing.T) []byte { return []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR") }, ErrNotPDF},
		{"header shorter than %PDF-", func(*testing.T) []byte { return []byte("%PDF") }, ErrNotPDF},
		{"magic not at the start", func(*testing.T) []byte { return []byte("  %PDF-1.4\n") }, ErrNotPDF},
		{"header and text", file("testdata/bad/corrupt.pdf"), ErrCorrupt},
		{"truncated to half", file("testdata/bad/truncated.pdf"), ErrCorrupt},
		{"user password", file("testdata/bad/encrypted-userpw.pdf"), ErrEncrypted},
		{"owner password only", file("testdata/bad/encrypted-ownerpw-aes128.pdf"), ErrEncrypted},
		{"scanned page (Chromium, image only)", file("testdata/bad/scanned.pdf"), ErrNoText},
		{"blank scan (pdfcpu testdata)", file("testdata/bad/pdfcpu-blank-scan.pdf"), ErrNoText},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := tc.data(t)
			pages, err := Extract(context.Background(), bytes.NewReader(data), int64(len(data)), nil)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if pages != nil {
				t.Fatalf("got %d pages with the error", len(pages))
			}
		})
	}
}

func file(path string) func(t *testing.T) []byte {
	return func(t *testing.T) []byte {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
}

func TestErrorMessagesSayWhich(t *testing.T) {
	for err, word := range map[error]string{
		ErrNotPDF: "%PDF-", ErrEmpty: "empty", ErrCorrupt: "corrupt",
		ErrEncrypted: "encrypted", ErrNoText: "no extractable text",
	} {
		if !strings.Contains(err.Error(), word) {
			t.Errorf("message %q does not say %q", err, word)
		}
	}
}

func TestProgressAndPageNumbers(t *testing.T) {
	f, size := mustOpen(t, "testdata/corpus/zh-maintenance-4pages.pdf")
	var calls [][2]int
	pages, err := Extract(context.Background(), f, size, func(done, total int) {
		calls = append(calls, [2]int{done, total})
	})
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]int{{1, 4}, {2, 4}, {3, 4}, {4, 4}}
	if len(calls) != len(want) {
		t.Fatalf("progress calls %v, want %v", calls, want)
	}
	for i := range want {
		if calls[i] != want[i] {
			t.Fatalf("progress calls %v, want %v", calls, want)
		}
	}
	for i, p := range pages {
		if p.Number != i+1 {
			t.Fatalf("page %d numbered %d", i+1, p.Number)
		}
	}
	// Each appendix heading is on its own page.
	for i, heading := range []string{"附录 1", "附录 2", "附录 3"} {
		if !strings.Contains(pages[i+1].Text, heading) {
			t.Fatalf("page %d lacks %q: %.80q", i+2, heading, pages[i+1].Text)
		}
	}
}

func TestCancelBetweenPages(t *testing.T) {
	f, size := mustOpen(t, "testdata/corpus/zh-maintenance-4pages.pdf")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Extract(ctx, f, size, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled before start: err = %v", err)
	}

	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	done := 0
	pages, err := Extract(ctx, f, size, func(d, _ int) {
		done = d
		if d == 2 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || pages != nil {
		t.Fatalf("cancelled after page 2: %d pages, err = %v", len(pages), err)
	}
	if done != 2 {
		t.Fatalf("went on to page %d after the cancel", done)
	}
}

// The text reader refuses "%PDF-2.0"; versionShim makes PDF 2.0 files read.
func TestPDF20(t *testing.T) {
	f, size := mustOpen(t, "testdata/corpus/pdfcpu-pdf20-utf8test.pdf")
	head := make([]byte, 8)
	if _, err := f.ReadAt(head, 0); err != nil || string(head) != "%PDF-2.0" {
		t.Fatalf("fixture is not a PDF 2.0 file: %q %v", head, err)
	}
	pages, err := Extract(context.Background(), f, size, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) != 1 || strings.TrimSpace(pages[0].Text) == "" {
		t.Fatalf("pages = %+v", pages)
	}
}

// An inline image (BI ... ID data EI, here written by Ghostscript) must not
// cost the text after it: the text reader's lexer cannot skip image data.
func TestTextAfterInlineImage(t *testing.T) {
	f, size := mustOpen(t, "testdata/corpus/en-inline-image.pdf")
	pages, err := Extract(context.Background(), f, size, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "Tyre pressure is checked before the small picture.\nCoolant level is checked after the small picture."
	if len(pages) != 1 || pages[0].Text != want {
		t.Fatalf("pages = %+v, want one page %q", pages, want)
	}
}

func TestHostileStructures(t *testing.T) {
	f, size := mustOpen(t, "testdata/handmade/self-painting-form.pdf")
	pages, err := Extract(context.Background(), f, size, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := "Self painting form\nin form"; len(pages) != 1 || pages[0].Text != want {
		t.Fatalf("pages = %+v, want one page %q", pages, want)
	}

	f, size = mustOpen(t, "testdata/handmade/cyclic-page-tree.pdf")
	if _, err := Extract(context.Background(), f, size, nil); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("cyclic page tree: err = %v, want ErrCorrupt", err)
	}
}

// Older CJK PDFs use a predefined UCS-2 CMap and no ToUnicode map.
func TestUCS2CMapWithoutToUnicode(t *testing.T) {
	f, size := mustOpen(t, "testdata/handmade/zh-ucs2-stsong.pdf")
	pages, err := Extract(context.Background(), f, size, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := "冬季要使用防冻型玻璃水。"; len(pages) != 1 || pages[0].Text != want {
		t.Fatalf("pages = %+v, want one page %q", pages, want)
	}
}

func TestStripInlineImages(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"BT (a) Tj ET", "BT (a) Tj ET"},
		{"q BI /W 1 /H 1 ID \x01EI EI Q (b) Tj", "q   Q (b) Tj"},
		{"q BI /W 1 /H 1 ID \x00EI Q (b) Tj", "q   Q (b) Tj"}, // NUL is white space
		// BI and ID inside strings are text, not operators.
		{"(BI) Tj (ID) Tj (EI) Tj", "(BI) Tj (ID) Tj (EI) Tj"},
		{"(a\\) BI) Tj BI ID x\nEI (c) Tj", "(a\\) BI) Tj   (c) Tj"},
		{"/BI 1 def (ID)", "/BI 1 def (ID)"},
		// An image without ID takes the rest of the stream with it.
		{"(a) Tj BI /W 1 (ID) Tj", "(a) Tj "},
	} {
		if got := string(stripInlineImages([]byte(tc.in))); got != tc.want {
			t.Errorf("stripInlineImages(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestConcurrentExtract(t *testing.T) {
	files := corpus(t)
	var wg sync.WaitGroup
	errs := make(chan error, len(files))
	for _, path := range files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f, err := os.Open(path)
			if err != nil {
				errs <- err
				return
			}
			defer f.Close()
			st, _ := f.Stat()
			if _, err := Extract(context.Background(), f, st.Size(), nil); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

var sentinels = []error{ErrNotPDF, ErrEmpty, ErrCorrupt, ErrEncrypted, ErrNoText}

func FuzzExtract(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/bad/*")
	handmade, _ := filepath.Glob("testdata/handmade/*.pdf")
	seeds = append(seeds, handmade...)
	small, _ := filepath.Glob("testdata/corpus/*.pdf")
	for _, path := range append(seeds, small...) {
		b, err := os.ReadFile(path)
		if err == nil && len(b) <= 64<<10 {
			f.Add(b)
		}
	}
	f.Add([]byte("%PDF-1.4\n%%EOF\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		pages, err := Extract(context.Background(), bytes.NewReader(data), int64(len(data)), nil)
		if err != nil {
			for _, s := range sentinels {
				if errors.Is(err, s) {
					return
				}
			}
			t.Fatalf("error %v is none of the sentinel errors", err)
		}
		if len(pages) == 0 {
			t.Fatal("no pages and no error")
		}
		for i, p := range pages {
			if p.Number != i+1 || !utf8.ValidString(p.Text) {
				t.Fatalf("page %d: Number %d, valid UTF-8 %v", i+1, p.Number, utf8.ValidString(p.Text))
			}
		}
	})
}

// BenchmarkExtract extracts the whole corpus per iteration and reports
// pages per second; compare with pdftotext over the same files (README).
func BenchmarkExtract(b *testing.B) {
	files := corpus(b)
	type doc struct {
		f    *os.File
		size int64
	}
	var docs []doc
	for _, path := range files {
		f, size := mustOpen(b, path)
		docs = append(docs, doc{f, size})
	}
	pages := 0
	b.ResetTimer()
	for b.Loop() {
		for _, d := range docs {
			p, err := Extract(context.Background(), d.f, d.size, nil)
			if err != nil {
				b.Fatal(err)
			}
			pages += len(p)
		}
	}
	b.ReportMetric(float64(pages)/b.Elapsed().Seconds(), "pages/s")
}
