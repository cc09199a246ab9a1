package milvus

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/milvus-io/milvus-sdk-go/v2/client"
	"github.com/milvus-io/milvus-sdk-go/v2/entity"
	"go.opentelemetry.io/otel/trace"

	"github.com/carhub/backend/pkg/tracing"
	"github.com/carhub/backend/services/docqa/internal/docqa"
)

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

func checkTopK(topK int) error {
	if topK < 1 || topK > maxTopK {
		return fmt.Errorf("milvus: topK %d is outside 1..%d", topK, maxTopK)
	}
	return nil
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
				ID:         row.id,
				Page:       row.meta.Page,
				Index:      row.meta.ChunkIndex,
				Heading:    row.meta.Heading,
				PageLabel:  row.meta.PageLabel,
				OCR:        row.meta.OCR,
				Navigation: row.meta.Navigation,
				Rects:      docqa.UnpackRects(row.meta.Rects),
				Text:       row.content,
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
