package embedded

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	_ "modernc.org/sqlite" // database/sql driver "sqlite", pure Go

	"github.com/carhub/backend/services/docqa/internal/docqa"
)

// DBName is the database file under the store's directory.
const DBName = "vectors.db"

// migrations are applied in order; PRAGMA user_version counts those done.
// The tables hold the store's own records (not the API's JSON), so renaming
// a response field never touches a stored document. STRICT tables refuse a
// value of the wrong type instead of keeping it.
var migrations = []string{
	`CREATE TABLE documents (
		md5        TEXT PRIMARY KEY,
		file_name  TEXT NOT NULL,
		size       INTEGER NOT NULL,
		pages      INTEGER NOT NULL,
		chunks     INTEGER NOT NULL,
		truncated  INTEGER NOT NULL,
		created_at TEXT NOT NULL,  -- RFC 3339, UTC, nanoseconds
		embedder   TEXT NOT NULL
	) STRICT;
	CREATE TABLE chunks (
		id     TEXT PRIMARY KEY,
		md5    TEXT NOT NULL REFERENCES documents (md5) ON DELETE CASCADE,
		page   INTEGER NOT NULL,
		idx    INTEGER NOT NULL,
		text   TEXT NOT NULL,
		vector BLOB NOT NULL      -- docqa.Dimension little-endian float32s, as given
	) STRICT;
	CREATE INDEX chunks_by_document ON chunks (md5, idx);`,

	// A document's title and a chunk's heading, for the lexical index
	// (rebuilt in memory at Open, as the vectors are).
	`ALTER TABLE documents ADD COLUMN title TEXT NOT NULL DEFAULT '';
	ALTER TABLE chunks ADD COLUMN heading TEXT NOT NULL DEFAULT '';`,

	// Documents belong to their uploader (0: the shared library), and an
	// MD5 is unique per owner. What was stored before belongs to the
	// built-in user (1), as fuel-service's vehicles do. SQLite cannot change
	// a primary key in place: the tables are rebuilt (chunks first, so
	// dropping the old documents cascades to nothing).
	`CREATE TABLE documents_owned (
		owner      INTEGER NOT NULL CHECK (owner >= 0),
		md5        TEXT NOT NULL,
		file_name  TEXT NOT NULL,
		size       INTEGER NOT NULL,
		pages      INTEGER NOT NULL,
		chunks     INTEGER NOT NULL,
		truncated  INTEGER NOT NULL,
		created_at TEXT NOT NULL,
		embedder   TEXT NOT NULL,
		title      TEXT NOT NULL DEFAULT '',
		PRIMARY KEY (owner, md5)
	) STRICT;
	INSERT INTO documents_owned (owner, md5, file_name, size, pages, chunks, truncated, created_at, embedder, title)
		SELECT 1, md5, file_name, size, pages, chunks, truncated, created_at, embedder, title FROM documents;
	CREATE TABLE chunks_owned (
		id      TEXT PRIMARY KEY,
		owner   INTEGER NOT NULL,
		md5     TEXT NOT NULL,
		page    INTEGER NOT NULL,
		idx     INTEGER NOT NULL,
		text    TEXT NOT NULL,
		vector  BLOB NOT NULL,
		heading TEXT NOT NULL DEFAULT '',
		FOREIGN KEY (owner, md5) REFERENCES documents_owned (owner, md5) ON DELETE CASCADE
	) STRICT;
	INSERT INTO chunks_owned (id, owner, md5, page, idx, text, vector, heading)
		SELECT id, 1, md5, page, idx, text, vector, heading FROM chunks;
	DROP TABLE chunks;
	DROP TABLE documents;
	ALTER TABLE documents_owned RENAME TO documents;
	ALTER TABLE chunks_owned RENAME TO chunks;
	CREATE INDEX chunks_by_document ON chunks (owner, md5, idx);`,

	// A chunk's page label (the PDF's /PageLabels), '' when it has none
	// or was stored before labels were read.
	`ALTER TABLE chunks ADD COLUMN page_label TEXT NOT NULL DEFAULT '';`,

	// Whether a chunk's text was read by OCR (docqa.Chunk.OCR); chunks
	// stored before read 0, false.
	`ALTER TABLE chunks ADD COLUMN ocr INTEGER NOT NULL DEFAULT 0 CHECK (ocr IN (0, 1));`,

	// Whether a chunk's page is a table of contents or an index
	// (docqa.Chunk.Navigation); chunks stored before read 0, false.
	`ALTER TABLE chunks ADD COLUMN navigation INTEGER NOT NULL DEFAULT 0 CHECK (navigation IN (0, 1));`,

	// Where an OCR chunk lies on its page (docqa.Chunk.Rects), as the JSON
	// of docqa.PackRects: [[x,y,w,h],...] in ten-thousandths of the page,
	// about 25 bytes a line. '' for chunks of a text layer and for chunks
	// stored before: no rectangles.
	`ALTER TABLE chunks ADD COLUMN rects TEXT NOT NULL DEFAULT '';`,
}

// openDB opens (creating when absent) the database at path and brings its
// schema up to date. WAL with synchronous=FULL: a committed transaction
// survives a crash of the process or of the machine; an interrupted one is
// rolled back by SQLite on the next open. One connection: writes are
// serialised by the store anyway, and reads happen only at Open.
func openDB(path string) (*sql.DB, error) {
	dsn := "file:" + path + "?_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)" +
		"&_pragma=foreign_keys(ON)&_pragma=busy_timeout(5000)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	if err := migrate(db); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

func migrate(db *sql.DB) error {
	var version int
	if err := db.QueryRow(`PRAGMA user_version`).Scan(&version); err != nil {
		return err
	}
	if version > len(migrations) {
		return fmt.Errorf("schema version %d is newer than this service knows (%d)", version, len(migrations))
	}
	for v := version; v < len(migrations); v++ {
		tx, err := db.Begin()
		if err != nil {
			return err
		}
		if _, err := tx.Exec(migrations[v]); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %d: %w", v+1, err)
		}
		if _, err := tx.Exec(fmt.Sprintf(`PRAGMA user_version = %d`, v+1)); err != nil {
			tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
	}
	return nil
}

// checkIntegrity runs SQLite's quick_check: damaged pages or indexes are an
// error, never data silently skipped.
func checkIntegrity(db *sql.DB) error {
	rows, err := db.Query(`PRAGMA quick_check`)
	if err != nil {
		return err
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return err
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(problems) > 0 {
		return fmt.Errorf("integrity check failed: %s", strings.Join(problems[:min(len(problems), 5)], "; "))
	}
	return nil
}

// loadDB reads every document and chunk into the store's memory, checking
// each row; a row that does not hold is an error naming it.
func (s *Store) loadDB(db *sql.DB) error {
	rows, err := db.Query(`SELECT owner, md5, file_name, title, size, pages, chunks, truncated, created_at, embedder FROM documents`)
	if err != nil {
		return err
	}
	embedders := map[string]struct{}{}
	for rows.Next() {
		var d docqa.Document
		var truncated int
		var created, embedder string
		if err := rows.Scan(&d.Owner, &d.FileMD5, &d.FileName, &d.Title, &d.Size, &d.Pages, &d.Chunks, &truncated, &created, &embedder); err != nil {
			rows.Close()
			return err
		}
		d.Truncated = truncated != 0
		if d.CreatedAt, err = time.Parse(time.RFC3339Nano, created); err != nil || !docqa.ValidMD5(d.FileMD5) || embedder == "" {
			rows.Close()
			return fmt.Errorf("document %q: damaged row (created_at %q, embedder %q)", d.FileMD5, created, embedder)
		}
		d = d.Owned(d.Owner)
		s.docs[keyOf(d)] = &document{doc: d, embedder: embedder, ids: map[string]struct{}{}}
		embedders[embedder] = struct{}{}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if len(embedders) > 1 {
		return fmt.Errorf("documents of %d different embedders: the store was written by another program", len(embedders))
	}

	rows, err = db.Query(`SELECT id, owner, md5, page, page_label, idx, heading, text, vector, ocr, navigation, rects FROM chunks`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var c docqa.Chunk
		var key docKey
		var blob []byte
		var rects string
		if err := rows.Scan(&c.ID, &key.owner, &key.md5, &c.Page, &c.PageLabel, &c.Index, &c.Heading, &c.Text, &blob, &c.OCR, &c.Navigation, &rects); err != nil {
			return err
		}
		c.Rects = decodeRects(rects)
		d, ok := s.docs[key]
		if !ok {
			return fmt.Errorf("chunk %s: its document %s is missing", c.ID, key)
		}
		vec, err := decodeVector(blob)
		if err != nil || !utf8.ValidString(c.Text) || c.Index < 0 {
			return fmt.Errorf("chunk %s of document %s: damaged row (%v)", c.ID, key, err)
		}
		unit, _ := normalize(vec)
		s.chunks[c.ID] = &row{key: key, chunk: c, vec: unit, lex: s.dict.Doc(d.doc.DisplayTitle(), c.Heading, c.Text)}
		d.ids[c.ID] = struct{}{}
	}
	return rows.Err()
}

// encodeRects is the rects column of a chunk's rectangles: empty for none.
func encodeRects(rects []docqa.Rect) string {
	if len(rects) == 0 {
		return ""
	}
	js, _ := json.Marshal(docqa.PackRects(rects)) // arrays of ints always encode
	return string(js)
}

// decodeRects reads the rects column. A value that does not parse (written
// by another program) reads as no rectangles, not as a store that cannot
// open: highlights are an addition.
func decodeRects(s string) []docqa.Rect {
	if s == "" {
		return nil
	}
	var packed [][4]int
	if json.Unmarshal([]byte(s), &packed) != nil {
		return nil
	}
	return docqa.UnpackRects(packed)
}

func encodeVector(v []float32) []byte {
	b := make([]byte, 0, len(v)*4)
	for _, f := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
	}
	return b
}

func decodeVector(b []byte) ([]float32, error) {
	if len(b) != docqa.Dimension*4 {
		return nil, fmt.Errorf("vector of %d bytes, want %d", len(b), docqa.Dimension*4)
	}
	v := make([]float32, docqa.Dimension)
	for i := range v {
		f := math.Float32frombits(binary.LittleEndian.Uint32(b[i*4:]))
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			return nil, errors.New("vector has a NaN or infinite value")
		}
		v[i] = f
	}
	return v, nil
}

// writeUpsert writes doc and its chunks in tx: the document row is
// replaced, each chunk row replaced by id, and a document left without
// chunks (its ids moved to another document) goes.
func writeUpsert(ctx context.Context, tx *sql.Tx, doc docqa.Document, embedder string, chunks []docqa.Chunk) error {
	truncated := 0
	if doc.Truncated {
		truncated = 1
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO documents (owner, md5, file_name, title, size, pages, chunks, truncated, created_at, embedder)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (owner, md5) DO UPDATE SET file_name = excluded.file_name, title = excluded.title, size = excluded.size,
			pages = excluded.pages, chunks = excluded.chunks, truncated = excluded.truncated, created_at = excluded.created_at,
			embedder = excluded.embedder`,
		doc.Owner, doc.FileMD5, doc.FileName, doc.Title, doc.Size, doc.Pages, doc.Chunks, truncated,
		doc.CreatedAt.UTC().Format(time.RFC3339Nano), embedder); err != nil {
		return err
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT OR REPLACE INTO chunks (id, owner, md5, page, page_label, idx, heading, text, vector, ocr, navigation, rects) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, c := range chunks {
		if _, err := stmt.ExecContext(ctx, c.ID, doc.Owner, doc.FileMD5, c.Page, c.PageLabel, c.Index, c.Heading, c.Text, encodeVector(c.Embedding), c.OCR, c.Navigation, encodeRects(c.Rects)); err != nil {
			return err
		}
	}
	_, err = tx.ExecContext(ctx, `DELETE FROM documents WHERE NOT EXISTS
		(SELECT 1 FROM chunks WHERE chunks.owner = documents.owner AND chunks.md5 = documents.md5)`)
	return err
}
