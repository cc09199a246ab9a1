package milvus

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/milvus-io/milvus-sdk-go/v2/client"
	"github.com/milvus-io/milvus-sdk-go/v2/entity"
	"go.opentelemetry.io/otel/trace"

	"github.com/carhub/backend/pkg/tracing"
	"github.com/carhub/backend/services/docqa/internal/docqa"
)

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
			PageLabel:        c.PageLabel,
			OCR:              c.OCR,
			Navigation:       c.Navigation,
			Rects:            docqa.PackRects(c.Rects),
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
