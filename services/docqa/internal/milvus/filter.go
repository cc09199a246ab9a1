package milvus

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/carhub/backend/services/docqa/internal/docqa"
)

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
