// Package ocr reads the text of page images with Tesseract 5's LSTM engine,
// run as the `tesseract` command: one process per page, the image handed
// over on its standard input as a PGM, the words read back from its TSV
// output with their confidence and box.
//
// The command, not Tesseract's C API through cgo: the service binary stays
// pure Go (CGO_ENABLED=0, one static file), and a process costs about 0.08 s
// to start and load English against about 2 s to read a page (see
// proto-docs/docqa-pdf-decisions.md, "OCR"). A process is also what can be
// killed when a page runs past its time budget or the upload is cancelled:
// a call into a C library cannot be stopped.
package ocr

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"log/slog"
	"maps"
	"math"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Defaults of Config.
const (
	DefaultPageTimeout = 60 * time.Second
	// DefaultMinWordConfidence drops words Tesseract reads with less
	// confidence (0..100) than this. Measured on the test corpus
	// (pdftext's TestOCRRecallOnScans logs it): English and German words
	// of real text sit at 92 and over (5th percentile), specks read as
	// words at about 20 to 30; but Chinese characters of real text read
	// lower (5th percentile 14 to 28), so a higher floor costs Chinese
	// recall: at 300 dpi, floor 0 keeps recall 0.923 / precision 0.923,
	// 30 gives 0.886 / 0.973, 50 gives 0.859 / 0.986, 70 gives 0.809;
	// English stays at 0.993 recall from 0 to 60 while its precision
	// rises from 0.987 (floor 0) to 0.998 (floor 30).
	DefaultMinWordConfidence = 30
	// DefaultMinPageConfidence reports a page as unreadable when the mean
	// confidence of all its words is below it: real pages measured 79 to
	// 80 (Chinese) and 94 to 96 (English, German), clean or noisy, at 200
	// or 300 dpi; pages of pure noise 23 to 30.
	DefaultMinPageConfidence = 50
	// MinOrientationConfidence is the least margin of OSD's orientation
	// over the next best for Auto to turn a page: Tesseract's own
	// (min_orientation_margin, what `--psm 1` turns pages by). Measured on
	// scans turned by 0, 90, 180 and 270 degrees, every orientation OSD
	// gave was right; the margins were 24 to 32 on English and Japanese
	// pages, 9 to 11 on Chinese ones, 10.7 on an Arabic page upright or
	// upside down and 4.6 on it turned by 90 (left unturned by this floor).
	MinOrientationConfidence = 7
)

// Errors of Recognize.
var (
	// ErrTimeout: the page ran past Config.PageTimeout; its process was
	// killed.
	ErrTimeout = errors.New("OCR ran past its time budget for the page")
	// ErrUnreadable: the mean confidence of the page's words is below
	// Config.MinPageConfidence; the Page is returned all the same, for
	// the log.
	ErrUnreadable = errors.New("OCR could not read the page (its words' mean confidence is below the floor)")
	// ErrMissingLanguage: a configured language has no traineddata.
	ErrMissingLanguage = errors.New("OCR language data is not installed")
)

// Word is one word Tesseract read, with its box in the image's pixels
// (origin top left) and its confidence (0..100). Block, Paragraph and Line
// number its place in Tesseract's layout.
type Word struct {
	Text                     string
	Confidence               float64
	Left, Top, Width, Height int
	Block, Paragraph, Line   int
}

// Page is what Recognize read from one image.
type Page struct {
	// Text is the kept words, a line of the layout a line here, a blank
	// line between paragraphs.
	Text string
	// Words are the words kept (at or above MinWordConfidence), in
	// reading order; their boxes give an OCR page's highlights.
	Words []Word
	// MeanConfidence is the mean confidence of every word read, kept or
	// not; 0 when none was read.
	MeanConfidence float64
	// Read counts every word read, kept or not.
	Read int
}

// Config configures an Engine.
type Config struct {
	// Command is the tesseract executable (Find).
	Command string
	// Languages are Tesseract's language codes, at least one (eng, deu,
	// chi_sim, ...); they are read together (`-l eng+deu`), unless Auto.
	Languages []string
	// Auto runs Tesseract's orientation and script detection on each page
	// first (`--psm 0 -l osd`, which needs the osd data), turns the page
	// upright, and reads it with the Languages of its script (NewPlan);
	// with all of them when OSD cannot tell.
	Auto bool
	// Concurrency is the most tesseract processes at once across the
	// service (default 1). Each runs on one thread: OMP_THREAD_LIMIT=1,
	// since Tesseract's OpenMP threads made a page four times slower in
	// wall time on a busy two-core machine (measured: 8.1 s against 2.0 s).
	Concurrency int
	// PageTimeout bounds one page (default DefaultPageTimeout).
	PageTimeout time.Duration
	// MinWordConfidence and MinPageConfidence: see the defaults. Zero
	// takes the default; negative keeps everything.
	MinWordConfidence float64
	MinPageConfidence float64
	Log               *slog.Logger
}

// Engine runs tesseract. It is safe for concurrent use.
type Engine struct {
	cfg   Config
	plan  Plan
	slots chan struct{}
}

// New returns an Engine for cfg; cfg.Command and cfg.Languages are
// required (see Find and Check).
func New(cfg Config) (*Engine, error) {
	if cfg.Command == "" || len(cfg.Languages) == 0 {
		return nil, errors.New("ocr: a command and at least one language are required")
	}
	if cfg.Concurrency < 1 {
		cfg.Concurrency = 1
	}
	if cfg.PageTimeout <= 0 {
		cfg.PageTimeout = DefaultPageTimeout
	}
	if cfg.MinWordConfidence == 0 {
		cfg.MinWordConfidence = DefaultMinWordConfidence
	}
	if cfg.MinPageConfidence == 0 {
		cfg.MinPageConfidence = DefaultMinPageConfidence
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	return &Engine{cfg: cfg, plan: NewPlan(cfg.Languages), slots: make(chan struct{}, cfg.Concurrency)}, nil
}

// Languages returns the configured languages.
func (e *Engine) Languages() []string { return slices.Clone(e.cfg.Languages) }

// Plan is which languages a page of each script reads with under Auto;
// false for a fixed list.
func (e *Engine) Plan() (Plan, bool) { return e.plan, e.cfg.Auto }

// Find returns the tesseract command: explicit when set (an error when it
// is not an executable file), else `tesseract` on PATH (exec.ErrNotFound
// when there is none).
func Find(explicit string) (string, error) {
	if explicit == "" {
		return exec.LookPath("tesseract")
	}
	st, err := os.Stat(explicit)
	if err != nil {
		return "", err
	}
	if st.IsDir() || st.Mode().Perm()&0o111 == 0 {
		return "", fmt.Errorf("%s is not an executable file", explicit)
	}
	return explicit, nil
}

// ParseLanguages reads OCR_LANGUAGES: Auto (auto true, no codes), or a
// fixed list of codes ("eng+deu", spaces and commas also separate). An
// empty list, auto among codes, or a code of other characters than
// letters, digits and '_' is an error.
func ParseLanguages(s string) (codes []string, auto bool, err error) {
	codes = strings.FieldsFunc(s, func(r rune) bool { return r == '+' || r == ',' || unicode.IsSpace(r) })
	if len(codes) == 0 {
		return nil, false, errors.New("no language given (auto, or codes such as eng or eng+deu)")
	}
	if slices.Contains(codes, Auto) {
		if len(codes) > 1 {
			return nil, false, fmt.Errorf("%q: auto reads every installed language and stands alone", s)
		}
		return nil, true, nil
	}
	for _, c := range codes {
		if strings.IndexFunc(c, func(r rune) bool { return !(r == '_' || r < 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r))) }) >= 0 {
			return nil, false, fmt.Errorf("%q is not a Tesseract language code (e.g. eng, deu, chi_sim)", c)
		}
	}
	return slices.Compact(codes), false, nil
}

// Check asks command for its version and its installed languages and
// returns the version line and the languages (osd among them when
// installed). A version before 4 (no LSTM engine) is an error; a language
// of langs without traineddata is an error wrapping ErrMissingLanguage
// that names it and the directory searched.
func Check(ctx context.Context, command string, langs []string) (version string, installed []string, err error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, command, "--version").CombinedOutput()
	if err != nil {
		return "", nil, fmt.Errorf("%s --version: %w (%s)", command, err, firstLine(out))
	}
	version = firstLine(out)
	fields := strings.Fields(version)
	if len(fields) < 2 || fields[0] != "tesseract" {
		return "", nil, fmt.Errorf("%s --version answered %q: not tesseract", command, version)
	}
	major, _, _ := strings.Cut(strings.TrimPrefix(fields[1], "v"), ".")
	if n, err := strconv.Atoi(major); err != nil || n < 4 {
		return "", nil, fmt.Errorf("%s is %s: the LSTM engine needs Tesseract 4 or newer (5 is tested)", command, version)
	}
	out, err = exec.CommandContext(ctx, command, "--list-langs").CombinedOutput()
	if err != nil {
		return "", nil, fmt.Errorf("%s --list-langs: %w (%s)", command, err, firstLine(out))
	}
	have, dir := listedLanguages(out)
	for _, l := range langs {
		if !have[l] {
			return "", nil, fmt.Errorf("%w: %q (no %s.traineddata in %s; install it, e.g. apt-get install tesseract-ocr-%s, or remove it from OCR_LANGUAGES)",
				ErrMissingLanguage, l, l, dir, strings.ReplaceAll(l, "_", "-"))
		}
	}
	return version, slices.Sorted(maps.Keys(have)), nil
}

// listedLanguages reads `tesseract --list-langs`: a header line naming the
// directory ("List of available languages in "/usr/share/...tessdata/"
// (4):"), then one code a line.
func listedLanguages(out []byte) (map[string]bool, string) {
	have, dir := map[string]bool{}, "the tessdata directory"
	for i, line := range strings.Split(string(out), "\n") {
		line = strings.TrimSpace(line)
		if i == 0 && strings.HasPrefix(line, "List of available languages") {
			if _, rest, ok := strings.Cut(line, `"`); ok {
				if d, _, ok := strings.Cut(rest, `"`); ok {
					dir = d
				}
			}
			continue
		}
		if line != "" {
			have[line] = true
		}
	}
	return have, dir
}

func firstLine(b []byte) string {
	line, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return strings.TrimSpace(line)
}

// Recognize reads the text of img, a page rendered at dpi, waiting for a
// free process slot first (bounded by ctx, not by the page's budget). With
// Auto, OSD tells the page's script and orientation first, within the same
// budget; the words' boxes are the page's as given, turned or not.
// Errors: ErrTimeout, ErrUnreadable (with the Page), ctx's error (the
// process is killed), or the command's failure.
func (e *Engine) Recognize(ctx context.Context, img *image.Gray, dpi int) (Page, error) {
	select {
	case e.slots <- struct{}{}:
	case <-ctx.Done():
		return Page{}, ctx.Err()
	}
	defer func() { <-e.slots }()
	if err := ctx.Err(); err != nil {
		return Page{}, err
	}

	pctx, cancel := context.WithTimeout(ctx, e.cfg.PageTimeout)
	defer cancel()
	langs, turn := e.cfg.Languages, 0
	if e.cfg.Auto {
		osd, err := e.detect(ctx, pctx, img, dpi)
		switch {
		case ctx.Err() != nil:
			return Page{}, ctx.Err()
		case pctx.Err() != nil:
			return Page{}, ErrTimeout
		case err != nil:
			// Too few characters to tell (a title page, a blank or noisy
			// one): every language reads it, which costs little on a page
			// of little text.
			langs = e.plan.Languages
			e.cfg.Log.DebugContext(ctx, "OCR: OSD told no script; every language reads the page", "err", err)
		default:
			langs = e.plan.For(osd.Script)
			if osd.OrientationConfidence >= MinOrientationConfidence {
				turn = osd.Rotate
			}
			e.cfg.Log.DebugContext(ctx, "OCR: OSD", "script", osd.Script, "script_confidence", osd.ScriptConfidence,
				"rotate", osd.Rotate, "orientation_confidence", osd.OrientationConfidence, "languages", langs, "turned", turn)
		}
	}
	out, err := e.run(ctx, pctx, Rotate(img, turn), "--oem", "1", "--psm", "3", "--dpi", strconv.Itoa(dpi),
		"-l", strings.Join(langs, "+"), "tsv")
	if err != nil {
		return Page{}, err
	}
	words, err := ParseTSV(bytes.NewReader(out))
	if err != nil {
		return Page{}, fmt.Errorf("ocr: reading tesseract's TSV: %w", err)
	}
	if turn != 0 {
		for i := range words {
			words[i] = unrotate(words[i], turn, img.Rect.Dx(), img.Rect.Dy())
		}
	}
	return Judge(words, e.cfg.MinWordConfidence, e.cfg.MinPageConfidence)
}

// detect runs Tesseract's orientation and script detection on img.
func (e *Engine) detect(ctx, pctx context.Context, img *image.Gray, dpi int) (OSD, error) {
	out, err := e.run(ctx, pctx, img, "--psm", "0", "--dpi", strconv.Itoa(dpi), "-l", "osd")
	if err != nil {
		return OSD{}, err
	}
	return ParseOSD(out)
}

// run runs the command on img (its standard input, as a PGM) with args
// after `stdin stdout` and returns its standard output. Errors: ctx's,
// ErrTimeout when pctx (the page's budget) ended, or the command's failure
// with the first line it printed.
func (e *Engine) run(ctx, pctx context.Context, img *image.Gray, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(pctx, e.cfg.Command, append([]string{"stdin", "stdout"}, args...)...)
	cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
	cmd.Stdin = bytes.NewReader(PGM(img))
	var stdout bytes.Buffer
	stderr := &limitedBuffer{max: 4 << 10}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	// A killed tesseract may leave its pipes to a child that holds them:
	// Wait gives up on them after this.
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case pctx.Err() != nil:
		return nil, ErrTimeout
	case err != nil:
		return nil, fmt.Errorf("ocr: %s: %w (%s)", e.cfg.Command, err, firstLine(stderr.Bytes()))
	}
	return stdout.Bytes(), nil
}

// Judge makes a page of the words read: it keeps those at or above
// minWord and writes their text; ErrUnreadable (with the page) when words
// were read and their mean confidence is below minPage.
func Judge(words []Word, minWord, minPage float64) (Page, error) {
	var p Page
	sum := 0.0
	for _, w := range words {
		p.Read++
		sum += w.Confidence
		if w.Confidence >= minWord {
			p.Words = append(p.Words, w)
		}
	}
	if p.Read > 0 {
		p.MeanConfidence = sum / float64(p.Read)
	}
	p.Text = Text(p.Words)
	if p.Read > 0 && p.MeanConfidence < minPage {
		return p, ErrUnreadable
	}
	return p, nil
}

// Text writes words (in Tesseract's reading order) as text: the words of a
// line joined by spaces, except between two CJK characters (Tesseract cuts
// Chinese into words that the text has no spaces between), lines by "\n",
// blocks and paragraphs by a blank line.
func Text(words []Word) string {
	text, _ := Layout(words)
	return text
}

// Layout is Text with, for each word, the byte offset in the text where
// it starts: what maps a part of the text back to the words (and boxes)
// it came from.
func Layout(words []Word) (string, []int) {
	var b strings.Builder
	starts := make([]int, len(words))
	for i, w := range words {
		if i > 0 {
			prev := words[i-1]
			switch {
			case w.Block != prev.Block || w.Paragraph != prev.Paragraph:
				b.WriteString("\n\n")
			case w.Line != prev.Line:
				b.WriteString("\n")
			case !(endsCJK(prev.Text) && startsCJK(w.Text)):
				b.WriteString(" ")
			}
		}
		starts[i] = b.Len()
		b.WriteString(w.Text)
	}
	return b.String(), starts
}

func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) ||
		r >= 0x3000 && r <= 0x303f || r >= 0xff00 && r <= 0xffef // CJK punctuation, full-width forms
}

func startsCJK(s string) bool {
	for _, r := range s {
		return isCJK(r)
	}
	return false
}

func endsCJK(s string) bool {
	r := []rune(s)
	return len(r) > 0 && isCJK(r[len(r)-1])
}

// ParseTSV reads Tesseract's TSV output and returns its words (level 5
// rows with text that is not blank), in order. Rows of other levels are
// skipped; a word row that does not parse is an error naming its line.
func ParseTSV(r io.Reader) ([]Word, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var words []Word
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if n == 1 && strings.HasPrefix(line, "level\t") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) < 12 || f[0] != "5" {
			continue
		}
		text := strings.TrimSpace(strings.Join(f[11:], " "))
		if text == "" {
			continue
		}
		var ints [9]int
		for i := range ints {
			v, err := strconv.Atoi(f[1+i])
			if err != nil {
				return nil, fmt.Errorf("line %d: column %d: %w", n, 2+i, err)
			}
			ints[i] = v
		}
		conf, err := strconv.ParseFloat(f[10], 64)
		if err != nil || math.IsNaN(conf) || math.IsInf(conf, 0) {
			return nil, fmt.Errorf("line %d: confidence %q is not a number", n, f[10])
		}
		words = append(words, Word{
			Text: text, Confidence: max(0, min(conf, 100)),
			Block: ints[1], Paragraph: ints[2], Line: ints[3],
			Left: ints[5], Top: ints[6], Width: ints[7], Height: ints[8],
		})
	}
	return words, sc.Err()
}

// PGM encodes img as a binary PGM (P5), which Tesseract reads from its
// standard input without a decoder of its own to run (PNG would cost a
// compression here and a decompression there).
func PGM(img *image.Gray) []byte {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	header := fmt.Sprintf("P5\n%d %d\n255\n", w, h)
	out := make([]byte, 0, len(header)+w*h)
	out = append(out, header...)
	for y := range h {
		start := img.PixOffset(img.Rect.Min.X, img.Rect.Min.Y+y)
		out = append(out, img.Pix[start:start+w]...)
	}
	return out
}

// limitedBuffer keeps the first max bytes written to it: tesseract's
// warnings, for the error message, without holding a chatty stderr whole.
type limitedBuffer struct {
	bytes.Buffer
	max int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
