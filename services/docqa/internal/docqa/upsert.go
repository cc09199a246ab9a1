package docqa

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// ValidMD5 reports whether s is 32 lowercase hexadecimal digits, the form in
// which stores keep a file's MD5.
func ValidMD5(s string) bool {
	if len(s) != 32 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// CheckUpsert checks the arguments of VectorStore.Upsert, the same for every
// store, and returns a copy of chunks with missing ids filled in with
// OwnedChunkID and rectangles as the stores keep them (PackRects, then
// UnpackRects: four decimals, on the page), so that a store answers the
// same before and after it is opened again. Vectors of the wrong length wrap ErrDimension.
func CheckUpsert(doc Document, chunks []Chunk, embedder string) ([]Chunk, error) {
	if !ValidMD5(doc.FileMD5) {
		return nil, fmt.Errorf("fileMd5 %q is not 32 lowercase hex digits", doc.FileMD5)
	}
	if strings.TrimSpace(embedder) == "" {
		return nil, errors.New("embedder name is empty")
	}
	if len(chunks) == 0 {
		return nil, fmt.Errorf("document %s has no chunks", doc.FileMD5)
	}
	out := make([]Chunk, len(chunks))
	seen := make(map[string]struct{}, len(chunks))
	for i, c := range chunks {
		if c.Index < 0 {
			return nil, fmt.Errorf("chunk %d has index %d", i, c.Index)
		}
		if c.ID == "" {
			c.ID = OwnedChunkID(doc.Owner, doc.FileMD5, c.Index)
		}
		if _, dup := seen[c.ID]; dup {
			return nil, fmt.Errorf("chunk id %s appears twice", c.ID)
		}
		seen[c.ID] = struct{}{}
		if len(c.Embedding) != Dimension {
			return nil, fmt.Errorf("%w: chunk %d has %d floats, want %d", ErrDimension, c.Index, len(c.Embedding), Dimension)
		}
		for _, f := range c.Embedding {
			if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
				return nil, fmt.Errorf("chunk %d has a NaN or infinite value", c.Index)
			}
		}
		c.Rects = UnpackRects(PackRects(c.Rects))
		out[i] = c
	}
	return out, nil
}
