// Package milvus is the docqa.VectorStore over a Milvus 2.4 server, reached
// with milvus-sdk-go. It keeps chunks in the collection `vector_store` with
// the schema other RAG stacks use for it (doc_id, content, metadata JSON,
// embedding), so an existing collection keeps working; the document's figures
// (its title among them), the chunk's heading and the embedder's name live in
// each chunk's metadata.
//
// A collection this package creates has a fifth field, `sparse`, for lexical
// search: each row holds the BM25 term frequencies of its chunk (bm25.go),
// SearchText sends the question's inverse document frequencies, and the inner
// product Milvus computes over a sparse inverted index is the BM25 score. The
// document frequencies live in the Store's memory (see Store). A collection
// without the field (made by an earlier version or by another stack) is
// searched by vector alone until Reindex copies it into one that has it.
package milvus

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/milvus-io/milvus-sdk-go/v2/client"
	"github.com/milvus-io/milvus-sdk-go/v2/entity"
	"go.opentelemetry.io/otel/trace"

	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/pkg/tracing"
	"github.com/carhub/backend/services/docqa/internal/docqa"
)

var _ docqa.VectorStore = (*Store)(nil)

// Field names and index parameters of the collection (../shared/spec/decisions.md).
const (
	FieldID        = "doc_id"
	FieldContent   = "content"
	FieldMetadata  = "metadata"
	FieldEmbedding = "embedding"
	// FieldSparse holds each chunk's BM25 term frequencies. It is not part
	// of the schema other stacks share: a collection without it still serves
	// vector search.
	FieldSparse = "sparse"

	IDMaxLength      = 36
	ContentMaxLength = 65535 // bytes: Milvus measures VarChar in bytes
	NList            = 1024
	Metric           = entity.COSINE
	// SparseMetric is the metric of the sparse index: the inner product of
	// a row's term frequencies with a question's idf is the BM25 score.
	SparseMetric = entity.IP

	DefaultCollection = "vector_store"
	// DefaultNProbe searches 64 of the 1024 clusters: good recall at a
	// fraction of a full scan. Raise it for recall, lower it for speed.
	DefaultNProbe  = 64
	DefaultTimeout = 10 * time.Second

	// upsertBatch rows go in one request: about 6 MB with 1024 floats and a
	// full chunk of text each, well under Milvus's 64 MB message limit. Reindex
	// reads and writes rows in batches of the same size.
	upsertBatch = 512
	// sparseBatch rows' sparse vectors are read in one request: a chunk has
	// a few hundred terms of 8 bytes, so about 3 MB.
	sparseBatch = 1000
	// documentsLimit bounds Documents: Milvus answers at most 16384 rows to
	// one query (its maxQueryResultWindow), and every document has one row
	// with chunkIndex 0.
	documentsLimit = 16384
	// loadTimeout bounds loading the collection at start-up.
	loadTimeout = 2 * time.Minute
	// maxTopK is Milvus's largest topK.
	maxTopK = 16384
)

// Config says where the server is and how to search it.
type Config struct {
	Address    string // host:port, e.g. "localhost:19530"
	Username   string
	Password   string
	Database   string // "" is Milvus's default database
	Collection string // default DefaultCollection
	// NProbe is the number of IVF clusters a search visits, 1..NList
	// (default DefaultNProbe). It is sent with every search.
	NProbe int
	// Timeout bounds connecting and each call (default DefaultTimeout).
	Timeout time.Duration
}

func (c Config) withDefaults() (Config, error) {
	if c.Collection == "" {
		c.Collection = DefaultCollection
	}
	if c.NProbe == 0 {
		c.NProbe = DefaultNProbe
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.NProbe < 1 || c.NProbe > NList {
		return c, fmt.Errorf("milvus: nprobe %d is outside 1..%d", c.NProbe, NList)
	}
	if c.Timeout < 0 {
		return c, fmt.Errorf("milvus: timeout %s is negative", c.Timeout)
	}
	return c, nil
}

// Store is a docqa.VectorStore over one Milvus collection. It is safe for
// concurrent use.
//
// BM25's document frequencies are kept in memory: New reads every row's
// sparse vector once, and this process's Upsert and Delete keep the figures
// in step with what they write and remove. Rows that other processes write
// or delete after New are counted at the next start; until then their terms
// weigh as if absent (or present), which shifts scores a little but never
// hides a chunk: the idf only weighs terms, the rows are matched by Milvus.
type Store struct {
	c   client.Client
	cfg Config

	// writing holds one token while an Upsert, Delete or Reindex runs:
	// reading the rows about to be replaced or removed, writing, and
	// counting the difference must not interleave with another write of the
	// same rows. A channel rather than a mutex, so that a write waiting
	// behind a long Reindex gives up when its context ends. Searches do not
	// take it.
	writing chan struct{}

	mu      sync.RWMutex // guards the fields below
	lexical bool         // the collection has FieldSparse
	stats   termStats
}

// Open connects to the server, then does what New does. Connection failures
// wrap docqa.ErrUnavailable.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if cfg.Address == "" {
		return nil, errors.New("milvus: address is empty")
	}
	dctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	c, err := client.NewClient(dctx, client.Config{
		Address:  cfg.Address,
		Username: cfg.Username,
		Password: cfg.Password,
		DBName:   cfg.Database,
		// SDK defaults, plus gRPC spans when tracing is on (tracing.go).
		DialOptions: dialOptions(),
	})
	if err != nil {
		return nil, unavailable("connecting to "+cfg.Address, err)
	}
	s, err := New(ctx, c, cfg)
	if err != nil {
		c.Close()
		return nil, err
	}
	return s, nil
}

// New uses an existing client: it creates the collection with its indexes
// when absent (an existing one is never re-created, only checked), loads it,
// and, when it has FieldSparse, reads every row's sparse vector to count the
// document frequencies. The Store owns c from then on: Close closes it.
func New(ctx context.Context, c client.Client, cfg Config) (*Store, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	s := &Store{c: c, cfg: cfg, writing: make(chan struct{}, 1), stats: newTermStats()}
	hasSparse, err := s.ensureCollection(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.adoptUnowned(ctx, hasSparse); err != nil {
		return nil, err
	}
	if hasSparse {
		// The count makes the reads that follow see every row written so far.
		if _, err := s.count(ctx, cfg.Collection, ""); err != nil {
			return nil, err
		}
		stats, err := s.readStats(ctx, cfg.Collection, "")
		if err != nil {
			return nil, err
		}
		s.lexical, s.stats = true, stats
	}
	return s, nil
}

// Schema is the collection's schema as New creates it.
func Schema(collection string) *entity.Schema {
	return entity.NewSchema().
		WithName(collection).
		WithDescription("docqa document chunks").
		WithField(entity.NewField().WithName(FieldID).WithDataType(entity.FieldTypeVarChar).
			WithIsPrimaryKey(true).WithIsAutoID(false).WithMaxLength(IDMaxLength)).
		WithField(entity.NewField().WithName(FieldContent).WithDataType(entity.FieldTypeVarChar).
			WithMaxLength(ContentMaxLength)).
		WithField(entity.NewField().WithName(FieldMetadata).WithDataType(entity.FieldTypeJSON)).
		WithField(entity.NewField().WithName(FieldEmbedding).WithDataType(entity.FieldTypeFloatVector).
			WithDim(docqa.Dimension)).
		WithField(entity.NewField().WithName(FieldSparse).WithDataType(entity.FieldTypeSparseVector))
}

// ensureCollection creates or checks the collection and loads it;
// hasSparse reports whether it has FieldSparse.
func (s *Store) ensureCollection(ctx context.Context) (hasSparse bool, err error) {
	if hasSparse, err = s.createIfAbsent(ctx); err != nil {
		return false, err
	}
	if err := s.load(ctx, s.cfg.Collection); err != nil {
		return false, err
	}
	return hasSparse, nil
}

func (s *Store) load(ctx context.Context, name string) error {
	// Loading a large existing collection takes longer than one call.
	lctx, cancel := context.WithTimeout(ctx, max(s.cfg.Timeout, loadTimeout))
	defer cancel()
	if err := s.c.LoadCollection(lctx, name, false); err != nil {
		return unavailable("loading collection "+name, err)
	}
	return nil
}

// createIfAbsent creates the collection and its indexes, or checks the
// schema of the one that exists.
func (s *Store) createIfAbsent(ctx context.Context) (hasSparse bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	name := s.cfg.Collection
	has, err := s.c.HasCollection(ctx, name)
	if err != nil {
		return false, unavailable("checking collection "+name, err)
	}
	if has {
		coll, err := s.c.DescribeCollection(ctx, name)
		if err != nil {
			return false, unavailable("describing collection "+name, err)
		}
		hasSparse, err := checkSchema(coll.Schema)
		if err != nil {
			return false, fmt.Errorf("milvus: collection %s exists with another schema: %w", name, err)
		}
		return hasSparse, nil
	}
	return true, s.createCollection(ctx, name)
}

// createCollection creates a collection of Schema with its two indexes.
func (s *Store) createCollection(ctx context.Context, name string) error {
	dense, err := entity.NewIndexIvfFlat(Metric, NList)
	if err != nil {
		return fmt.Errorf("milvus: index parameters: %w", err)
	}
	// A drop ratio of 0 keeps every term: a rare term is what BM25 is for.
	sparseIdx, err := entity.NewIndexSparseInverted(SparseMetric, 0)
	if err != nil {
		return fmt.Errorf("milvus: sparse index parameters: %w", err)
	}
	if err := s.c.CreateCollection(ctx, Schema(name), 1,
		client.WithConsistencyLevel(entity.ClBounded)); err != nil {
		return unavailable("creating collection "+name, err)
	}
	if err := s.c.CreateIndex(ctx, name, FieldEmbedding, dense, false); err != nil {
		return unavailable("creating index on "+name, err)
	}
	if err := s.c.CreateIndex(ctx, name, FieldSparse, sparseIdx, false); err != nil {
		return unavailable("creating sparse index on "+name, err)
	}
	return nil
}

// checkSchema accepts a collection that has the four fields with their
// types and the vector dimension; other fields and lengths may differ.
// hasSparse reports whether it also has FieldSparse.
func checkSchema(sch *entity.Schema) (hasSparse bool, err error) {
	want := map[string]entity.FieldType{
		FieldID:        entity.FieldTypeVarChar,
		FieldContent:   entity.FieldTypeVarChar,
		FieldMetadata:  entity.FieldTypeJSON,
		FieldEmbedding: entity.FieldTypeFloatVector,
	}
	for _, f := range sch.Fields {
		if f.Name == FieldSparse {
			if f.DataType != entity.FieldTypeSparseVector {
				return false, fmt.Errorf("field %s is %s, want %s", f.Name, f.DataType.Name(), entity.FieldTypeSparseVector.Name())
			}
			hasSparse = true
			continue
		}
		t, ok := want[f.Name]
		if !ok {
			continue
		}
		if f.DataType != t {
			return false, fmt.Errorf("field %s is %s, want %s", f.Name, f.DataType.Name(), t.Name())
		}
		if f.Name == FieldID && !f.PrimaryKey {
			return false, fmt.Errorf("field %s is not the primary key", f.Name)
		}
		if f.Name == FieldEmbedding && f.TypeParams[entity.TypeParamDim] != strconv.Itoa(docqa.Dimension) {
			return false, fmt.Errorf("field %s has dimension %s, want %d", f.Name, f.TypeParams[entity.TypeParamDim], docqa.Dimension)
		}
		delete(want, f.Name)
	}
	for name := range want {
		return false, fmt.Errorf("field %s is missing", name)
	}
	return hasSparse, nil
}

// metadata is the JSON kept with each chunk: where it comes from, the
// document's figures (so documents are answered from chunk 0) and the
// embedder that wrote the vector.
type metadata struct {
	// Owner is the document's owner (docqa.Document.Owner); nil in a row
	// written before documents had owners, until New adopts it.
	Owner    *uint64 `json:"owner,omitempty"`
	FileName string  `json:"fileName"`
	// Title is the PDF's own title (docqa.Document.Title), "" when it has none.
	Title      string `json:"title"`
	FileMD5    string `json:"fileMd5"`
	Page       int    `json:"page"`
	ChunkIndex int    `json:"chunkIndex"`
	// Heading is the chunk's heading (docqa.Chunk.Heading).
	Heading   string `json:"heading"`
	Size      int64  `json:"size"`
	Pages     int    `json:"pages"`
	Chunks    int    `json:"chunks"`
	Truncated bool   `json:"truncated"`
	CreatedAt string `json:"createdAt"` // RFC 3339, UTC
	Embedder  string `json:"embedder"`
	// ContentTruncated: the chunk's text was cut to ContentMaxLength bytes.
	ContentTruncated bool `json:"contentTruncated,omitempty"`
}

func (m metadata) document() docqa.Document {
	created, _ := time.Parse(time.RFC3339Nano, m.CreatedAt)
	owner := auth.BuiltinUserID
	if m.Owner != nil {
		owner = *m.Owner
	}
	return docqa.Document{
		FileName:  m.FileName,
		Title:     m.Title,
		FileMD5:   m.FileMD5,
		Size:      m.Size,
		Pages:     m.Pages,
		Chunks:    m.Chunks,
		Truncated: m.Truncated,
		CreatedAt: created,
	}.Owned(owner)
}

// rowVector is the sparse vector of a stored row: from its content, its
// document's title and its heading when the metadata is ours, from the
// content alone for a row another program wrote.
func rowVector(content string, m metadata) entity.SparseEmbedding {
	if !docqa.ValidMD5(m.FileMD5) {
		return chunkVector("", "", content)
	}
	return chunkVector(m.document().DisplayTitle(), m.Heading, content)
}

// Upsert writes the chunks of doc in batches of upsertBatch rows, chunk 0
// last. The ids are deterministic, so a retry after a failed batch overwrites
// what the earlier batches wrote. Errors wrap docqa.ErrEmbedderMismatch, docqa.ErrDimension or
// docqa.ErrUnavailable.
func (s *Store) Upsert(ctx context.Context, doc docqa.Document, chunks []docqa.Chunk, embedder string) (err error) {
	ctx, span := tracing.Start(ctx, "milvus.Upsert", trace.SpanKindClient, s.spanAttrs()...)
	defer span.End(&err)
	chunks, err = validateUpsert(doc, chunks, embedder)
	if err != nil {
		return err
	}
	if err := s.lockWrites(ctx); err != nil {
		return err
	}
	defer s.unlockWrites()
	current, err := s.Embedder(ctx)
	if err != nil {
		return err
	}
	if current != "" && current != embedder {
		return fmt.Errorf("%w: collection %s holds vectors of %q, this upload was embedded by %q; delete the stored documents or configure the same embedder",
			docqa.ErrEmbedderMismatch, s.cfg.Collection, current, embedder)
	}
	// Document and Documents answer from chunk 0, so it goes in the last
	// batch: a document whose upsert failed half-way is not reported as
	// stored (and an upload of the same file is not taken for a duplicate).
	slices.SortStableFunc(chunks, func(a, b docqa.Chunk) int {
		return boolInt(b.Index == 0) - boolInt(a.Index == 0)
	})
	for end := len(chunks); end > 0; end -= upsertBatch {
		batch := chunks[max(0, end-upsertBatch):end]
		if err := s.upsertBatch(ctx, doc, batch, embedder); err != nil {
			return err
		}
	}
	return nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// upsertBatch writes one batch. In a lexical collection it first reads the
// sparse vectors of the rows the batch replaces, so that their terms are
// counted out before the new ones are counted in.
func (s *Store) upsertBatch(ctx context.Context, doc docqa.Document, chunks []docqa.Chunk, embedder string) error {
	hasSparse := s.LexicalIndex()
	ids := make([]string, len(chunks))
	contents := make([]string, len(chunks))
	metas := make([][]byte, len(chunks))
	vectors := make([][]float32, len(chunks))
	var sparseRows []entity.SparseEmbedding
	if hasSparse {
		sparseRows = make([]entity.SparseEmbedding, len(chunks))
	}
	title := doc.DisplayTitle()
	for i, c := range chunks {
		text, cut := truncateUTF8(c.Text, ContentMaxLength)
		m := metadata{
			Owner:            &doc.Owner,
			FileName:         doc.FileName,
			Title:            doc.Title,
			FileMD5:          doc.FileMD5,
			Page:             c.Page,
			ChunkIndex:       c.Index,
			Heading:          c.Heading,
			Size:             doc.Size,
			Pages:            doc.Pages,
			Chunks:           doc.Chunks,
			Truncated:        doc.Truncated,
			CreatedAt:        doc.CreatedAt.UTC().Format(time.RFC3339Nano),
			Embedder:         embedder,
			ContentTruncated: cut,
		}
		js, err := json.Marshal(m)
		if err != nil {
			return fmt.Errorf("milvus: encoding metadata: %w", err)
		}
		ids[i], contents[i], metas[i], vectors[i] = c.ID, text, js, c.Embedding
		if hasSparse {
			// From the stored text, so that Reindex computes the same row.
			sparseRows[i] = chunkVector(title, c.Heading, text)
		}
	}
	columns := []entity.Column{
		entity.NewColumnVarChar(FieldID, ids),
		entity.NewColumnVarChar(FieldContent, contents),
		entity.NewColumnJSONBytes(FieldMetadata, metas),
		entity.NewColumnFloatVector(FieldEmbedding, docqa.Dimension, vectors),
	}
	var replaced []entity.SparseEmbedding
	if hasSparse {
		columns = append(columns, entity.NewColumnSparseVectors(FieldSparse, sparseRows))
		var err error
		if replaced, err = s.storedVectors(ctx, ids); err != nil {
			return err
		}
	}
	wctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	if _, err := s.c.Upsert(wctx, s.cfg.Collection, "", columns...); err != nil {
		return unavailable("upserting "+strconv.Itoa(len(chunks))+" chunks of "+doc.FileMD5, err)
	}
	if hasSparse {
		s.mu.Lock()
		for _, v := range replaced {
			s.stats.add(v, -1)
		}
		for _, v := range sparseRows {
			s.stats.add(v, 1)
		}
		s.mu.Unlock()
	}
	return nil
}

// storedVectors reads the sparse vectors of those of ids that are stored.
func (s *Store) storedVectors(ctx context.Context, ids []string) ([]entity.SparseEmbedding, error) {
	quoted := make([]string, len(ids))
	for i, id := range ids {
		quoted[i] = quote(id)
	}
	expr := FieldID + " in [" + strings.Join(quoted, ", ") + "]"
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	rs, err := s.c.Query(ctx, s.cfg.Collection, nil, expr, []string{FieldSparse},
		client.WithLimit(int64(len(ids))), client.WithSearchQueryConsistencyLevel(entity.ClStrong))
	if err != nil {
		return nil, unavailable("reading the sparse vectors of "+strconv.Itoa(len(ids))+" chunks", err)
	}
	rows, err := readRows(rs.GetColumn(FieldID), rs, -1)
	if err != nil {
		return nil, unavailable("reading query results", err)
	}
	out := make([]entity.SparseEmbedding, len(rows))
	for i, r := range rows {
		out[i] = r.sparse
	}
	return out, nil
}

// Search returns at most q.TopK chunks by descending cosine similarity,
// visiting Config.NProbe clusters; with q.Documents, from those documents
// only (the filter is part of the search, so TopK counts only chunks that
// pass it). A zero vector matches nothing.
func (s *Store) Search(ctx context.Context, vector []float32, q docqa.Query) (_ []docqa.ScoredChunk, err error) {
	ctx, span := tracing.Start(ctx, "milvus.Search", trace.SpanKindClient, s.spanAttrs()...)
	defer span.End(&err)
	if err := checkTopK(q.TopK); err != nil {
		return nil, err
	}
	if len(vector) != docqa.Dimension {
		return nil, fmt.Errorf("%w: query vector has %d floats, want %d", docqa.ErrDimension, len(vector), docqa.Dimension)
	}
	expr, ok := documentsExpr(q.Documents)
	if isZero(vector) || !ok {
		return []docqa.ScoredChunk{}, nil
	}
	if expr, err = s.searchableExpr(ctx, expr); err != nil {
		return nil, err
	}
	sp, err := entity.NewIndexIvfFlatSearchParam(s.cfg.NProbe)
	if err != nil {
		return nil, fmt.Errorf("milvus: search parameters: %w", err)
	}
	return s.search(ctx, entity.FloatVector(vector), FieldEmbedding, Metric, sp, expr, q.TopK)
}

// SearchText returns at most q.TopK chunks ranked by BM25 against the terms
// of text (weighing matches in the document's title and the chunk's heading
// above those in its text), best first; with q.Documents, from those
// documents only, inside the search. A text without terms matches nothing
// and sends no request. Errors wrap docqa.ErrNoLexicalIndex when the
// collection has no FieldSparse (Reindex adds it), or docqa.ErrUnavailable.
func (s *Store) SearchText(ctx context.Context, text string, q docqa.Query) (_ []docqa.ScoredChunk, err error) {
	ctx, span := tracing.Start(ctx, "milvus.SearchText", trace.SpanKindClient, s.spanAttrs()...)
	defer span.End(&err)
	if err := checkTopK(q.TopK); err != nil {
		return nil, err
	}
	s.mu.RLock()
	hasSparse := s.lexical
	var vector entity.SparseEmbedding
	if hasSparse {
		vector = s.stats.queryVector(text)
	}
	s.mu.RUnlock()
	if !hasSparse {
		return nil, fmt.Errorf("milvus: collection %s has no %s field (Reindex adds it): %w",
			s.cfg.Collection, FieldSparse, docqa.ErrNoLexicalIndex)
	}
	expr, ok := documentsExpr(q.Documents)
	if vector == nil || !ok {
		return []docqa.ScoredChunk{}, nil
	}
	if expr, err = s.searchableExpr(ctx, expr); err != nil {
		return nil, err
	}
	sp, err := entity.NewIndexSparseInvertedSearchParam(0)
	if err != nil {
		return nil, fmt.Errorf("milvus: sparse search parameters: %w", err)
	}
	return s.search(ctx, vector, FieldSparse, SparseMetric, sp, expr, q.TopK)
}

// lockWrites waits for the other writes of this Store to end, or for ctx.
func (s *Store) lockWrites(ctx context.Context) error {
	select {
	case s.writing <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("milvus: waiting for another write: %w", ctx.Err())
	}
}

func (s *Store) unlockWrites() { <-s.writing }

// LexicalIndex reports whether the collection has FieldSparse, so that
// SearchText can answer.
func (s *Store) LexicalIndex() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.lexical
}

func checkTopK(topK int) error {
	if topK < 1 || topK > maxTopK {
		return fmt.Errorf("milvus: topK %d is outside 1..%d", topK, maxTopK)
	}
	return nil
}

// documentsExpr is the filter that limits a search to the named documents:
// "" when none is named. An MD5 that is not valid hex can match no row and
// is left out; ok is false when none is left, so that the search is not
// sent (an empty filter would match every row instead of none).
func documentsExpr(md5s []string) (expr string, ok bool) {
	if len(md5s) == 0 {
		return "", true
	}
	var vals []string
	seen := map[string]bool{}
	for _, m := range md5s {
		if docqa.ValidMD5(m) && !seen[m] {
			seen[m] = true
			vals = append(vals, quote(m))
		}
	}
	if len(vals) == 0 {
		return "", false
	}
	return `metadata["fileMd5"] in [` + strings.Join(vals, ", ") + `]`, true
}

// searchableExpr adds to expr ("" or documentsExpr's) the filter that keeps
// a search to the documents the reader may search: their own and the
// shared library's, less the shared copies of MD5s the reader holds a copy
// of (docqa.Visible). Those are found by one query of the readable
// documents' chunk 0, once per question when its context carries a search
// memo (docqa.WithSearchMemo: the lexical and the vector search of a
// hybrid question share it); usually there are none, and the filter is one
// term.
func (s *Store) searchableExpr(ctx context.Context, expr string) (string, error) {
	reader := docqa.Reader(ctx)
	filter, err := docqa.Remember(ctx, searchableKey{s, reader}, func() (string, error) { return s.searchable(ctx, reader) })
	if err != nil {
		return "", err
	}
	if expr == "" {
		return filter, nil
	}
	return expr + " && " + filter, nil
}

// searchableKey names searchableExpr's filter in a search memo.
type searchableKey struct {
	store  *Store
	reader uint64
}

// searchable is the filter of the documents reader may search.
func (s *Store) searchable(ctx context.Context, reader uint64) (string, error) {
	docs, err := s.readable(ctx, reader, "")
	if err != nil {
		return "", err
	}
	own := map[string]bool{}
	for _, d := range docs {
		if d.Owner == reader {
			own[d.FileMD5] = true
		}
	}
	var shadowed []string
	for _, d := range docs {
		if d.Owner == docqa.SharedOwner && own[d.FileMD5] {
			shadowed = append(shadowed, quote(d.FileMD5))
		}
	}
	slices.Sort(shadowed)
	if len(shadowed) == 0 {
		return ownerExpr(reader), nil
	}
	return fmt.Sprintf(`(%s == %d || (%s == %d && metadata["fileMd5"] not in [%s]))`,
		ownerKey, reader, ownerKey, docqa.SharedOwner, strings.Join(shadowed, ", ")), nil
}

// ownerKey is the metadata key of a row's owner.
const ownerKey = `metadata["owner"]`

// ownerExpr selects the rows of the documents reader may read.
func ownerExpr(reader uint64) string {
	return fmt.Sprintf(`%s in [%d, %d]`, ownerKey, reader, docqa.SharedOwner)
}

// readable returns the documents, of md5 only when it is not "", that
// reader may read (their own and the shared library's), from their chunk
// 0, without the shadowing of docqa.Visible.
func (s *Store) readable(ctx context.Context, reader uint64, md5 string) ([]docqa.Document, error) {
	expr, limit := firstChunkExpr+" && "+ownerExpr(reader), int64(documentsLimit)
	if md5 != "" {
		// At most two copies are readable: the reader's and the shared one.
		expr, limit = fileExpr(md5)+" && "+expr, 2
	}
	rows, err := s.query(ctx, expr, []string{FieldMetadata}, limit)
	if err != nil {
		return nil, err
	}
	out := make([]docqa.Document, 0, len(rows))
	type key struct {
		owner uint64
		md5   string
	}
	seen := make(map[key]bool, len(rows))
	for _, r := range rows {
		d := r.meta.document()
		if d.FileMD5 == "" || seen[key{d.Owner, d.FileMD5}] {
			continue
		}
		seen[key{d.Owner, d.FileMD5}] = true
		out = append(out, d)
	}
	return out, nil
}

// search runs one search of s's collection and reads its hits.
func (s *Store) search(ctx context.Context, vector entity.Vector, field string, metric entity.MetricType,
	sp entity.SearchParam, expr string, topK int) ([]docqa.ScoredChunk, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	res, err := s.c.Search(ctx, s.cfg.Collection, nil, expr, []string{FieldContent, FieldMetadata},
		[]entity.Vector{vector}, field, metric, topK, sp,
		// Session: this process sees its own writes at once (an upload is
		// searchable right after it), without waiting for every replica.
		client.WithSearchQueryConsistencyLevel(entity.ClSession))
	if err != nil {
		return nil, unavailable("searching "+field, err)
	}
	if len(res) == 0 {
		return []docqa.ScoredChunk{}, nil
	}
	r := res[0]
	if r.Err != nil {
		return nil, unavailable("reading search results", r.Err)
	}
	rows, err := readRows(r.IDs, r.Fields, r.ResultCount)
	if err != nil {
		return nil, unavailable("reading search results", err)
	}
	if len(r.Scores) < len(rows) {
		return nil, unavailable("reading search results", fmt.Errorf("%d scores for %d rows", len(r.Scores), len(rows)))
	}
	out := make([]docqa.ScoredChunk, len(rows))
	for i, row := range rows {
		out[i] = docqa.ScoredChunk{
			Chunk: docqa.Chunk{
				ID:      row.id,
				Page:    row.meta.Page,
				Index:   row.meta.ChunkIndex,
				Heading: row.meta.Heading,
				Text:    row.content,
			},
			Document: row.meta.document(),
			Score:    r.Scores[i],
		}
	}
	// The server orders equal scores as its segments come; order them by
	// document and chunk so that equal questions get equal answers. Which
	// of several equal chunks at the TopK boundary come back is the
	// server's choice.
	slices.SortStableFunc(out, func(a, b docqa.ScoredChunk) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		if c := strings.Compare(a.Document.FileMD5, b.Document.FileMD5); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Chunk.Index, b.Chunk.Index); c != 0 {
			return c
		}
		return strings.Compare(a.Chunk.ID, b.Chunk.ID)
	})
	return out, nil
}

// Document answers from the metadata of the document's chunk 0: the
// reader's own copy, else the shared one.
func (s *Store) Document(ctx context.Context, md5 string) (_ docqa.Document, err error) {
	ctx, span := tracing.Start(ctx, "milvus.Document", trace.SpanKindClient, s.spanAttrs()...)
	defer span.End(&err, docqa.ErrNotFound)
	if !docqa.ValidMD5(md5) {
		return docqa.Document{}, fmt.Errorf("document %q: %w", md5, docqa.ErrNotFound)
	}
	docs, err := s.readable(ctx, docqa.Reader(ctx), md5)
	if err != nil {
		return docqa.Document{}, err
	}
	if docs = docqa.Visible(docs, docqa.Reader(ctx)); len(docs) == 0 {
		return docqa.Document{}, fmt.Errorf("document %q: %w", md5, docqa.ErrNotFound)
	}
	return docs[0], nil
}

// Documents lists the chunk 0 of every document the reader may read
// (docqa.Visible), newest first (ties by MD5). It sees at most 16384
// documents, the most rows Milvus answers to one query.
func (s *Store) Documents(ctx context.Context) (_ []docqa.Document, err error) {
	ctx, span := tracing.Start(ctx, "milvus.Documents", trace.SpanKindClient, s.spanAttrs()...)
	defer span.End(&err)
	docs, err := s.readable(ctx, docqa.Reader(ctx), "")
	if err != nil {
		return nil, err
	}
	out := docqa.Visible(docs, docqa.Reader(ctx))
	slices.SortFunc(out, func(a, b docqa.Document) int {
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		if c := strings.Compare(a.FileMD5, b.FileMD5); c != 0 {
			return c
		}
		return cmp.Compare(a.Owner, b.Owner)
	})
	return out, nil
}

// Owners lists the owners of the documents with that MD5, from their chunk 0.
func (s *Store) Owners(ctx context.Context, md5 string) (_ []uint64, err error) {
	ctx, span := tracing.Start(ctx, "milvus.Owners", trace.SpanKindClient, s.spanAttrs()...)
	defer span.End(&err)
	if !docqa.ValidMD5(md5) {
		return nil, nil
	}
	rows, err := s.query(ctx, fileExpr(md5)+" && "+firstChunkExpr, []string{FieldMetadata}, documentsLimit)
	if err != nil {
		return nil, err
	}
	var owners []uint64
	for _, r := range rows {
		owners = append(owners, r.meta.document().Owner)
	}
	slices.Sort(owners)
	return slices.Compact(owners), nil
}

// Delete removes every chunk whose metadata names the owner and the MD5; an
// error wrapping docqa.ErrNotFound when there is none. In a lexical
// collection it first reads the rows' sparse vectors, so that their terms
// stop counting.
func (s *Store) Delete(ctx context.Context, owner uint64, md5 string) (err error) {
	ctx, span := tracing.Start(ctx, "milvus.Delete", trace.SpanKindClient, s.spanAttrs()...)
	defer span.End(&err, docqa.ErrNotFound)
	if !docqa.ValidMD5(md5) {
		return fmt.Errorf("document %q: %w", md5, docqa.ErrNotFound)
	}
	if err := s.lockWrites(ctx); err != nil {
		return err
	}
	defer s.unlockWrites()
	expr := fileExpr(md5) + fmt.Sprintf(" && %s == %d", ownerKey, owner)
	n, err := s.count(ctx, s.cfg.Collection, expr)
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("document %q: %w", md5, docqa.ErrNotFound)
	}
	var removed termStats
	hasSparse := s.LexicalIndex()
	if hasSparse {
		// The count above made every row of the document visible to these reads.
		if removed, err = s.readStats(ctx, s.cfg.Collection, expr); err != nil {
			return err
		}
	}
	dctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	if err := s.c.Delete(dctx, s.cfg.Collection, "", expr); err != nil {
		return unavailable("deleting "+md5, err)
	}
	if hasSparse {
		s.mu.Lock()
		s.stats.subtract(removed)
		s.mu.Unlock()
	}
	return nil
}

// Embedder reads the embedder's name from the metadata of one document's
// chunk 0; "" when no document is stored. Rows written by other programs
// (without our metadata) are not looked at.
func (s *Store) Embedder(ctx context.Context) (string, error) {
	rows, err := s.query(ctx, firstChunkExpr, []string{FieldMetadata}, 1)
	if err != nil {
		return "", err
	}
	if len(rows) == 0 {
		return "", nil
	}
	return rows[0].meta.Embedder, nil
}

// Ping asks the server for its health.
func (s *Store) Ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	st, err := s.c.CheckHealth(ctx)
	if err != nil {
		return unavailable("checking health", err)
	}
	if !st.IsHealthy {
		return unavailable("checking health", fmt.Errorf("server is unhealthy: %s", strings.Join(st.Reasons, "; ")))
	}
	return nil
}

// Close closes the connection.
func (s *Store) Close() error { return s.c.Close() }

// NProbe is the number of clusters each search visits.
func (s *Store) NProbe() int { return s.cfg.NProbe }

// firstChunkExpr selects each document's first chunk, which carries the
// document's figures like every chunk does.
const firstChunkExpr = `metadata["chunkIndex"] == 0`

// fileExpr selects the chunks of one file. md5 is validated hex by the
// callers; it is quoted anyway, so no value can change the expression.
func fileExpr(md5 string) string {
	return `metadata["fileMd5"] == ` + quote(md5)
}

// quote writes s as a Milvus string literal: double quotes, with backslash
// and double quote escaped and control characters dropped.
func quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '\\' || r == '"':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			// Not in any MD5; dropping it keeps the literal on one line.
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

type resultRow struct {
	id        string
	content   string
	meta      metadata
	rawMeta   []byte
	embedding []float32
	sparse    entity.SparseEmbedding
}

// query runs a Strong-consistency query: documents are checked right after
// they are written (de-duplication of uploads), so stale answers would do harm.
func (s *Store) query(ctx context.Context, expr string, fields []string, limit int64) ([]resultRow, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	rs, err := s.c.Query(ctx, s.cfg.Collection, nil, expr, fields,
		client.WithLimit(limit), client.WithSearchQueryConsistencyLevel(entity.ClStrong))
	if err != nil {
		return nil, unavailable("querying "+expr, err)
	}
	rows, err := readRows(rs.GetColumn(FieldID), rs, -1)
	if err != nil {
		return nil, unavailable("reading query results", err)
	}
	return rows, nil
}

// countField is the output that makes a query answer its number of rows.
const countField = "count(*)"

// count answers how many rows of collection expr selects ("" selects all),
// with Strong consistency: the reads that follow it (scan) then see every
// write made before it, whatever their own consistency.
func (s *Store) count(ctx context.Context, collection, expr string) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	rs, err := s.c.Query(ctx, collection, nil, expr, []string{countField},
		client.WithSearchQueryConsistencyLevel(entity.ClStrong))
	if err != nil {
		return 0, unavailable("counting rows of "+collection, err)
	}
	col := rs.GetColumn(countField)
	if col == nil || col.Len() != 1 {
		return 0, unavailable("counting rows of "+collection, errors.New("the answer has no count"))
	}
	n, err := col.GetAsInt64(0)
	if err != nil {
		return 0, unavailable("counting rows of "+collection, err)
	}
	return n, nil
}

// scan reads every row of collection that expr selects ("" selects all) in
// primary key order, batch rows per request, and calls fn with each batch.
// It uses the SDK's query iterator, which pages by primary key with the
// server ordering each page (a plain query with a limit answers any rows).
// The iterator writes the last key of a page into its next expression
// unescaped, so a key holding a double quote (none of ours, nor the UUIDs of
// the usual other stacks) ends the scan with an error.
func (s *Store) scan(ctx context.Context, collection, expr string, fields []string, batch int, fn func([]resultRow) error) error {
	opt := client.NewQueryIteratorOption(collection).WithExpr(expr).
		WithOutputFields(fields...).WithBatchSize(batch)
	ictx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	it, err := s.c.QueryIterator(ictx, opt)
	cancel()
	if err != nil {
		return unavailable("reading rows of "+collection, err)
	}
	for {
		nctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
		rs, err := it.Next(nctx)
		cancel()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return unavailable("reading rows of "+collection, err)
		}
		rows, err := readRows(rs.GetColumn(FieldID), rs, -1)
		if err != nil {
			return unavailable("reading rows of "+collection, err)
		}
		if err := fn(rows); err != nil {
			return err
		}
	}
}

// readStats counts the chunks and term dimensions of the rows expr
// selects. Callers count the rows first (count), so that the reads see
// every row written before.
func (s *Store) readStats(ctx context.Context, collection, expr string) (termStats, error) {
	stats := newTermStats()
	err := s.scan(ctx, collection, expr, []string{FieldSparse}, sparseBatch, func(rows []resultRow) error {
		for _, r := range rows {
			stats.add(r.sparse, 1)
		}
		return nil
	})
	return stats, err
}

// readRows turns result columns into rows. ids may be nil (not asked for);
// n < 0 means as many rows as the longest column.
func readRows(ids entity.Column, fields client.ResultSet, n int) ([]resultRow, error) {
	content, _ := fields.GetColumn(FieldContent).(*entity.ColumnVarChar)
	meta, _ := fields.GetColumn(FieldMetadata).(*entity.ColumnJSONBytes)
	embedding, _ := fields.GetColumn(FieldEmbedding).(*entity.ColumnFloatVector)
	sparseCol, _ := fields.GetColumn(FieldSparse).(*entity.ColumnSparseFloatVector)
	idCol, _ := ids.(*entity.ColumnVarChar)
	if n < 0 {
		n = 0
		for _, c := range fields {
			n = max(n, c.Len())
		}
		if ids != nil {
			n = max(n, ids.Len())
		}
	}
	rows := make([]resultRow, n)
	for i := range rows {
		var err error
		if idCol != nil {
			if rows[i].id, err = idCol.ValueByIdx(i); err != nil {
				return nil, err
			}
		}
		if content != nil {
			if rows[i].content, err = content.ValueByIdx(i); err != nil {
				return nil, err
			}
		}
		if meta != nil {
			js, err := meta.ValueByIdx(i)
			if err != nil {
				return nil, err
			}
			rows[i].rawMeta = js
			rows[i].meta = parseMetadata(js)
		}
		if embedding != nil {
			if i >= embedding.Len() {
				return nil, fmt.Errorf("%d embeddings for %d rows", embedding.Len(), n)
			}
			rows[i].embedding = embedding.Data()[i]
		}
		if sparseCol != nil {
			if rows[i].sparse, err = sparseCol.ValueByIdx(i); err != nil {
				return nil, err
			}
		}
	}
	return rows, nil
}

// parseMetadata reads a row's metadata field by field, so that rows written
// by another program (other keys, other types) still come back with what can
// be read instead of failing the whole search.
func parseMetadata(js []byte) metadata {
	var m metadata
	if len(js) == 0 || json.Unmarshal(js, &m) == nil {
		return m
	}
	m = metadata{}
	var fields map[string]json.RawMessage
	if json.Unmarshal(js, &fields) != nil {
		return m
	}
	for key, dst := range map[string]any{
		"owner": &m.Owner, "fileName": &m.FileName, "title": &m.Title, "fileMd5": &m.FileMD5, "page": &m.Page,
		"chunkIndex": &m.ChunkIndex, "heading": &m.Heading, "size": &m.Size, "pages": &m.Pages,
		"chunks": &m.Chunks, "truncated": &m.Truncated, "createdAt": &m.CreatedAt,
		"embedder": &m.Embedder, "contentTruncated": &m.ContentTruncated,
	} {
		if raw, ok := fields[key]; ok {
			_ = json.Unmarshal(raw, dst) // a field of another type stays zero
		}
	}
	return m
}

// unavailable wraps an error of the server or the connection.
func unavailable(op string, err error) error {
	return fmt.Errorf("milvus: %s: %w: %w", op, docqa.ErrUnavailable, err)
}

// truncateUTF8 cuts s to at most n bytes without splitting a character.
func truncateUTF8(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut], true
}

func isZero(v []float32) bool {
	for _, f := range v {
		if f != 0 {
			return false
		}
	}
	return true
}

// validateUpsert checks the arguments of Upsert (docqa.CheckUpsert) and
// that every id fits the doc_id column.
func validateUpsert(doc docqa.Document, chunks []docqa.Chunk, embedder string) ([]docqa.Chunk, error) {
	out, err := docqa.CheckUpsert(doc, chunks, embedder)
	if err != nil {
		return nil, fmt.Errorf("milvus: %w", err)
	}
	for _, c := range out {
		if len(c.ID) > IDMaxLength {
			return nil, fmt.Errorf("milvus: chunk id %q is longer than %d bytes", c.ID, IDMaxLength)
		}
	}
	return out, nil
}
