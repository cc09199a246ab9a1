package milvus

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"

	"github.com/milvus-io/milvus-sdk-go/v2/entity"

	"github.com/carhub/backend/services/docqa/internal/docqa"
	"github.com/carhub/backend/services/docqa/internal/lexical"
)

// BM25 over Milvus sparse vectors. A chunk's row holds, per term, the
// term-frequency half of BM25; a question's vector holds, per term, its
// inverse document frequency; the inner product Milvus computes between
// them is the chunk's BM25 score. The term frequencies never change once a
// row is written, the idf changes with every write, so the idf goes with the
// question, computed from the figures the Store keeps (termStats).
const (
	bm25K1 = 1.2
	bm25B  = 0.75
	// bm25AvgLen stands for the average weighted length of a chunk. It is a
	// constant, not the corpus's running average, so that no row has to be
	// rewritten when the corpus grows. That is sound because chunks are
	// about 400 tokens by construction (docqa.ChunkTokens): some 300 words,
	// fewer once punctuation and stop words are gone, plus the weighted
	// title and heading; 256 is a round figure of that size. Only a page's
	// short last chunk is much shorter, and BM25 lifts it a little, as it
	// should.
	bm25AvgLen = 256

	// Weights of a term by where it stands in a chunk, as the embedded
	// store weighs its lexical columns: the document's title and the
	// chunk's heading say more of what the chunk is about than its body.
	titleWeight   = 3
	headingWeight = 2
	textWeight    = 1

	// emptyDim is the one dimension a chunk without any term gets: Milvus
	// before 2.4.11 refuses an empty sparse row. It is the largest index
	// Milvus accepts (2^32-1 is invalid), and no term maps to it (termDim),
	// so no question ever matches it.
	emptyDim = math.MaxUint32 - 1
)

// termDim is the term's dimension: its FNV-1a 32-bit hash, modulo emptyDim
// so that neither emptyDim nor the invalid 2^32-1 is ever a term's. Two
// terms with the same dimension count as one; with some thousands of
// distinct terms in a corpus that is rare, and only merges two rankings.
func termDim(term string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(term))
	return h.Sum32() % emptyDim
}

// chunkVector is the sparse row of a chunk: for each term dimension, the
// BM25 term-frequency part tf·(k1+1) / (tf + k1·(1 − b + b·len/avgLen)),
// where tf counts the term titleWeight times in the title, headingWeight
// times in the heading and once in the text, and len is the chunk's
// weighted term count. Terms are lexical.Analyze's, as the embedded store's
// index and the questions (lexical.QueryTerms) have them.
func chunkVector(title, heading, text string) entity.SparseEmbedding {
	tf := map[uint32]int{}
	n := countTerms(title, titleWeight, tf) + countTerms(heading, headingWeight, tf) + countTerms(text, textWeight, tf)
	if len(tf) == 0 {
		return sparse(map[uint32]float64{emptyDim: 1})
	}
	norm := bm25K1 * (1 - bm25B + bm25B*float64(n)/bm25AvgLen)
	w := make(map[uint32]float64, len(tf))
	for d, f := range tf {
		w[d] = float64(f) * (bm25K1 + 1) / (float64(f) + norm)
	}
	return sparse(w)
}

// countTerms adds weight for each occurrence of a term of text to tf and
// returns the weighted number of terms.
func countTerms(text string, weight int, tf map[uint32]int) int {
	terms := lexical.Analyze(text)
	for _, t := range terms {
		tf[termDim(t)] += weight
	}
	return weight * len(terms)
}

// sparse turns dimension weights into the SDK's sparse vector (sorted by
// dimension, as Milvus wants them).
func sparse(w map[uint32]float64) entity.SparseEmbedding {
	pos := make([]uint32, 0, len(w))
	vals := make([]float32, 0, len(w))
	for d, v := range w {
		pos = append(pos, d)
		vals = append(vals, float32(v))
	}
	e, _ := entity.NewSliceSparseEmbedding(pos, vals) // fails only when the lengths differ
	return e
}

// termStats are the corpus figures of BM25's inverse document frequency:
// the number of chunks, and per term dimension the number of chunks that
// hold it. The Store guards them with its mutex.
type termStats struct {
	chunks int64
	df     map[uint32]int32
}

func newTermStats() termStats { return termStats{df: map[uint32]int32{}} }

// add counts a chunk's row in (delta 1) or out (delta -1). A nil row (a
// row read without its sparse vector) counts as a chunk without terms.
func (t *termStats) add(row entity.SparseEmbedding, delta int32) {
	t.chunks += int64(delta)
	if row == nil {
		return
	}
	for i := range row.Len() {
		d, _, _ := row.Get(i)
		if d == emptyDim {
			continue
		}
		if n := t.df[d] + delta; n > 0 {
			t.df[d] = n
		} else {
			delete(t.df, d)
		}
	}
}

// subtract counts out every chunk that o counted.
func (t *termStats) subtract(o termStats) {
	t.chunks -= o.chunks
	for d, n := range o.df {
		if m := t.df[d] - n; m > 0 {
			t.df[d] = m
		} else {
			delete(t.df, d)
		}
	}
}

// queryVector weighs each distinct term of a question by its inverse
// document frequency ln(1 + (N − df + 0.5)/(df + 0.5)); a term the table
// does not know has df 0. Terms whose idf is not positive (possible only
// when the table has drifted above N) are left out. nil: no term is left.
func (t *termStats) queryVector(question string) entity.SparseEmbedding {
	w := map[uint32]float64{}
	n := float64(t.chunks)
	for _, term := range lexical.QueryTerms(question) {
		d := termDim(term)
		df := float64(t.df[d])
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		if !(idf > 0) {
			continue
		}
		// Two terms of one dimension are one term of the rows too.
		w[d] += idf
	}
	if len(w) == 0 {
		return nil
	}
	return sparse(w)
}

// DocFreq returns how many chunks of the collection hold each of terms, of
// n in all (docqa.TermCounter), from the figures BM25 keeps; two terms of
// one dimension count together, as they do in the rows. Without a lexical
// index the error wraps docqa.ErrNoLexicalIndex.
func (s *Store) DocFreq(ctx context.Context, terms []string) (df []int, n int, err error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if !s.lexical {
		return nil, 0, fmt.Errorf("milvus: %w", docqa.ErrNoLexicalIndex)
	}
	df = make([]int, len(terms))
	for i, t := range terms {
		df[i] = int(s.stats.df[termDim(t)])
	}
	return df, int(s.stats.chunks), nil
}
