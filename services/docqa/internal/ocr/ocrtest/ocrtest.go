// Package ocrtest serves the tests that run Tesseract: it finds the tools
// (failing under CI=true when one is missing, skipping with a message
// otherwise), makes scans of text PDFs the way a scanner would (pdftoppm,
// then ImageMagick's rotation and noise), and writes image-only and mixed
// PDFs of them.
package ocrtest

import (
	"bytes"
	"compress/zlib"
	"crypto/md5"
	"errors"
	"fmt"
	"html"
	"image"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/agext/levenshtein"

	"github.com/carhub/backend/services/docqa/internal/tooltest"
)

// Require returns the tesseract command after checking that it and the
// tools named in also (pdftoppm, convert, pdftotext) are installed. A
// missing one fails the test under CI=true (.ci/run installs them) and
// skips it elsewhere, saying what to install.
func Require(tb testing.TB, also ...string) string {
	tb.Helper()
	command := tooltest.RequireTool(tb, "tesseract")
	for _, tool := range also {
		tooltest.RequireTool(tb, tool)
	}
	return command
}

// Scan renders page (1-based) of the PDF at path at dpi in gray with
// pdftoppm and, when noisy, turns it by 1.5 degrees and adds Gaussian noise
// with ImageMagick (`convert -rotate 1.5 -attenuate 0.3 +noise Gaussian`),
// as a sheet fed slightly askew through a scanner.
//
// A test process makes each scan once: the same page of the same PDF
// (by content) at the same dpi gives the same image to every test that
// asks, which must not change it. The images pass as PGM (a header and the
// pixels), which costs nothing to write and read where PNG's compression
// of a noisy 300 dpi page cost over a second each way, and ImageMagick runs
// on one thread, as its threads only wait on each other on a busy machine.
func Scan(tb testing.TB, path string, page, dpi int, noisy bool) *image.Gray {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	key := scanKey{md5.Sum(data), page, dpi, noisy}
	scansMu.Lock()
	s, ok := scans[key]
	if !ok {
		s = &scan{}
		scans[key] = s
	}
	scansMu.Unlock()
	s.once.Do(func() { s.img, s.err = makeScan(tb.TempDir(), path, page, dpi, noisy) })
	if s.err != nil {
		tb.Fatal(s.err)
	}
	return s.img
}

type scanKey struct {
	pdf   [md5.Size]byte
	page  int
	dpi   int
	noisy bool
}

type scan struct {
	once sync.Once
	img  *image.Gray
	err  error
}

var (
	scansMu sync.Mutex
	scans   = map[scanKey]*scan{}
)

func makeScan(dir, path string, page, dpi int, noisy bool) (*image.Gray, error) {
	p := strconv.Itoa(page)
	if _, err := command("pdftoppm", "-r", strconv.Itoa(dpi), "-gray", "-f", p, "-l", p, "-singlefile", path, filepath.Join(dir, "page")); err != nil {
		return nil, err
	}
	file := filepath.Join(dir, "page.pgm")
	if noisy {
		noisyFile := filepath.Join(dir, "noisy.pgm")
		if _, err := command("convert", file, "-background", "white", "-rotate", "1.5", "-attenuate", "0.3", "+noise", "Gaussian",
			"-colorspace", "Gray", "-depth", "8", noisyFile); err != nil {
			return nil, err
		}
		file = noisyFile
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	img, err := parsePGM(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return img, nil
}

// parsePGM reads a binary 8-bit PGM (P5): the header's magic, width,
// height and maximum value, separated by white space (comments aside),
// then one byte per pixel.
func parsePGM(data []byte) (*image.Gray, error) {
	var fields []int
	i := 0
	if !bytes.HasPrefix(data, []byte("P5")) {
		return nil, errors.New("not a binary PGM")
	}
	i = 2
	for len(fields) < 3 {
		for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r' || data[i] == '#') {
			if data[i] == '#' {
				for i < len(data) && data[i] != '\n' {
					i++
				}
				continue
			}
			i++
		}
		j := i
		for j < len(data) && data[j] >= '0' && data[j] <= '9' {
			j++
		}
		n, err := strconv.Atoi(string(data[i:j]))
		if err != nil {
			return nil, fmt.Errorf("PGM header: %w", err)
		}
		fields = append(fields, n)
		i = j
	}
	w, h, maxVal := fields[0], fields[1], fields[2]
	i++ // the one white-space byte before the pixels
	if maxVal != 255 || w <= 0 || h <= 0 || len(data)-i != w*h {
		return nil, fmt.Errorf("PGM of %d x %d, maximum %d, %d bytes of pixels: want 8 bits a pixel", w, h, maxVal, len(data)-i)
	}
	g := image.NewGray(image.Rect(0, 0, w, h))
	copy(g.Pix, data[i:])
	return g, nil
}

// PageText is pdftotext's text of page (1-based) of the PDF at path: the
// reference OCR is scored against.
func PageText(tb testing.TB, path string, page int) string {
	tb.Helper()
	p := strconv.Itoa(page)
	return string(run(tb, "pdftotext", "-f", p, "-l", p, "-enc", "UTF-8", path, "-"))
}

// Box is a word's box from pdftotext -bbox, as fractions of its page
// (origin top left): where the tests expect a highlight of it.
type Box struct {
	Text                     string
	Left, Top, Right, Bottom float64
}

var (
	bboxPage = regexp.MustCompile(`<page width="([\d.]+)" height="([\d.]+)">`)
	bboxWord = regexp.MustCompile(`<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</word>`)
)

// WordBoxes are pdftotext's word boxes of page (1-based) of the PDF at
// path, in its reading order.
func WordBoxes(tb testing.TB, path string, page int) []Box {
	tb.Helper()
	p := strconv.Itoa(page)
	out := run(tb, "pdftotext", "-bbox", "-f", p, "-l", p, path, "-")
	m := bboxPage.FindSubmatch(out)
	if m == nil {
		tb.Fatalf("pdftotext -bbox: no page in %s", out)
	}
	pw, _ := strconv.ParseFloat(string(m[1]), 64)
	ph, _ := strconv.ParseFloat(string(m[2]), 64)
	var boxes []Box
	for _, m := range bboxWord.FindAllSubmatch(out, -1) {
		f := func(i int) float64 { v, _ := strconv.ParseFloat(string(m[i]), 64); return v }
		boxes = append(boxes, Box{Text: html.UnescapeString(string(m[5])), Left: f(1) / pw, Top: f(2) / ph, Right: f(3) / pw, Bottom: f(4) / ph})
	}
	return boxes
}

// LineBox is the box around the run of boxes of one line (equal tops)
// whose texts spell line, spaces aside; false when there is none. OCR may
// misread a character and split a word there: the test PDFs name
// Helvetica without embedding it, so the scan is drawn in whatever font
// the machine's fontconfig puts in its place, and with DejaVu Sans (a
// machine with no other sans font) Tesseract reads "Jahre" as "] ahre",
// whichever of its dot-product paths it takes. So a run matches within one
// edit in 20 characters (at least 2), and the closest run wins (the first
// of equals).
func LineBox(boxes []Box, line string) (Box, bool) {
	target := strings.Join(strings.Fields(line), "")
	if target == "" {
		return Box{}, false
	}
	tol := max(2, utf8.RuneCountInString(target)/20)
	best, bestDist := Box{}, tol+1
	for i := range boxes {
		box, text := boxes[i], ""
		for j := i; j < len(boxes) && boxes[j].Top == boxes[i].Top; j++ {
			b := boxes[j]
			text += b.Text
			box.Left, box.Right = min(box.Left, b.Left), max(box.Right, b.Right)
			box.Top, box.Bottom = min(box.Top, b.Top), max(box.Bottom, b.Bottom)
			if len(text) > len(target)+4*tol {
				break
			}
			if d := levenshtein.Distance(text, target, nil); d < bestDist {
				best, bestDist = box, d
			}
		}
	}
	if bestDist > tol {
		return Box{}, false
	}
	best.Text = line
	return best, true
}

func run(tb testing.TB, name string, args ...string) []byte {
	tb.Helper()
	out, err := command(name, args...)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// command runs name with args and returns its output, or an error that
// holds its standard error. ImageMagick runs on one thread.
func command(name string, args ...string) ([]byte, error) {
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), "MAGICK_THREAD_LIMIT=1")
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		return nil, fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr)
	}
	return out, nil
}

// Noise returns a page of pure noise of w x h pixels: black specks of 3 x 3
// pixels on 30% of the page, which Tesseract takes for a few words of
// garbage read with little confidence (uniform gray noise it takes for no
// text at all). What OCR must report as unreadable rather than index.
func Noise(w, h int, seed uint64) *image.Gray {
	const cell = 3
	rng := rand.New(rand.NewPCG(seed, 3))
	g := image.NewGray(image.Rect(0, 0, w, h))
	for y := 0; y < h; y += cell {
		// The first row of a band of cells, then copies of it.
		row := g.Pix[g.PixOffset(0, y) : g.PixOffset(0, y)+w]
		for x := 0; x < w; x += cell {
			v := byte(255)
			if rng.Float64() < 0.3 {
				v = 0
			}
			for dx := x; dx < x+cell && dx < w; dx++ {
				row[dx] = v
			}
		}
		for dy := 1; dy < cell && y+dy < h; dy++ {
			copy(g.Pix[g.PixOffset(0, y+dy):], row)
		}
	}
	return g
}

// Page is one page of a PDF that PDF writes: Text (Latin-1, shown in
// Helvetica 11 pt) or an Image filling the page, scanned at DPI.
type Page struct {
	Text  string
	Image *image.Gray
	DPI   int
}

// PDF writes a PDF of pages: text pages on A4 with a text layer, image
// pages of the image's size at its DPI with none (an image-only page, as
// a scanner makes).
func PDF(pages ...Page) []byte {
	var b bytes.Buffer
	var offsets []int
	obj := func(body string) int {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offsets), body)
		return len(offsets)
	}
	stream := func(dict string, data []byte) int {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n<< %s /Length %d >>\nstream\n", len(offsets), dict, len(data))
		b.Write(data)
		b.WriteString("\nendstream\nendobj\n")
		return len(offsets)
	}
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	font := obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	pagesNum := len(offsets) + 1 // reserved below, written last
	offsets = append(offsets, 0)
	var kids []string
	for _, p := range pages {
		var content bytes.Buffer
		var resources string
		width, height := 595.0, 842.0
		if p.Image != nil {
			w, h := p.Image.Rect.Dx(), p.Image.Rect.Dy()
			// The fastest compression: the default's search for matches
			// took seconds on a noisy 300 dpi page under -race.
			var z bytes.Buffer
			zw, _ := zlib.NewWriterLevel(&z, zlib.BestSpeed)
			for y := p.Image.Rect.Min.Y; y < p.Image.Rect.Max.Y; y++ {
				i := p.Image.PixOffset(p.Image.Rect.Min.X, y)
				zw.Write(p.Image.Pix[i : i+w])
			}
			zw.Close()
			img := stream(fmt.Sprintf("/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode", w, h), z.Bytes())
			width, height = float64(w)*72/float64(p.DPI), float64(h)*72/float64(p.DPI)
			resources = fmt.Sprintf("/XObject << /Im1 %d 0 R >>", img)
			fmt.Fprintf(&content, "q %.2f 0 0 %.2f 0 0 cm /Im1 Do Q\n", width, height)
		} else {
			resources = fmt.Sprintf("/Font << /F1 %d 0 R >>", font)
			content.WriteString("BT /F1 11 Tf 15 TL 60 780 Td\n")
			for _, line := range strings.Split(p.Text, "\n") {
				fmt.Fprintf(&content, "(%s) Tj T*\n", latin1(line))
			}
			content.WriteString("ET\n")
		}
		c := stream("", content.Bytes())
		kids = append(kids, fmt.Sprintf("%d 0 R", obj(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 %.2f %.2f] /Resources << %s >> /Contents %d 0 R >>",
			pagesNum, width, height, resources, c))))
	}
	offsets[pagesNum-1] = b.Len()
	fmt.Fprintf(&b, "%d 0 obj\n<< /Type /Pages /Kids [%s] /Count %d >>\nendobj\n", pagesNum, strings.Join(kids, " "), len(kids))
	catalog := obj(fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", pagesNum))
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, o := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, catalog, xref)
	return b.Bytes()
}

// latin1 writes s as a PDF string body in WinAnsiEncoding, which agrees
// with Latin-1 on its letters (ä, ö, ü, ß, é, ...); others become '?'.
func latin1(s string) string {
	var sb strings.Builder
	for _, r := range s {
		switch {
		case r == '(' || r == ')' || r == '\\':
			sb.WriteByte('\\')
			sb.WriteRune(r)
		case r >= 0x20 && r < 0x7f:
			sb.WriteRune(r)
		case r >= 0xa0 && r <= 0xff:
			fmt.Fprintf(&sb, "\\%03o", r)
		default:
			sb.WriteByte('?')
		}
	}
	return sb.String()
}

// WriteFile writes data to a file in a test's temporary directory and
// returns its path.
func WriteFile(tb testing.TB, name string, data []byte) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		tb.Fatal(err)
	}
	return path
}

// German is a page of an owner's manual in German, umlauts and ß in it.
const German = `Betriebsanleitung - Kapitel 4: Reifen und Räder
Prüfen Sie den Reifendruck mindestens einmal im Monat und vor jeder
längeren Fahrt, und zwar bei kalten Reifen. Der vorgeschriebene Druck
steht auf einem Schild an der Tür des Fahrers und in der Tankklappe.
Zu niedriger Reifendruck erhöht den Kraftstoffverbrauch und den
Verschleiß der Reifen; bei hoher Zuladung ist der Druck zu erhöhen.
Die Profiltiefe muss mindestens 1,6 Millimeter betragen. Für Winterreifen
empfehlen wir jedoch mindestens vier Millimeter, damit die Reifen auf
Schnee und Eis ausreichend greifen. Ersetzen Sie Reifen, die älter als
sechs Jahre sind, auch wenn das Profil noch genügend tief erscheint.
Beim Radwechsel ziehen Sie die Radschrauben über Kreuz mit einem
Drehmoment von 120 Newtonmeter an. Nach fünfzig Kilometern Fahrt sind
die Schrauben nachzuziehen. Schäden an der Flanke eines Reifens lassen
Sie bitte sofort in einer Fachwerkstatt prüfen; fahren Sie mit einem
beschädigten Reifen nicht schneller als achtzig Kilometer pro Stunde.
Kapitel 5: Bremsen
Die Bremsflüssigkeit ist alle zwei Jahre zu wechseln, weil sie Wasser
aus der Luft aufnimmt und ihr Siedepunkt dadurch sinkt. Geräusche beim
Bremsen oder ein längerer Pedalweg sind Warnzeichen: Suchen Sie dann
umgehend eine Werkstatt auf.`

// English is a page of an owner's manual in English.
const English = `Owner's Manual - Chapter 6: Engine Oil
Check the engine oil level every time you refuel, with the car standing
on level ground and the engine switched off for at least five minutes.
Pull out the dipstick, wipe it clean, push it back fully and pull it out
again. The level must lie between the two marks. Top up with oil of the
grade given in the table of specifications, never above the upper mark.
Change the oil and the filter every fifteen thousand kilometres or once a
year, whichever comes first. Severe conditions such as short trips in
winter, towing a trailer or dusty roads call for shorter intervals.`
