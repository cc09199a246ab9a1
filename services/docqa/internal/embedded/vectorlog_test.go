package embedded

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/carhub/backend/services/docqa/internal/docqa"
)

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

// writeLog writes a log of an earlier version: the magic, then records.
func writeLog(t *testing.T, dir string, records ...[]byte) string {
	t.Helper()
	path := filepath.Join(dir, LogName)
	b := slices.Clone(magic)
	for _, r := range records {
		b = append(b, r...)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

var (
	logDocA = newDoc(md5A, "a.pdf", t0, 2)
	logDocB = newDoc(md5B, "b.pdf", t0.Add(1), 1)
	logDocC = newDoc(md5C, "c.pdf", t0.Add(2), 1)
	recA    = encodeUpsert(logDocA, "lexical:v1", []docqa.Chunk{chunk(md5A, 0, 1, "alpha", vec(1)), chunk(md5A, 1, 2, "beta", vec(1, 1))})
	recB    = encodeUpsert(logDocB, "lexical:v1", []docqa.Chunk{chunk(md5B, 0, 1, "gamma", vec(0, 1))})
	recC    = encodeUpsert(logDocC, "lexical:v1", []docqa.Chunk{chunk(md5C, 0, 1, "delta", vec(0, 0, 1))})
)

func documentNames(t *testing.T, s *Store) []string {
	t.Helper()
	docs, err := s.Documents(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range docs {
		names = append(names, d.FileName)
	}
	return names
}

// An existing log is converted once, whole, into the database, and renamed
// so that it is never read again; the store then reopens from the database.
func TestLogIsConvertedOnce(t *testing.T) {
	dir := t.TempDir()
	path := writeLog(t, dir, recA, recB, recC, encodeDelete(md5B))
	var logs bytes.Buffer
	s, err := Open(dir, slog.New(slog.NewJSONHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := documentNames(t, s), []string{"c.pdf", "a.pdf"}; !slices.Equal(got, want) {
		t.Fatalf("documents %v, want %v", got, want)
	}
	hits, err := s.Search(context.Background(), vec(1, 1), docqa.Query{TopK: 3})
	if err != nil || len(hits) != 3 || hits[0].Chunk.Text != "beta" || hits[0].Chunk.Page != 2 {
		t.Fatalf("search after conversion: %+v, %v", hits, err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the log is still there: %v", err)
	}
	if _, err := os.Stat(path + ".converted"); err != nil {
		t.Fatalf("the converted log was not kept: %v", err)
	}
	if !strings.Contains(logs.String(), `"documents":2`) || !strings.Contains(logs.String(), `"torn_tail_bytes_dropped":0`) {
		t.Fatalf("conversion not logged: %s", logs.String())
	}
	s.Close()
	s = mustOpen(t, dir)
	if got := documentNames(t, s); len(got) != 2 {
		t.Fatalf("after reopening: %v", got)
	}
}

// A torn last record (a crash in the middle of the last write) is the one
// thing a conversion may drop, and it says so at WARN with the byte count.
func TestLogTornTailIsDroppedLoudly(t *testing.T) {
	for name, tail := range map[string][]byte{
		"half a header":  recC[:3],
		"half a record":  recC[:len(recC)/2],
		"checksum wrong": append(slices.Clone(recC[:len(recC)-1]), recC[len(recC)-1]^0xff),
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			writeLog(t, dir, recA, recB, tail)
			var logs bytes.Buffer
			s, err := Open(dir, slog.New(slog.NewJSONHandler(&logs, nil)))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if got := documentNames(t, s); len(got) != 2 {
				t.Fatalf("documents %v, want the two whole ones", got)
			}
			want := fmt.Sprintf(`"torn_tail_bytes_dropped":%d`, len(tail))
			if !strings.Contains(logs.String(), `"level":"WARN"`) || !strings.Contains(logs.String(), want) {
				t.Fatalf("the dropped tail was not reported (%s): %s", want, logs.String())
			}
		})
	}
}

// Damage in the middle of the log is an error naming the file and the
// offset: the intact record after it is never silently dropped, and
// nothing is converted or renamed.
func TestLogDamageInTheMiddleIsRefused(t *testing.T) {
	dir := t.TempDir()
	damaged := slices.Clone(recB)
	damaged[len(damaged)/2] ^= 0x01
	path := writeLog(t, dir, recA, damaged, recC)
	_, err := Open(dir, nil)
	offset := len(magic) + len(recA)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), fmt.Sprintf("offset %d", offset)) {
		t.Fatalf("Open = %v, want an error naming %s and offset %d", err, path, offset)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the damaged log must stay where it is: %v", err)
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, DBName))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM documents`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d documents converted from a damaged log (%v)", n, err)
	}
}

func TestLogBesideAFilledDatabaseIsRefused(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir)
	seed(t, s)
	s.Close()
	writeLog(t, dir, recC)
	_, err := Open(dir, nil)
	if err == nil || !strings.Contains(err.Error(), "never converted") || !strings.Contains(err.Error(), "move") {
		t.Fatalf("Open = %v, want a refusal that says how to resolve it", err)
	}
}

func TestOpenRefusesForeignLog(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, LogName), []byte("something else entirely\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir, nil); err == nil || !strings.Contains(err.Error(), "not a docqa vector log") {
		t.Fatalf("Open = %v", err)
	}
}

// A damaged database is an error naming its file at Open, whether SQLite's
// own check finds it or the row checks do.
func TestDamagedDatabaseIsRefused(t *testing.T) {
	t.Run("bytes flipped in the file", func(t *testing.T) {
		dir := t.TempDir()
		s := mustOpen(t, dir)
		fill(t, s, 3, 200)
		s.Close()
		path := filepath.Join(dir, DBName)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for i := len(b) / 3; i < len(b)/3+4096 && i < len(b); i++ {
			b[i] ^= 0x5a
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Open(dir, nil); err == nil || !strings.Contains(err.Error(), path) {
			t.Fatalf("Open of a damaged database = %v, want an error naming %s", err, path)
		}
	})
	t.Run("a vector cut short", func(t *testing.T) {
		dir := t.TempDir()
		s := mustOpen(t, dir)
		seed(t, s)
		s.Close()
		path := filepath.Join(dir, DBName)
		db, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		id := docqa.ChunkID(md5B, 0)
		if _, err := db.Exec(`UPDATE chunks SET vector = x'0000' WHERE id = ?`, id); err != nil {
			t.Fatal(err)
		}
		db.Close()
		if _, err := Open(dir, nil); err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), id) {
			t.Fatalf("Open = %v, want an error naming %s and chunk %s", err, path, id)
		}
	})
}

// FuzzConvertLog: whatever follows the magic line of a log, Open neither
// panics nor keeps a partial record: it converts and serves, or refuses
// with an error and leaves the log as it was.
func FuzzConvertLog(f *testing.F) {
	f.Add(recA)
	f.Add(append(slices.Clone(recA), encodeDelete(md5A)...))
	f.Add(recA[:len(recA)-3])
	f.Add([]byte{})
	f.Add(frame([]byte{9, 9, 9}))
	f.Add(frame([]byte{opUpsert, 0xff, 0xff, 0, 0}))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		path := writeLog(t, dir, data)
		s, err := Open(dir, nil)
		if err != nil {
			if got, rerr := os.ReadFile(path); rerr != nil || !bytes.Equal(got, append(slices.Clone(magic), data...)) {
				t.Fatalf("a refused log was changed (%v)", rerr)
			}
			return
		}
		defer s.Close()
		docs, err := s.Documents(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range docs {
			if hits, err := s.Search(context.Background(), vec(1), docqa.Query{TopK: 5}); err != nil || len(hits) == 0 {
				t.Fatalf("document %s converted without chunks (%v)", d.FileMD5, err)
			}
		}
	})
}
