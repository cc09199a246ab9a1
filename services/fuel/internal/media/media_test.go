package media_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image/jpeg"
	"image/png"
	"os"
	"strings"
	"testing"

	exifcommon "github.com/dsoprea/go-exif/v3/common"

	"github.com/carhub/backend/services/fuel/internal/media"
	"github.com/carhub/backend/services/fuel/internal/media/mediatest"
)

func TestStripLocationJPEG(t *testing.T) {
	in := mediatest.MustJPEG(t, 64, 48, mediatest.MustExif(t, true, 6))
	if n, _, _ := mediatest.ExifOf(t, in); n != 5 {
		t.Fatalf("the test image has %d GPS entries, want 5", n)
	}
	out, err := media.StripLocation(media.JPEG, in)
	if err != nil {
		t.Fatal(err)
	}
	n, mk, o := mediatest.ExifOf(t, out)
	if n != 0 || mk != "TestCam" || o != 6 {
		t.Fatalf("after: %d GPS entries, Make %q, Orientation %d; want 0, TestCam, 6", n, mk, o)
	}
	if len(out) != len(in) {
		t.Errorf("length %d, want %d (done in place)", len(out), len(in))
	}
	// The latitude's rational values are gone from the bytes, not only
	// unreferenced: 52/1, 31/1, 1234/100 in the encoder's byte order.
	lat := make([]byte, 24)
	for i, v := range []uint32{52, 1, 31, 1, 1234, 100} {
		exifcommon.EncodeDefaultByteOrder.PutUint32(lat[i*4:], v)
	}
	if !bytes.Contains(in, lat) || bytes.Contains(out, lat) {
		t.Errorf("latitude bytes: in the input %v, in the output %v; want true, false", bytes.Contains(in, lat), bytes.Contains(out, lat))
	}
	if _, err := jpeg.Decode(bytes.NewReader(out)); err != nil {
		t.Fatalf("the result no longer decodes: %v", err)
	}
	// The input is left as it was.
	if n, _, _ := mediatest.ExifOf(t, in); n != 5 {
		t.Errorf("the input was changed")
	}
}

func TestStripLocationPNGKeepsChunksValid(t *testing.T) {
	in := mediatest.MustPNG(t, 30, 20, mediatest.MustExif(t, true, 1))
	out, err := media.StripLocation(media.PNG, in)
	if err != nil {
		t.Fatal(err)
	}
	if n, _, _ := mediatest.ExifOf(t, out); n != 0 {
		t.Fatalf("%d GPS entries left", n)
	}
	// Every chunk's CRC holds (the eXIf chunk's was rewritten).
	for at := 8; at < len(out); {
		n := int(binary.BigEndian.Uint32(out[at:]))
		body := out[at+4 : at+8+n]
		if got := binary.BigEndian.Uint32(out[at+8+n:]); got != crc32.ChecksumIEEE(body) {
			t.Errorf("chunk %s: CRC %08x, want %08x", body[:4], got, crc32.ChecksumIEEE(body))
		}
		at += 12 + n
	}
	if _, err := png.Decode(bytes.NewReader(out)); err != nil {
		t.Fatal(err)
	}
}

func TestStripLocationXMP(t *testing.T) {
	xmp := `<x:xmpmeta><rdf:Description exif:GPSLatitude="52,31.2N" exif:GPSLongitude='13,24.9E'>` +
		`<exif:GPSAltitude>34/1</exif:GPSAltitude><dc:title>Fuel</dc:title></rdf:Description></x:xmpmeta>`
	in := mediatest.MustJPEG(t, 16, 16, nil)
	seg := append([]byte("http://ns.adobe.com/xap/1.0/\x00"), xmp...)
	withXMP := append([]byte{0xff, 0xd8, 0xff, 0xe1, byte((len(seg) + 2) >> 8), byte(len(seg) + 2)}, seg...)
	withXMP = append(withXMP, in[2:]...)
	out, err := media.StripLocation(media.JPEG, withXMP)
	if err != nil {
		t.Fatal(err)
	}
	want := `<x:xmpmeta><rdf:Description exif:GPSLatitude="        " exif:GPSLongitude='        '>` +
		`<exif:GPSAltitude>    </exif:GPSAltitude><dc:title>Fuel</dc:title></rdf:Description></x:xmpmeta>`
	if !bytes.Contains(out, []byte(want)) {
		t.Fatalf("XMP after: %q", out[6:6+len(seg)])
	}
}

func TestStripLocationRefusesUnreadableExif(t *testing.T) {
	tiff := mediatest.MustExif(t, true, 1)
	// The first directory's offset points past the block.
	binary.BigEndian.PutUint32(tiff[4:], 0x7fffffff)
	_, err := media.StripLocation(media.JPEG, mediatest.MustJPEG(t, 8, 8, tiff))
	var me *media.Error
	if !errors.As(err, &me) || me.Field != "file" {
		t.Fatalf("error %v, want a media.Error about file", err)
	}
}

func TestStripLocationLeavesPDF(t *testing.T) {
	in := []byte("%PDF-1.4\n% II*\x00 inside\n")
	out, err := media.StripLocation(media.PDF, in)
	if err != nil || !bytes.Equal(out, in) {
		t.Fatalf("PDF changed: %q, %v", out, err)
	}
}

func TestDetect(t *testing.T) {
	jpg := mediatest.MustJPEG(t, 8, 8, nil)
	pngData := mediatest.MustPNG(t, 8, 8, mediatest.MustExif(t, false, 1))
	pdf := []byte("%PDF-1.7\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n")
	gif := []byte("GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;")
	for _, tc := range []struct {
		name           string
		data           []byte
		file, declared string
		want           string // content type, or the start of the error message
	}{
		{"jpeg", jpg, "receipt.JPG", "image/jpeg", "image/jpeg"},
		{"jpeg without extension", jpg, "receipt", "", "image/jpeg"},
		{"jpeg as octet-stream", jpg, "r.jpeg", "application/octet-stream", "image/jpeg"},
		{"png", pngData, "a.png", "image/png", "image/png"},
		{"pdf", pdf, "bill.pdf", "application/pdf", "application/pdf"},
		{"lying extension", jpg, "receipt.png", "", `file: the name "receipt.png" ends in .png but the content is JPEG`},
		{"lying extension of another type", pdf, "bill.exe", "", `file: the name "bill.exe" ends in .exe but the content is PDF`},
		{"lying content type", pngData, "a.png", "image/jpeg", "file: is declared as image/jpeg but the content is PNG"},
		{"gif", gif, "a.gif", "image/gif", "file: must be a JPEG, PNG, WebP, HEIC or PDF file; its content is image/gif"},
		{"text", []byte("hello"), "a.txt", "", "file: must be a JPEG, PNG, WebP, HEIC or PDF file; its content is text/plain"},
		{"truncated jpeg", jpg[:3], "a.jpg", "", "file: is not a readable JPEG image"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ct, err := media.Detect("file", tc.data, tc.file, tc.declared)
			got := ct
			if err != nil {
				got = err.Error()
			}
			if !strings.HasPrefix(got, tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestThumbnail(t *testing.T) {
	for _, tc := range []struct {
		name        string
		ct          string
		data        []byte
		w, h        int
		leftIsRed   bool // the left half of the thumbnail is red
		topLeftBlue bool
	}{
		{"landscape jpeg", media.JPEG, mediatest.MustJPEG(t, 640, 480, nil), 320, 240, true, false},
		{"small png kept at its size", media.PNG, mediatest.MustPNG(t, 30, 20, mediatest.MustExif(t, false, 1)), 30, 20, true, false},
		// Orientation 6: the stored pixels are turned 90° clockwise to be
		// upright, so the stored left (red) half becomes the top.
		{"jpeg turned by its orientation", media.JPEG, mediatest.MustJPEG(t, 640, 480, mediatest.MustExif(t, false, 6)), 240, 320, false, false},
		{"jpeg mirrored", media.JPEG, mediatest.MustJPEG(t, 640, 480, mediatest.MustExif(t, false, 2)), 320, 240, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := media.Thumbnail(tc.ct, tc.data)
			if err != nil {
				t.Fatal(err)
			}
			m, err := jpeg.Decode(bytes.NewReader(out))
			if err != nil {
				t.Fatal(err)
			}
			if b := m.Bounds(); b.Dx() != tc.w || b.Dy() != tc.h {
				t.Fatalf("size %dx%d, want %dx%d", b.Dx(), b.Dy(), tc.w, tc.h)
			}
			red := func(x, y int) bool {
				r, _, b, _ := m.At(x, y).RGBA()
				return r > 0xc000 && b < 0x4000
			}
			if got := red(2, tc.h/2); got != tc.leftIsRed && tc.name != "jpeg turned by its orientation" {
				t.Errorf("left middle red %v, want %v", got, tc.leftIsRed)
			}
			if tc.name == "jpeg turned by its orientation" && (!red(tc.w/2, 2) || red(tc.w/2, tc.h-3)) {
				t.Errorf("want red on top and blue below")
			}
			if tc.topLeftBlue && red(2, 2) {
				t.Errorf("top left is red, want blue (mirrored)")
			}
		})
	}
	for _, ct := range []string{media.PDF, media.HEIC} {
		if _, err := media.Thumbnail(ct, []byte("x")); !errors.Is(err, media.ErrNoThumbnail) {
			t.Errorf("%s: error %v, want ErrNoThumbnail", ct, err)
		}
	}
	// A PNG that claims more pixels than the bound gets none, undecoded.
	huge := mediatest.MustPNG(t, 1, 1, mediatest.MustExif(t, false, 1))
	binary.BigEndian.PutUint32(huge[16:], 40000)
	binary.BigEndian.PutUint32(huge[20:], 40000)
	binary.BigEndian.PutUint32(huge[29:], crc32.ChecksumIEEE(huge[12:29]))
	if _, err := media.Thumbnail(media.PNG, huge); !errors.Is(err, media.ErrNoThumbnail) {
		t.Errorf("huge PNG: error %v, want ErrNoThumbnail", err)
	}
}

func TestWebP(t *testing.T) {
	in, err := os.ReadFile("testdata/gps.webp")
	if err != nil {
		t.Fatal(err)
	}
	ct, err := media.Detect("file", in, "photo.webp", "image/webp")
	if err != nil || ct != media.WebP {
		t.Fatalf("Detect: %q, %v", ct, err)
	}
	if n, mk, _ := mediatest.ExifOf(t, in); n != 5 || mk != "TestCam" {
		t.Fatalf("the test image has %d GPS entries (Make %q), want 5", n, mk)
	}
	out, err := media.StripLocation(ct, in)
	if err != nil {
		t.Fatal(err)
	}
	if n, mk, _ := mediatest.ExifOf(t, out); n != 0 || mk != "TestCam" {
		t.Fatalf("after: %d GPS entries, Make %q; want 0, TestCam", n, mk)
	}
	th, err := media.Thumbnail(ct, out)
	if err != nil {
		t.Fatal(err)
	}
	m, err := jpeg.Decode(bytes.NewReader(th))
	if err != nil {
		t.Fatal(err)
	}
	if b := m.Bounds(); b.Dx() != 64 || b.Dy() != 48 {
		t.Fatalf("thumbnail %v, want 64x48", b)
	}
}

func TestHEIC(t *testing.T) {
	plain, err := os.ReadFile("testdata/plain.heic")
	if err != nil {
		t.Fatal(err)
	}
	// An EXIF item's payload as HEIC writers store it (a 4-byte offset to
	// the TIFF header, "Exif\0\0", the block) in one more mdat box: the
	// search finds EXIF blocks wherever the container keeps them.
	payload := append([]byte{0, 0, 0, 6}, append([]byte("Exif\x00\x00"), mediatest.MustExif(t, true, 1)...)...)
	box := binary.BigEndian.AppendUint32(nil, uint32(8+len(payload)))
	in := append(append(bytes.Clone(plain), append(box, "mdat"...)...), payload...)

	ct, err := media.Detect("file", in, "IMG_0001.HEIC", "image/heic")
	if err != nil || ct != media.HEIC {
		t.Fatalf("Detect: %q, %v", ct, err)
	}
	if _, err := media.Detect("file", in, "IMG_0001.jpg", ""); err == nil {
		t.Fatal("a HEIC named .jpg was taken")
	}
	out, err := media.StripLocation(ct, in)
	if err != nil {
		t.Fatal(err)
	}
	if n, mk, _ := mediatest.ExifOf(t, out); n != 0 || mk != "TestCam" {
		t.Fatalf("after: %d GPS entries, Make %q; want 0, TestCam", n, mk)
	}
	if !bytes.Equal(out[:len(plain)], plain) {
		t.Error("bytes outside the EXIF block changed")
	}
}

// TestStripLocationBoundsTheBlocks: a file made of EXIF markers is
// refused after maxExifBlocks parses instead of costing one per marker.
// Each marker heads an EXIF block that parses: a TIFF header and an empty
// directory. 100 of them cross the bound of 32 as 100 000 would, and each
// parse is cheap (markers whose directory read the next markers as 30 000
// entries took 11 s under the race detector).
func TestStripLocationBoundsTheBlocks(t *testing.T) {
	block := "Exif\x00\x00" + "II*\x00\x08\x00\x00\x00" + "\x00\x00" + "\x00\x00\x00\x00" // marker, header, no entries, no next directory
	in := append(mediatest.MustJPEG(t, 8, 8, nil), bytes.Repeat([]byte(block), 100)...)
	_, err := media.StripLocation(media.JPEG, in)
	if err == nil || err.Error() != "file: holds more than 32 EXIF blocks" {
		t.Fatalf("error %v", err)
	}
}
