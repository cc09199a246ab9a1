package lexical

import (
	"container/heap"
	"math"
	"sync"
	"unicode"

	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/english"
	"github.com/blevesearch/snowballstem/russian"
	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// Field weights: a term in a document's title or a chunk's heading says
// more of what the chunk is about than the same term in its text. The
// weighted counts enter BM25 as one field (the simple form of BM25F).
const (
	TitleWeight   = 3
	HeadingWeight = 2
	BodyWeight    = 1
)

// BM25 parameters, the usual ones (Lucene's and SQLite FTS5's defaults).
const (
	k1 = 1.2
	b  = 0.75
)

// Analyze returns the index terms of a text: Prepare's form split into
// runs of letters, digits and combining marks, lower-cased; words outside
// the CJK scripts lose their diacritics and are reduced to their stem by
// the Snowball stemmer of their script (English for Latin letters, Russian
// for Cyrillic; others are kept whole); stop words go. A term may repeat.
func Analyze(text string) []string {
	return analyze(Prepare(text), false)
}

// QueryTerms are a question's distinct terms, analyzed as Analyze does, at
// most MaxQueryTerms.
func QueryTerms(question string) []string {
	return analyze(Prepare(question), true)
}

func analyze(prepared string, distinct bool) []string {
	var terms []string
	var seen map[string]bool
	if distinct {
		seen = map[string]bool{}
	}
	for _, w := range words(prepared) {
		if stopWords[w] {
			continue
		}
		t := stem(w)
		if t == "" {
			continue
		}
		if distinct {
			if seen[t] {
				continue
			}
			seen[t] = true
			if len(terms) == MaxQueryTerms {
				break
			}
		}
		terms = append(terms, t)
	}
	return terms
}

var unaccent = sync.Pool{New: func() any {
	return transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
}}

// stem folds a lower-cased word: no diacritics, and its Snowball stem.
func stem(w string) string {
	first := []rune(w)[0]
	if IsCJK(first) {
		return w
	}
	t := unaccent.Get().(transform.Transformer)
	if folded, _, err := transform.String(t, w); err == nil {
		w = folded
	}
	unaccent.Put(t)
	if w == "" {
		return ""
	}
	switch r := []rune(w)[0]; {
	case r < unicode.MaxLatin1 || unicode.Is(unicode.Latin, r):
		env := snowballstem.NewEnv(w)
		english.Stem(env)
		return env.Current()
	case unicode.Is(unicode.Cyrillic, r):
		env := snowballstem.NewEnv(w)
		russian.Stem(env)
		return env.Current()
	}
	return w
}

// Dict gives every term an id, so a document keeps small ids rather than
// strings. It only grows (a term of a deleted chunk keeps its id); it is
// safe for concurrent use.
type Dict struct {
	mu  sync.RWMutex
	ids map[string]uint32
}

// NewDict returns an empty dictionary.
func NewDict() *Dict { return &Dict{ids: map[string]uint32{}} }

// TermFreq is a term's weighted count in one document.
type TermFreq struct {
	Term uint32
	Freq float32
}

// Doc is what the index keeps of one chunk.
type Doc struct {
	Terms  []TermFreq
	Length float32 // the sum of the weighted counts
}

// Doc analyzes a chunk: the terms of its document's title, its heading and
// its text with their field weights.
func (d *Dict) Doc(title, heading, body string) Doc {
	counts := map[string]float32{}
	for _, f := range []struct {
		text   string
		weight float32
	}{{title, TitleWeight}, {heading, HeadingWeight}, {body, BodyWeight}} {
		for _, t := range Analyze(f.text) {
			counts[t] += f.weight
		}
	}
	doc := Doc{Terms: make([]TermFreq, 0, len(counts))}
	d.mu.Lock()
	for t, c := range counts {
		id, ok := d.ids[t]
		if !ok {
			id = uint32(len(d.ids))
			d.ids[t] = id
		}
		doc.Terms = append(doc.Terms, TermFreq{id, c})
		doc.Length += c
	}
	d.mu.Unlock()
	return doc
}

func (d *Dict) lookup(terms []string) []uint32 {
	d.mu.RLock()
	defer d.mu.RUnlock()
	ids := make([]uint32, 0, len(terms))
	for _, t := range terms {
		if id, ok := d.ids[t]; ok {
			ids = append(ids, id)
		}
	}
	return ids
}

type posting struct {
	doc  int32
	freq float32
}

// Index is an inverted index over documents numbered 0..n-1, searched by
// BM25. It is immutable: build a new one when the documents change.
type Index struct {
	dict     *Dict
	postings map[uint32][]posting
	lengths  []float32
	avgLen   float32
}

// NewIndex indexes docs; the i-th document is docs(i).
func NewIndex(dict *Dict, n int, docs func(i int) *Doc) *Index {
	x := &Index{dict: dict, postings: map[uint32][]posting{}, lengths: make([]float32, n)}
	var total float64
	for i := range n {
		d := docs(i)
		x.lengths[i] = d.Length
		total += float64(d.Length)
		for _, tf := range d.Terms {
			x.postings[tf.Term] = append(x.postings[tf.Term], posting{int32(i), tf.Freq})
		}
	}
	if n > 0 {
		x.avgLen = float32(total / float64(n))
	}
	return x
}

// Hit is a found document and its BM25 score.
type Hit struct {
	Doc   int
	Score float32
}

// Search returns at most k documents by descending BM25 score against the
// question's terms (ties in document order), among those allowed says yes
// to (nil allows all). Only documents with at least one of the terms are
// found. Document frequencies count every document, allowed or not, so a
// filter does not change how a term is weighed.
func (x *Index) Search(question string, k int, allowed []bool) []Hit {
	ids := x.dict.lookup(QueryTerms(question))
	if len(ids) == 0 || k < 1 || len(x.lengths) == 0 {
		return nil
	}
	scores := make([]float32, len(x.lengths))
	n := float64(len(x.lengths))
	for _, id := range ids {
		ps := x.postings[id]
		if len(ps) == 0 {
			continue
		}
		df := float64(len(ps))
		idf := float32(math.Log(1 + (n-df+0.5)/(df+0.5)))
		for _, p := range ps {
			if allowed != nil && !allowed[p.doc] {
				continue
			}
			norm := k1 * (1 - b + b*x.lengths[p.doc]/x.avgLen)
			scores[p.doc] += idf * p.freq * (k1 + 1) / (p.freq + norm)
		}
	}
	return TopK(scores, k, func(s float32) bool { return s > 0 })
}

// TopK returns the best k scores among those keep accepts, best first;
// equal scores keep index order.
func TopK(scores []float32, k int, keep func(float32) bool) []Hit {
	h := make(hitHeap, 0, min(k, len(scores))+1)
	for i, s := range scores {
		if keep != nil && !keep(s) {
			continue
		}
		c := Hit{Doc: i, Score: s}
		if len(h) < k {
			heap.Push(&h, c)
		} else if worse(h[0], c) {
			h[0] = c
			heap.Fix(&h, 0)
		}
	}
	out := make([]Hit, len(h))
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = heap.Pop(&h).(Hit)
	}
	return out
}

// worse orders hits: lower score first, and at equal score the later one.
func worse(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score < b.Score
	}
	return a.Doc > b.Doc
}

// hitHeap keeps the best k hits with the worst on top.
type hitHeap []Hit

func (h hitHeap) Len() int           { return len(h) }
func (h hitHeap) Less(i, j int) bool { return worse(h[i], h[j]) }
func (h hitHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *hitHeap) Push(x any)        { *h = append(*h, x.(Hit)) }
func (h *hitHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
