package media_test

import (
	"os"
	"testing"

	"github.com/carhub/backend/services/fuel/internal/media"
	"github.com/carhub/backend/services/fuel/internal/media/mediatest"
)

// FuzzStripLocation: whatever bytes a client sends, the type check and the
// location removal never panic, and an image keeps its length (the work is
// in place).
func FuzzStripLocation(f *testing.F) {
	f.Add(mediatest.MustJPEG(f, 8, 8, mediatest.MustExif(f, true, 6)))
	f.Add(mediatest.MustPNG(f, 8, 8, mediatest.MustExif(f, true, 1)))
	if webp, err := os.ReadFile("testdata/gps.webp"); err == nil {
		f.Add(webp)
	}
	f.Add([]byte("II*\x00\x08\x00\x00\x00\x01\x00\x25\x88\x04\x00\x01\x00\x00\x00\xff\xff\xff\x7f"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if ct, err := media.Detect("file", data, "", ""); err == nil {
			data2, err := media.StripLocation(ct, data)
			if err == nil && len(data2) != len(data) {
				t.Fatalf("%s: length %d, want %d", ct, len(data2), len(data))
			}
		}
		// Every type's path, whatever the content says.
		for _, ct := range []string{media.JPEG, media.PNG, media.HEIC} {
			out, err := media.StripLocation(ct, data)
			if err == nil && len(out) != len(data) {
				t.Fatalf("%s: length %d, want %d", ct, len(out), len(data))
			}
		}
	})
}
