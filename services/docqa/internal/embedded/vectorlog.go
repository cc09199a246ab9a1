package embedded

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"

	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/services/docqa/internal/docqa"
)

// The log is how the store persisted before it moved to SQLite (vectors.db).
// Only reading is left: Open converts an existing log once, then renames it
// to vectors.log.converted.
//
// The log is a magic line followed by records:
//
//	uint32 payload length | uint32 CRC-32C of payload | payload
//
// all little-endian. A payload is one operation: opUpsert followed by a
// uint32 length, that many bytes of JSON (upsertHeader) and the chunks'
// vectors as raw float32s, or opDelete followed by JSON (deleteRecord).
// A record was written with one write and then synced, so after a crash the
// log ends either with a whole record or with a torn one.
var magic = []byte("docqa embedded vectors v1\n")

const (
	opUpsert byte = 1
	opDelete byte = 2

	recordHeader = 8
	// maxRecord bounds a record's length so a corrupt length cannot ask for
	// gigabytes: MaxChunks chunks of vectors plus generous text.
	maxRecord = docqa.MaxChunks*(docqa.Dimension*4+256*1024) + 1<<20
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

type upsertHeader struct {
	Doc      docqa.Document `json:"doc"`
	Embedder string         `json:"embedder"`
	Chunks   []chunkHeader  `json:"chunks"`
}

type chunkHeader struct {
	ID    string `json:"id"`
	Page  int    `json:"page"`
	Index int    `json:"index"`
	Text  string `json:"text"`
}

type deleteRecord struct {
	FileMD5 string `json:"fileMd5"`
}

// apply replays one payload into the in-memory state.
func (s *Store) apply(payload []byte) error {
	if len(payload) == 0 {
		return errors.New("empty record")
	}
	switch payload[0] {
	case opUpsert:
		if len(payload) < 5 {
			return errors.New("short upsert record")
		}
		n := int(binary.LittleEndian.Uint32(payload[1:5]))
		if n > len(payload)-5 {
			return errors.New("upsert header overruns its record")
		}
		var h upsertHeader
		if err := json.Unmarshal(payload[5:5+n], &h); err != nil {
			return fmt.Errorf("upsert header: %w", err)
		}
		vecs := payload[5+n:]
		if len(vecs) != len(h.Chunks)*docqa.Dimension*4 {
			return fmt.Errorf("upsert record has %d vector bytes for %d chunks", len(vecs), len(h.Chunks))
		}
		chunks := make([]docqa.Chunk, len(h.Chunks))
		for i, c := range h.Chunks {
			emb := make([]float32, docqa.Dimension)
			for j := range emb {
				off := (i*docqa.Dimension + j) * 4
				emb[j] = math.Float32frombits(binary.LittleEndian.Uint32(vecs[off : off+4]))
			}
			chunks[i] = docqa.Chunk{ID: c.ID, Page: c.Page, Index: c.Index, Text: c.Text, Embedding: emb}
		}
		h.Doc.Owner = auth.BuiltinUserID // the log predates owners
		s.applyUpsert(h.Doc, h.Embedder, chunks, nil)
	case opDelete:
		var d deleteRecord
		if err := json.Unmarshal(payload[1:], &d); err != nil {
			return fmt.Errorf("delete record: %w", err)
		}
		s.applyDelete(docKey{auth.BuiltinUserID, d.FileMD5})
	default:
		return fmt.Errorf("unknown operation %d", payload[0])
	}
	return nil
}

// replayLog applies every record of the log at path to s and returns how
// many bytes at its end were a torn last record, dropped (0 when the log
// ended whole). A record that fails its checksum or does not decode while
// more of the log follows it is damage, not a torn write: an error naming
// the file and the offset, and nothing is dropped.
func (s *Store) replayLog(path string) (torn int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return 0, err
	}
	size := info.Size()
	r := bufio.NewReaderSize(f, 1<<20)
	head := make([]byte, len(magic))
	n, err := io.ReadFull(r, head)
	switch {
	case err == nil && string(head) == string(magic):
	case (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)) && string(head[:n]) == string(magic[:n]):
		return int64(n), nil // created, its magic not fully written: nothing stored
	case err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF):
		return 0, err
	default:
		return 0, fmt.Errorf("%s is not a docqa vector log", path)
	}
	off := int64(len(magic))
	var hdr [recordHeader]byte
	for off < size {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return size - off, nil // a header cut short: the last write, torn
		}
		n := int64(binary.LittleEndian.Uint32(hdr[0:4]))
		end := off + recordHeader + n
		if n == 0 || n > maxRecord {
			return 0, fmt.Errorf("%s: damaged record header at offset %d", path, off)
		}
		if end > size {
			return size - off, nil // the last write, cut short
		}
		payload := make([]byte, n)
		if _, err := io.ReadFull(r, payload); err != nil {
			return 0, err
		}
		if crc32.Checksum(payload, castagnoli) != binary.LittleEndian.Uint32(hdr[4:8]) {
			if end == size {
				return size - off, nil // the last record, torn inside
			}
			return 0, fmt.Errorf("%s: record at offset %d fails its checksum and %d bytes follow it: the log is damaged",
				path, off, size-end)
		}
		if err := s.apply(payload); err != nil {
			return 0, fmt.Errorf("%s: record at offset %d: %w", path, off, err)
		}
		off = end
	}
	return 0, nil
}
