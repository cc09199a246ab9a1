// Package retrieval finds the chunks that answer a question: a lexical
// (BM25) ranking and a vector ranking from the store, fused by reciprocal
// rank fusion, optionally reordered by a reranker.
//
// Reciprocal rank fusion (Cormack, Clarke and Büttcher, SIGIR 2009) scores a
// chunk by the sum over the rankings it appears in of weight / (K + rank),
// rank counted from 1. It needs no calibration between BM25 scores and
// cosine similarities, which live on unrelated scales, and a chunk that both
// rankings place high beats one that only one of them likes.
package retrieval

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/carhub/backend/services/docqa/internal/docqa"
)

// Mode selects the rankings a Retriever uses.
type Mode string

// The modes. Hybrid is the default; the others remain for comparison.
const (
	Hybrid  Mode = "hybrid"
	Vector  Mode = "vector"
	Lexical Mode = "lexical"
)

// ParseMode reads a mode's name, case-insensitively.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(strings.TrimSpace(s))); m {
	case Hybrid, Vector, Lexical:
		return m, nil
	}
	return "", fmt.Errorf("%q is none of hybrid, vector, lexical", s)
}

// Defaults of Config, chosen on the dev half of the retrieval benchmark
// (testdata/retrieval; proto-docs/docqa-retrieval-decisions.md): with the
// local embedder the lexical ranking is the stronger one, and a K below the
// paper's 60 lets the first places of each ranking count for more.
const (
	DefaultK             = 20
	DefaultLexicalWeight = 2
	DefaultVectorWeight  = 1
	DefaultCandidates    = 50 // chunks taken from each ranking, and given to the reranker
)

// Config wires a Retriever.
type Config struct {
	Store    docqa.VectorStore
	Embedder docqa.Embedder
	// Reranker, when set, reorders the best Candidates fused chunks.
	Reranker docqa.Reranker
	Mode     Mode // default Hybrid
	// K is RRF's constant (default DefaultK); LexicalWeight and
	// VectorWeight weigh the two rankings (zero takes the default; a
	// negative one is an error).
	K             int
	LexicalWeight float64
	VectorWeight  float64
	// Candidates is how many chunks each ranking contributes to the fusion
	// and how many fused chunks the reranker sees (default
	// DefaultCandidates); at least topK are always taken.
	Candidates int
	// KeepNavigation leaves the chunks of table-of-contents and index
	// pages (docqa.Chunk.Navigation) where the rankings put them; by
	// default they come after every other candidate (see Retrieve). It is
	// there to measure the difference.
	KeepNavigation bool
	Log            *slog.Logger
}

// Retriever is safe for concurrent use.
type Retriever struct {
	cfg Config
}

// New checks cfg. A Hybrid or Lexical retriever over a store without a
// lexical index answers by vector alone (see Effective).
func New(cfg Config) (*Retriever, error) {
	if cfg.Store == nil || cfg.Embedder == nil {
		return nil, errors.New("retrieval: Store and Embedder are required")
	}
	if cfg.Mode == "" {
		cfg.Mode = Hybrid
	}
	if _, err := ParseMode(string(cfg.Mode)); err != nil {
		return nil, fmt.Errorf("retrieval: mode %w", err)
	}
	if cfg.K == 0 {
		cfg.K = DefaultK
	}
	if cfg.Candidates == 0 {
		cfg.Candidates = DefaultCandidates
	}
	if cfg.K < 0 || cfg.Candidates < 0 || cfg.LexicalWeight < 0 || cfg.VectorWeight < 0 {
		return nil, errors.New("retrieval: K, Candidates and the weights must not be negative")
	}
	if cfg.LexicalWeight == 0 {
		cfg.LexicalWeight = DefaultLexicalWeight
	}
	if cfg.VectorWeight == 0 {
		cfg.VectorWeight = DefaultVectorWeight
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	return &Retriever{cfg: cfg}, nil
}

// Effective is the mode that actually serves: Vector when the store keeps
// no lexical index, else the configured one.
func (r *Retriever) Effective() Mode {
	if r.cfg.Mode != Vector && !r.cfg.Store.LexicalIndex() {
		return Vector
	}
	return r.cfg.Mode
}

// Configured is the mode asked for.
func (r *Retriever) Configured() Mode { return r.cfg.Mode }

// Reranker names the reranker, "" when none is configured.
func (r *Retriever) Reranker() string {
	if r.cfg.Reranker == nil {
		return ""
	}
	return r.cfg.Reranker.Name()
}

// Retrieve returns at most q.TopK chunks for question, best first, from
// q.Documents only when it names any. Score is the fused score in Hybrid
// mode, the store's score in the others, and the reranker's when it
// reordered them. The chunks of table-of-contents and index pages
// (Navigation) come after all the others among the candidates, each group
// in its order: such a page names every topic with a page number and little
// else, so it matches many questions without answering any, and the body
// page it points at is the answer (unless Config.KeepNavigation). Errors
// are the embedder's and the store's.
func (r *Retriever) Retrieve(ctx context.Context, question string, q docqa.Query) ([]docqa.ScoredChunk, error) {
	// The two searches of a hybrid question share what the store works out
	// about the reader's documents.
	ctx = docqa.WithSearchMemo(ctx)
	mode := r.Effective()
	wide := q
	if mode == Hybrid || r.cfg.Reranker != nil || !r.cfg.KeepNavigation {
		wide.TopK = max(q.TopK, r.cfg.Candidates)
	}

	var lexical, vector []docqa.ScoredChunk
	var err error
	if mode != Vector {
		if lexical, err = r.cfg.Store.SearchText(ctx, question, wide); err != nil {
			return nil, err
		}
	}
	if mode != Lexical {
		if vector, err = r.searchVector(ctx, question, wide); err != nil {
			return nil, err
		}
	}

	var hits []docqa.ScoredChunk
	switch mode {
	case Hybrid:
		hits = Fuse(r.cfg.K, Ranking{lexical, r.cfg.LexicalWeight}, Ranking{vector, r.cfg.VectorWeight})
	case Lexical:
		hits = lexical
	default:
		hits = vector
	}
	if r.cfg.Reranker != nil {
		hits = r.rerank(ctx, question, hits[:min(len(hits), r.cfg.Candidates)])
	}
	if !r.cfg.KeepNavigation {
		hits = navigationLast(hits)
	}
	return hits[:min(len(hits), q.TopK)], nil
}

func (r *Retriever) searchVector(ctx context.Context, question string, q docqa.Query) ([]docqa.ScoredChunk, error) {
	vectors, err := r.cfg.Embedder.Embed(ctx, []string{question})
	if err != nil {
		return nil, err
	}
	if len(vectors) != 1 {
		return nil, fmt.Errorf("the embedding provider answered %d vectors for one question: %w", len(vectors), docqa.ErrUnavailable)
	}
	return r.cfg.Store.Search(ctx, vectors[0], q)
}

// rerank orders hits by the reranker's scores (ties keep the fused order).
// A reranker that fails leaves the fused order, with a warning: a question
// is never lost to it.
func (r *Retriever) rerank(ctx context.Context, question string, hits []docqa.ScoredChunk) []docqa.ScoredChunk {
	if len(hits) == 0 {
		return hits
	}
	passages := make([]string, len(hits))
	for i, h := range hits {
		passages[i] = h.Passage()
	}
	scores, err := r.cfg.Reranker.Rerank(ctx, question, passages)
	if err == nil && len(scores) != len(hits) {
		err = fmt.Errorf("%d scores for %d passages", len(scores), len(hits))
	}
	if err != nil {
		if ctx.Err() == nil {
			r.cfg.Log.WarnContext(ctx, "reranker failed; answering in the fused order", "reranker", r.cfg.Reranker.Name(), "err", err)
		}
		return hits
	}
	out := slices.Clone(hits)
	for i := range out {
		out[i].Score = float32(scores[i])
	}
	slices.SortStableFunc(out, func(a, b docqa.ScoredChunk) int { return cmp.Compare(b.Score, a.Score) })
	return out
}

// Ranking is one ranked list and its weight in the fusion.
type Ranking struct {
	Hits   []docqa.ScoredChunk
	Weight float64
}

// Fuse merges rankings by reciprocal rank fusion with constant k: a chunk
// scores the sum of weight/(k+rank) over the rankings that hold it. Ties
// keep the order of first appearance (the first ranking's order first).
// A chunk is known by its id; the first ranking's copy of it is kept.
func Fuse(k int, rankings ...Ranking) []docqa.ScoredChunk {
	type fused struct {
		hit   docqa.ScoredChunk
		score float64
	}
	byID := map[string]*fused{}
	var order []*fused
	for _, rk := range rankings {
		for rank, h := range rk.Hits {
			f, ok := byID[h.Chunk.ID]
			if !ok {
				f = &fused{hit: h}
				byID[h.Chunk.ID] = f
				order = append(order, f)
			}
			f.score += rk.Weight / float64(k+rank+1)
		}
	}
	slices.SortStableFunc(order, func(a, b *fused) int { return cmp.Compare(b.score, a.score) })
	out := make([]docqa.ScoredChunk, len(order))
	for i, f := range order {
		out[i] = f.hit
		out[i].Score = float32(f.score)
	}
	return out
}

// navigationLast moves the chunks of table-of-contents and index pages
// after the others, keeping the order within each group.
func navigationLast(hits []docqa.ScoredChunk) []docqa.ScoredChunk {
	out := make([]docqa.ScoredChunk, 0, len(hits))
	for _, h := range hits {
		if !h.Chunk.Navigation {
			out = append(out, h)
		}
	}
	for _, h := range hits {
		if h.Chunk.Navigation {
			out = append(out, h)
		}
	}
	return out
}
