package ocrtest

import (
	"image"
	"testing"
)

// A binary PGM, comments in its header, reads as its pixels; other
// depths and a short body are refused.
func TestParsePGM(t *testing.T) {
	g, err := parsePGM([]byte("P5\n# pdftoppm\n3 2\n255\n\x00\x01\x02\x03\x04\x05"))
	if err != nil || g.Rect != image.Rect(0, 0, 3, 2) || string(g.Pix) != "\x00\x01\x02\x03\x04\x05" {
		t.Fatalf("parsePGM = %v, %v", g, err)
	}
	for _, bad := range []string{"P6\n1 1\n255\n\x00\x00\x00", "P5\n2 2\n255\n\x00", "P5\n1 1\n65535\n\x00\x00", "P5\nx 1\n255\n\x00"} {
		if _, err := parsePGM([]byte(bad)); err == nil {
			t.Errorf("parsePGM(%q): no error", bad)
		}
	}
}
