package pdftext

import "github.com/tetratelabs/wazero/experimental"

// sliceMemory is a WebAssembly memory in an ordinary Go slice, as wazero
// keeps it by default: the fallback where no anonymous mapping can be made.
type sliceMemory struct{ buf []byte }

func (m *sliceMemory) Reallocate(size uint64) []byte {
	if size <= uint64(cap(m.buf)) {
		m.buf = m.buf[:size]
		return m.buf
	}
	b := make([]byte, size, size+size/4)
	copy(b, m.buf)
	m.buf = b
	return b
}

func (m *sliceMemory) Free() { m.buf = nil }

var _ experimental.LinearMemory = (*sliceMemory)(nil)
