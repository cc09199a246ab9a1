// Package pagecut cuts a one-page PDF out of a document with pdfcpu
// (github.com/pdfcpu/pdfcpu): the page with what it uses (fonts, images,
// annotations), written as a PDF of its own, in memory. A phone's browser
// opens such a file in its own viewer where it would download the whole
// manual instead.
package pagecut

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
)

func init() {
	// pdfcpu otherwise writes a configuration directory (and fonts) under
	// the user's configuration directory on first use; the service writes
	// only where it is configured to.
	model.ConfigPath = "disable"
}

// Errors of Cut.
var (
	// ErrPageRange: the document has no page of that number.
	ErrPageRange = errors.New("the document has no such page")
	// ErrUnreadable: pdfcpu cannot read or write the document (PDFium,
	// which ingested it, repairs more than pdfcpu does).
	ErrUnreadable = errors.New("the PDF cannot be cut")
)

// Cut returns a PDF of page (1-based) of the document rs holds, and the
// document's number of pages. The document is read without pdfcpu's
// validation, which refuses harmless quirks of real producers that PDFium
// reads (see proto-docs/docqa-pdf-decisions.md).
func Cut(rs io.ReadSeeker, page int) (out []byte, pages int, err error) {
	conf := model.NewDefaultConfiguration()
	conf.ValidationMode = model.ValidationRelaxed
	conf.Cmd = model.TRIM
	ctx, err := api.ReadContext(rs, conf)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %v", ErrUnreadable, err)
	}
	if err := ctx.EnsurePageCount(); err != nil {
		return nil, 0, fmt.Errorf("%w: %v", ErrUnreadable, err)
	}
	pages = ctx.PageCount
	if page < 1 || page > pages {
		return nil, pages, fmt.Errorf("%w: page %d of %d", ErrPageRange, page, pages)
	}
	one, err := pdfcpu.ExtractPages(ctx, []int{page}, false)
	if err != nil {
		return nil, pages, fmt.Errorf("%w: %v", ErrUnreadable, err)
	}
	var b bytes.Buffer
	if err := api.WriteContext(one, &b); err != nil {
		return nil, pages, fmt.Errorf("%w: %v", ErrUnreadable, err)
	}
	return b.Bytes(), pages, nil
}
