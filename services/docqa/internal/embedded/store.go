// Package embedded is the docqa.VectorStore for one machine: every chunk is
// held in memory and searched by exact cosine similarity, and every write is
// one SQLite transaction in vectors.db under the store's directory (the pure
// Go driver modernc.org/sqlite, as fuel-service uses), so the store survives
// a restart, and a crash in the middle of a write loses only that write.
// Damage found at Open is an error that names the file, never data dropped.
//
// It serves when no Milvus address is configured (`make run`). Exact search is
// fast enough at the contract's scale (10 000 chunks of 1024 floats is 40 MB
// and a few milliseconds a query; see BenchmarkSearch).
package embedded

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/carhub/backend/services/docqa/internal/docqa"
)

var _ docqa.VectorStore = (*Store)(nil)

// LogName is the file in which the store kept its data before vectors.db;
// Open converts it once and renames it to LogName + ".converted".
const LogName = "vectors.log"

// ErrClosed is returned by every method after Close.
var ErrClosed = errors.New("embedded vector store is closed")

// Store is an exact-cosine vector store persisted in SQLite.
// It is safe for concurrent use; one process at a time may open a directory.
type Store struct {
	dir string

	mu     sync.RWMutex
	db     *sql.DB // nil once closed
	docs   map[string]*document
	chunks map[string]*row // by chunk id
	index  []*row          // every row, scanned by Search; rebuilt after each write
}

// document is one stored file with the ids of its chunks.
type document struct {
	doc      docqa.Document
	embedder string
	ids      map[string]struct{}
}

// row is one stored chunk. vec is the embedding scaled to unit length (all
// zeros for a zero vector), so a dot product is the cosine similarity.
type row struct {
	md5   string
	chunk docqa.Chunk // without its Embedding
	vec   []float32
}

// Open opens the store kept under dir, creating dir and an empty store when
// absent, checks the database (SQLite's quick_check and every row) and
// loads it. A vectors.log of an earlier version is converted once; log (may
// be nil) hears what the conversion did.
func Open(dir string, log *slog.Logger) (*Store, error) {
	if dir == "" {
		return nil, errors.New("embedded vector store: directory is empty")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("embedded vector store: %w", err)
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Store{
		dir:    dir,
		docs:   make(map[string]*document),
		chunks: make(map[string]*row),
	}
	path := filepath.Join(dir, DBName)
	db, err := openDB(path)
	if err == nil {
		err = checkIntegrity(db)
		if err == nil {
			err = s.convertLog(db, log)
		}
		if err == nil {
			err = s.loadDB(db)
		}
		if err != nil {
			db.Close()
		}
	}
	if err != nil {
		return nil, fmt.Errorf("embedded vector store %s: %w", path, err)
	}
	s.db = db
	s.rebuildIndexLocked()
	return s, nil
}

// convertLog writes the documents of an existing vectors.log into the empty
// database in one transaction, then renames the log so that it is never read
// twice. A database that already holds documents beside an unconverted log
// is refused: which one is right only a person can say.
func (s *Store) convertLog(db *sql.DB, log *slog.Logger) error {
	logPath := filepath.Join(s.dir, LogName)
	if _, err := os.Stat(logPath); errors.Is(err, os.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM documents`).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return fmt.Errorf("%s holds %d documents and %s beside it was never converted: move %s away to keep the database, "+
			"or move %s away to convert the log", DBName, n, LogName, LogName, DBName)
	}
	old := &Store{docs: make(map[string]*document), chunks: make(map[string]*row)}
	torn, err := old.replayLog(logPath)
	if err != nil {
		return err
	}
	old.rebuildIndexLocked()
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	ctx := context.Background()
	for i := 0; i < len(old.index); {
		md5 := old.index[i].md5
		var chunks []docqa.Chunk
		for ; i < len(old.index) && old.index[i].md5 == md5; i++ {
			c := old.index[i].chunk
			c.Embedding = old.index[i].vec // unit length: the same cosines
			chunks = append(chunks, c)
		}
		d := old.docs[md5]
		if err := writeUpsert(ctx, tx, d.doc, d.embedder, chunks); err != nil {
			return fmt.Errorf("converting %s: %w", LogName, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("converting %s: %w", LogName, err)
	}
	if err := os.Rename(logPath, logPath+".converted"); err != nil {
		return fmt.Errorf("converted %s, but could not rename it: %w", LogName, err)
	}
	level := slog.LevelInfo
	if torn > 0 {
		level = slog.LevelWarn
	}
	log.Log(ctx, level, "embedded vector store: converted "+LogName+" to "+DBName,
		"dir", s.dir, "documents", len(old.docs), "chunks", len(old.index), "torn_tail_bytes_dropped", torn,
		"kept_as", LogName+".converted")
	return nil
}

// Upsert writes the chunks of doc, replacing chunks with the same ids, and
// records doc's figures and embedder. Chunks without an ID get
// docqa.ChunkID(doc.FileMD5, chunk.Index). Errors wrap
// docqa.ErrEmbedderMismatch (the store holds another embedder's vectors) or
// docqa.ErrDimension (a vector is not docqa.Dimension floats).
func (s *Store) Upsert(ctx context.Context, doc docqa.Document, chunks []docqa.Chunk, embedder string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	doc.CreatedAt = doc.CreatedAt.UTC()
	chunks, err := docqa.CheckUpsert(doc, chunks, embedder)
	if err != nil {
		return fmt.Errorf("embedded vector store: %w", err)
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db == nil {
		return ErrClosed
	}
	if current := s.embedderLocked(); current != "" && current != embedder {
		return fmt.Errorf("%w: it holds vectors of %q, this upload was embedded by %q; delete the stored documents or configure the same embedder",
			docqa.ErrEmbedderMismatch, current, embedder)
	}
	err = s.inTx(ctx, func(tx *sql.Tx) error { return writeUpsert(ctx, tx, doc, embedder, chunks) })
	if err != nil {
		return err
	}
	s.applyUpsert(doc, embedder, chunks)
	s.rebuildIndexLocked()
	return nil
}

// inTx runs write in one transaction; memory changes only after it
// committed. A failure of the database is ErrUnavailable.
func (s *Store) inTx(ctx context.Context, write func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.dbError(ctx, err)
	}
	if err := write(tx); err != nil {
		_ = tx.Rollback()
		return s.dbError(ctx, err)
	}
	if err := tx.Commit(); err != nil {
		return s.dbError(ctx, err)
	}
	return nil
}

func (s *Store) dbError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return fmt.Errorf("embedded vector store %s: %w: %w", filepath.Join(s.dir, DBName), docqa.ErrUnavailable, err)
}

// Search returns at most topK chunks by descending cosine similarity to
// vector (ties in document and chunk order). A zero vector matches nothing.
func (s *Store) Search(ctx context.Context, vector []float32, topK int) ([]docqa.ScoredChunk, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if topK < 1 {
		return nil, fmt.Errorf("embedded vector store: topK %d is below 1", topK)
	}
	if len(vector) != docqa.Dimension {
		return nil, fmt.Errorf("%w: query vector has %d floats, want %d", docqa.ErrDimension, len(vector), docqa.Dimension)
	}
	query, ok := normalize(vector)
	if !ok {
		return []docqa.ScoredChunk{}, nil
	}

	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.db == nil {
		return nil, ErrClosed
	}
	hits := topHits(query, s.index, topK)
	out := make([]docqa.ScoredChunk, len(hits))
	for i, h := range hits {
		r := s.index[h.i]
		out[i] = docqa.ScoredChunk{Chunk: r.chunk, Document: s.docs[r.md5].doc, Score: h.score}
	}
	return out, nil
}

// Document returns the stored document with that MD5, or an error wrapping
// docqa.ErrNotFound.
func (s *Store) Document(ctx context.Context, md5 string) (docqa.Document, error) {
	if err := ctx.Err(); err != nil {
		return docqa.Document{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.db == nil {
		return docqa.Document{}, ErrClosed
	}
	d, ok := s.docs[md5]
	if !ok {
		return docqa.Document{}, fmt.Errorf("document %q: %w", md5, docqa.ErrNotFound)
	}
	return d.doc, nil
}

// Documents lists the stored documents, newest first (ties by MD5).
func (s *Store) Documents(ctx context.Context) ([]docqa.Document, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.db == nil {
		return nil, ErrClosed
	}
	out := make([]docqa.Document, 0, len(s.docs))
	for _, d := range s.docs {
		out = append(out, d.doc)
	}
	sortNewestFirst(out)
	return out, nil
}

// Delete removes the document and every chunk of it; an error wrapping
// docqa.ErrNotFound when it is not stored.
func (s *Store) Delete(ctx context.Context, md5 string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db == nil {
		return ErrClosed
	}
	if _, ok := s.docs[md5]; !ok {
		return fmt.Errorf("document %q: %w", md5, docqa.ErrNotFound)
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM documents WHERE md5 = ?`, md5) // its chunks cascade
		return err
	})
	if err != nil {
		return err
	}
	s.applyDelete(md5)
	s.rebuildIndexLocked()
	return nil
}

// Embedder returns the name of the embedder that wrote the stored vectors,
// or "" when the store is empty.
func (s *Store) Embedder(ctx context.Context) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.db == nil {
		return "", ErrClosed
	}
	return s.embedderLocked(), nil
}

// Ping reports whether the store is open and its database answers.
func (s *Store) Ping(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.db == nil {
		return ErrClosed
	}
	var one int
	if err := s.db.QueryRowContext(ctx, `SELECT 1`).Scan(&one); err != nil {
		return s.dbError(ctx, err)
	}
	if _, err := os.Stat(filepath.Join(s.dir, DBName)); err != nil {
		return s.dbError(ctx, err)
	}
	return nil
}

// Close closes the database. Every write was already committed.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db == nil {
		return nil
	}
	err := s.db.Close()
	s.db = nil
	return err
}

// Dir is the directory the store lives in.
func (s *Store) Dir() string { return s.dir }

func (s *Store) embedderLocked() string {
	for _, d := range s.docs {
		return d.embedder
	}
	return ""
}

// applyUpsert changes the in-memory state; chunks are already validated.
func (s *Store) applyUpsert(doc docqa.Document, embedder string, chunks []docqa.Chunk) {
	d, ok := s.docs[doc.FileMD5]
	if !ok {
		d = &document{ids: make(map[string]struct{}, len(chunks))}
		s.docs[doc.FileMD5] = d
	}
	d.doc, d.embedder = doc, embedder
	for _, c := range chunks {
		if old, ok := s.chunks[c.ID]; ok && old.md5 != doc.FileMD5 {
			s.dropChunkFromDoc(old.md5, c.ID)
		}
		// Only the unit vector is kept: cosine similarity does not see
		// length, and one copy of 10 000 vectors is already 40 MB.
		vec, _ := normalize(c.Embedding)
		c.Embedding = nil
		s.chunks[c.ID] = &row{md5: doc.FileMD5, chunk: c, vec: vec}
		d.ids[c.ID] = struct{}{}
	}
}

// dropChunkFromDoc forgets that a chunk id belongs to md5 (it moved to another
// document); a document left without chunks is forgotten too.
func (s *Store) dropChunkFromDoc(md5, id string) {
	d, ok := s.docs[md5]
	if !ok {
		return
	}
	delete(d.ids, id)
	if len(d.ids) == 0 {
		delete(s.docs, md5)
	}
}

func (s *Store) applyDelete(md5 string) {
	d, ok := s.docs[md5]
	if !ok {
		return
	}
	for id := range d.ids {
		delete(s.chunks, id)
	}
	delete(s.docs, md5)
}

// rebuildIndexLocked lays the rows out in document then chunk order, so that
// search ties are broken the same way every time.
func (s *Store) rebuildIndexLocked() {
	index := make([]*row, 0, len(s.chunks))
	for _, r := range s.chunks {
		index = append(index, r)
	}
	slices.SortFunc(index, func(a, b *row) int {
		if c := strings.Compare(a.md5, b.md5); c != 0 {
			return c
		}
		if a.chunk.Index != b.chunk.Index {
			return a.chunk.Index - b.chunk.Index
		}
		return strings.Compare(a.chunk.ID, b.chunk.ID)
	})
	s.index = index
}

func sortNewestFirst(docs []docqa.Document) {
	slices.SortFunc(docs, func(a, b docqa.Document) int {
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.FileMD5, b.FileMD5)
	})
}
