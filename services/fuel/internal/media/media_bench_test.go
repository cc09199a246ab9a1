package media_test

import (
	"bytes"
	"syscall"
	"testing"
	"time"

	"github.com/carhub/backend/services/fuel/internal/media"
	"github.com/carhub/backend/services/fuel/internal/media/mediatest"
)

// A 12-megapixel phone photo (4000 × 3000) with GPS EXIF.
func benchPhoto(b *testing.B) []byte {
	b.Helper()
	return mediatest.MustJPEG(b, 4000, 3000, mediatest.MustExif(b, true, 6))
}

// cpuTime is the CPU time the process has used: on a shared machine the
// wall time of ns/op says more about the neighbours than about the code,
// so the benchmarks report cpu-ms/op too.
func cpuTime(b *testing.B) time.Duration {
	b.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func bench(b *testing.B, fn func() error) {
	b.Helper()
	start := cpuTime(b)
	b.ResetTimer()
	for b.Loop() {
		if err := fn(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime(b)-start)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}

func BenchmarkStripLocation12MP(b *testing.B) {
	photo := benchPhoto(b)
	b.SetBytes(int64(len(photo)))
	bench(b, func() error { _, err := media.StripLocation(media.JPEG, photo); return err })
}

func BenchmarkThumbnail12MP(b *testing.B) {
	photo := benchPhoto(b)
	bench(b, func() error { _, err := media.Thumbnail(media.JPEG, photo); return err })
}

// BenchmarkStripLocationTIFFLookalikes: 10 MiB of TIFF headers outside any
// EXIF marker (image data can look so) are skipped without a parse.
func BenchmarkStripLocationTIFFLookalikes(b *testing.B) {
	in := append(mediatest.MustJPEG(b, 8, 8, nil), bytes.Repeat([]byte("II*\x00"), 10<<20/4)...)
	b.SetBytes(int64(len(in)))
	bench(b, func() error { _, err := media.StripLocation(media.JPEG, in); return err })
}
