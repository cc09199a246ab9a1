//go:build !unix

package pdftext

import "github.com/tetratelabs/wazero/experimental"

func allocateMemory(capacity, max uint64) experimental.LinearMemory {
	return &sliceMemory{buf: make([]byte, 0, capacity)}
}
