package receiptscan

import (
	"bytes"
	"image"

	"github.com/gen2brain/heic"
)

// HEIC is read by libheif compiled to WebAssembly and run by wazero
// (github.com/gen2brain/heic): no cgo. The library's own build tag
// nodynamic, which the Makefile's and the Dockerfile's builds set, leaves
// only the WebAssembly decoder in: without it the library also tries to
// dlopen a system libheif through purego (and falls back to WebAssembly
// when there is none), which links the binary against libc, so it is no
// longer one static file. Either way a HEIC photo is read.

func heicConfig(data []byte) (image.Config, error) { return heic.DecodeConfig(bytes.NewReader(data)) }

func heicDecode(data []byte) (image.Image, error) { return heic.Decode(bytes.NewReader(data)) }
