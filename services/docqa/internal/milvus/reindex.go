package milvus

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/milvus-io/milvus-sdk-go/v2/entity"

	"github.com/carhub/backend/services/docqa/internal/docqa"
)

// Suffixes of the collections Reindex works with.
const (
	// reindexSuffix names the collection Reindex builds.
	reindexSuffix = "_reindex"
	// beforeReindexSuffix names the collection as it was before Reindex.
	beforeReindexSuffix = "_before_reindex"
)

// Reindex gives a collection without FieldSparse (made by an earlier version
// or another stack) its lexical index. Milvus cannot add a field to an
// existing collection, so Reindex builds a new one: it creates
// <name>_reindex with Schema and both indexes, copies every row into it in
// batches of upsertBatch (the sparse vector computed from the content and,
// for our rows, the title and heading in the metadata; rows of other programs
// from their content alone), loads it, renames <name> to
// <name>_before_reindex and <name>_reindex to <name>, and switches the Store
// to it. The old collection is released but kept: drop it once the new one
// serves well. Fields of other stacks beyond the four of the contract are not
// copied.
//
// This process's writes wait while Reindex runs. Run it while no other
// program writes to the collection: a write that lands during the copy makes
// Reindex fail (the row counts differ) and leaves the collection as it was.
// Searches keep working, except for the moment between the two renames.
//
// Reindex refuses to run when <name>_before_reindex exists (an earlier
// Reindex's, to be dropped by the operator first) or <name>_reindex exists
// (left by an interrupted one). It does nothing when the collection already
// has FieldSparse. A failure before the renames drops <name>_reindex and
// leaves <name> as it was.
func (s *Store) Reindex(ctx context.Context, log *slog.Logger) error {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if err := s.lockWrites(ctx); err != nil {
		return err
	}
	defer s.unlockWrites()
	name := s.cfg.Collection
	tmp, old := name+reindexSuffix, name+beforeReindexSuffix
	if s.LexicalIndex() {
		log.Info("milvus: the collection has its lexical index already; nothing to reindex", "collection", name)
		return nil
	}
	for _, c := range []struct{ name, why string }{
		{old, "it holds the collection as it was before an earlier reindex; drop it once you no longer need it"},
		{tmp, "an interrupted reindex left it; drop it"},
	} {
		has, err := s.hasCollection(ctx, c.name)
		if err != nil {
			return err
		}
		if has {
			return fmt.Errorf("milvus: reindex of %s refused: collection %s exists (%s), then run the reindex again", name, c.name, c.why)
		}
	}

	start := time.Now()
	cctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	err := s.createCollection(cctx, tmp)
	cancel()
	if err != nil {
		s.dropQuietly(ctx, log, tmp)
		return err
	}
	stats, err := s.copyRows(ctx, log, name, tmp)
	if err == nil {
		err = s.flushAndLoad(ctx, tmp)
	}
	if err == nil {
		err = s.rename(ctx, name, old)
	}
	if err != nil {
		s.dropQuietly(ctx, log, tmp)
		return err
	}
	if err := s.rename(ctx, tmp, name); err != nil {
		// Put the old collection back, so that the service keeps serving.
		if berr := s.rename(ctx, old, name); berr != nil {
			return fmt.Errorf("%w; renaming %s back to %s failed too, rename it by hand: %w", err, old, name, berr)
		}
		s.dropQuietly(ctx, log, tmp)
		return err
	}

	// The SDK keeps each collection's schema by name; it must learn that
	// <name> is now the collection with FieldSparse before the next write.
	dctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	coll, err := s.c.DescribeCollection(dctx, name)
	cancel()
	if err != nil {
		return unavailable("describing collection "+name+" after the reindex", err)
	}
	if hasSparse, err := checkSchema(coll.Schema); err != nil || !hasSparse {
		return fmt.Errorf("milvus: collection %s after the reindex has no %s field (%v)", name, FieldSparse, err)
	}
	s.mu.Lock()
	s.lexical, s.stats = true, stats
	s.mu.Unlock()

	// The old collection needs no memory any more.
	rctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	if err := s.c.ReleaseCollection(rctx, old); err != nil {
		log.Warn("milvus: releasing the collection before the reindex", "collection", old, "err", err)
	}
	cancel()
	log.Info("milvus: reindexed", "collection", name, "rows", stats.chunks, "terms", len(stats.df),
		"kept", old, "took", time.Since(start).Round(time.Millisecond))
	return nil
}

// copyRows copies every row of from into to with its sparse vector and
// returns the term figures of what it wrote.
func (s *Store) copyRows(ctx context.Context, log *slog.Logger, from, to string) (termStats, error) {
	stats := newTermStats()
	want, err := s.count(ctx, from, "")
	if err != nil {
		return stats, err
	}
	log.Info("milvus: reindex copying", "from", from, "to", to, "rows", want)
	err = s.scan(ctx, from, "", []string{FieldContent, FieldMetadata, FieldEmbedding}, upsertBatch, func(rows []resultRow) error {
		ids := make([]string, len(rows))
		contents := make([]string, len(rows))
		metas := make([][]byte, len(rows))
		vectors := make([][]float32, len(rows))
		sparseRows := make([]entity.SparseEmbedding, len(rows))
		for i, r := range rows {
			if len(r.embedding) != docqa.Dimension {
				return fmt.Errorf("milvus: row %s of %s has %d floats, want %d", r.id, from, len(r.embedding), docqa.Dimension)
			}
			meta := r.rawMeta
			if meta == nil {
				meta = []byte("{}")
			}
			// The metadata is copied byte for byte: keys of other programs stay.
			ids[i], contents[i], metas[i], vectors[i] = r.id, r.content, meta, r.embedding
			sparseRows[i] = rowVector(r.content, r.meta)
		}
		ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
		defer cancel()
		_, err := s.c.Upsert(ctx, to, "",
			entity.NewColumnVarChar(FieldID, ids),
			entity.NewColumnVarChar(FieldContent, contents),
			entity.NewColumnJSONBytes(FieldMetadata, metas),
			entity.NewColumnFloatVector(FieldEmbedding, docqa.Dimension, vectors),
			entity.NewColumnSparseVectors(FieldSparse, sparseRows),
		)
		if err != nil {
			return unavailable(fmt.Sprintf("copying %d rows into %s", len(rows), to), err)
		}
		for _, v := range sparseRows {
			stats.add(v, 1)
		}
		return nil
	})
	if err != nil {
		return stats, err
	}
	if stats.chunks != want {
		return stats, fmt.Errorf("milvus: reindex of %s copied %d rows, the collection had %d: something else writes to it; stop it and run the reindex again",
			from, stats.chunks, want)
	}
	return stats, nil
}

// flushAndLoad seals what was written to name and loads it: loaded from
// sealed segments, every copied row is visible to the first search.
func (s *Store) flushAndLoad(ctx context.Context, name string) error {
	fctx, cancel := context.WithTimeout(ctx, max(s.cfg.Timeout, loadTimeout))
	defer cancel()
	if err := s.c.Flush(fctx, name, false); err != nil {
		return unavailable("flushing collection "+name, err)
	}
	return s.load(ctx, name)
}

func (s *Store) hasCollection(ctx context.Context, name string) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	has, err := s.c.HasCollection(ctx, name)
	if err != nil {
		return false, unavailable("checking collection "+name, err)
	}
	return has, nil
}

func (s *Store) rename(ctx context.Context, from, to string) error {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	if err := s.c.RenameCollection(ctx, from, to); err != nil {
		return unavailable("renaming collection "+from+" to "+to, err)
	}
	return nil
}

// dropQuietly drops the collection Reindex was building after a failure;
// it runs even when ctx is cancelled (that may be the failure), and only
// logs its own.
func (s *Store) dropQuietly(ctx context.Context, log *slog.Logger, name string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.Timeout)
	defer cancel()
	has, err := s.c.HasCollection(ctx, name)
	if err == nil && has {
		err = s.c.DropCollection(ctx, name)
	}
	if err != nil {
		log.Warn("milvus: dropping the collection of a failed reindex", "collection", name, "err", err)
	}
}
