// Package pdftext turns an uploaded PDF into the text of each of its pages.
//
// pdfcpu checks the file (header, cross-reference structure, encryption,
// page count); github.com/ledongthuc/pdf reads its objects and content
// streams, over which this package runs its own text interpreter: it tracks
// the text matrix and glyph widths so that words and lines come out separated
// as a viewer shows them, and decodes ToUnicode CMaps (Chinese, Japanese).
// Every page is extracted inside recover: a malformed page yields an empty
// page, never a panic.
package pdftext

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ledongthuc/pdf"
	"github.com/pdfcpu/pdfcpu/pkg/api"
	pdfcpu "github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
)

// Page is the text of one page. Number is 1-based.
type Page struct {
	Number int
	Text   string
}

// Errors returned by Extract. Their messages are fit to show to the person
// who uploaded the file.
var (
	ErrNotPDF    = errors.New("file is not a PDF (it does not start with %PDF-)")
	ErrEmpty     = errors.New("file is empty")
	ErrCorrupt   = errors.New("PDF is corrupt or truncated and cannot be read")
	ErrEncrypted = errors.New("PDF is encrypted; upload a copy without password protection")
	ErrNoText    = errors.New("PDF has no extractable text (scanned or image-only pages need OCR first)")
)

func init() {
	// pdfcpu would otherwise create a configuration folder in the user's
	// home directory on first use.
	api.DisableConfigDir()
}

// Extract validates the PDF (magic %PDF-, structure, encryption) with pdfcpu,
// counts pages and extracts each page's text. progress (may be nil) is called
// after each page with (done, total). The file is read through r as needed;
// only pdfcpu's parsed view of it is held while validating, and it is
// dropped before the pages are read.
func Extract(ctx context.Context, r io.ReaderAt, size int64, progress func(done, total int)) ([]Page, error) {
	if size <= 0 {
		return nil, ErrEmpty
	}
	head := make([]byte, 5)
	if n, _ := r.ReadAt(head, 0); n < 5 || !bytes.Equal(head, []byte("%PDF-")) {
		return nil, ErrNotPDF
	}
	total, err := validate(r, size)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	doc, err := open(r, size)
	if err != nil {
		return nil, err
	}
	pageValues := doc.pages(total)
	pages := make([]Page, 0, total)
	anyText := false
	for i := range total {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var text string
		if i < len(pageValues) {
			text = doc.pageText(ctx, pageValues[i])
			if err := ctx.Err(); err != nil {
				return nil, err // the page may have been left half-read
			}
		}
		anyText = anyText || strings.TrimSpace(text) != ""
		pages = append(pages, Page{Number: i + 1, Text: text})
		if progress != nil {
			progress(i+1, total)
		}
	}
	if !anyText {
		return nil, ErrNoText
	}
	return pages, nil
}

// validate reads the file with pdfcpu in relaxed mode and returns its page
// count. pdfcpu recovers its own panics (fault.Catch) and reports them as
// errors; the recover here is a second net.
//
// Every encrypted file is refused, also one that opens without a password
// (an owner password only restricts printing or copying): decisions.md says
// encrypted PDFs are a 400, and such files would be decrypted against their
// author's stated restrictions.
func validate(r io.ReaderAt, size int64) (pages int, err error) {
	defer func() {
		if p := recover(); p != nil {
			pages, err = 0, fmt.Errorf("%w: %v", ErrCorrupt, p)
		}
	}()
	conf := model.NewDefaultConfiguration()
	conf.ValidationMode = model.ValidationRelaxed
	ctx, err := api.ReadContext(io.NewSectionReader(r, 0, size), conf)
	if err != nil {
		return 0, classify(err)
	}
	if ctx.XRefTable.Encrypt != nil {
		return 0, ErrEncrypted
	}
	if err := api.ValidateContext(ctx); err != nil {
		return 0, classify(err)
	}
	if err := ctx.EnsurePageCount(); err != nil {
		return 0, classify(err)
	}
	if ctx.PageCount <= 0 {
		return 0, fmt.Errorf("%w: it has no pages", ErrCorrupt)
	}
	return ctx.PageCount, nil
}

func classify(err error) error {
	if errors.Is(err, pdfcpu.ErrWrongPassword) || errors.Is(err, pdfcpu.ErrUnsupportedEncryptionFeature) {
		return ErrEncrypted
	}
	return fmt.Errorf("%w (%v)", ErrCorrupt, err)
}

// document is the text extractor's view of the file.
type document struct {
	r      *pdf.Reader
	fonts  map[string]*font // by object number ("12 0"), see fontTable.get
	budget int64            // decoded content bytes still to be lexed, see contentBudget
}

func open(r io.ReaderAt, size int64) (d *document, err error) {
	defer func() {
		if p := recover(); p != nil {
			d, err = nil, fmt.Errorf("%w: %v", ErrCorrupt, p)
		}
	}()
	rd, err := pdf.NewReader(versionShim{r}, size)
	if err != nil {
		return nil, fmt.Errorf("%w (%v)", ErrCorrupt, err)
	}
	return &document{r: rd, fonts: map[string]*font{}, budget: contentBudget(size)}, nil
}

// versionShim presents any "%PDF-x.y" header as "%PDF-1.7" followed by a
// line end: the text reader refuses PDF 2.0 headers (and headers not followed
// by a line end) although it reads their bodies fine. Offsets are unchanged.
type versionShim struct{ r io.ReaderAt }

const shimHeader = "%PDF-1.7\n"

func (v versionShim) ReadAt(p []byte, off int64) (int, error) {
	n, err := v.r.ReadAt(p, off)
	for i := 0; i < n; i++ {
		if pos := off + int64(i); pos >= 5 && pos < int64(len(shimHeader)) {
			p[i] = shimHeader[pos]
		}
	}
	return n, err
}

// maxTreeDepth bounds the page-tree walk and nested form XObjects, so that a
// cyclic structure ends instead of looping.
const maxTreeDepth = 32

// pages lists the page dictionaries in document order, each with its
// inherited resources, stopping at limit pages. Depth and the number of
// nodes visited are bounded, so a page tree whose Kids point back at their
// ancestors ends quickly instead of looping or exploding.
func (d *document) pages(limit int) (out []pageRef) {
	// A malformed node ends the walk; the pages found before it are kept.
	defer func() { _ = recover() }()
	budget := 4*limit + 64
	var walk func(node, resources pdf.Value, depth int)
	walk = func(node, resources pdf.Value, depth int) {
		if depth > maxTreeDepth || len(out) >= limit || budget <= 0 {
			return
		}
		budget--
		if res := node.Key("Resources"); !res.IsNull() {
			resources = res
		}
		kids := node.Key("Kids")
		if node.Key("Type").Name() == "Page" || kids.IsNull() {
			out = append(out, pageRef{page: node, resources: resources})
			return
		}
		for i := 0; i < kids.Len() && len(out) < limit && budget > 0; i++ {
			walk(kids.Index(i), resources, depth+1)
		}
	}
	walk(d.r.Trailer().Key("Root").Key("Pages"), pdf.Value{}, 0)
	return out
}

type pageRef struct {
	page, resources pdf.Value
}

// pageText extracts one page; a page that cannot be read yields what was
// read before the fault.
func (d *document) pageText(ctx context.Context, p pageRef) string {
	var l layout
	func() {
		defer func() { _ = recover() }()
		in := interpreter{ctx: ctx, doc: d, out: &l}
		in.run(p.page.Key("Contents"), p.resources, identity, 0)
	}()
	return l.String()
}
