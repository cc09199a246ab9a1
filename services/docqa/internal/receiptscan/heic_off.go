//go:build !nodynamic

package receiptscan

import "image"

// Without the nodynamic tag a HEIC photo is refused (ErrHEICUnsupported)
// rather than built with a decoder that links the binary against libc:
// see heic.go.

func heicConfig([]byte) (image.Config, error) { return image.Config{}, ErrHEICUnsupported }

func heicDecode([]byte) (image.Image, error) { return nil, ErrHEICUnsupported }
