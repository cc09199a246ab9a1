package receiptscan

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"image/jpeg"
	"image/png"

	"golang.org/x/image/webp"
)

// Format is an image format a receipt may come in, told by its content.
type Format string

// The formats read.
const (
	JPEG Format = "jpeg"
	PNG  Format = "png"
	WebP Format = "webp"
	HEIC Format = "heic"
)

// MaxPixels bounds a photo's decoded size before it is decoded: a 48
// megapixel phone's photo fits, a small file claiming 30 000 x 30 000
// pixels (a decompression bomb, 900 MB of gray) does not.
const MaxPixels = 50_000_000

// Errors of Decode. Every one is the photo's fault: the endpoint answers
// them 400 naming the file, never 5xx.
var (
	// ErrNotImage: the bytes are none of the formats read (a PDF, text,
	// an AVIF, a GIF).
	ErrNotImage = errors.New("not a JPEG, PNG, WebP or HEIC image")
	// ErrCorrupt: the format is known but the image does not decode.
	ErrCorrupt = errors.New("the image is corrupt and cannot be decoded")
	// ErrTooManyPixels: over MaxPixels.
	ErrTooManyPixels = fmt.Errorf("the image has more than %d megapixels", MaxPixels/1_000_000)
)

// Sniff tells the format from the first bytes, never from a name or a
// declared type; ok false for anything else.
func Sniff(data []byte) (Format, bool) {
	switch {
	case bytes.HasPrefix(data, []byte{0xff, 0xd8, 0xff}):
		return JPEG, true
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return PNG, true
	case len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WEBP":
		return WebP, true
	case isHEIC(data):
		return HEIC, true
	}
	return "", false
}

// heicBrands are the ISO BMFF brands of HEIF images coded in HEVC, what
// phones save (Apple's heic, Samsung's and others' mif1 with heic
// compatible); AVIF (avif, avis) is another codec and not read.
var heicBrands = map[string]bool{"heic": true, "heix": true, "heim": true, "heis": true, "hevc": true, "hevx": true}

// isHEIC reads the ftyp box: its major brand or a compatible one is a
// HEVC-coded HEIF.
func isHEIC(data []byte) bool {
	if len(data) < 16 || string(data[4:8]) != "ftyp" {
		return false
	}
	size := int(binary.BigEndian.Uint32(data[:4]))
	if size < 16 || size > len(data) || size > 4096 {
		return false
	}
	if heicBrands[string(data[8:12])] {
		return true
	}
	for i := 16; i+4 <= size; i += 4 { // compatible brands, after minor_version
		if heicBrands[string(data[i:i+4])] {
			return true
		}
	}
	return false
}

// Decode decodes data into gray, turned upright as the photo's EXIF
// orientation says (a phone stores the sensor's pixels and a tag saying how
// to show them; the browser shows them turned, so the boxes are the turned
// image's).
func Decode(data []byte) (*image.Gray, Format, error) {
	f, ok := Sniff(data)
	if !ok {
		return nil, "", ErrNotImage
	}
	var cfg image.Config
	var err error
	switch f {
	case JPEG:
		cfg, err = jpeg.DecodeConfig(bytes.NewReader(data))
	case PNG:
		cfg, err = png.DecodeConfig(bytes.NewReader(data))
	case WebP:
		cfg, err = webp.DecodeConfig(bytes.NewReader(data))
	case HEIC:
		cfg, err = heicConfig(data)
	}
	if err != nil {
		return nil, f, decodeError(err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return nil, f, ErrCorrupt
	}
	if int64(cfg.Width)*int64(cfg.Height) > MaxPixels {
		return nil, f, ErrTooManyPixels
	}
	var img image.Image
	switch f {
	case JPEG:
		img, err = jpeg.Decode(bytes.NewReader(data))
	case PNG:
		img, err = png.Decode(bytes.NewReader(data))
	case WebP:
		img, err = webp.Decode(bytes.NewReader(data))
	case HEIC:
		img, err = heicDecode(data) // libheif applies the file's own rotation
	}
	if err != nil {
		return nil, f, decodeError(err)
	}
	gray := toGray(img)
	if f == JPEG {
		gray = orient(gray, exifOrientation(data))
	}
	return gray, f, nil
}

func decodeError(err error) error {
	return fmt.Errorf("%w: %w", ErrCorrupt, err)
}

// toGray is img in gray with its origin at 0, 0.
func toGray(img image.Image) *image.Gray {
	b := img.Bounds()
	if g, ok := img.(*image.Gray); ok && b.Min == (image.Point{}) {
		return g
	}
	gray := image.NewGray(image.Rect(0, 0, b.Dx(), b.Dy()))
	if yc, ok := img.(*image.YCbCr); ok { // JPEG, WebP, HEIC: the luma is the gray
		for y := range b.Dy() {
			copy(gray.Pix[y*gray.Stride:y*gray.Stride+b.Dx()], yc.Y[yc.YOffset(b.Min.X, b.Min.Y+y):])
		}
		return gray
	}
	draw.Draw(gray, gray.Rect, img, b.Min, draw.Src)
	return gray
}

// exifOrientation reads the Orientation tag (1..8) of a JPEG's Exif
// segment; 1 (as stored) when there is none or it cannot be read.
func exifOrientation(data []byte) int {
	i := 2
	for i+4 <= len(data) && data[i] == 0xff {
		marker := data[i+1]
		n := int(binary.BigEndian.Uint16(data[i+2:]))
		if marker == 0xda || n < 2 || i+2+n > len(data) { // start of scan: no Exif before the pixels
			return 1
		}
		seg := data[i+4 : i+2+n]
		if marker == 0xe1 && bytes.HasPrefix(seg, []byte("Exif\x00\x00")) {
			return tiffOrientation(seg[6:])
		}
		i += 2 + n
	}
	return 1
}

// tiffOrientation reads tag 0x0112 of the first IFD of a TIFF header.
func tiffOrientation(t []byte) int {
	if len(t) < 8 {
		return 1
	}
	var bo binary.ByteOrder
	switch string(t[:2]) {
	case "II":
		bo = binary.LittleEndian
	case "MM":
		bo = binary.BigEndian
	default:
		return 1
	}
	ifd := int(bo.Uint32(t[4:]))
	if ifd < 8 || ifd+2 > len(t) {
		return 1
	}
	count := int(bo.Uint16(t[ifd:]))
	for k := range count {
		e := ifd + 2 + 12*k
		if e+12 > len(t) {
			return 1
		}
		if bo.Uint16(t[e:]) == 0x0112 {
			if o := int(bo.Uint16(t[e+8:])); o >= 1 && o <= 8 {
				return o
			}
			return 1
		}
	}
	return 1
}

// orient turns img as EXIF orientation o says it is to be shown: 3 is
// turned 180 degrees, 6 a quarter clockwise, 8 a quarter anticlockwise,
// 2, 4, 5, 7 the same with a mirror.
func orient(img *image.Gray, o int) *image.Gray {
	if o <= 1 || o > 8 {
		return img
	}
	w, h := img.Rect.Dx(), img.Rect.Dy()
	ow, oh := w, h
	if o >= 5 {
		ow, oh = h, w
	}
	out := image.NewGray(image.Rect(0, 0, ow, oh))
	for y := range h {
		for x := range w {
			var nx, ny int
			switch o {
			case 2:
				nx, ny = w-1-x, y
			case 3:
				nx, ny = w-1-x, h-1-y
			case 4:
				nx, ny = x, h-1-y
			case 5:
				nx, ny = y, x
			case 6:
				nx, ny = h-1-y, x
			case 7:
				nx, ny = h-1-y, w-1-x
			case 8:
				nx, ny = y, w-1-x
			}
			out.Pix[ny*out.Stride+nx] = img.Pix[y*img.Stride+x]
		}
	}
	return out
}
