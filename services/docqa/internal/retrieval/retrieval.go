// Package retrieval finds the chunks that answer a question: a lexical
// (BM25) ranking and a vector ranking from the store, used alone or fused,
// optionally reordered by a reranker.
//
// Two fusions: reciprocal rank fusion (Cormack, Clarke and Büttcher, SIGIR
// 2009) scores a chunk by the sum over the rankings it appears in of
// weight / (K + rank), rank counted from 1; it needs no calibration between
// BM25 scores and cosine similarities, which live on unrelated scales.
// Convex fusion normalizes each ranking's scores per question and adds
// them with a weight (ConvexFuse); it keeps how far ahead a chunk is, which
// ranks throw away. Routed retrieval answers a question that names an
// identifier from the lexical ranking and the others by a fusion; anchored
// retrieval keeps the lexical ranking's first chunks first and fuses the
// rest.
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

// The modes. DefaultMode says which one serves when none is configured.
const (
	Hybrid  Mode = "hybrid"  // both rankings, reciprocal rank fusion
	Vector  Mode = "vector"  // the vector ranking alone
	Lexical Mode = "lexical" // the BM25 ranking alone
	Convex  Mode = "convex"  // both rankings, normalized scores in a convex combination
	Routed  Mode = "routed"  // lexical for a question that names an identifier, Config.RouteOther for the rest
	// Anchored is the lexical ranking's first Config.AnchorDepth chunks, in
	// its order, then the other chunks in Hybrid's order.
	Anchored Mode = "anchored"
)

// Modes lists every mode, in the order the benchmark shows them.
var Modes = []Mode{Lexical, Vector, Hybrid, Convex, Routed, Anchored}

// ParseMode reads a mode's name, case-insensitively.
func ParseMode(s string) (Mode, error) {
	m := Mode(strings.ToLower(strings.TrimSpace(s)))
	if slices.Contains(Modes, m) {
		return m, nil
	}
	return "", fmt.Errorf("%q is none of lexical, vector, hybrid, convex, routed, anchored", s)
}

// DefaultMode is the mode that serves when none is configured, and why,
// in words for /health. With the local embedder (localEmbedder true) the
// vector ranking is a second lexical signal, hashed words, and the mode
// measured best on the dev split of the retrieval benchmark serves
// (proto-docs/docqa-retrieval-decisions.md, "The default per embedder");
// with an embedding model, a semantic ranking, hybrid.
func DefaultMode(localEmbedder bool) (Mode, string) {
	if localEmbedder {
		return LocalDefault, fmt.Sprintf("local embedder: %s (BM25's first %d chunks, then reciprocal rank fusion) measured best on the dev split of the retrieval benchmark",
			LocalDefault, DefaultAnchorDepth)
	}
	return Hybrid, "embedding model configured: hybrid (reciprocal rank fusion of BM25 and vector rankings)"
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

	// LocalDefault is DefaultMode's choice with the local embedder;
	// DefaultAnchorDepth is Anchored's, and DefaultNormalization,
	// DefaultLexicalShare and DefaultRouteOther Convex's and Routed's
	// defaults, all measured on the dev split.
	LocalDefault         = Anchored
	DefaultAnchorDepth   = 3
	DefaultNormalization = MinMax
	DefaultLexicalShare  = 0.8
	DefaultRouteOther    = Convex
)

// Config wires a Retriever.
type Config struct {
	Store    docqa.VectorStore
	Embedder docqa.Embedder
	// Reranker, when set, reorders the best Candidates fused chunks.
	Reranker docqa.Reranker
	// Mode is the mode in force; "" takes DefaultMode(LocalEmbedder).
	Mode Mode
	// LocalEmbedder says that Embedder is the local fallback, for
	// DefaultMode.
	LocalEmbedder bool
	// Reason says why Mode was chosen, for /health (default "configured"
	// when Mode is set, DefaultMode's reason when it is not).
	Reason string
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
	// Normalization and LexicalShare are Convex's: how each ranking's
	// scores are normalized and the lexical ranking's share of the sum, in
	// (0, 1] (zero takes the default; 1 is the lexical ranking's order).
	Normalization Normalization
	LexicalShare  float64
	// AnchorDepth is how many of the lexical ranking's first chunks
	// Anchored keeps first (default DefaultAnchorDepth).
	AnchorDepth int
	// RouteOther answers Routed's questions that name no identifier
	// (default DefaultRouteOther; Routed itself is an error).
	RouteOther Mode
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

// New checks cfg. A retriever of any mode but Vector over a store without a
// lexical index answers by vector alone (see Effective).
func New(cfg Config) (*Retriever, error) {
	if cfg.Store == nil || cfg.Embedder == nil {
		return nil, errors.New("retrieval: Store and Embedder are required")
	}
	if cfg.Mode == "" {
		cfg.Mode, cfg.Reason = DefaultMode(cfg.LocalEmbedder)
	} else if cfg.Reason == "" {
		cfg.Reason = "configured"
	}
	if _, err := ParseMode(string(cfg.Mode)); err != nil {
		return nil, fmt.Errorf("retrieval: mode %w", err)
	}
	if cfg.RouteOther == "" {
		cfg.RouteOther = DefaultRouteOther
	}
	if _, err := ParseMode(string(cfg.RouteOther)); err != nil || cfg.RouteOther == Routed {
		return nil, fmt.Errorf("retrieval: RouteOther %q is none of lexical, vector, hybrid, convex, anchored", cfg.RouteOther)
	}
	if cfg.AnchorDepth < 0 {
		return nil, fmt.Errorf("retrieval: AnchorDepth %d is negative", cfg.AnchorDepth)
	}
	if cfg.AnchorDepth == 0 {
		cfg.AnchorDepth = DefaultAnchorDepth
	}
	if cfg.Normalization == "" {
		cfg.Normalization = DefaultNormalization
	}
	if _, err := ParseNormalization(string(cfg.Normalization)); err != nil {
		return nil, fmt.Errorf("retrieval: normalization %w", err)
	}
	if cfg.LexicalShare < 0 || cfg.LexicalShare > 1 {
		return nil, fmt.Errorf("retrieval: LexicalShare %v is not in (0, 1]", cfg.LexicalShare)
	}
	if cfg.LexicalShare == 0 {
		cfg.LexicalShare = DefaultLexicalShare
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

// Configured is the mode in force: the one asked for, or the default.
func (r *Retriever) Configured() Mode { return r.cfg.Mode }

// Reason says why Configured is the mode, in words.
func (r *Retriever) Reason() string { return r.cfg.Reason }

// Reranker names the reranker, "" when none is configured.
func (r *Retriever) Reranker() string {
	if r.cfg.Reranker == nil {
		return ""
	}
	return r.cfg.Reranker.Name()
}

// Retrieve returns at most q.TopK chunks for question, best first, from
// q.Documents only when it names any. Score is the fused score in Hybrid,
// Convex and Anchored modes (and in Routed when the question went to one of
// them), the store's score in the others, and the reranker's when it
// reordered them. Anchored's first chunks keep their places whatever their
// fused score, so there a later chunk may score higher; a reranker orders
// the candidates in every mode, Anchored's first chunks among them. The chunks of table-of-contents and index pages
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
	if mode == Routed {
		mode = r.cfg.RouteOther
		if NamesIdentifier(question) != "" {
			mode = Lexical
		}
	}
	anchor := 0
	if mode == Anchored {
		mode, anchor = Hybrid, r.cfg.AnchorDepth
	}
	wide := q
	if mode == Hybrid || mode == Convex || r.cfg.Reranker != nil || !r.cfg.KeepNavigation {
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
	case Convex:
		hits = ConvexFuse(r.cfg.Normalization, r.cfg.LexicalShare, lexical, vector)
	case Lexical:
		hits = lexical
	default:
		hits = vector
	}
	if anchor > 0 {
		// The lexical ranking's first body chunks: navigationLast below
		// leaves them in front, as it leaves them first in Lexical's answer.
		lead := lexical
		if !r.cfg.KeepNavigation {
			lead = navigationLast(lead)
		}
		hits = lexicalLead(hits, lead[:min(len(lead), anchor)])
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

// lexicalLead puts lead, the lexical ranking's first chunks, in front of
// hits in their order, and the other hits after them in theirs, with their
// fused scores.
func lexicalLead(hits, lead []docqa.ScoredChunk) []docqa.ScoredChunk {
	out := make([]docqa.ScoredChunk, 0, len(hits)+len(lead))
	for _, l := range lead {
		if i := slices.IndexFunc(hits, func(h docqa.ScoredChunk) bool { return h.Chunk.ID == l.Chunk.ID }); i >= 0 {
			out = append(out, hits[i])
		} else {
			out = append(out, l)
		}
	}
	for _, h := range hits {
		if !slices.ContainsFunc(lead, func(l docqa.ScoredChunk) bool { return l.Chunk.ID == h.Chunk.ID }) {
			out = append(out, h)
		}
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
