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

	"github.com/carhub/backend/services/docqa/internal/docqa"
)

// The log is a magic line followed by records:
//
//	uint32 payload length | uint32 CRC-32C of payload | payload
//
// all little-endian. A payload is one operation: opUpsert followed by a
// uint32 length, that many bytes of JSON (upsertHeader) and the chunks'
// vectors as raw float32s, or opDelete followed by JSON (deleteRecord).
// A record is written with one write and then synced, so after a crash the
// log ends either with a whole record or with a torn one, which Open drops.
var magic = []byte("docqa embedded vectors v1\n")

const (
	opUpsert byte = 1
	opDelete byte = 2

	recordHeader = 8
	// maxRecord bounds a record's length so a corrupt length cannot ask for
	// gigabytes: MaxChunks chunks of vectors plus generous text.
	maxRecord = docqa.MaxChunks*(docqa.Dimension*4+256*1024) + 1<<20
	// compactSlack: the log is rewritten only when its dead part is larger
	// than its live part and than this many bytes.
	compactSlack = 8 << 20
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

// encodeUpsert returns the whole record (header and payload) of an upsert.
func encodeUpsert(doc docqa.Document, embedder string, chunks []docqa.Chunk) []byte {
	h := upsertHeader{Doc: doc, Embedder: embedder, Chunks: make([]chunkHeader, len(chunks))}
	for i, c := range chunks {
		h.Chunks[i] = chunkHeader{ID: c.ID, Page: c.Page, Index: c.Index, Text: c.Text}
	}
	js, err := json.Marshal(h)
	if err != nil {
		// Only strings, ints, a bool and a time: Marshal cannot fail.
		panic(fmt.Sprintf("embedded: encoding upsert header: %v", err))
	}
	payload := make([]byte, 0, 1+4+len(js)+len(chunks)*docqa.Dimension*4)
	payload = append(payload, opUpsert)
	payload = binary.LittleEndian.AppendUint32(payload, uint32(len(js)))
	payload = append(payload, js...)
	for _, c := range chunks {
		for _, f := range c.Embedding {
			payload = binary.LittleEndian.AppendUint32(payload, math.Float32bits(f))
		}
	}
	return frame(payload)
}

func encodeDelete(md5 string) []byte {
	js, _ := json.Marshal(deleteRecord{FileMD5: md5})
	return frame(append([]byte{opDelete}, js...))
}

func frame(payload []byte) []byte {
	rec := make([]byte, recordHeader, recordHeader+len(payload))
	binary.LittleEndian.PutUint32(rec[0:4], uint32(len(payload)))
	binary.LittleEndian.PutUint32(rec[4:8], crc32.Checksum(payload, castagnoli))
	return append(rec, payload...)
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
		s.applyUpsert(h.Doc, h.Embedder, chunks)
	case opDelete:
		var d deleteRecord
		if err := json.Unmarshal(payload[1:], &d); err != nil {
			return fmt.Errorf("delete record: %w", err)
		}
		s.applyDelete(d.FileMD5)
	default:
		return fmt.Errorf("unknown operation %d", payload[0])
	}
	return nil
}

// load opens (or creates) the log, replays it, drops a torn tail and
// compacts when worthwhile.
func (s *Store) load() error {
	// A temporary file is a compaction that did not reach its rename: the
	// log beside it is still whole, so the temporary file is dropped.
	if err := os.Remove(s.tmpPath()); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	f, err := os.OpenFile(s.logPath(), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	good, err := s.replay(f)
	if err != nil {
		f.Close()
		return err
	}
	end, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		f.Close()
		return err
	}
	if end != good {
		// A torn record (or a log cut short while it was being created).
		if err := f.Truncate(good); err != nil {
			f.Close()
			return fmt.Errorf("dropping a torn record: %w", err)
		}
	}
	if good == 0 {
		if _, err := f.WriteAt(magic, 0); err != nil {
			f.Close()
			return err
		}
		good = int64(len(magic))
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Seek(good, io.SeekStart); err != nil {
		f.Close()
		return err
	}
	s.log, s.size = f, good
	s.rebuildIndexLocked()
	return s.maybeCompactLocked()
}

// replay applies every whole record of f and returns the offset after the
// last one. A short or corrupt record ends the replay: it can only be the
// last write, cut short by a crash.
func (s *Store) replay(f *os.File) (int64, error) {
	r := bufio.NewReaderSize(f, 1<<20)
	head := make([]byte, len(magic))
	n, err := io.ReadFull(r, head)
	switch {
	case err == nil:
		if string(head) != string(magic) {
			return 0, fmt.Errorf("%s is not a docqa vector log", LogName)
		}
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		if string(head[:n]) != string(magic[:n]) {
			return 0, fmt.Errorf("%s is not a docqa vector log", LogName)
		}
		return 0, nil // created but its magic not fully written: start afresh
	default:
		return 0, err
	}
	info, err := f.Stat()
	if err != nil {
		return 0, err
	}
	off := int64(len(magic))
	var hdr [recordHeader]byte
	for {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return off, nil
			}
			return 0, err
		}
		size := binary.LittleEndian.Uint32(hdr[0:4])
		// A length past the end of the file is a torn header: checking it
		// first also keeps a garbage length from allocating gigabytes.
		if size == 0 || size > maxRecord || int64(size) > info.Size()-off-recordHeader {
			return off, nil
		}
		payload := make([]byte, size)
		if _, err := io.ReadFull(r, payload); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return off, nil
			}
			return 0, err
		}
		if crc32.Checksum(payload, castagnoli) != binary.LittleEndian.Uint32(hdr[4:8]) {
			return off, nil
		}
		if err := s.apply(payload); err != nil {
			return 0, fmt.Errorf("record at offset %d: %w", off, err)
		}
		off += recordHeader + int64(size)
	}
}

// appendLocked writes one record and syncs it. On failure the log is cut
// back to its previous end, so memory and disk stay the same.
func (s *Store) appendLocked(rec []byte) error {
	if _, err := s.log.Write(rec); err != nil {
		s.rollbackLocked()
		return fmt.Errorf("embedded vector store: writing: %w", err)
	}
	if err := s.log.Sync(); err != nil {
		s.rollbackLocked()
		return fmt.Errorf("embedded vector store: syncing: %w", err)
	}
	s.size += int64(len(rec))
	return nil
}

func (s *Store) rollbackLocked() {
	_ = s.log.Truncate(s.size)
	_, _ = s.log.Seek(s.size, io.SeekStart)
}

// liveBytes is the size a freshly written log of the current state takes.
func (s *Store) liveBytes() int64 {
	n := int64(len(magic))
	for _, d := range s.docs {
		n += recordHeader + 512
		for id := range d.ids {
			n += int64(len(s.chunks[id].chunk.Text)) + 64 + docqa.Dimension*4
		}
	}
	return n
}

// maybeCompactLocked rewrites the log when most of it is dead (overwritten
// or deleted documents).
func (s *Store) maybeCompactLocked() error {
	live := s.liveBytes()
	if dead := s.size - live; dead <= live || dead <= compactSlack {
		return nil
	}
	return s.compactLocked()
}

// compactLocked writes the live state to a temporary file, syncs it and
// renames it over the log: a crash at any point leaves either the old log or
// the new one, both whole.
func (s *Store) compactLocked() error {
	tmp, err := os.OpenFile(s.tmpPath(), os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("embedded vector store: compacting: %w", err)
	}
	fail := func(err error) error {
		tmp.Close()
		os.Remove(s.tmpPath())
		return fmt.Errorf("embedded vector store: compacting: %w", err)
	}
	w := bufio.NewWriterSize(tmp, 1<<20)
	size := int64(0)
	write := func(b []byte) error {
		size += int64(len(b))
		_, err := w.Write(b)
		return err
	}
	if err := write(magic); err != nil {
		return fail(err)
	}
	// s.index is ordered by document: one upsert record per run of rows.
	for i := 0; i < len(s.index); {
		md5 := s.index[i].md5
		var chunks []docqa.Chunk
		for ; i < len(s.index) && s.index[i].md5 == md5; i++ {
			c := s.index[i].chunk
			c.Embedding = s.index[i].vec // unit length: the same cosines
			chunks = append(chunks, c)
		}
		d := s.docs[md5]
		if err := write(encodeUpsert(d.doc, d.embedder, chunks)); err != nil {
			return fail(err)
		}
	}
	if err := w.Flush(); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := os.Rename(s.tmpPath(), s.logPath()); err != nil {
		return fail(err)
	}
	syncDir(s.dir)
	s.log.Close()
	s.log, s.size = tmp, size
	return nil
}

// syncDir makes a rename durable. Some systems cannot sync a directory; the
// rename is then as durable as the system makes it.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	d.Close()
}
