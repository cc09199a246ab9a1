// Package attachtest makes what the tests of uploads send: a
// multipart/form-data body of parts.
package attachtest

import (
	"bytes"
	"mime/multipart"
	"net/textproto"
	"testing"
)

// Part is one part of a multipart upload: its form field, its file name
// ("" for none), its Content-Type ("" for none) and its bytes.
type Part struct {
	Field, Name, ContentType string
	Data                     []byte
}

// Multipart encodes parts as multipart/form-data and returns the body's
// Content-Type (with its boundary) and bytes.
func Multipart(tb testing.TB, parts ...Part) (contentType string, body []byte) {
	tb.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, p := range parts {
		h := textproto.MIMEHeader{}
		disp := `form-data; name="` + p.Field + `"`
		if p.Name != "" {
			disp += `; filename="` + p.Name + `"`
		}
		h.Set("Content-Disposition", disp)
		if p.ContentType != "" {
			h.Set("Content-Type", p.ContentType)
		}
		pw, err := w.CreatePart(h)
		if err != nil {
			tb.Fatal(err)
		}
		if _, err := pw.Write(p.Data); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return w.FormDataContentType(), buf.Bytes()
}
