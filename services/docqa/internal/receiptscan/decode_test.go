package receiptscan

import (
	"bytes"
	"errors"
	"hash/crc32"
	"image"
	"image/jpeg"
	"image/png"
	"os"
	"testing"
)

func TestSniff(t *testing.T) {
	webp, err := os.ReadFile("testdata/de-aral-e10.webp")
	if err != nil {
		t.Fatal(err)
	}
	heic, err := os.ReadFile("testdata/gen2brain-test8.heic")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		data   []byte
		format Format
		ok     bool
	}{
		{"jpeg", mustJPEG(t, image.NewGray(image.Rect(0, 0, 8, 8))), JPEG, true},
		{"png", mustPNG(t, image.NewGray(image.Rect(0, 0, 8, 8))), PNG, true},
		{"webp", webp, WebP, true},
		{"heic", heic, HEIC, true},
		{"pdf", []byte("%PDF-1.7\n1 0 obj"), "", false},
		{"text", []byte("TOTAL 12.00 EUR\n"), "", false},
		{"empty", nil, "", false},
		// AVIF is HEIF too, but coded in AV1: not read.
		{"avif", append([]byte{0, 0, 0, 0x1c}, []byte("ftypavif\x00\x00\x00\x00avifmif1miaf")...), "", false},
		{"gif", []byte("GIF89a\x01\x00\x01\x00"), "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, ok := Sniff(c.data)
			if f != c.format || ok != c.ok {
				t.Fatalf("Sniff = %q, %v; want %q, %v", f, ok, c.format, c.ok)
			}
		})
	}
}

func TestDecodeRefusesWhatIsNoPhoto(t *testing.T) {
	for name, c := range map[string]struct {
		data []byte
		want error
	}{
		"pdf":       {[]byte("%PDF-1.7\n"), ErrNotImage},
		"truncated": {mustJPEG(t, image.NewGray(image.Rect(0, 0, 64, 64)))[:40], ErrCorrupt},
		// A PNG header claiming 60 000 x 60 000 pixels: refused before a
		// pixel is decoded.
		"bomb": {pngHeader(60000, 60000), ErrTooManyPixels},
	} {
		t.Run(name, func(t *testing.T) {
			if _, _, err := Decode(c.data); !errors.Is(err, c.want) {
				t.Fatalf("Decode: %v, want %v", err, c.want)
			}
		})
	}
}

func TestDecodeWebP(t *testing.T) {
	data, err := os.ReadFile("testdata/de-aral-e10.webp")
	if err != nil {
		t.Fatal(err)
	}
	img, f, err := Decode(data)
	if err != nil || f != WebP {
		t.Fatalf("Decode: %v, %q", err, f)
	}
	// The photo of dev-05-de-aral-e10.jpg, whose size it keeps.
	jp, _, err := Decode(mustRead(t, "../receipt/testdata/photos/dev-05-de-aral-e10.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	if img.Rect.Size() != jp.Rect.Size() {
		t.Fatalf("WebP %v, JPEG %v", img.Rect.Size(), jp.Rect.Size())
	}
}

// A phone's JPEG stores the sensor's pixels with an Orientation tag:
// Decode shows them as the tag says, as a browser does.
func TestDecodeTurnsByEXIFOrientation(t *testing.T) {
	// 40 x 20, a black pixel near the top left corner.
	src := image.NewGray(image.Rect(0, 0, 40, 20))
	for i := range src.Pix {
		src.Pix[i] = 255
	}
	for y := 2; y < 6; y++ {
		for x := 2; x < 6; x++ {
			src.Pix[y*src.Stride+x] = 0
		}
	}
	for _, c := range []struct {
		orientation int
		size        image.Point
		dark        image.Point // where the black square lands
	}{
		{1, image.Pt(40, 20), image.Pt(3, 3)},
		{3, image.Pt(40, 20), image.Pt(36, 16)},
		{6, image.Pt(20, 40), image.Pt(16, 3)}, // shown turned a quarter clockwise
		{8, image.Pt(20, 40), image.Pt(3, 36)},
	} {
		img, _, err := Decode(withOrientation(t, mustJPEG(t, src), c.orientation))
		if err != nil {
			t.Fatal(err)
		}
		if img.Rect.Size() != c.size || img.GrayAt(c.dark.X, c.dark.Y).Y > 100 {
			t.Errorf("orientation %d: size %v, pixel at %v is %d; want %v, dark", c.orientation, img.Rect.Size(), c.dark,
				img.GrayAt(c.dark.X, c.dark.Y).Y, c.size)
		}
	}
}

// withOrientation puts an Exif segment with the Orientation tag o (big
// endian TIFF, one entry) after the JPEG's start of image.
func withOrientation(t *testing.T, jpg []byte, o int) []byte {
	t.Helper()
	tiff := []byte{'M', 'M', 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, byte(o), 0, 0, 0, 0, 0, 0, 0, 0}
	seg := append([]byte("Exif\x00\x00"), tiff...)
	n := len(seg) + 2
	app1 := append([]byte{0xff, 0xe1, byte(n >> 8), byte(n)}, seg...)
	return append(append(append([]byte{}, jpg[:2]...), app1...), jpg[2:]...)
}

func pngHeader(w, h uint32) []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 1, 1))); err != nil {
		panic(err)
	}
	data := b.Bytes()
	// IHDR's width and height follow the signature (8), length (4) and
	// type (4); the CRC is not checked by DecodeConfig.
	be := func(i int, v uint32) {
		data[i], data[i+1], data[i+2], data[i+3] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
	}
	be(16, w)
	be(20, h)
	be(29, crc32.ChecksumIEEE(data[12:29])) // IHDR's CRC over its type and data
	return data
}

func mustJPEG(tb testing.TB, img image.Image) []byte {
	tb.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 95}); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

func mustPNG(tb testing.TB, img image.Image) []byte {
	tb.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

func mustRead(tb testing.TB, path string) []byte {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
