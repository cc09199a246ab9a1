package media

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"

	exif "github.com/dsoprea/go-exif/v3"
	"golang.org/x/image/draw"
)

// Thumbnail bounds.
const (
	// ThumbnailSize is the longest side of a thumbnail, in pixels.
	ThumbnailSize = 320
	// MaxThumbnailSourcePixels is the largest image (width × height) a
	// thumbnail is made of: decoding one takes 4 bytes a pixel at worst,
	// so a 10 MiB file that claims 40 000 × 40 000 pixels gets none
	// rather than 6 GiB of memory.
	MaxThumbnailSourcePixels = 64_000_000
	thumbnailQuality         = 80
)

// ThumbnailType is the content type of every thumbnail.
const ThumbnailType = JPEG

// Thumbnail returns a JPEG of at most ThumbnailSize pixels a side of the
// image data (of type ct), turned upright as its EXIF orientation says,
// transparent parts on white. ErrNoThumbnail for a PDF, a HEIC (no
// decoder here) or an image above MaxThumbnailSourcePixels.
func Thumbnail(ct string, data []byte) ([]byte, error) {
	switch ct {
	case JPEG, PNG, WebP:
	default:
		return nil, ErrNoThumbnail
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("thumbnail: %w", err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || int64(cfg.Width)*int64(cfg.Height) > MaxThumbnailSourcePixels {
		return nil, ErrNoThumbnail
	}
	src, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("thumbnail: %w", err)
	}
	b := src.Bounds()
	w, h := fit(b.Dx(), b.Dy(), ThumbnailSize)
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	// An opaque image is scaled with draw.Src, for which x/image/draw has
	// fast paths (YCbCr JPEGs among them); one with transparency goes
	// Over white.
	op := draw.Src
	if o, ok := src.(interface{ Opaque() bool }); !ok || !o.Opaque() {
		draw.Draw(dst, dst.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
		op = draw.Over
	}
	scaleDown(dst, src, op)
	var out bytes.Buffer
	if err := jpeg.Encode(&out, upright(dst, orientation(data)), &jpeg.Options{Quality: thumbnailQuality}); err != nil {
		return nil, fmt.Errorf("thumbnail: %w", err)
	}
	return out.Bytes(), nil
}

// fit scales w × h down (never up) to fit in side × side, keeping the
// aspect ratio and at least one pixel a side.
func fit(w, h, side int) (int, int) {
	if w <= side && h <= side {
		return w, h
	}
	if w >= h {
		return side, max(1, (h*side+w/2)/w)
	}
	return max(1, (w*side+h/2)/h), side
}

// orientation is the EXIF Orientation (1..8) of the first EXIF block of
// data; 1 (upright) when there is none.
func orientation(data []byte) int {
	raw, err := exif.SearchAndExtractExif(data)
	if err != nil {
		return 1
	}
	_, index, err := exif.Collect(exifMapping, exifTagIndex, raw)
	if err != nil {
		return 1
	}
	tags, err := index.RootIfd.FindTagWithId(0x0112)
	if err != nil || len(tags) == 0 {
		return 1
	}
	v, err := tags[0].Value()
	if err != nil {
		return 1
	}
	if s, ok := v.([]uint16); ok && len(s) > 0 && s[0] >= 1 && s[0] <= 8 {
		return int(s[0])
	}
	return 1
}

// upright applies the EXIF orientation o to m: o says how the stored
// pixels must be turned to show the scene upright (EXIF 2.32, Orientation).
func upright(m *image.RGBA, o int) image.Image {
	if o <= 1 || o > 8 {
		return m
	}
	b := m.Bounds()
	w, h := b.Dx(), b.Dy()
	ow, oh := w, h
	if o >= 5 {
		ow, oh = h, w
	}
	out := image.NewRGBA(image.Rect(0, 0, ow, oh))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			var dx, dy int
			switch o {
			case 2: // mirrored
				dx, dy = w-1-x, y
			case 3: // rotated 180°
				dx, dy = w-1-x, h-1-y
			case 4: // mirrored vertically
				dx, dy = x, h-1-y
			case 5: // transposed
				dx, dy = y, x
			case 6: // turned 90° clockwise to be upright
				dx, dy = h-1-y, x
			case 7: // transversed
				dx, dy = h-1-y, w-1-x
			case 8: // turned 90° counter-clockwise to be upright
				dx, dy = y, w-1-x
			}
			out.SetRGBA(dx, dy, m.RGBAAt(b.Min.X+x, b.Min.Y+y))
		}
	}
	return out
}

// preScale is how much larger than the thumbnail the intermediate image of
// scaleDown is.
const preScale = 4

// scaleDown draws src onto all of dst, which is smaller. CatmullRom
// straight from a 12-megapixel photo costs 292 ms of CPU for the whole
// thumbnail (its kernel widens with the ratio); ApproxBiLinear alone
// aliases. So a large source is first taken to preScale times dst's size
// with ApproxBiLinear (a few samples a pixel), then to dst with
// CatmullRom, which smooths what the first step aliased: 106 ms
// (BenchmarkThumbnail12MP, cpu-ms/op; proto-docs/fuel-decisions.md).
func scaleDown(dst *image.RGBA, src image.Image, op draw.Op) {
	b := src.Bounds()
	d := dst.Bounds()
	if b.Dx() <= preScale*d.Dx() || b.Dy() <= preScale*d.Dy() {
		draw.CatmullRom.Scale(dst, d, src, b, op, nil)
		return
	}
	mid := image.NewRGBA(image.Rect(0, 0, preScale*d.Dx(), preScale*d.Dy()))
	if op == draw.Over {
		draw.Draw(mid, mid.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	}
	draw.ApproxBiLinear.Scale(mid, mid.Bounds(), src, b, op, nil)
	draw.CatmullRom.Scale(dst, d, mid, mid.Bounds(), draw.Src, nil)
}
