package retrieval

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/carhub/backend/services/docqa/internal/docqa"
	"github.com/carhub/backend/services/docqa/internal/embedded"
	"github.com/carhub/backend/services/docqa/internal/provider"
)

func hit(id string) docqa.ScoredChunk {
	return docqa.ScoredChunk{Chunk: docqa.Chunk{ID: id, Text: id}}
}

func ids(hits []docqa.ScoredChunk) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Chunk.ID
	}
	return out
}

func TestFuse(t *testing.T) {
	lex := Ranking{[]docqa.ScoredChunk{hit("a"), hit("b"), hit("c")}, 1}
	vec := Ranking{[]docqa.ScoredChunk{hit("c"), hit("d"), hit("a")}, 1}
	got := Fuse(60, lex, vec)
	// a: 1/61 + 1/63, c: 1/63 + 1/61 (tie: a first appeared first),
	// b: 1/62, d: 1/62 (tie: b first).
	if want := []string{"a", "c", "b", "d"}; !slices.Equal(ids(got), want) {
		t.Fatalf("order %v, want %v", ids(got), want)
	}
	for i, want := range []float64{1.0/61 + 1.0/63, 1.0/63 + 1.0/61, 1.0 / 62, 1.0 / 62} {
		if math.Abs(float64(got[i].Score)-want) > 1e-7 {
			t.Fatalf("score of %s = %v, want %v", got[i].Chunk.ID, got[i].Score, want)
		}
	}

	// A heavier vector ranking turns the order round.
	got = Fuse(60, lex, Ranking{vec.Hits, 2})
	if want := []string{"c", "a", "d", "b"}; !slices.Equal(ids(got), want) {
		t.Fatalf("weighted order %v, want %v", ids(got), want)
	}
	if got := Fuse(60); len(got) != 0 {
		t.Fatalf("no rankings gave %v", got)
	}
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]Mode{"hybrid": Hybrid, " Vector ": Vector, "LEXICAL": Lexical, "convex": Convex, "Routed": Routed, "anchored": Anchored} {
		if got, err := ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseMode("bm25"); err == nil {
		t.Error("bm25 accepted")
	}
}

const (
	md5Gnuplot = "0cc175b9c0f1b6a831c399e269772661"
	md5Octave  = "92eb5ffee6ae2fec3ad71c777531578f"
)

// newStore holds two small manuals embedded by the local embedder, the
// service's default.
func newStore(t *testing.T) (*embedded.Store, docqa.Embedder) {
	t.Helper()
	s, err := embedded.Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	emb := provider.NewLexicalEmbedder()
	add := func(md5, title string, texts ...string) {
		chunks := make([]docqa.Chunk, len(texts))
		for i, text := range texts {
			chunks[i] = docqa.Chunk{ID: docqa.ChunkID(md5, i), Page: i + 1, Index: i, Text: text, Embedding: emb.Vector(text)}
		}
		doc := docqa.Document{Owner: 1, FileName: title + ".pdf", FileMD5: md5, Size: 1, Pages: len(texts), Chunks: len(texts), CreatedAt: time.Unix(0, 0)}
		if err := s.Upsert(context.Background(), doc, chunks, emb.Name()); err != nil {
			t.Fatal(err)
		}
	}
	add(md5Gnuplot, "gnuplot",
		"Plotting surfaces: splot draws a surface from data.",
		"The dgrid3d option maps scattered data onto a regular grid.",
		"Colours of lines are set with linecolor.")
	add(md5Octave, "octave",
		"Matrices are written in square brackets.",
		"Plot a surface with surf or mesh.",
		"Scattered points are interpolated onto a grid with griddata.")
	return s, emb
}

func mustNew(t *testing.T, cfg Config) *Retriever {
	t.Helper()
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRetrieveModes(t *testing.T) {
	s, emb := newStore(t)
	ctx := context.Background()
	const question = "scattered data onto a grid"
	lexical, _ := s.SearchText(ctx, question, docqa.Query{TopK: 50})
	vectors, _ := emb.Embed(ctx, []string{question})
	vector, _ := s.Search(ctx, vectors[0], docqa.Query{TopK: 50})
	if len(lexical) < 3 || len(vector) != 6 {
		t.Fatalf("fixture: %d lexical, %d vector hits", len(lexical), len(vector))
	}

	for _, tc := range []struct {
		mode Mode
		want []docqa.ScoredChunk
	}{
		{Lexical, lexical[:3]},
		{Vector, vector[:3]},
		{Hybrid, Fuse(DefaultK, Ranking{lexical, DefaultLexicalWeight}, Ranking{vector, DefaultVectorWeight})[:3]},
		{Convex, ConvexFuse(DefaultNormalization, DefaultLexicalShare, lexical, vector)[:3]},
		// The question names no identifier: Routed answers by RouteOther.
		{Routed, ConvexFuse(DefaultNormalization, DefaultLexicalShare, lexical, vector)[:3]},
	} {
		t.Run(string(tc.mode), func(t *testing.T) {
			r := mustNew(t, Config{Store: s, Embedder: emb, Mode: tc.mode})
			got, err := r.Retrieve(ctx, question, docqa.Query{TopK: 3})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ids(got), ids(tc.want)) {
				t.Fatalf("got %v, want %v", ids(got), ids(tc.want))
			}
			for i := range got {
				if got[i].Score != tc.want[i].Score {
					t.Fatalf("score %d: %v, want %v", i, got[i].Score, tc.want[i].Score)
				}
			}
			if r.Effective() != tc.mode {
				t.Fatalf("effective %s", r.Effective())
			}
		})
	}
	// The dgrid3d page and griddata's page are the two that answer; the
	// fusion puts both first.
	r := mustNew(t, Config{Store: s, Embedder: emb})
	got, _ := r.Retrieve(ctx, question, docqa.Query{TopK: 2})
	if want := []string{docqa.ChunkID(md5Gnuplot, 1), docqa.ChunkID(md5Octave, 2)}; !slices.Equal(ids(got), want) {
		t.Fatalf("hybrid top 2 = %v, want %v", ids(got), want)
	}

	// Limited to one manual, in every mode.
	for _, mode := range Modes {
		r := mustNew(t, Config{Store: s, Embedder: emb, Mode: mode})
		got, err := r.Retrieve(ctx, question, docqa.Query{TopK: 3, Documents: []string{md5Octave}})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 || got[0].Chunk.ID != docqa.ChunkID(md5Octave, 2) {
			t.Fatalf("%s: first of octave = %v", mode, ids(got))
		}
		for _, h := range got {
			if h.Document.FileMD5 != md5Octave {
				t.Fatalf("%s: hit of another document: %v", mode, ids(got))
			}
		}
	}
}

// vectorOnly is a store without a lexical index, as an older Milvus
// collection is.
type vectorOnly struct{ *embedded.Store }

func (vectorOnly) LexicalIndex() bool { return false }
func (vectorOnly) SearchText(context.Context, string, docqa.Query) ([]docqa.ScoredChunk, error) {
	return nil, docqa.ErrNoLexicalIndex
}

func TestRetrieveWithoutLexicalIndexIsVectorOnly(t *testing.T) {
	s, emb := newStore(t)
	r := mustNew(t, Config{Store: vectorOnly{s}, Embedder: emb})
	if r.Effective() != Vector || r.Configured() != Hybrid {
		t.Fatalf("effective %s, configured %s", r.Effective(), r.Configured())
	}
	got, err := r.Retrieve(context.Background(), "surface", docqa.Query{TopK: 2})
	if err != nil || len(got) != 2 {
		t.Fatalf("%v, %v", ids(got), err)
	}
}

// memoStore counts what its searches work out through the question's
// search memo, as the Milvus store does for the reader's documents.
type memoStore struct {
	*embedded.Store
	computed int
}

func (m *memoStore) scope(ctx context.Context) error {
	_, err := docqa.Remember(ctx, "scope", func() (bool, error) {
		m.computed++
		return true, nil
	})
	return err
}

func (m *memoStore) Search(ctx context.Context, v []float32, q docqa.Query) ([]docqa.ScoredChunk, error) {
	if err := m.scope(ctx); err != nil {
		return nil, err
	}
	return m.Store.Search(ctx, v, q)
}

func (m *memoStore) SearchText(ctx context.Context, text string, q docqa.Query) ([]docqa.ScoredChunk, error) {
	if err := m.scope(ctx); err != nil {
		return nil, err
	}
	return m.Store.SearchText(ctx, text, q)
}

// The lexical and the vector search of one hybrid question share one
// search memo; the next question gets a new one.
func TestRetrieveSharesOneSearchMemoPerQuestion(t *testing.T) {
	s, emb := newStore(t)
	m := &memoStore{Store: s}
	r := mustNew(t, Config{Store: m, Embedder: emb})
	for question := range 2 {
		if _, err := r.Retrieve(context.Background(), "surface", docqa.Query{TopK: 2}); err != nil {
			t.Fatal(err)
		}
		if m.computed != question+1 {
			t.Fatalf("after question %d: worked out %d times, want %d", question+1, m.computed, question+1)
		}
	}
}

// scoreReranker scores a passage by how often the word appears in it.
type scoreReranker struct {
	word  string
	err   error
	calls [][]string
}

func (f *scoreReranker) Name() string { return "test-reranker" }
func (f *scoreReranker) Rerank(_ context.Context, _ string, passages []string) ([]float64, error) {
	f.calls = append(f.calls, passages)
	if f.err != nil {
		return nil, f.err
	}
	out := make([]float64, len(passages))
	for i, p := range passages {
		out[i] = float64(strings.Count(strings.ToLower(p), f.word))
	}
	return out, nil
}

func TestRerank(t *testing.T) {
	s, emb := newStore(t)
	ctx := context.Background()
	rr := &scoreReranker{word: "octave"}
	r := mustNew(t, Config{Store: s, Embedder: emb, Reranker: rr, Candidates: 4})
	fused, _ := mustNew(t, Config{Store: s, Embedder: emb, Candidates: 4}).Retrieve(ctx, "surface grid", docqa.Query{TopK: 4})
	got, err := r.Retrieve(ctx, "surface grid", docqa.Query{TopK: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(rr.calls) != 1 || len(rr.calls[0]) != 4 {
		t.Fatalf("reranker saw %d calls, %v", len(rr.calls), rr.calls)
	}
	if !strings.HasPrefix(rr.calls[0][0], "octave\n") && !strings.HasPrefix(rr.calls[0][0], "gnuplot\n") {
		t.Fatalf("passage lacks its title: %q", rr.calls[0][0])
	}
	// Octave's chunks (score 1) first in their fused order, then gnuplot's.
	var want []string
	for _, pass := range []string{md5Octave, md5Gnuplot} {
		for _, h := range fused {
			if h.Document.FileMD5 == pass {
				want = append(want, h.Chunk.ID)
			}
		}
	}
	if !slices.Equal(ids(got), want[:3]) {
		t.Fatalf("reranked %v, want %v (fused %v)", ids(got), want[:3], ids(fused))
	}

	// A failing reranker leaves the fused order and says so.
	var log bytes.Buffer
	rr = &scoreReranker{err: errors.New("boom: " + docqa.ErrUnavailable.Error())}
	r = mustNew(t, Config{Store: s, Embedder: emb, Reranker: rr, Candidates: 4, Log: slog.New(slog.NewTextHandler(&log, nil))})
	got, err = r.Retrieve(ctx, "surface grid", docqa.Query{TopK: 4})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids(got), ids(fused)) {
		t.Fatalf("after a failure %v, want the fused %v", ids(got), ids(fused))
	}
	if !strings.Contains(log.String(), "level=WARN") || !strings.Contains(log.String(), "boom") {
		t.Fatalf("no warning logged: %s", log.String())
	}
}

func TestNewRefuses(t *testing.T) {
	s, emb := newStore(t)
	for name, cfg := range map[string]Config{
		"no store":         {Embedder: emb},
		"no embedder":      {Store: s},
		"unknown mode":     {Store: s, Embedder: emb, Mode: "bm25"},
		"negative weight":  {Store: s, Embedder: emb, VectorWeight: -1},
		"routed to itself": {Store: s, Embedder: emb, Mode: Routed, RouteOther: Routed},
		"unknown route":    {Store: s, Embedder: emb, RouteOther: "bm25"},
		"unknown norm":     {Store: s, Embedder: emb, Normalization: "rank"},
		"share above 1":    {Store: s, Embedder: emb, LexicalShare: 1.5},
		"negative share":   {Store: s, Embedder: emb, LexicalShare: -0.1},
		"negative anchor":  {Store: s, Embedder: emb, Mode: Anchored, AnchorDepth: -1},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// The chunks of contents and index pages come after every body chunk among
// the candidates, in every mode and after a reranker, each group in its
// order; KeepNavigation leaves the rankings' order.
func TestNavigationLast(t *testing.T) {
	ctx := context.Background()
	s, err := embedded.Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	emb := provider.NewLexicalEmbedder()
	texts := []string{
		"Brake pads . . 4\nBrake fluid . . 6\nTyres . . 8",             // contents: short, both words
		"Brake pads wear with every stop; check the brake pads.",       // body
		"brake pads, 4, 5\nbrake fluid, 6\ntyres, 8",                   // index
		"The warning light shows when the pads of the brake are thin.", // body
	}
	chunks := make([]docqa.Chunk, len(texts))
	for i, text := range texts {
		chunks[i] = docqa.Chunk{ID: docqa.ChunkID(md5Gnuplot, i), Page: i + 1, Index: i, Text: text,
			Embedding: emb.Vector(text), Navigation: i == 0 || i == 2}
	}
	doc := docqa.Document{Owner: 1, FileName: "car.pdf", FileMD5: md5Gnuplot, Size: 1, Pages: 4, Chunks: 4, CreatedAt: time.Unix(0, 0)}
	if err := s.Upsert(ctx, doc, chunks, emb.Name()); err != nil {
		t.Fatal(err)
	}
	pages := func(hits []docqa.ScoredChunk) []int {
		var out []int
		for _, h := range hits {
			out = append(out, h.Chunk.Page)
		}
		return out
	}
	for _, mode := range []Mode{Lexical, Vector, Hybrid, Anchored} {
		kept, err := mustNew(t, Config{Store: s, Embedder: emb, Mode: mode, KeepNavigation: true}).Retrieve(ctx, "brake pads", docqa.Query{TopK: 4})
		if err != nil {
			t.Fatal(err)
		}
		var body, nav []int
		for _, p := range pages(kept) {
			if p == 1 || p == 3 {
				nav = append(nav, p)
			} else {
				body = append(body, p)
			}
		}
		if p := pages(kept); len(p) != 4 || slices.Equal(p, append(body, nav...)) {
			t.Fatalf("%s: fixture: a navigation chunk should come before a body chunk without the demotion: %v", mode, p)
		}
		got, err := mustNew(t, Config{Store: s, Embedder: emb, Mode: mode}).Retrieve(ctx, "brake pads", docqa.Query{TopK: 4})
		if err != nil {
			t.Fatal(err)
		}
		if want := append(body, nav...); !slices.Equal(pages(got), want) {
			t.Errorf("%s: pages %v, want %v (rankings' order %v)", mode, pages(got), want, pages(kept))
		}
		// A single answer is a body page, even when the rankings' first
		// may be a contents page.
		one, err := mustNew(t, Config{Store: s, Embedder: emb, Mode: mode}).Retrieve(ctx, "brake pads", docqa.Query{TopK: 1})
		if err != nil || len(one) != 1 || one[0].Chunk.Navigation {
			t.Errorf("%s: top 1 = %v, %v", mode, pages(one), err)
		}
	}
	// A reranker that puts the index first ("brake" three times) does not
	// lift it above the body.
	rr := &scoreReranker{word: "brake"}
	got, err := mustNew(t, Config{Store: s, Embedder: emb, Reranker: rr}).Retrieve(ctx, "brake pads", docqa.Query{TopK: 4})
	if err != nil || len(got) != 4 || got[0].Chunk.Navigation || got[1].Chunk.Navigation || !got[2].Chunk.Navigation || !got[3].Chunk.Navigation {
		t.Errorf("reranked pages %v, %v", pages(got), err)
	}
}

// Routed answers a question that names an identifier from the lexical
// ranking alone, and the others by RouteOther.
func TestRetrieveRouted(t *testing.T) {
	s, emb := newStore(t)
	ctx := context.Background()
	rankings := func(question string) (lexical, vector []docqa.ScoredChunk) {
		lexical, _ = s.SearchText(ctx, question, docqa.Query{TopK: 50})
		vectors, _ := emb.Embed(ctx, []string{question})
		vector, _ = s.Search(ctx, vectors[0], docqa.Query{TopK: 50})
		return lexical, vector
	}
	const named = "scattered data onto a grid with `dgrid3d`"
	lexical, vector := rankings(named)
	// The first two BM25 scores, above 1, tell the lexical ranking from any fusion's or
	// the vector ranking's, which stay at or below 1.
	if NamesIdentifier(named) == "" || len(lexical) < 3 || len(vector) < 3 || lexical[1].Score <= 1 {
		t.Fatalf("fixture: the question must name an identifier and its BM25 scores be above 1: %v", lexical)
	}
	for _, other := range []Mode{Hybrid, Convex, Vector} {
		r := mustNew(t, Config{Store: s, Embedder: emb, Mode: Routed, RouteOther: other, VectorWeight: 5})
		got, err := r.Retrieve(ctx, named, docqa.Query{TopK: 3})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ids(got), ids(lexical[:3])) || got[0].Score != lexical[0].Score || got[1].Score != lexical[1].Score {
			t.Errorf("routed (other %s), identifier: %v, want the lexical %v", other, ids(got), ids(lexical[:3]))
		}
	}
	const plain = "surface plotting from scattered points"
	lexical, vector = rankings(plain)
	if NamesIdentifier(plain) != "" || slices.Equal(ids(vector[:4]), ids(lexical[:4])) {
		t.Fatalf("fixture: the plain question must name nothing and its rankings differ")
	}
	for other, want := range map[Mode][]docqa.ScoredChunk{
		Hybrid: Fuse(DefaultK, Ranking{lexical, DefaultLexicalWeight}, Ranking{vector, 5}),
		Convex: ConvexFuse(MinMax, 0.4, lexical, vector),
		Vector: vector,
	} {
		r := mustNew(t, Config{Store: s, Embedder: emb, Mode: Routed, RouteOther: other, VectorWeight: 5, LexicalShare: 0.4, Normalization: MinMax})
		got, err := r.Retrieve(ctx, plain, docqa.Query{TopK: 4})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ids(got), ids(want[:4])) || got[0].Score != want[0].Score {
			t.Errorf("routed (other %s), plain: %v, want %v", other, ids(got), ids(want[:4]))
		}
	}
}

// With no mode configured, the local embedder gets LocalDefault and an
// embedding model hybrid, each with its reason; a configured mode wins.
func TestDefaultModePerEmbedder(t *testing.T) {
	s, emb := newStore(t)
	for _, tc := range []struct {
		cfg    Config
		mode   Mode
		reason string
	}{
		{Config{LocalEmbedder: true}, LocalDefault, "local embedder: anchored (BM25's first 3 chunks, then reciprocal rank fusion) measured best on the dev split of the retrieval benchmark"},
		{Config{}, Hybrid, "embedding model configured: hybrid (reciprocal rank fusion of BM25 and vector rankings)"},
		{Config{LocalEmbedder: true, Mode: Hybrid}, Hybrid, "configured"},
		{Config{Mode: Lexical, Reason: "RETRIEVAL=lexical"}, Lexical, "RETRIEVAL=lexical"},
	} {
		tc.cfg.Store, tc.cfg.Embedder = s, emb
		r := mustNew(t, tc.cfg)
		if r.Configured() != tc.mode || r.Effective() != tc.mode || r.Reason() != tc.reason {
			t.Errorf("%+v: mode %s (serving %s), reason %q; want %s, %q", tc.cfg, r.Configured(), r.Effective(), r.Reason(), tc.mode, tc.reason)
		}
	}
	if m, _ := DefaultMode(false); m != Hybrid {
		t.Errorf("with an embedding model the default is %s", m)
	}
	if LocalDefault == Vector || LocalDefault == Hybrid {
		t.Errorf("the local embedder's default %s is one the dev split measured below lexical", LocalDefault)
	}
}

// lexicalLead puts the lead in front in its order, a lead chunk the fusion
// lacks included, and the other hits after it in their order, each once.
func TestLexicalLead(t *testing.T) {
	fused := []docqa.ScoredChunk{hit("b"), hit("c"), hit("a"), hit("d"), hit("e")}
	for _, tc := range []struct {
		lead []string
		want []string
	}{
		{[]string{"a"}, []string{"a", "b", "c", "d", "e"}},
		{[]string{"a", "z", "c"}, []string{"a", "z", "c", "b", "d", "e"}},
		{[]string{"d", "b"}, []string{"d", "b", "c", "a", "e"}},
		{[]string{"b", "c"}, []string{"b", "c", "a", "d", "e"}},
		{nil, []string{"b", "c", "a", "d", "e"}},
	} {
		var lead []docqa.ScoredChunk
		for _, id := range tc.lead {
			lead = append(lead, hit(id))
		}
		if got := ids(lexicalLead(fused, lead)); !slices.Equal(got, tc.want) {
			t.Errorf("lead %v: %v, want %v", tc.lead, got, tc.want)
		}
	}
	if !slices.Equal(ids(fused), []string{"b", "c", "a", "d", "e"}) {
		t.Fatal("lexicalLead changed its argument")
	}
}

// rankedStore answers fixed rankings, each chunk scored by its place.
type rankedStore struct {
	*embedded.Store
	lexical, vector []string
}

func byPlace(order []string) []docqa.ScoredChunk {
	out := make([]docqa.ScoredChunk, len(order))
	for i, id := range order {
		out[i] = hit(id)
		out[i].Score = float32(len(order) - i)
	}
	return out
}

func (r rankedStore) Search(context.Context, []float32, docqa.Query) ([]docqa.ScoredChunk, error) {
	return byPlace(r.vector), nil
}

func (r rankedStore) SearchText(context.Context, string, docqa.Query) ([]docqa.ScoredChunk, error) {
	return byPlace(r.lexical), nil
}

// Anchored answers the lexical ranking's first AnchorDepth chunks in its
// order, then the other chunks in hybrid's (RRF) order.
func TestRetrieveAnchored(t *testing.T) {
	s, emb := newStore(t)
	ctx := context.Background()
	store := rankedStore{Store: s, lexical: []string{"a", "b", "c", "d", "e", "f"}, vector: []string{"f", "e", "d", "c", "b", "a"}}
	hybrid, err := mustNew(t, Config{Store: store, Embedder: emb, Mode: Hybrid, VectorWeight: 5}).Retrieve(ctx, "q", docqa.Query{TopK: 6})
	if err != nil {
		t.Fatal(err)
	}
	fused := ids(hybrid)
	if !slices.Equal(fused, []string{"f", "e", "d", "c", "b", "a"}) {
		t.Fatalf("fixture: hybrid answered %v, want the vector ranking's order", fused)
	}
	for depth, want := range map[int][]string{
		1: {"a", "f", "e", "d", "c"},
		2: {"a", "b", "f", "e", "d"},
		3: {"a", "b", "c", "f", "e"},
		6: {"a", "b", "c", "d", "e"},
		9: {"a", "b", "c", "d", "e"},
	} {
		got, err := mustNew(t, Config{Store: store, Embedder: emb, Mode: Anchored, AnchorDepth: depth, VectorWeight: 5}).
			Retrieve(ctx, "q", docqa.Query{TopK: 5})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ids(got), want) {
			t.Errorf("depth %d: %v, want %v", depth, ids(got), want)
		}
	}
	// AnchorDepth unset is DefaultAnchorDepth (3).
	def, err := mustNew(t, Config{Store: store, Embedder: emb, Mode: Anchored, VectorWeight: 5}).Retrieve(ctx, "q", docqa.Query{TopK: 5})
	if err != nil || !slices.Equal(ids(def), []string{"a", "b", "c", "f", "e"}) || DefaultAnchorDepth != 3 {
		t.Errorf("default depth %d: %v, %v", DefaultAnchorDepth, ids(def), err)
	}
}
