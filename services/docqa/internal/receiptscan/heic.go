//go:build nodynamic

package receiptscan

import (
	"bytes"
	"image"

	"github.com/gen2brain/heic"
)

// HEIC is read by libheif compiled to WebAssembly and run by wazero
// (github.com/gen2brain/heic): no cgo. The build tag is the library's own:
// without nodynamic it would also try to dlopen a system libheif through
// purego, which links the binary against libc (no longer one static file);
// with it, only the WebAssembly decoder is built in.

func heicConfig(data []byte) (image.Config, error) { return heic.DecodeConfig(bytes.NewReader(data)) }

func heicDecode(data []byte) (image.Image, error) { return heic.Decode(bytes.NewReader(data)) }
