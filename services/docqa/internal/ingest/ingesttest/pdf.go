// Package ingesttest writes small, valid PDF files for tests of the ingestion
// pipeline and the HTTP layer: text pages in the standard Helvetica font,
// pages without text, and large files padded with image data. The files are
// real PDFs (catalog, page tree, content streams, cross-reference table) that
// any conforming reader opens.
package ingesttest

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
)

// PDF returns a PDF with one page per element of pages; each page shows its
// text (ASCII; lines split at '\n'). An empty string makes a page without text.
func PDF(pages ...string) []byte {
	var b bytes.Buffer
	w := newWriter(&b)
	for _, text := range pages {
		w.page(text, 0)
	}
	if err := w.finish(); err != nil {
		panic(err) // a bytes.Buffer does not fail
	}
	return b.Bytes()
}

// Page is one page of Book: its text (as for PDF) and its size in points
// (zero: US Letter portrait, 612 x 792). The text starts 32 points below
// the top left corner, in 10-point Helvetica on lines 12 points apart.
type Page struct {
	Text          string
	Width, Height float64
	// Rotate is the page's /Rotate (0, 90, 180, 270): how a viewer turns
	// it clockwise.
	Rotate int
	// Heading is shown above Text in 24-point Helvetica, as a cover shows
	// its title (lines split at '\n'); "" for none.
	Heading string
}

// Book returns a PDF of pages whose catalog has /PageLabels labels: the
// body of a number tree such as
// "<< /Nums [0 << /S /r >> 3 << /S /D /P (3-) /St 12 >>] >>" ("" for none).
func Book(labels string, pages ...Page) []byte { return book(labels, "", pages) }

// Titled returns a PDF of pages whose document information dictionary has
// title as its /Title (ASCII): what a producer wrote there, a file name
// for one.
func Titled(title string, pages ...Page) []byte { return book("", title, pages) }

func book(labels, title string, pages []Page) []byte {
	var b bytes.Buffer
	w := newWriter(&b)
	w.catalog, w.title = labels, title
	for _, p := range pages {
		w.pageSized(p, 0)
	}
	if err := w.finish(); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// WriteLarge writes a PDF of about size bytes to out: pages of prose, each
// also showing an uncompressed grayscale image of imageBytes random bytes
// (the bulk of real large PDFs is images). seed varies the text, so that
// different seeds give files with different MD5s.
func WriteLarge(out io.Writer, size int64, imageBytes int, seed uint64) error {
	bw := bufio.NewWriterSize(out, 1<<20)
	w := newWriter(bw)
	rng := rand.New(rand.NewPCG(seed, 42))
	for n := 0; w.off < size; n++ {
		w.page(Prose(rng, n, 40), imageBytes)
	}
	if err := w.finish(); err != nil {
		return err
	}
	return bw.Flush()
}

var words = strings.Fields(`engine oil filter brake pad tyre pressure coolant battery spark plug
timing belt gearbox clutch service interval warranty dashboard warning light fuel pump injector
exhaust catalytic converter suspension shock absorber wiper blade headlamp bulb fuse relay torque
wrench kilometre mileage inspection manual chapter section maintenance schedule replace check`)

// Prose returns lines of pseudo-random sentences about cars, numbered by page n.
func Prose(rng *rand.Rand, n, lines int) string {
	var sb strings.Builder
	for l := range lines {
		fmt.Fprintf(&sb, "Page %d line %d:", n+1, l+1)
		for range 9 {
			sb.WriteByte(' ')
			sb.WriteString(words[rng.IntN(len(words))])
		}
		sb.WriteString(".\n")
	}
	return sb.String()
}

// Alphabets of one kind each, for Run.
const (
	Letters     = "abcdefghijklmnopqrstuvwxyz"
	Punctuation = `!-=*.,;:/\()[]{}<>?@#$%^&_+|~`
	CJK         = "防冻型玻璃水冬季请使用我们今天学习中文"
)

// Run returns n characters drawn from alphabet, the same for the same n
// (seeded by it): one unbroken run of a kind when the alphabet is of one
// kind (letters, punctuation, CJK), the worst case of the tokenizer.
func Run(alphabet string, n int) string {
	rng := rand.New(rand.NewPCG(uint64(n), 7))
	chars := []rune(alphabet)
	var sb strings.Builder
	for range n {
		sb.WriteRune(chars[rng.IntN(len(chars))])
	}
	return sb.String()
}

// writer emits objects and remembers their offsets for the xref table.
// Object 1 is the catalog, 2 the page tree, 3 the font; pages follow.
type writer struct {
	w       io.Writer
	off     int64
	offsets []int64 // offsets[i] is the offset of object i+1
	kids    []int
	catalog string // /PageLabels of the catalog, "" for none
	title   string // /Title of the document information, "" for none
	err     error
}

func newWriter(w io.Writer) *writer {
	pw := &writer{w: w, offsets: make([]int64, 3)}
	pw.printf("%%PDF-1.4\n%%\xe2\xe3\xcf\xd3\n")
	pw.object(3, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	return pw
}

func (w *writer) printf(format string, args ...any) {
	if w.err != nil {
		return
	}
	n, err := fmt.Fprintf(w.w, format, args...)
	w.off += int64(n)
	w.err = err
}

func (w *writer) write(p []byte) {
	if w.err != nil {
		return
	}
	n, err := w.w.Write(p)
	w.off += int64(n)
	w.err = err
}

// next reserves the next object number.
func (w *writer) next() int {
	w.offsets = append(w.offsets, 0)
	return len(w.offsets)
}

func (w *writer) object(num int, body string) {
	w.offsets[num-1] = w.off
	w.printf("%d 0 obj\n%s\nendobj\n", num, body)
}

func (w *writer) stream(num int, dict string, data []byte) {
	w.offsets[num-1] = w.off
	w.printf("%d 0 obj\n<< %s /Length %d >>\nstream\n", num, dict, len(data))
	w.write(data)
	w.printf("\nendstream\nendobj\n")
}

// page writes a page showing text and, when imageBytes > 0, an image.
// maxShow is the most bytes of text one Tj operator shows.
const maxShow = 16 << 10

func (w *writer) page(text string, imageBytes int) { w.pageSized(Page{Text: text}, imageBytes) }

// pageSized writes page p (its size, zero: 612 x 792, turned by its
// Rotate degrees).
func (w *writer) pageSized(p Page, imageBytes int) {
	text, width, height, rotate := p.Text, p.Width, p.Height, p.Rotate
	if width <= 0 || height <= 0 {
		width, height = 612, 792
	}
	var content bytes.Buffer
	resources := "/Font << /F1 3 0 R >>"
	if imageBytes > 0 {
		side := 1
		for side*side < imageBytes {
			side++
		}
		img := make([]byte, side*side)
		for i := range img {
			img[i] = byte(rand.Uint32())
		}
		imgNum := w.next()
		w.stream(imgNum, fmt.Sprintf("/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray /BitsPerComponent 8", side, side), img)
		resources += fmt.Sprintf(" /XObject << /Im1 %d 0 R >>", imgNum)
		content.WriteString("q 200 0 0 200 350 50 cm /Im1 Do Q\n")
	}
	top := height - 32
	if p.Heading != "" {
		fmt.Fprintf(&content, "BT /F1 24 Tf 28 TL 50 %g Td\n", top-12)
		for _, line := range strings.Split(p.Heading, "\n") {
			fmt.Fprintf(&content, "(%s) Tj T*\n", escape(line))
			top -= 28
		}
		content.WriteString("ET\n")
		top -= 12
	}
	if strings.TrimSpace(text) != "" {
		fmt.Fprintf(&content, "BT /F1 10 Tf 12 TL 50 %g Td\n", top)
		for _, line := range strings.Split(text, "\n") {
			// PDFium reads at most about 32 KB of one string: a longer
			// line is shown as several strings, one after the other.
			for len(line) > maxShow {
				fmt.Fprintf(&content, "(%s) Tj ", escape(line[:maxShow]))
				line = line[maxShow:]
			}
			fmt.Fprintf(&content, "(%s) Tj T*\n", escape(line))
		}
		content.WriteString("ET\n")
	}
	contentNum := w.next()
	w.stream(contentNum, "", content.Bytes())
	pageNum := w.next()
	rot := ""
	if rotate != 0 {
		rot = fmt.Sprintf(" /Rotate %d", rotate)
	}
	w.object(pageNum, fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %g %g]%s /Resources << %s >> /Contents %d 0 R >>", width, height, rot, resources, contentNum))
	w.kids = append(w.kids, pageNum)
}

func (w *writer) finish() error {
	var kids strings.Builder
	for _, k := range w.kids {
		fmt.Fprintf(&kids, "%d 0 R ", k)
	}
	w.object(2, fmt.Sprintf("<< /Type /Pages /Kids [ %s] /Count %d >>", kids.String(), len(w.kids)))
	labels := ""
	if w.catalog != "" {
		labels = " /PageLabels " + w.catalog
	}
	w.object(1, "<< /Type /Catalog /Pages 2 0 R"+labels+" >>")
	info := ""
	if w.title != "" {
		num := w.next()
		w.object(num, fmt.Sprintf("<< /Title (%s) >>", escape(w.title)))
		info = fmt.Sprintf(" /Info %d 0 R", num)
	}
	xref := w.off
	w.printf("xref\n0 %d\n0000000000 65535 f \n", len(w.offsets)+1)
	for _, o := range w.offsets {
		w.printf("%010d 00000 n \n", o)
	}
	w.printf("trailer\n<< /Size %d /Root 1 0 R%s >>\nstartxref\n%d\n%%%%EOF\n", len(w.offsets)+1, info, xref)
	return w.err
}

// escape makes s a PDF literal string body (ASCII only; others become '?').
func escape(s string) string {
	var sb strings.Builder
	for _, r := range s {
		switch {
		case r == '(' || r == ')' || r == '\\':
			sb.WriteByte('\\')
			sb.WriteRune(r)
		case r < 0x20 || r > 0x7e:
			sb.WriteByte('?')
		default:
			sb.WriteRune(r)
		}
	}
	return sb.String()
}
