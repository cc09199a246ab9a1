package receiptscan

import "testing"

// testdata/gen2brain-test8.heic is github.com/gen2brain/heic's own test
// image (MIT): a real HEIC file, 512 x 512, since no HEIC encoder is
// installed here to make a photo of a receipt.
func TestDecodeHEIC(t *testing.T) {
	img, f, err := Decode(mustRead(t, "testdata/gen2brain-test8.heic"))
	if err != nil || f != HEIC {
		t.Fatalf("Decode: %v, %q", err, f)
	}
	if img.Rect.Dx() != 512 || img.Rect.Dy() != 512 {
		t.Fatalf("size %v", img.Rect)
	}
}
