package milvus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/milvus-io/milvus-sdk-go/v2/client"
	"github.com/milvus-io/milvus-sdk-go/v2/entity"

	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/services/docqa/internal/docqa"
)

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
	Heading string `json:"heading"`
	// PageLabel is the page's printed label (docqa.Chunk.PageLabel),
	// absent when the PDF has none or the row was written before labels.
	PageLabel string `json:"pageLabel,omitempty"`
	// OCR: the chunk's text was read by OCR (docqa.Chunk.OCR); absent,
	// as in rows written before OCR, is false.
	OCR bool `json:"ocr,omitempty"`
	// Navigation: the chunk's page is a table of contents or an index
	// (docqa.Chunk.Navigation); absent, as in rows written before, is
	// false.
	Navigation bool `json:"navigation,omitempty"`
	// Rects are where an OCR chunk lies on its page (docqa.Chunk.Rects,
	// as docqa.PackRects: [x,y,w,h] in ten-thousandths of the page);
	// absent for text-layer chunks and rows written before.
	Rects     [][4]int `json:"rects,omitempty"`
	Size      int64    `json:"size"`
	Pages     int      `json:"pages"`
	Chunks    int      `json:"chunks"`
	Truncated bool     `json:"truncated"`
	CreatedAt string   `json:"createdAt"` // RFC 3339, UTC
	Embedder  string   `json:"embedder"`
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
		"chunkIndex": &m.ChunkIndex, "heading": &m.Heading, "pageLabel": &m.PageLabel, "size": &m.Size, "pages": &m.Pages,
		"chunks": &m.Chunks, "truncated": &m.Truncated, "createdAt": &m.CreatedAt,
		"embedder": &m.Embedder, "contentTruncated": &m.ContentTruncated, "ocr": &m.OCR, "rects": &m.Rects,
		"navigation": &m.Navigation,
	} {
		if raw, ok := fields[key]; ok {
			_ = json.Unmarshal(raw, dst) // a field of another type stays zero
		}
	}
	return m
}
