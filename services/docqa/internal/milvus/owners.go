package milvus

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/milvus-io/milvus-sdk-go/v2/entity"

	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/services/docqa/internal/docqa"
)

// ownedExpr selects the rows whose metadata names an owner (a JSON key
// that a row lacks compares false).
var ownedExpr = ownerKey + " >= 0"

// adoptUnowned gives every row without an owner in its metadata (written
// before documents had owners, or by another program) to the built-in
// user, as fuel-service's migration gave it the vehicles: searches filter
// by owner, and a row without one would match no reader. The rows are
// rewritten in place with the same id, content and vectors and their
// metadata's other keys byte for byte, so the term counts do not change.
// A collection whose rows all have owners costs two counts.
//
// Rows of another program sharing the collection (no document MD5 in their
// metadata) are left as they are: rewriting them would need every field of
// a schema that is not ours. No search of docqa's matches them any more,
// as no owner filter does; they were answers of nobody's document before.
func (s *Store) adoptUnowned(ctx context.Context, hasSparse bool) error {
	if err := s.lockWrites(ctx); err != nil {
		return err
	}
	defer s.unlockWrites()
	total, err := s.count(ctx, s.cfg.Collection, "")
	if err != nil {
		return err
	}
	owned, err := s.count(ctx, s.cfg.Collection, ownedExpr)
	if err != nil {
		return err
	}
	if owned == total {
		return nil
	}
	fields := []string{FieldContent, FieldMetadata, FieldEmbedding}
	if hasSparse {
		fields = append(fields, FieldSparse)
	}
	return s.scan(ctx, s.cfg.Collection, "", fields, upsertBatch, func(rows []resultRow) error {
		var ids, contents []string
		var metas [][]byte
		var vectors [][]float32
		var sparseRows []entity.SparseEmbedding
		for _, r := range rows {
			if r.meta.Owner != nil || !docqa.ValidMD5(r.meta.FileMD5) {
				continue // owned, or another program's row (see below)
			}
			meta, err := withOwner(r.rawMeta, auth.BuiltinUserID)
			if err != nil {
				return fmt.Errorf("milvus: row %s: %w", r.id, err)
			}
			if len(r.embedding) != docqa.Dimension {
				return fmt.Errorf("milvus: row %s has %d floats, want %d", r.id, len(r.embedding), docqa.Dimension)
			}
			ids, contents, metas, vectors = append(ids, r.id), append(contents, r.content), append(metas, meta), append(vectors, r.embedding)
			if hasSparse {
				sparseRows = append(sparseRows, r.sparse)
			}
		}
		if len(ids) == 0 {
			return nil
		}
		columns := []entity.Column{
			entity.NewColumnVarChar(FieldID, ids),
			entity.NewColumnVarChar(FieldContent, contents),
			entity.NewColumnJSONBytes(FieldMetadata, metas),
			entity.NewColumnFloatVector(FieldEmbedding, docqa.Dimension, vectors),
		}
		if hasSparse {
			columns = append(columns, entity.NewColumnSparseVectors(FieldSparse, sparseRows))
		}
		wctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
		defer cancel()
		if _, err := s.c.Upsert(wctx, s.cfg.Collection, "", columns...); err != nil {
			return unavailable("giving "+strconv.Itoa(len(ids))+" rows without an owner to the built-in user", err)
		}
		return nil
	})
}

// withOwner returns the JSON object meta (nil or empty: {}) with the key
// "owner" set; every other key is kept as it was.
func withOwner(meta []byte, owner uint64) ([]byte, error) {
	var fields map[string]json.RawMessage
	if len(meta) > 0 {
		if err := json.Unmarshal(meta, &fields); err != nil {
			return nil, fmt.Errorf("metadata is not a JSON object: %w", err)
		}
	}
	if fields == nil { // none, or JSON null
		fields = map[string]json.RawMessage{}
	}
	fields["owner"] = json.RawMessage(strconv.FormatUint(owner, 10))
	return json.Marshal(fields)
}
