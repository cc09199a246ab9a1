package milvus

import (
	"context"
	"fmt"
	"strconv"

	"github.com/milvus-io/milvus-sdk-go/v2/client"
	"github.com/milvus-io/milvus-sdk-go/v2/entity"

	"github.com/carhub/backend/services/docqa/internal/docqa"
)

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
