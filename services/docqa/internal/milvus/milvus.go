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
//
// The files by concern: milvus.go the Store, its configuration and life;
// collection.go the schema, its creation and loading; write.go upserts and
// deletes; search.go vector and lexical search; filter.go the boolean
// expressions (a reader's documents, a file's chunks); documents.go the
// documents and their owners; rows.go query results and each chunk's
// metadata; bm25.go the lexical vectors; reindex.go Reindex.
package milvus

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/milvus-io/milvus-sdk-go/v2/client"
	"github.com/milvus-io/milvus-sdk-go/v2/entity"

	"github.com/carhub/backend/services/docqa/internal/docqa"
)

var (
	_ docqa.VectorStore = (*Store)(nil)
	_ docqa.TermCounter = (*Store)(nil)
)

// Field names and index parameters of the collection (proto-docs/contract.md, "Milvus collection").
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

// unavailable wraps an error of the server or the connection.
func unavailable(op string, err error) error {
	return fmt.Errorf("milvus: %s: %w: %w", op, docqa.ErrUnavailable, err)
}
