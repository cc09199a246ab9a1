package milvus

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"go.opentelemetry.io/otel/trace"

	"github.com/carhub/backend/pkg/tracing"
	"github.com/carhub/backend/services/docqa/internal/docqa"
)

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
