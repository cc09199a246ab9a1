package ocr_test

import (
	"context"
	"errors"
	"image"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/carhub/backend/services/docqa/internal/ocr"
	"github.com/carhub/backend/services/docqa/internal/ocr/ocrtest"
)

const tsv = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n" +
	"1\t1\t0\t0\t0\t0\t0\t0\t2480\t3508\t-1\t\n" +
	"5\t1\t1\t1\t1\t1\t232\t166\t2121\t72\t95.000000\t \n" +
	"5\t1\t2\t1\t1\t1\t300\t500\t120\t40\t96.5\tCheck\n" +
	"5\t1\t2\t1\t1\t2\t430\t500\t60\t40\t91.25\tthe\n" +
	"5\t1\t2\t1\t2\t1\t300\t550\t80\t40\t12\t~=\n" +
	"5\t1\t2\t1\t2\t2\t390\t550\t80\t40\t88\toil.\n" +
	"5\t1\t3\t1\t1\t1\t300\t700\t40\t40\t90\t机油\n" +
	"5\t1\t3\t1\t1\t2\t340\t700\t40\t40\t85\t液位\n" +
	"5\t1\t3\t1\t1\t3\t380\t700\t40\t40\t85\tOK\n"

func TestParseTSVAndJudge(t *testing.T) {
	words, err := ocr.ParseTSV(strings.NewReader(tsv))
	if err != nil {
		t.Fatal(err)
	}
	if len(words) != 7 {
		t.Fatalf("%d words, want 7 (blank words and other levels are not words): %+v", len(words), words)
	}
	want := ocr.Word{Text: "Check", Confidence: 96.5, Left: 300, Top: 500, Width: 120, Height: 40, Block: 2, Paragraph: 1, Line: 1}
	if words[0] != want {
		t.Fatalf("first word %+v, want %+v", words[0], want)
	}
	p, err := ocr.Judge(words, 30, 50)
	if err != nil {
		t.Fatal(err)
	}
	// "~=" (12) is dropped; lines break, blocks get a blank line, Chinese
	// words join without a space but not to a Latin word.
	if wantText := "Check the\noil.\n\n机油液位 OK"; p.Text != wantText {
		t.Fatalf("text %q, want %q", p.Text, wantText)
	}
	// Layout says where each kept word starts in that text.
	text, starts := ocr.Layout(p.Words)
	if text != p.Text || !slices.Equal(starts, []int{0, 6, 10, 16, 22, 29}) {
		t.Fatalf("Layout = %q, %v", text, starts)
	}
	for i, w := range p.Words {
		if !strings.HasPrefix(text[starts[i]:], w.Text) {
			t.Fatalf("word %d %q does not start at %d of %q", i, w.Text, starts[i], text)
		}
	}
	if p.Read != 7 || len(p.Words) != 6 || p.MeanConfidence < 78.2 || p.MeanConfidence > 78.3 {
		t.Fatalf("read %d, kept %d, mean %.3f (want 7, 6, 78.25)", p.Read, len(p.Words), p.MeanConfidence)
	}
	if _, err := ocr.Judge(words, 30, 80); !errors.Is(err, ocr.ErrUnreadable) {
		t.Fatalf("mean 78.25 under a page floor of 80: %v", err)
	}
	if p, err := ocr.Judge(nil, 30, 50); err != nil || p.Text != "" || p.Read != 0 {
		t.Fatalf("no words: %+v, %v", p, err)
	}

	if _, err := ocr.ParseTSV(strings.NewReader("5\t1\tx\t1\t1\t1\t0\t0\t1\t1\t90\tword\n")); err == nil {
		t.Fatal("a word row with a bad number parsed")
	}
}

func TestParseLanguages(t *testing.T) {
	for in, want := range map[string][]string{"eng": {"eng"}, "eng+deu+chi_sim": {"eng", "deu", "chi_sim"}, " eng, deu ": {"eng", "deu"}} {
		got, auto, err := ocr.ParseLanguages(in)
		if err != nil || auto || !slices.Equal(got, want) {
			t.Errorf("ParseLanguages(%q) = %q, %v, %v; want %q", in, got, auto, err, want)
		}
	}
	for _, in := range []string{"auto", " auto "} {
		if got, auto, err := ocr.ParseLanguages(in); err != nil || !auto || got != nil {
			t.Errorf("ParseLanguages(%q) = %q, %v, %v; want auto", in, got, auto, err)
		}
	}
	for _, bad := range []string{"", "+", "eng+../x", "eng;rm", "auto+eng", "eng,auto"} {
		if _, _, err := ocr.ParseLanguages(bad); err == nil {
			t.Errorf("ParseLanguages(%q) passed", bad)
		}
	}
}

// fakeTesseract writes a shell script that answers --version and
// --list-langs as tesseract 5 does, with langs installed.
func fakeTesseract(t *testing.T, version string, langs ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tesseract")
	script := "#!/bin/sh\ncase \"$1\" in\n--version) echo '" + version + "'; echo ' leptonica-1.82.0';;\n" +
		"--list-langs) echo 'List of available languages in \"/opt/tessdata/\" (" + "n" + "):'; printf '%s\\n' " + strings.Join(langs, " ") + ";;\nesac\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCheckNamesTheMissingLanguage(t *testing.T) {
	cmd := fakeTesseract(t, "tesseract 5.3.0", "eng", "osd", "chi_sim")
	version, installed, err := ocr.Check(context.Background(), cmd, []string{"eng", "chi_sim"})
	if err != nil || version != "tesseract 5.3.0" || !slices.Equal(installed, []string{"chi_sim", "eng", "osd"}) {
		t.Fatalf("Check: %q, %q, %v", version, installed, err)
	}
	_, _, err = ocr.Check(context.Background(), cmd, []string{"eng", "deu"})
	if !errors.Is(err, ocr.ErrMissingLanguage) || !strings.Contains(err.Error(), `"deu" (no deu.traineddata in /opt/tessdata/`) ||
		!strings.Contains(err.Error(), "tesseract-ocr-deu") {
		t.Fatalf("missing deu: %v", err)
	}
	old := fakeTesseract(t, "tesseract 3.05.01", "eng")
	if _, _, err := ocr.Check(context.Background(), old, []string{"eng"}); err == nil || !strings.Contains(err.Error(), "Tesseract 4 or newer") {
		t.Fatalf("tesseract 3: %v", err)
	}
}

func TestFind(t *testing.T) {
	cmd := fakeTesseract(t, "tesseract 5.3.0", "eng")
	if got, err := ocr.Find(cmd); err != nil || got != cmd {
		t.Fatalf("Find(%s) = %q, %v", cmd, got, err)
	}
	if _, err := ocr.Find(filepath.Join(t.TempDir(), "none")); err == nil {
		t.Fatal("a missing OCR_TESSERACT was found")
	}
	t.Setenv("PATH", t.TempDir())
	if _, err := ocr.Find(""); err == nil {
		t.Fatal("tesseract found on an empty PATH")
	}
}

func TestPGM(t *testing.T) {
	img := image.NewGray(image.Rect(0, 0, 4, 4)).SubImage(image.Rect(1, 1, 3, 4)).(*image.Gray)
	img.Pix[img.PixOffset(2, 3)] = 7
	if got, want := string(ocr.PGM(img)), "P5\n2 3\n255\n\x00\x00\x00\x00\x00\x07"; got != want {
		t.Fatalf("PGM %q, want %q", got, want)
	}
}

// Cancelling the context kills the page's process at once; the engine's
// slot is free again after it.
func TestRecognizeCancelKillsTheProcess(t *testing.T) {
	cmd := ocrtest.Require(t)
	e, err := ocr.New(ocr.Config{Command: cmd, Languages: []string{"eng"}})
	if err != nil {
		t.Fatal(err)
	}
	img := ocrtest.Noise(2480, 3508, 5) // about 3 s of tesseract
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	_, err = e.Recognize(ctx, img, 300)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	if took := time.Since(start); took > 1500*time.Millisecond {
		t.Fatalf("returned %s after the start, the cancel was at 300ms: the process was not killed", took)
	}
	// The slot was given back: a page runs.
	small := image.NewGray(image.Rect(0, 0, 300, 100))
	for i := range small.Pix {
		small.Pix[i] = 255
	}
	if p, err := e.Recognize(context.Background(), small, 300); err != nil || p.Read != 0 {
		t.Fatalf("after a cancel, a blank image: %+v, %v", p, err)
	}
}

func FuzzParseTSV(f *testing.F) {
	f.Add(tsv)
	f.Add("5\t1\t1\t1\t1\t1\t0\t0\t1\t1\tNaN\tx\n")
	f.Fuzz(func(t *testing.T, in string) {
		words, err := ocr.ParseTSV(strings.NewReader(in))
		if err != nil {
			return
		}
		for _, w := range words {
			if strings.TrimSpace(w.Text) == "" || !(w.Confidence >= 0 && w.Confidence <= 100) {
				t.Fatalf("word %+v", w)
			}
		}
		_, _ = ocr.Judge(words, 30, 50)
	})
}

// scriptTesseract is a tesseract that runs body for a page (stdin: the
// image; stdout: its TSV).
func scriptTesseract(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tesseract")
	if err := os.WriteFile(path, []byte("#!/bin/sh\ncat >/dev/null\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// OCR_CONCURRENCY bounds the processes running at once.
func TestRecognizeConcurrencyIsBounded(t *testing.T) {
	for _, limit := range []int{1, 2} {
		dir := t.TempDir()
		cmd := scriptTesseract(t, `mkdir "`+dir+`/run.$$"; ls -d "`+dir+`"/run.* | wc -l >> "`+dir+`/seen"; sleep 0.4; rmdir "`+dir+`/run.$$"`)
		e, err := ocr.New(ocr.Config{Command: cmd, Languages: []string{"eng"}, Concurrency: limit})
		if err != nil {
			t.Fatal(err)
		}
		img := image.NewGray(image.Rect(0, 0, 10, 10))
		errs := make(chan error, 4)
		for range 4 {
			go func() { _, err := e.Recognize(context.Background(), img, 300); errs <- err }()
		}
		for range 4 {
			if err := <-errs; err != nil {
				t.Fatal(err)
			}
		}
		seen, err := os.ReadFile(filepath.Join(dir, "seen"))
		if err != nil {
			t.Fatal(err)
		}
		most := 0
		for _, f := range strings.Fields(string(seen)) {
			n := 0
			for _, c := range f {
				n = n*10 + int(c-'0')
			}
			most = max(most, n)
		}
		if most != limit {
			t.Errorf("Concurrency %d: at most %d processes ran at once (%q)", limit, most, seen)
		}
	}
}

// A failing tesseract is an error that says what it printed.
func TestRecognizeFailureSaysWhy(t *testing.T) {
	cmd := scriptTesseract(t, `echo "Error opening data file eng.traineddata" >&2; exit 1`)
	e, err := ocr.New(ocr.Config{Command: cmd, Languages: []string{"eng"}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Recognize(context.Background(), image.NewGray(image.Rect(0, 0, 10, 10)), 300)
	if err == nil || !strings.Contains(err.Error(), "Error opening data file eng.traineddata") {
		t.Fatalf("err = %v", err)
	}
}
