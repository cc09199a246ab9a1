package pdftext

import (
	"bytes"
	"fmt"
	"io"

	"github.com/ledongthuc/pdf"
)

// maxContent bounds the decoded content of one page (or form), so that a
// small file whose streams inflate to gigabytes cannot exhaust memory.
const maxContent = 16 << 20

// contentBudget is how much decoded content one document may make us lex in
// all: 16 MiB plus 50 times the file size. Real files stay far below (page
// content inflates some 2 to 10 times); a small file whose pages all point
// at one stream that inflates to 16 MiB would otherwise cost seconds of CPU
// per page. Pages beyond the budget come out empty.
func contentBudget(size int64) int64 { return maxContent + 50*size }

// contentStream reads the content of v (a stream, or an array of streams
// that PDF joins with white space), removes inline images and returns it as
// a stream the text reader can interpret.
//
// The text reader's PostScript lexer knows nothing of inline images: their
// binary data (BI ... ID data EI) derails it and every text operator after
// the first inline image on a page would be lost. The reader offers no way
// to lex bytes, only stream objects, so the cleaned content is wrapped in a
// one-object PDF held in memory.
func contentStream(v pdf.Value, budget *int64) (pdf.Value, bool) {
	limit := min(int64(maxContent), *budget)
	if limit <= 0 {
		return pdf.Value{}, false
	}
	var buf bytes.Buffer
	parts := []pdf.Value{v}
	if v.Kind() == pdf.Array {
		parts = parts[:0]
		for i := 0; i < v.Len(); i++ {
			parts = append(parts, v.Index(i))
		}
	}
	for _, part := range parts {
		if part.Kind() != pdf.Stream {
			continue
		}
		rc := part.Reader()
		_, err := io.Copy(&buf, io.LimitReader(rc, limit-int64(buf.Len())))
		rc.Close()
		buf.WriteByte('\n')
		if err != nil || int64(buf.Len()) >= limit {
			// keep what was decoded: a damaged filter still gives text
			break
		}
	}
	*budget -= int64(buf.Len())
	content := stripInlineImages(buf.Bytes())
	if len(bytes.TrimSpace(content)) == 0 {
		return pdf.Value{}, false
	}
	var doc bytes.Buffer
	doc.WriteString("%PDF-1.7\n")
	obj := doc.Len()
	fmt.Fprintf(&doc, "1 0 obj\n<< /Length %d >>\nstream\n", len(content))
	doc.Write(content)
	doc.WriteString("\nendstream\nendobj\n")
	xref := doc.Len()
	fmt.Fprintf(&doc, "xref\n0 2\n0000000000 65535 f \n%010d 00000 n \n", obj)
	fmt.Fprintf(&doc, "trailer\n<< /Size 2 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", xref)
	r, err := pdf.NewReader(bytes.NewReader(doc.Bytes()), int64(doc.Len()))
	if err != nil {
		return pdf.Value{}, false
	}
	s := r.Trailer().Key("Root")
	return s, s.Kind() == pdf.Stream
}

func isWhite(c byte) bool {
	switch c {
	case ' ', '\n', '\r', '\t', '\f', 0:
		return true
	}
	return false
}

func isDelim(c byte) bool {
	switch c {
	case '(', ')', '<', '>', '[', ']', '{', '}', '/', '%':
		return true
	}
	return false
}

// operatorAt reports whether the two-letter operator op stands alone at i.
func operatorAt(b []byte, i int, op string) bool {
	if i < 0 || i+len(op) > len(b) || string(b[i:i+len(op)]) != op {
		return false
	}
	before := i == 0 || isWhite(b[i-1]) || isDelim(b[i-1]) && b[i-1] != '/' // not a name
	after := i+len(op) == len(b) || isWhite(b[i+len(op)]) || isDelim(b[i+len(op)])
	return before && after
}

// stripInlineImages removes every BI ... ID data EI sequence. Operators are
// looked for outside strings and comments; the image data ends at the first
// EI that stands alone after white space, as readers find it.
func stripInlineImages(b []byte) []byte {
	if !bytes.Contains(b, []byte("ID")) {
		return b
	}
	out := make([]byte, 0, len(b))
	copied := 0
	for i := 0; i < len(b); {
		if !operatorAt(b, i, "BI") {
			i = nextToken(b, i)
			continue
		}
		id := i + 2
		for id < len(b) && !operatorAt(b, id, "ID") {
			id = nextToken(b, id)
		}
		out = append(out, b[copied:i]...)
		if id >= len(b) {
			return out // no image data follows; the rest cannot be text
		}
		end := len(b)
		for k := id + 3; k+1 < len(b); k++ {
			if isWhite(b[k-1]) && operatorAt(b, k, "EI") {
				end = k + 2
				break
			}
		}
		out = append(out, ' ')
		i, copied = end, end
	}
	return append(out, b[copied:]...)
}

// nextToken returns the position after the byte, string or comment at i.
func nextToken(b []byte, i int) int {
	switch b[i] {
	case '(':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '\\':
				i++
			case '(':
				depth++
			case ')':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return len(b)
	case '<':
		if i+1 < len(b) && b[i+1] == '<' {
			return i + 2
		}
		if k := bytes.IndexByte(b[i:], '>'); k >= 0 {
			return i + k + 1
		}
		return len(b)
	case '%':
		if k := bytes.IndexAny(b[i:], "\r\n"); k >= 0 {
			return i + k
		}
		return len(b)
	}
	return i + 1
}
