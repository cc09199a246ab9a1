// Command genpdf writes a large PDF for the memory measurement of an upload:
// pages of prose, each with an uncompressed image of -image bytes, until the
// file reaches -size megabytes (10^6 bytes).
//
//	go run ./testdata/genpdf -size 100 -o /tmp/big.pdf
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/carhub/backend/services/docqa/internal/ingest/ingesttest"
)

func main() {
	size := flag.Int64("size", 100, "approximate size in MB (10^6 bytes)")
	image := flag.Int("image", 1<<20, "bytes of image data per page")
	seed := flag.Uint64("seed", 1, "seed of the text")
	out := flag.String("o", "big.pdf", "output file")
	flag.Parse()
	if err := write(*out, *size*1_000_000, *image, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "genpdf:", err)
		os.Exit(1)
	}
}

func write(path string, size int64, image int, seed uint64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := ingesttest.WriteLarge(f, size, image, seed); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
