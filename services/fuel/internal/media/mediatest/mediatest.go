// Package mediatest makes images with EXIF metadata for tests, with
// go-exif, and reads it back.
package mediatest

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"testing"

	exif "github.com/dsoprea/go-exif/v3"
	exifcommon "github.com/dsoprea/go-exif/v3/common"
)

// MustExif builds an EXIF block (TIFF, no "Exif" marker) with go-exif:
// camera make, orientation, and, with gps, a GPS position (Berlin).
func MustExif(tb testing.TB, gps bool, orientation uint16) []byte {
	tb.Helper()
	im, err := exifcommon.NewIfdMappingWithStandard()
	if err != nil {
		tb.Fatal(err)
	}
	ti := exif.NewTagIndex()
	root := exif.NewIfdBuilder(im, ti, exifcommon.IfdStandardIfdIdentity, exifcommon.EncodeDefaultByteOrder)
	if err := root.AddStandardWithName("Make", "TestCam"); err != nil {
		tb.Fatal(err)
	}
	if err := root.AddStandardWithName("Orientation", []uint16{orientation}); err != nil {
		tb.Fatal(err)
	}
	if gps {
		g, err := exif.GetOrCreateIbFromRootIb(root, "IFD/GPSInfo")
		if err != nil {
			tb.Fatal(err)
		}
		for _, tag := range []struct {
			name  string
			value any
		}{
			{"GPSVersionID", []byte{2, 2, 0, 0}},
			{"GPSLatitudeRef", "N"},
			{"GPSLatitude", []exifcommon.Rational{{Numerator: 52, Denominator: 1}, {Numerator: 31, Denominator: 1}, {Numerator: 1234, Denominator: 100}}},
			{"GPSLongitudeRef", "E"},
			{"GPSLongitude", []exifcommon.Rational{{Numerator: 13, Denominator: 1}, {Numerator: 24, Denominator: 1}, {Numerator: 5678, Denominator: 100}}},
		} {
			if err := g.AddStandardWithName(tag.name, tag.value); err != nil {
				tb.Fatalf("%s: %v", tag.name, err)
			}
		}
	}
	b, err := exif.NewIfdByteEncoder().EncodeToExif(root)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// TestImage is a w × h image, left half red, right half blue.
func TestImage(w, h int) image.Image {
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := color.RGBA{R: 255, A: 255}
			if x >= w/2 {
				c = color.RGBA{B: 255, A: 255}
			}
			m.SetRGBA(x, y, c)
		}
	}
	return m
}

// MustJPEG encodes a w × h JPEG with the EXIF block tiff (none when nil)
// in an APP1 segment right after SOI, as cameras write it.
func MustJPEG(tb testing.TB, w, h int, tiff []byte) []byte {
	tb.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, TestImage(w, h), &jpeg.Options{Quality: 90}); err != nil {
		tb.Fatal(err)
	}
	plain := buf.Bytes()
	if tiff == nil {
		return plain
	}
	seg := append([]byte("Exif\x00\x00"), tiff...)
	out := append([]byte{0xff, 0xd8, 0xff, 0xe1, 0, 0}, seg...)
	binary.BigEndian.PutUint16(out[4:], uint16(len(seg)+2))
	return append(out, plain[2:]...)
}

// MustPNG encodes a w × h PNG with the EXIF block tiff in an eXIf chunk
// before IDAT.
func MustPNG(tb testing.TB, w, h int, tiff []byte) []byte {
	tb.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, TestImage(w, h)); err != nil {
		tb.Fatal(err)
	}
	plain := buf.Bytes()
	ihdrEnd := 8 + 8 + 13 + 4
	chunk := make([]byte, 8+len(tiff)+4)
	binary.BigEndian.PutUint32(chunk, uint32(len(tiff)))
	copy(chunk[4:], "eXIf")
	copy(chunk[8:], tiff)
	binary.BigEndian.PutUint32(chunk[8+len(tiff):], crc32.ChecksumIEEE(chunk[4:8+len(tiff)]))
	out := append(bytes.Clone(plain[:ihdrEnd]), chunk...)
	return append(out, plain[ihdrEnd:]...)
}

// ExifOf parses the first EXIF block of data: its GPS entries (-1 when it
// has no GPS directory), its Make and Orientation.
func ExifOf(tb testing.TB, data []byte) (gpsEntries int, camera string, orientation uint16) {
	tb.Helper()
	raw, err := exif.SearchAndExtractExif(data)
	if err != nil {
		tb.Fatalf("no EXIF: %v", err)
	}
	im, _ := exifcommon.NewIfdMappingWithStandard()
	_, index, err := exif.Collect(im, exif.NewTagIndex(), raw)
	if err != nil {
		tb.Fatalf("EXIF does not parse: %v", err)
	}
	gpsEntries = -1
	for _, ifd := range index.Ifds {
		if ifd.IfdIdentity().UnindexedString() == "IFD/GPSInfo" {
			gpsEntries = len(ifd.Entries())
		}
	}
	tags, err := index.RootIfd.FindTagWithName("Make")
	if err != nil {
		tb.Fatal(err)
	}
	v, _ := tags[0].Value()
	camera = v.(string)
	tags, err = index.RootIfd.FindTagWithName("Orientation")
	if err != nil {
		tb.Fatal(err)
	}
	o, _ := tags[0].Value()
	return gpsEntries, camera, o.([]uint16)[0]
}
