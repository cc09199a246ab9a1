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
	"cmp"
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

	"go.opentelemetry.io/otel/trace"

	"github.com/carhub/backend/pkg/tracing"
	"github.com/carhub/backend/services/docqa/internal/docqa"
	"github.com/carhub/backend/services/docqa/internal/lexical"
)

var (
	_ docqa.VectorStore = (*Store)(nil)
	_ docqa.TermCounter = (*Store)(nil)
)

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
	docs   map[docKey]*document
	chunks map[string]*row // by chunk id
	index  []*row          // every row, scanned by Search; rebuilt after each write
	// lex is the BM25 index over index's rows (its documents are their
	// positions in index, grouped into pages), rebuilt with it; dict
	// numbers its terms.
	lex  *lexical.Index
	dict *lexical.Dict
}

// docKey names a document: its MD5 is unique per owner.
type docKey struct {
	owner uint64
	md5   string
}

func keyOf(d docqa.Document) docKey { return docKey{d.Owner, d.FileMD5} }

func (k docKey) String() string { return fmt.Sprintf("%s of owner %d", k.md5, k.owner) }

// compare orders keys by MD5, then owner.
func (k docKey) compare(o docKey) int {
	if c := strings.Compare(k.md5, o.md5); c != 0 {
		return c
	}
	return cmp.Compare(k.owner, o.owner)
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
	key   docKey
	chunk docqa.Chunk // without its Embedding
	vec   []float32
	lex   lexical.Doc
	pos   int // its position in the index // the terms of its document's title, its heading and its text
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
		docs:   make(map[docKey]*document),
		chunks: make(map[string]*row),
		dict:   lexical.NewDict(),
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
	old := &Store{docs: make(map[docKey]*document), chunks: make(map[string]*row), dict: lexical.NewDict()}
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
		key := old.index[i].key
		var chunks []docqa.Chunk
		for ; i < len(old.index) && old.index[i].key == key; i++ {
			c := old.index[i].chunk
			c.Embedding = old.index[i].vec // unit length: the same cosines
			chunks = append(chunks, c)
		}
		d := old.docs[key]
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
// records doc's figures and embedder, as doc.Owner's document. Chunks
// without an ID get docqa.OwnedChunkID(doc.Owner, doc.FileMD5, chunk.Index).
// Errors wrap
// docqa.ErrEmbedderMismatch (the store holds another embedder's vectors) or
// docqa.ErrDimension (a vector is not docqa.Dimension floats).
func (s *Store) Upsert(ctx context.Context, doc docqa.Document, chunks []docqa.Chunk, embedder string) (err error) {
	ctx, span := tracing.Start(ctx, "embedded.Upsert", trace.SpanKindInternal, dbSystem)
	defer span.End(&err)
	if err := ctx.Err(); err != nil {
		return err
	}
	doc.CreatedAt = doc.CreatedAt.UTC()
	chunks, err = docqa.CheckUpsert(doc, chunks, embedder)
	if err != nil {
		return fmt.Errorf("embedded vector store: %w", err)
	}
	// The words are read before the lock is taken: searches go on meanwhile.
	lex := make([]lexical.Doc, len(chunks))
	for i, c := range chunks {
		lex[i] = s.dict.Doc(doc.DisplayTitle(), c.Heading, c.Text)
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
	s.applyUpsert(doc, embedder, chunks, lex)
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

// Search returns at most q.TopK chunks by descending cosine similarity to
// vector (ties in document and chunk order), of the documents the reader
// may search (readableLocked), from q.Documents only when it names any. A
// zero vector matches nothing.
func (s *Store) Search(ctx context.Context, vector []float32, q docqa.Query) (_ []docqa.ScoredChunk, err error) {
	ctx, span := tracing.Start(ctx, "embedded.Search", trace.SpanKindInternal, dbSystem)
	defer span.End(&err)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if q.TopK < 1 {
		return nil, fmt.Errorf("embedded vector store: topK %d is below 1", q.TopK)
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
	rows := s.searchableLocked(docqa.Reader(ctx), q.Documents)
	hits := topHits(query, rows, q.TopK)
	out := make([]docqa.ScoredChunk, len(hits))
	for i, h := range hits {
		out[i] = s.scoredLocked(rows[h.Doc], h.Score)
	}
	return out, nil
}

// searchableLocked returns, in index order, the rows of the documents that
// reader may search: their own and the shared library's, without a shared
// copy that their own copy of the same MD5 shadows (docqa.Visible); of
// md5s only, when it names any.
func (s *Store) searchableLocked(reader uint64, md5s []string) []*row {
	var rows []*row
	add := func(lo, hi int) {
		for _, r := range s.index[lo:hi] {
			if r.key.owner == reader || r.key.owner == docqa.SharedOwner && s.docs[docKey{reader, r.key.md5}] == nil {
				rows = append(rows, r)
			}
		}
	}
	if len(md5s) == 0 {
		add(0, len(s.index))
		return rows
	}
	for _, md5 := range slices.Compact(slices.Sorted(slices.Values(md5s))) {
		add(s.runOfLocked(md5))
	}
	return rows
}

// runOfLocked returns where the rows of the documents with that MD5 (of
// every owner) lie in the index, which is sorted by MD5 then owner:
// index[lo:hi], empty when none is stored.
func (s *Store) runOfLocked(md5 string) (lo, hi int) {
	lo, _ = slices.BinarySearchFunc(s.index, md5, func(r *row, md5 string) int { return strings.Compare(r.key.md5, md5) })
	hi = lo
	for hi < len(s.index) && s.index[hi].key.md5 == md5 {
		hi++
	}
	return lo, hi
}

func (s *Store) scoredLocked(r *row, score float32) docqa.ScoredChunk {
	return docqa.ScoredChunk{Chunk: r.chunk, Document: s.docs[r.key].doc, Score: score}
}

// SearchText returns at most q.TopK chunks ranked by BM25 over the words
// of their document's title, their heading and their text, with term
// proximity and mixed with their page's BM25 score (lexical.Index.Search),
// of the documents the reader may search, from q.Documents only when it
// names any: the filter is applied while scoring, so TopK counts only
// chunks that pass it. Ties keep document and
// chunk order. A text without terms matches nothing.
func (s *Store) SearchText(ctx context.Context, text string, q docqa.Query) (_ []docqa.ScoredChunk, err error) {
	ctx, span := tracing.Start(ctx, "embedded.SearchText", trace.SpanKindInternal, dbSystem)
	defer span.End(&err)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if q.TopK < 1 {
		return nil, fmt.Errorf("embedded vector store: topK %d is below 1", q.TopK)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.db == nil {
		return nil, ErrClosed
	}
	allowed := make([]bool, len(s.index))
	for _, r := range s.searchableLocked(docqa.Reader(ctx), q.Documents) {
		allowed[r.pos] = true
	}
	hits := s.lex.Search(text, q.TopK, allowed)
	out := make([]docqa.ScoredChunk, len(hits))
	for i, h := range hits {
		out[i] = s.scoredLocked(s.index[h.Doc], h.Score)
	}
	return out, nil
}

// DocFreq returns how many stored chunks hold each of terms (lexical index
// terms), of n chunks in all, counting every owner's: the weights of a
// question's words (relevance) as BM25 weighs them.
func (s *Store) DocFreq(ctx context.Context, terms []string) (df []int, n int, err error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.db == nil {
		return nil, 0, ErrClosed
	}
	df, n = s.lex.DocFreq(terms)
	return df, n, nil
}

// LexicalIndex is always true: the index is built from the stored chunks.
func (s *Store) LexicalIndex() bool { return true }

// Document returns the document with that MD5 that the reader may read,
// their own copy before a shared one, or an error wrapping
// docqa.ErrNotFound.
func (s *Store) Document(ctx context.Context, md5 string) (_ docqa.Document, err error) {
	ctx, span := tracing.Start(ctx, "embedded.Document", trace.SpanKindInternal, dbSystem)
	defer span.End(&err, docqa.ErrNotFound)
	if err := ctx.Err(); err != nil {
		return docqa.Document{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.db == nil {
		return docqa.Document{}, ErrClosed
	}
	for _, owner := range []uint64{docqa.Reader(ctx), docqa.SharedOwner} {
		if d, ok := s.docs[docKey{owner, md5}]; ok {
			return d.doc, nil
		}
	}
	return docqa.Document{}, fmt.Errorf("document %q: %w", md5, docqa.ErrNotFound)
}

// Documents lists the documents the reader may read (docqa.Visible), newest
// first (ties by MD5).
func (s *Store) Documents(ctx context.Context) (_ []docqa.Document, err error) {
	ctx, span := tracing.Start(ctx, "embedded.Documents", trace.SpanKindInternal, dbSystem)
	defer span.End(&err)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.db == nil {
		return nil, ErrClosed
	}
	all := make([]docqa.Document, 0, len(s.docs))
	for _, d := range s.docs {
		all = append(all, d.doc)
	}
	out := docqa.Visible(all, docqa.Reader(ctx))
	sortNewestFirst(out)
	return out, nil
}

// Owners lists the owners holding a document with that MD5, ascending.
func (s *Store) Owners(ctx context.Context, md5 string) ([]uint64, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.db == nil {
		return nil, ErrClosed
	}
	var owners []uint64
	for key := range s.docs {
		if key.md5 == md5 {
			owners = append(owners, key.owner)
		}
	}
	slices.Sort(owners)
	return owners, nil
}

// Delete removes owner's document with that MD5 and every chunk of it; an
// error wrapping docqa.ErrNotFound when it is not stored.
func (s *Store) Delete(ctx context.Context, owner uint64, md5 string) (err error) {
	ctx, span := tracing.Start(ctx, "embedded.Delete", trace.SpanKindInternal, dbSystem)
	defer span.End(&err, docqa.ErrNotFound)
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db == nil {
		return ErrClosed
	}
	key := docKey{owner, md5}
	if _, ok := s.docs[key]; !ok {
		return fmt.Errorf("document %s: %w", key, docqa.ErrNotFound)
	}
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM documents WHERE owner = ? AND md5 = ?`, owner, md5) // its chunks cascade
		return err
	})
	if err != nil {
		return err
	}
	s.applyDelete(key)
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

// DB returns the store's database/sql pool, for the pool metrics (nil
// once the store is closed).
func (s *Store) DB() *sql.DB {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.db
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

// applyUpsert changes the in-memory state; chunks are already validated and
// lex holds their terms (nil: none, for a store that is never searched).
func (s *Store) applyUpsert(doc docqa.Document, embedder string, chunks []docqa.Chunk, lex []lexical.Doc) {
	doc = doc.Owned(doc.Owner)
	key := keyOf(doc)
	d, ok := s.docs[key]
	if !ok {
		d = &document{ids: make(map[string]struct{}, len(chunks))}
		s.docs[key] = d
	}
	d.doc, d.embedder = doc, embedder
	for i, c := range chunks {
		if old, ok := s.chunks[c.ID]; ok && old.key != key {
			s.dropChunkFromDoc(old.key, c.ID)
		}
		// Only the unit vector is kept: cosine similarity does not see
		// length, and one copy of 10 000 vectors is already 40 MB.
		vec, _ := normalize(c.Embedding)
		c.Embedding = nil
		r := &row{key: key, chunk: c, vec: vec}
		if lex != nil {
			r.lex = lex[i]
		}
		s.chunks[c.ID] = r
		d.ids[c.ID] = struct{}{}
	}
}

// dropChunkFromDoc forgets that a chunk id belongs to key's document (it
// moved to another document); a document left without chunks is forgotten too.
func (s *Store) dropChunkFromDoc(key docKey, id string) {
	d, ok := s.docs[key]
	if !ok {
		return
	}
	delete(d.ids, id)
	if len(d.ids) == 0 {
		delete(s.docs, key)
	}
}

func (s *Store) applyDelete(key docKey) {
	d, ok := s.docs[key]
	if !ok {
		return
	}
	for id := range d.ids {
		delete(s.chunks, id)
	}
	delete(s.docs, key)
}

// rebuildIndexLocked lays the rows out in document then chunk order, so that
// search ties are broken the same way every time.
func (s *Store) rebuildIndexLocked() {
	index := make([]*row, 0, len(s.chunks))
	for _, r := range s.chunks {
		index = append(index, r)
	}
	slices.SortFunc(index, func(a, b *row) int {
		if c := a.key.compare(b.key); c != 0 {
			return c
		}
		if a.chunk.Index != b.chunk.Index {
			return a.chunk.Index - b.chunk.Index
		}
		return strings.Compare(a.chunk.ID, b.chunk.ID)
	})
	for i, r := range index {
		r.pos = i
	}
	s.index = index
	s.lex = lexical.NewIndex(s.dict, len(index), func(i int) *lexical.Doc { return &index[i].lex }, func(i int) bool {
		return index[i].key == index[i-1].key && index[i].chunk.Page == index[i-1].chunk.Page
	})
}

func sortNewestFirst(docs []docqa.Document) {
	slices.SortFunc(docs, func(a, b docqa.Document) int {
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		if c := strings.Compare(a.FileMD5, b.FileMD5); c != 0 {
			return c
		}
		return cmp.Compare(a.Owner, b.Owner)
	})
}
