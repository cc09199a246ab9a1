package media

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"regexp"

	exif "github.com/dsoprea/go-exif/v3"
	exifcommon "github.com/dsoprea/go-exif/v3/common"
)

// StripLocation returns a copy of the image data (of type ct) without its
// location: every EXIF block it holds keeps its other tags (orientation,
// camera, time) but its GPS directory is emptied, and the GPS properties
// of an XMP packet are blanked.
//
// The work is done in place, byte for byte: a GPS directory's entries and
// the values they point to become zeros and its entry count 0 (a valid,
// empty directory), so no offset of the file moves and the container
// (JPEG segments, PNG chunks, WebP chunks, HEIC boxes) stays as it was;
// only PNG chunks that changed get their CRC written anew. The EXIF blocks
// are found by their TIFF header where containers keep them (exifAt) and
// parsed with go-exif; a block that does not parse is an error (its
// location could not be removed), so the file is refused rather than
// stored with it. A PDF is returned as it is.
func StripLocation(ct string, data []byte) ([]byte, error) {
	if !IsImage(ct) {
		return data, nil
	}
	out := bytes.Clone(data)
	if err := emptyGPS(out); err != nil {
		return nil, err
	}
	blankXMPLocation(out)
	if ct == PNG {
		fixPNGChecksums(data, out)
	}
	return out, nil
}

var (
	tiffLittle = []byte("II*\x00")
	tiffBig    = []byte("MM\x00*")
	exifMarker = []byte("Exif\x00\x00")

	exifMapping  = mustIfdMapping()
	exifTagIndex = exif.NewTagIndex()
	gpsIfdPath   = exifcommon.IfdGpsInfoStandardIfdIdentity.UnindexedString()
)

func mustIfdMapping() *exifcommon.IfdMapping {
	m, err := exifcommon.NewIfdMappingWithStandard()
	if err != nil {
		panic(fmt.Sprintf("go-exif: standard IFD mapping: %v", err))
	}
	return m
}

// maxExifBlocks bounds the EXIF blocks of one file: a camera writes one,
// a multi-picture JPEG one per picture. Each costs a parse, so a file
// made of markers is refused rather than parsed a million times.
const maxExifBlocks = 32

// exifAt reports whether a TIFF header at at of b is where an EXIF block
// is kept: after JPEG's (and HEIC's) "Exif\0\0" marker, as the data of a
// PNG eXIf chunk or of a WebP EXIF chunk. Other TIFF headers are image
// data that happens to look like one.
func exifAt(b []byte, at int) bool {
	return at >= len(exifMarker) && bytes.Equal(b[at-len(exifMarker):at], exifMarker) ||
		at >= 4 && string(b[at-4:at]) == "eXIf" ||
		at >= 8 && string(b[at-8:at-4]) == "EXIF"
}

// emptyGPS empties the GPS directory of every EXIF block of b.
func emptyGPS(b []byte) error {
	blocks := 0
	for _, sig := range [][]byte{tiffLittle, tiffBig} {
		for from := 0; ; {
			i := bytes.Index(b[from:], sig)
			if i < 0 {
				break
			}
			at := from + i
			from = at + 1
			if !exifAt(b, at) {
				continue
			}
			if blocks++; blocks > maxExifBlocks {
				return &Error{Field: "file", Msg: fmt.Sprintf("holds more than %d EXIF blocks", maxExifBlocks)}
			}
			_, index, err := exif.Collect(exifMapping, exifTagIndex, b[at:])
			if err != nil {
				return &Error{Field: "file", Msg: "its EXIF metadata does not parse, so its location could not be removed", Err: err}
			}
			for _, ifd := range index.Ifds {
				if ifd.IfdIdentity().UnindexedString() != gpsIfdPath {
					continue
				}
				if err := emptyIFD(b[at:], ifd.ByteOrder(), ifd.Offset()); err != nil {
					return &Error{Field: "file", Msg: "its EXIF GPS directory could not be removed", Err: err}
				}
			}
		}
	}
	return nil
}

// typeSizes are the sizes of the TIFF field types (TIFF 6.0, section 2).
var typeSizes = map[uint16]uint32{1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8}

// emptyIFD zeroes the directory at off of the TIFF block tiff, its entries
// and the values they point to, leaving an empty directory.
func emptyIFD(tiff []byte, order binary.ByteOrder, off uint32) error {
	end := uint64(off) + 2
	if end > uint64(len(tiff)) {
		return errors.New("directory beyond the block")
	}
	n := uint64(order.Uint16(tiff[off:]))
	entries := tiff[end:]
	if uint64(len(entries)) < n*12 {
		return errors.New("directory entries beyond the block")
	}
	for i := uint64(0); i < n; i++ {
		e := entries[i*12 : i*12+12]
		size := uint64(typeSizes[order.Uint16(e[2:])]) * uint64(order.Uint32(e[4:]))
		if size <= 4 {
			continue // the value sits in the entry
		}
		at := uint64(order.Uint32(e[8:]))
		if at+size > uint64(len(tiff)) {
			return errors.New("value beyond the block")
		}
		clear(tiff[at : at+size])
	}
	// The entries and the next-directory offset after them (when in the
	// block), then the count.
	clear(entries[:min(uint64(len(entries)), n*12+4)])
	order.PutUint16(tiff[off:], 0)
	return nil
}

// xmpGPS matches the GPS properties of an XMP packet (the exif namespace's
// GPS* properties) as attributes and as simple elements; submatch 1 is
// the value to blank.
var xmpGPS = []*regexp.Regexp{
	regexp.MustCompile(`exif:GPS[A-Za-z]*\s*=\s*"([^"]*)"`),
	regexp.MustCompile(`exif:GPS[A-Za-z]*\s*=\s*'([^']*)'`),
	regexp.MustCompile(`<exif:GPS[A-Za-z]*>([^<]*)</exif:GPS`),
}

// blankXMPLocation overwrites the values of XMP GPS properties with
// spaces, keeping the packet's length and form.
func blankXMPLocation(b []byte) {
	if !bytes.Contains(b, []byte("exif:GPS")) {
		return
	}
	for _, re := range xmpGPS {
		for _, m := range re.FindAllSubmatchIndex(b, -1) {
			for i := m[2]; i < m[3]; i++ {
				b[i] = ' '
			}
		}
	}
}

// fixPNGChecksums writes the CRC of every chunk of out whose bytes differ
// from those of the same chunk in orig (which had a correct CRC).
func fixPNGChecksums(orig, out []byte) {
	const sigLen = 8
	for at := sigLen; at+12 <= len(out); {
		n := int(binary.BigEndian.Uint32(out[at:]))
		end := at + 8 + n + 4
		if n < 0 || end > len(out) {
			return
		}
		body := out[at+4 : at+8+n] // type and data
		if !bytes.Equal(body, orig[at+4:at+8+n]) &&
			binary.BigEndian.Uint32(orig[at+8+n:]) == crc32.ChecksumIEEE(orig[at+4:at+8+n]) {
			binary.BigEndian.PutUint32(out[at+8+n:], crc32.ChecksumIEEE(body))
		}
		at = end
	}
}
