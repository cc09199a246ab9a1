//go:build unix

package pdftext

import (
	"syscall"

	"github.com/tetratelabs/wazero/experimental"
)

// mmapMemory backs an instance's WebAssembly memory with an anonymous
// mapping reserved at the memory's maximum, outside the Go heap. wazero's
// default grows a Go slice, copying it at each growth and leaving the old
// one to the garbage collector: for a 100 MB document that doubled the
// memory the engine held (measured: peak RSS of one upload 533 MiB with the
// default, see proto-docs/docqa-pdf-decisions.md). Here a growth only
// lengthens the slice over pages the kernel provides when first touched,
// and Free returns them all at once when the document is done.
type mmapMemory struct {
	mapped []byte // the whole reservation
	buf    []byte // the part in use
}

// allocateMemory is the engine's experimental.MemoryAllocator; it falls
// back to wazero's own memory when the mapping cannot be made.
func allocateMemory(capacity, max uint64) experimental.LinearMemory {
	b, err := syscall.Mmap(-1, 0, int(max), syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
	if err != nil {
		return &sliceMemory{buf: make([]byte, 0, capacity)}
	}
	return &mmapMemory{mapped: b, buf: b[:0]}
}

func (m *mmapMemory) Reallocate(size uint64) []byte {
	if size > uint64(len(m.mapped)) {
		return nil // past the maximum: the module's memory.grow fails
	}
	m.buf = m.mapped[:size]
	return m.buf
}

func (m *mmapMemory) Free() {
	if m.mapped != nil {
		_ = syscall.Munmap(m.mapped)
		m.mapped, m.buf = nil, nil
	}
}
