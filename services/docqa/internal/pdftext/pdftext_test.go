package pdftext

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/carhub/backend/services/docqa/internal/pdftext/pdftexttest"
)

// The bars of the extraction test, per file, against the reference text.
const (
	minRecall     = 0.97 // share of the reference's words (CJK: characters) extracted
	minPrecision  = 0.98 // share of extracted words that the reference has: garbage glyphs fail it
	minPairRecall = 0.90 // share of the reference's adjacent word pairs extracted: reading order
)

// engine is shared by the tests of this package: it compiles once.
var engine = Start(Config{Instances: 2, CacheDir: pdftexttest.CacheDir()})

func TestMain(m *testing.M) {
	ctx, cancel := context.WithTimeout(context.Background(), pdftexttest.StartTimeout)
	err := engine.Wait(ctx)
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "PDF engine did not start:", err)
		os.Exit(1)
	}
	code := m.Run()
	engine.Close()
	os.Exit(code)
}

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

// isCJK: files scored by characters, not words (no spaces between words).
func isCJK(path string) bool {
	base := filepath.Base(path)
	return strings.HasPrefix(base, "zh-") || strings.HasPrefix(base, "ja-")
}

// reference is the text the extraction is scored against, pages split at
// form feeds: NAME.expected.txt where pdftotext itself is wrong (the file
// says why in testdata/README.md), else pdftotext's NAME.pdftotext.txt.
func reference(tb testing.TB, pdf string) (pages []string, source string) {
	tb.Helper()
	base := strings.TrimSuffix(pdf, ".pdf")
	for _, name := range []string{base + ".expected.txt", base + ".pdftotext.txt"} {
		b, err := os.ReadFile(name)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			tb.Fatal(err)
		}
		// pdftotext ends every page with a form feed.
		return strings.Split(strings.TrimSuffix(string(b), "\f"), "\f"), filepath.Base(name)
	}
	tb.Fatalf("no reference text for %s", pdf)
	return nil, ""
}

// score accumulates the matches of one file over its pages.
type score struct {
	refItems, gotItems, itemHits int
	refPairs, pairHits           int
}

func (s *score) add(ref, got []string) {
	s.refItems += len(ref)
	s.gotItems += len(got)
	s.itemHits += matches(ref, got)
	rp, gp := pairs(ref), pairs(got)
	s.refPairs += len(rp)
	s.pairHits += matches(rp, gp)
}

func ratio(hit, total int) float64 {
	if total == 0 {
		return 1
	}
	return float64(hit) / float64(total)
}

func (s score) recall() float64     { return ratio(s.itemHits, s.refItems) }
func (s score) precision() float64  { return ratio(s.itemHits, s.gotItems) }
func (s score) pairRecall() float64 { return ratio(s.pairHits, s.refPairs) }

// TestExtractionAgainstReference scores every corpus file page by page
// (text on the wrong page counts as missing there and as garbage where it
// landed): recall of the reference's words, precision of the extracted
// words, and recall of adjacent word pairs, which only text in reading
// order keeps. CJK files count characters and character pairs.
func TestExtractionAgainstReference(t *testing.T) {
	for _, path := range corpus(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			doc, err := extractCorpusFile(path)
			if err != nil {
				t.Fatalf("Extract: %v", err)
			}
			pages := doc.Pages
			refPages, source := reference(t, path)
			if len(pages) != len(refPages) {
				t.Fatalf("%d pages, %s has %d", len(pages), source, len(refPages))
			}
			tokens := words
			if isCJK(path) {
				tokens = chars
			}
			var s score
			for i, p := range pages {
				if p.Number != i+1 || p.Truncated {
					t.Fatalf("page %d: Number %d, Truncated %v", i+1, p.Number, p.Truncated)
				}
				if !utf8.ValidString(p.Text) {
					t.Fatalf("page %d is not valid UTF-8", p.Number)
				}
				s.add(tokens(refPages[i]), tokens(p.Text))
			}
			if s.refItems == 0 {
				t.Fatalf("%s has no text", source)
			}
			t.Logf("against %s: recall %.4f, precision %.4f, pair recall %.4f (%d items, %d pages)",
				source, s.recall(), s.precision(), s.pairRecall(), s.refItems, len(pages))
			if s.recall() < minRecall || s.precision() < minPrecision || s.pairRecall() < minPairRecall {
				t.Errorf("recall %.4f (want >= %.2f), precision %.4f (>= %.2f), pair recall %.4f (>= %.2f)",
					s.recall(), minRecall, s.precision(), minPrecision, s.pairRecall(), minPairRecall)
			}
		})
	}
}

// normalise folds what two correct extractions may write differently:
// compatibility forms (NFKC: the ﬁ ligature is "fi", full-width digits
// are digits) and case.
func normalise(s string) string {
	return strings.ToLower(norm.NFKC.String(s))
}

// words are the runs of letters, digits and combining marks; punctuation
// and spacing separate them and are not scored (pdftotext and PDFium set
// spaces around punctuation differently, which says nothing of the text).
func words(s string) []string {
	return strings.FieldsFunc(normalise(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.Is(unicode.M, r)
	})
}

// chars are the letters and digits of s, one by one.
func chars(s string) []string {
	var out []string
	for _, r := range normalise(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			out = append(out, string(r))
		}
	}
	return out
}

func pairs(items []string) []string {
	if len(items) < 2 {
		return nil
	}
	out := make([]string, 0, len(items)-1)
	for i := 1; i < len(items); i++ {
		out = append(out, items[i-1]+"\x00"+items[i])
	}
	return out
}

// matches counts the items of ref (a multiset) that got also has.
func matches(ref, got []string) int {
	have := map[string]int{}
	for _, g := range got {
		have[g]++
	}
	hit := 0
	for _, r := range ref {
		if have[r] > 0 {
			have[r]--
			hit++
		}
	}
	return hit
}

// The scores themselves must see the failures they exist for.
func TestScoreCatchesGarbageAndDisorder(t *testing.T) {
	ref := words("The specific filter identifies the brake fluid")
	var s score
	s.add(ref, words("The speci\u001dc \ufb01lter identi\u001des the brake fluid"))
	if s.recall() >= minRecall || s.precision() >= minPrecision {
		t.Errorf("broken ligatures scored recall %.2f, precision %.2f", s.recall(), s.precision())
	}
	s = score{}
	s.add(ref, words("The specific filter identifies the brake fluid garbage ÿþ xx yy zz"))
	if s.recall() != 1 || s.precision() >= minPrecision {
		t.Errorf("added garbage scored recall %.2f, precision %.2f", s.recall(), s.precision())
	}
	s = score{}
	s.add(ref, words("fluid brake the identifies filter specific The"))
	if s.recall() != 1 || s.pairRecall() >= minPairRecall {
		t.Errorf("reversed order scored recall %.2f, pair recall %.2f", s.recall(), s.pairRecall())
	}
	s = score{}
	s.add(ref, words("Thespecificfilter identifies the brakefluid"))
	if s.recall() >= minRecall {
		t.Errorf("lost word breaks scored recall %.2f", s.recall())
	}
	// The ﬁ ligature itself is the same word as "fi".
	s = score{}
	s.add(ref, words("The speciﬁc ﬁlter identiﬁes the brake fluid"))
	if s.recall() != 1 || s.precision() != 1 || s.pairRecall() != 1 {
		t.Errorf("ligature glyphs scored %+v", s)
	}
}

// Each failure class of the old interpreter, checked for the exact text
// that must come out (beyond the scores).
func TestFailureClassesReadRight(t *testing.T) {
	for _, tc := range []struct {
		file string
		page int
		want []string // substrings of the page's text, in this order
		not  []string
	}{
		{"pdfcpu-adobe_supplement_iso32000_1.pdf", 0, []string{"specific"}, []string{"\u001d"}},
		{"gen-filters.pdf", 1, []string{"LZW: Check the tyre pressure every month"}, nil},
		{"gen-filters.pdf", 2, []string{"ASCIIHex: Replace the cabin air filter"}, nil},
		{"gen-filters.pdf", 3, []string{"RunLength: Use only coolant", "capacity 4.2 litres"}, nil},
		{"gen-filters.pdf", 4, []string{"Flate over ASCII85 is the last one"}, nil},
		{"gen-broken-xref.pdf", 1, []string{"This file has a wrong startxref offset"}, nil},
		{"gen-base-encoding.pdf", 1, []string{"The “service interval” is 15000 km — or one year.",
			"It’s ‘cheap’: the inspection costs 89 €, the oil 35 €.", "Pages 12–14"}, []string{"\u0080", "\u0093"}},
		{"gen-rotated-fakebold.pdf", 1, []string{"Rotated", "heading", "text"}, []string{"Rotatedheading", "headingtext"}},
		{"gen-rotated-fakebold.pdf", 1, []string{"Tyre", "pressure", "warning", "light"}, []string{"Tyrepressure"}},
		{"gen-rotated-fakebold.pdf", 2, []string{"Warning: hot surface", "Do not touch"}, []string{"surface Warning", "WWa"}},
		{"gen-actualtext.pdf", 1, []string{"The brake fluid is DOT 4 and must be changed"}, []string{"D0T-4"}},
		{"gen-stemv-array.pdf", 1, []string{"A font descriptor with StemV written as an array."}, nil},
		{"gen-owner-password-aes256.pdf", 1, []string{"This manual opens without a password."}, nil},
		{"gen-owner-password-rc4.pdf", 1, []string{"Its owner password forbids copying."}, nil},
		{"walden-ownerpw-aes128.pdf", 1, []string{"WALDEN"}, nil},
		{"zh-ja-predefined-cmaps.pdf", 1, []string{"冬季请使用防冻型玻璃清洗液，并检查雨刮片是否老化。"}, nil},
		{"zh-ja-predefined-cmaps.pdf", 2, []string{"タイヤの空気圧は月に一度点検してください。"}, nil},
		// Accents drawn apart, before their letter (TeX): composed, after it.
		{"gen-tex-accents.pdf", 1, []string{"L'élève naïf a visité le château où\nNoël", "garçon", "Étienne préfère le café crème"},
			[]string{"´", "`", "¨", "ˆ", "¸", "ı", "\u0301", "\u0300", "\u0308", "\u0302", "\u0327"}},
		{"gen-tex-accents.pdf", 2, []string{"Müller fährt über die Brücke nach Köln.", "Die Größe der Bäume", "Übung"}, []string{"¨", "\u0308"}},
		{"gen-tex-accents.pdf", 3, []string{"Příliš žluťoučký kůň úpěl ďábelské ódy.", "Českých Budějovicích prší."}, []string{"ˇ", "˚", "\u030c"}},
		{"gen-tex-accents.pdf", 4, []string{"Muḥammad ibn Mūsā al-Khwārizmī wrote in Baġdād.", "Ḥalab", "ḥadīth", "Ibn Baṭṭūṭa", "Riḥla", "al-Maġrib"},
			[]string{"¯", "˙", "\u0323", "\u0304"}},
		{"gen-tex-accents.pdf", 5, []string{"São Paulo, señor, Brăila, Erdős, mąka, Łódź."}, []string{"˜", "˘", "˝", "˛"}},
		// Right to left, drawn left to right (Chromium): logical order,
		// numbers and Latin words in their place, marks on their letters.
		{"ar-maintenance.pdf", 1, []string{"دليل صيانة السيارة\n", "افحص ضغط الإطارات مرة كل شهر",
			"غيّر زيت المحرك كل 10000 كيلومتر", "سائل المكابح هو DOT 4 ويجب تغييره", "الأمامية 2.3 بار، والخلفية ٢٫١ بار."},
			[]string{"ليلد", "ةنايص"}},
		{"ar-maintenance.pdf", 2, []string{"The workshop wrote: تم تغيير الزيت والفلتر in the service"}, nil},
		{"he-maintenance.pdf", 1, []string{"מדריך תחזוקה לרכב\n", "יש להחליף את שמן המנוע כל 10,000 קילומטר.",
			"נוזל הבלמים הוא DOT 4 ויש", "שָׁלוֹם לְכֻלָּם: מילים עם ניקוד",
			"The owner's manual says: החליפו את המסנן every year."}, []string{"4 DOT"}},
		{"he-maintenance.pdf", 2, []string{"The workshop wrote: הוחלפו השמן והמסנן in the service"}, nil},
		// Ruby drawn right after (or before) its base, as TeX does: on a
		// line of its own before the base line, which stays whole.
		{"ja-ruby.pdf", 1, []string{"しゃりょう てんけん\n車両の日常点検について\n",
			"てんけん くうきあつ ゆりょう\n毎日の点検では、タイヤの空気圧とエンジン油量を見て\n",
			"かくにん とうき だんき うんてん\n確認してください。冬季には暖機運転が長くなり、\n"}, []string{"点検\nてんけん", "確認\nかくにん"}},
		// Glyph by glyph without spaces; spaces inside words taken back by kerns.
		{"gen-glyph-by-glyph.pdf", 1, []string{"This chapter is a tour of the basic components"}, nil},
		{"gen-glyph-by-glyph.pdf", 2, []string{"AVOID Water in the fuel: drain the filter every 20000 kilometres"}, nil},
		{"gen-glyph-by-glyph.pdf", 3, []string{"We hope to provide enough information and examples to get you off the ground quickly."},
			[]string{"hop e", "grou nd"}},
	} {
		t.Run(fmt.Sprintf("%s/%d", tc.file, tc.page), func(t *testing.T) {
			f, size := mustOpen(t, "testdata/corpus/"+tc.file)
			doc, err := engine.Extract(context.Background(), f, size, nil)
			if err != nil {
				t.Fatal(err)
			}
			text := ""
			for _, p := range doc.Pages {
				if tc.page == 0 || p.Number == tc.page {
					text += p.Text + "\n"
				}
			}
			rest := text
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("%q missing (or out of order) in %q", w, text)
				}
				rest = rest[i+len(w):]
			}
			for _, n := range tc.not {
				if strings.Contains(text, n) {
					t.Errorf("%q found in %q", n, text)
				}
			}
			if strings.Count(text, "Warning: hot surface") > 1 {
				t.Errorf("fake-bold text came out more than once: %q", text)
			}
		})
	}
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
		{"user password (pdfcpu)", file("testdata/bad/encrypted-userpw.pdf"), ErrPasswordRequired},
		{"user password (qpdf)", file("testdata/bad/user-password-aes256.pdf"), ErrPasswordRequired},
		{"scanned page (Chromium, image only)", file("testdata/bad/scanned.pdf"), ErrNoText},
		{"blank scan (pdfcpu testdata)", file("testdata/bad/pdfcpu-blank-scan.pdf"), ErrNoText},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := tc.data(t)
			doc, err := engine.Extract(context.Background(), bytes.NewReader(data), int64(len(data)), nil)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if doc.Pages != nil || doc.Title != "" {
				t.Fatalf("got %d pages and title %q with the error", len(doc.Pages), doc.Title)
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
		ErrPasswordRequired: "password", ErrNoText: "no extractable text",
	} {
		if !strings.Contains(err.Error(), word) {
			t.Errorf("message %q does not say %q", err, word)
		}
	}
}

// A page tree listing itself among its kids is read, as pdftotext reads
// it: PDFium ignores the loop.
func TestCyclicPageTree(t *testing.T) {
	f, size := mustOpen(t, "testdata/handmade/cyclic-page-tree.pdf")
	doc, err := engine.Extract(context.Background(), f, size, nil)
	if err != nil || len(doc.Pages) != 1 || strings.TrimSpace(doc.Pages[0].Text) != "cyclic tree" {
		t.Fatalf("cyclic page tree: %+v, %v", doc, err)
	}
}

func TestProgressAndPageNumbers(t *testing.T) {
	f, size := mustOpen(t, "testdata/corpus/zh-maintenance-4pages.pdf")
	var calls [][2]int
	doc, err := engine.Extract(context.Background(), f, size, func(stage Stage, done, total int) {
		if stage != StageText {
			t.Errorf("stage %q on a text PDF", stage)
		}
		calls = append(calls, [2]int{done, total})
	})
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]int{{1, 4}, {2, 4}, {3, 4}, {4, 4}}
	if fmt.Sprint(calls) != fmt.Sprint(want) {
		t.Fatalf("progress calls %v, want %v", calls, want)
	}
	for i, p := range doc.Pages {
		if p.Number != i+1 {
			t.Fatalf("page %d has Number %d", i+1, p.Number)
		}
	}
}

func TestCancelBetweenPages(t *testing.T) {
	f, size := mustOpen(t, "testdata/corpus/zh-maintenance-4pages.pdf")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := engine.Extract(ctx, f, size, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled before start: err = %v", err)
	}

	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	done := 0
	doc, err := engine.Extract(ctx, f, size, func(_ Stage, d, _ int) {
		done = d
		if d == 2 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || doc.Pages != nil {
		t.Fatalf("cancelled after page 2: %d pages, err = %v", len(doc.Pages), err)
	}
	if done != 2 {
		t.Fatalf("went on to page %d after the cancel", done)
	}
	// The engine goes on serving after an extraction was killed.
	if _, err := engine.Extract(context.Background(), f, size, nil); err != nil {
		t.Fatalf("after a cancelled extraction: %v", err)
	}
}

// A document whose text passes the budgets is cut there, its pages marked
// Truncated, never silently shortened.
func TestBudgetsMarkTruncatedPages(t *testing.T) {
	e := Start(Config{MaxPageChars: 40, MaxDocumentChars: 100, CacheDir: pdftexttest.CacheDir()})
	defer e.Close()
	f, size := mustOpen(t, "testdata/corpus/gen-filters.pdf")
	doc, err := e.Extract(context.Background(), f, size, nil)
	if err != nil {
		t.Fatal(err)
	}
	pages := doc.Pages
	total := 0
	for _, p := range pages {
		n := utf8.RuneCountInString(p.Text)
		total += n
		if n > 40 || !p.Truncated {
			t.Errorf("page %d: %d characters, Truncated %v", p.Number, n, p.Truncated)
		}
	}
	if total > 100 || total < 80 || len(pages) != 4 || pages[3].Text != "" {
		t.Errorf("%d characters over %d pages (last page %q), want at most 100, the fourth page empty", total, len(pages), pages[3].Text)
	}
}

func TestStartWaitReady(t *testing.T) {
	e := Start(Config{CacheDir: pdftexttest.CacheDir()})
	defer e.Close()
	if err := e.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if ready, err := e.Ready(); !ready || err != nil {
		t.Fatalf("Ready() = %v, %v after Wait", ready, err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	f, size := mustOpen(t, "testdata/corpus/pdfcpu-Walden.pdf")
	if _, err := e.Extract(context.Background(), f, size, nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("Extract after Close: %v, want ErrClosed", err)
	}

	// A compilation cache that cannot be made is a start error, reported
	// by Wait and Ready, and Extract says so too.
	bad := Start(Config{CacheDir: "/dev/null/cache"})
	defer bad.Close()
	if err := bad.Wait(context.Background()); err == nil {
		t.Fatal("start with an impossible cache directory did not fail")
	}
	if ready, err := bad.Ready(); ready || err == nil {
		t.Fatalf("Ready() = %v, %v for a failed start", ready, err)
	}
	if _, err := bad.Extract(context.Background(), f, size, nil); err == nil {
		t.Fatal("Extract on a failed engine succeeded")
	}
}

// corpusDocs are the corpus files extracted one at a time, each once per
// test process: TestExtractionAgainstReference scores them and
// TestConcurrentExtract compares its concurrent extractions with them.
var corpusDocs struct {
	sync.Mutex
	files map[string]*corpusDoc
}

type corpusDoc struct {
	once sync.Once
	doc  Document
	err  error
}

// extractCorpusFile is the shared engine's extraction of the file at
// path, made once per test process; callers must not change it.
func extractCorpusFile(path string) (Document, error) {
	corpusDocs.Lock()
	if corpusDocs.files == nil {
		corpusDocs.files = map[string]*corpusDoc{}
	}
	d, ok := corpusDocs.files[path]
	if !ok {
		d = &corpusDoc{}
		corpusDocs.files[path] = d
	}
	corpusDocs.Unlock()
	d.once.Do(func() {
		f, err := os.Open(path)
		if err != nil {
			d.err = err
			return
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			d.err = err
			return
		}
		d.doc, d.err = engine.Extract(context.Background(), f, st.Size(), nil)
	})
	return d.doc, d.err
}

// Two instances serve concurrent extractions, each with the right text:
// the text of the same file extracted alone.
func TestConcurrentExtract(t *testing.T) {
	files := corpus(t)
	want := map[string]string{}
	for _, path := range files {
		doc, err := extractCorpusFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want[path] = fmt.Sprint(doc)
	}
	var wg sync.WaitGroup
	for _, path := range files {
		wg.Go(func() {
			f, err := os.Open(path)
			if err != nil {
				t.Error(err)
				return
			}
			defer f.Close()
			st, _ := f.Stat()
			doc, err := engine.Extract(context.Background(), f, st.Size(), nil)
			if err != nil || fmt.Sprint(doc) != want[path] {
				t.Errorf("%s concurrently: err %v, text differs: %v", path, err, fmt.Sprint(doc) != want[path])
			}
		})
	}
	wg.Wait()
}

func TestClean(t *testing.T) {
	for in, want := range map[string]string{
		"a\r\nb\rc":              "a\nb\nc",
		"if appropri\uFFFEate,":  "if appropriate,",
		"tab\there\x00\x02\x1d!": "tab\there!",
		"\uFEFFbom\uFFFF":        "bom",
		"ﬁne 冬季 é":               "ﬁne 冬季 é",
	} {
		if got := clean(in); got != want {
			t.Errorf("clean(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestOneLine(t *testing.T) {
	for _, tc := range []struct {
		in    string
		limit int
		want  string
	}{
		{"  Service Manual\r\n\t\u2014 Model\u0001 X  ", 300, "Service Manual \u2014 Model X"},
		{" \t\r\n\u00a0", 300, ""},
		{"", 300, ""},
		{"\uFEFFbom\uFFFE", 300, "bom"},
		// Cut at a character, never inside one; no space left at the end.
		{strings.Repeat("é", 301), 300, strings.Repeat("é", 300)},
		{"abc def", 4, "abc"},
		{"冬季 保养", 4, "冬季 保"},
	} {
		if got := oneLine(tc.in, tc.limit); got != tc.want {
			t.Errorf("oneLine(%q, %d) = %q, want %q", tc.in, tc.limit, got, tc.want)
		}
	}
}

// startLogged starts an engine of its own whose log the test reads.
func startLogged(tb testing.TB) (*Engine, *bytes.Buffer) {
	tb.Helper()
	var log bytes.Buffer
	e := Start(Config{CacheDir: pdftexttest.CacheDir(), Log: slog.New(slog.NewTextHandler(&log, nil))})
	tb.Cleanup(func() { e.Close() })
	return e, &log
}

// The information dictionary's Title on one line, and each page's
// headings from an outline whose entries point at their pages in all the
// ways producers write (testdata/outline/make.py says which entry does
// what).
func TestOutlineTitleAndHeadings(t *testing.T) {
	e, log := startLogged(t)
	f, size := mustOpen(t, "testdata/outline/outline.pdf")
	doc, err := e.Extract(context.Background(), f, size, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := "Service Manual \u2014 Model X"; doc.Title != want {
		t.Errorf("Title = %q, want %q", doc.Title, want)
	}
	want := [][]string{
		// "Contents", the last entry, points back to page 1: it comes
		// after page 1's other entries and is in force from there on.
		{"Introduction", "Safety", "Contents"},
		{"Contents", "Symbols"},
		{"Symbols", "Maintenance", "Engine oil"}, // a GoTo action, a /Dests name
		// A GoTo action to a /Names destination; the child "  Tyres\t"
		// of "Tyres" is the same title once cleaned.
		{"Engine oil", "Öl-Spezifikation", "Tyres"},
		{"Tyres", "Step 1", "Step 2", "Step 3", "Step 4", "Step 5", "Step 6", "Step 7"}, // of ten
		// "Website" (a URI), "Missing page" (page 99) and a blank
		// title are skipped; the 250-character title is cut at 200.
		{"Step 10", "Index", strings.Repeat("Ü", 200)},
	}
	if len(doc.Pages) != len(want) {
		t.Fatalf("%d pages, want %d", len(doc.Pages), len(want))
	}
	for i, p := range doc.Pages {
		if !slices.Equal(p.Headings, want[i]) {
			t.Errorf("page %d: Headings %q,\nwant %q", p.Number, p.Headings, want[i])
		}
		if wantText := fmt.Sprintf("Text of page %d.", i+1); strings.TrimSpace(p.Text) != wantText {
			t.Errorf("page %d: Text %q, want %q", p.Number, p.Text, wantText)
		}
	}
	if log.Len() > 0 {
		t.Errorf("logged for a well-formed file:\n%s", log)
	}
}

// No outline: every page's Headings is nil; no title, blank or absent:
// "". Neither is worth a warning.
func TestNoOutlineNoTitle(t *testing.T) {
	e, log := startLogged(t)
	for _, path := range []string{
		"testdata/outline/no-outline.pdf",        // an information dictionary with a blank Title
		"testdata/handmade/cyclic-page-tree.pdf", // no information dictionary
		"testdata/corpus/gen-filters.pdf",
	} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			f, size := mustOpen(t, path)
			doc, err := e.Extract(context.Background(), f, size, nil)
			if err != nil {
				t.Fatal(err)
			}
			if doc.Title != "" {
				t.Errorf("Title = %q, want \"\"", doc.Title)
			}
			for _, p := range doc.Pages {
				if p.Headings != nil {
					t.Errorf("page %d: Headings %q, want nil", p.Number, p.Headings)
				}
			}
		})
	}
	if log.Len() > 0 {
		t.Errorf("logged for files without an outline or a title:\n%s", log)
	}
}

// An outline whose entries loop (two entries each other's next sibling,
// one of them the parent of its own parent) is read up to the walk's
// bounds, the cut logged, and the document extracted.
func TestOutlineCycleEnds(t *testing.T) {
	e, log := startLogged(t)
	f, size := mustOpen(t, "testdata/outline/outline-cycle.pdf")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	doc, err := e.Extract(ctx, f, size, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"Loop A"},
		{"Loop A", "Loop B", "Loop C", "Loop B", "Loop C", "Loop B", "Loop C", "Loop B"},
	}
	if len(doc.Pages) != 2 || !slices.Equal(doc.Pages[0].Headings, want[0]) || !slices.Equal(doc.Pages[1].Headings, want[1]) {
		t.Fatalf("got %+v, want headings %q", doc.Pages, want)
	}
	if !strings.Contains(log.String(), "level=WARN") || !strings.Contains(log.String(), "entries=20000") {
		t.Errorf("the cut outline was not logged as such:\n%s", log)
	}
}

// Entries sharing one long title (a loop of two here) are read up to the
// budget of title text, well before the entry bound.
func TestOutlineTitleBudget(t *testing.T) {
	e, log := startLogged(t)
	f, size := mustOpen(t, "testdata/outline/outline-shared-title.pdf")
	doc, err := e.Extract(context.Background(), f, size, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{strings.TrimSpace(strings.Repeat("Shared title ", 16)[:maxHeadingChars])}
	if len(doc.Pages) != 1 || !slices.Equal(doc.Pages[0].Headings, want) {
		t.Fatalf("got %+v, want headings %q", doc.Pages, want)
	}
	// The walk stops at the first entry past 4 MiB of 1040-byte titles.
	entries := fmt.Sprintf("entries=%d ", maxOutlineTitleBytes/1040+1)
	if !strings.Contains(log.String(), "level=WARN") || !strings.Contains(log.String(), entries) {
		t.Errorf("the outline was not cut at its budget of title bytes:\n%s", log)
	}
}

func TestPageHeadings(t *testing.T) {
	if got := pageHeadings(nil, 3); got != nil {
		t.Errorf("no entries: %q, want nil", got)
	}
	// Pages before the first entry have none; one past the last keeps it.
	got := pageHeadings([]outlineEntry{{"B", 2}, {"A", 1}, {"A", 1}, {"C", 2}}, 4)
	want := [][]string{nil, {"A"}, {"A", "B", "C"}, {"C"}}
	for i := range want {
		if !slices.Equal(got[i], want[i]) || (want[i] == nil) != (got[i] == nil) {
			t.Errorf("page index %d: %q, want %q", i, got[i], want[i])
		}
	}
}

var sentinels = []error{ErrNotPDF, ErrEmpty, ErrCorrupt, ErrPasswordRequired, ErrNoText}

func FuzzExtract(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/bad/*")
	// Not self-painting-form.pdf: PDFium paints it until its own recursion
	// limit ends it, about a minute (testdata/README.md).
	seeds = append(seeds, "testdata/handmade/cyclic-page-tree.pdf", "testdata/handmade/zh-ucs2-stsong.pdf")
	outlines, _ := filepath.Glob("testdata/outline/*.pdf")
	seeds = append(seeds, outlines...)
	small, _ := filepath.Glob("testdata/corpus/*.pdf")
	for _, path := range append(seeds, small...) {
		b, err := os.ReadFile(path)
		if err == nil && len(b) <= 64<<10 {
			f.Add(b)
		}
	}
	f.Add([]byte("%PDF-1.4\n%%EOF\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		doc, err := engine.Extract(ctx, bytes.NewReader(data), int64(len(data)), nil)
		if err != nil {
			for _, s := range sentinels {
				if errors.Is(err, s) {
					return
				}
			}
			t.Fatalf("error %v is none of the sentinel errors", err)
		}
		if len(doc.Pages) == 0 {
			t.Fatal("no pages and no error")
		}
		if !utf8.ValidString(doc.Title) || utf8.RuneCountInString(doc.Title) > maxTitleChars {
			t.Fatalf("title %q", doc.Title)
		}
		for i, p := range doc.Pages {
			if p.Number != i+1 || !utf8.ValidString(p.Text) {
				t.Fatalf("page %d: Number %d, valid UTF-8 %v", i+1, p.Number, utf8.ValidString(p.Text))
			}
			if len(p.Headings) > maxPageHeadings {
				t.Fatalf("page %d: %d headings", p.Number, len(p.Headings))
			}
			for _, h := range p.Headings {
				if h == "" || !utf8.ValidString(h) || utf8.RuneCountInString(h) > maxHeadingChars {
					t.Fatalf("page %d: heading %q", p.Number, h)
				}
			}
		}
	})
}

// BenchmarkExtractOnePage extracts a one-page document per iteration, end
// to end: a fresh WebAssembly module (BenchmarkFreshInstance), the file
// opened, its page read, the module closed. cpu-ms/op is this process's
// CPU time (wall time, ns/op, also counts the machine's other work).
func BenchmarkExtractOnePage(b *testing.B) {
	f, size := mustOpen(b, "testdata/corpus/en-inline-image.pdf")
	cpu0 := cpuTime()
	for b.Loop() {
		if _, err := engine.Extract(context.Background(), f, size, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((cpuTime()-cpu0).Seconds()*1000/float64(b.N), "cpu-ms/op")
}

// BenchmarkFreshInstance is what Extract pays per document for its
// isolation: a new module instantiated from the compiled engine (its data
// copied in, PDFium initialised), then closed.
func BenchmarkFreshInstance(b *testing.B) {
	cpu0 := cpuTime()
	for b.Loop() {
		inst, err := engine.pool.GetInstanceWithContext(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		_ = inst.Close()
	}
	b.ReportMetric((cpuTime()-cpu0).Seconds()*1000/float64(b.N), "cpu-ms/op")
}

// BenchmarkExtract extracts the whole corpus per iteration and reports
// pages per second of wall and of CPU time; compare with pdftotext over the
// same files (README, make bench).
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
	cpu0 := cpuTime()
	for b.Loop() {
		for _, d := range docs {
			doc, err := engine.Extract(context.Background(), d.f, d.size, nil)
			if err != nil {
				b.Fatal(err)
			}
			pages += len(doc.Pages)
		}
	}
	b.ReportMetric(float64(pages)/b.Elapsed().Seconds(), "pages/s")
	// On a machine shared with other work, wall time measures the
	// others too; the process's CPU time (PDFium runs in it, on one CPU
	// here) does not.
	b.ReportMetric(float64(pages)/(cpuTime()-cpu0).Seconds(), "pages/cpu-s")
}
