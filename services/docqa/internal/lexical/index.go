package lexical

import (
	"container/heap"
	"math"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

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
	var terms []string
	eachTerm(Prepare(text), func(t string) { terms = append(terms, t) })
	return terms
}

// QueryTerms are a question's distinct terms, analyzed as Analyze does, at
// most MaxQueryTerms.
func QueryTerms(question string) []string {
	var terms []string
	seen := map[string]bool{}
	eachTerm(Prepare(question), func(t string) {
		if !seen[t] && len(terms) < MaxQueryTerms {
			seen[t] = true
			terms = append(terms, t)
		}
	})
	return terms
}

// eachTerm calls f with the terms of a prepared text in order, repeats
// included. It allocates little beside the terms that differ from their
// words: a chunk's words are analyzed at every upload and every start.
func eachTerm(prepared string, f func(term string)) {
	var st stemmer
	eachWord(prepared, func(w string) {
		if stopWords[w] {
			return
		}
		if t := st.stem(w); t != "" {
			f(t)
		}
	})
}

// stemmer folds lower-cased words: no diacritics, and their Snowball stem.
// Its Snowball environment is reused from word to word; it is not safe for
// concurrent use.
type stemmer struct {
	env      snowballstem.Env
	unaccent transform.Transformer
}

func (st *stemmer) stem(w string) string {
	first, _ := utf8.DecodeRuneInString(w)
	if IsCJK(first) {
		return w
	}
	if !isASCII(w) { // an ASCII word has no diacritics to remove
		if st.unaccent == nil {
			st.unaccent = transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
		}
		if folded, _, err := transform.String(st.unaccent, w); err == nil {
			w = folded
		}
		if w == "" {
			return ""
		}
		first, _ = utf8.DecodeRuneInString(w)
	}
	switch {
	case first < unicode.MaxLatin1 || unicode.Is(unicode.Latin, first):
		st.env.SetCurrent(w)
		english.Stem(&st.env)
		return st.env.Current()
	case unicode.Is(unicode.Cyrillic, first):
		st.env.SetCurrent(w)
		russian.Stem(&st.env)
		return st.env.Current()
	}
	return w
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
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
	counts := countsPool.Get().(map[string]float32)
	defer func() {
		clear(counts)
		countsPool.Put(counts)
	}()
	for _, f := range []struct {
		text   string
		weight float32
	}{{title, TitleWeight}, {heading, HeadingWeight}, {body, BodyWeight}} {
		eachTerm(Prepare(f.text), func(t string) { counts[t] += f.weight })
	}
	doc := Doc{Terms: make([]TermFreq, 0, len(counts))}
	d.mu.Lock()
	for t, c := range counts {
		id, ok := d.ids[t]
		if !ok {
			id = uint32(len(d.ids))
			// A term is often a slice of the chunk's whole prepared text;
			// a copy keeps the dictionary from holding every such text.
			d.ids[strings.Clone(t)] = id
		}
		doc.Terms = append(doc.Terms, TermFreq{id, c})
		doc.Length += c
	}
	d.mu.Unlock()
	return doc
}

// countsPool holds Doc's maps of term counts: a chunk's analysis is
// repeated for every chunk of an upload and of a start.
var countsPool = sync.Pool{New: func() any { return map[string]float32{} }}

func (d *Dict) size() int {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return len(d.ids)
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
//
// The postings of every term lie in one array, term after term: term t's
// are postings[starts[t]:starts[t+1]]. Counting first and filling second
// sizes every list exactly, so a rebuild (after each upload) leaves no
// garbage of grown lists behind and keeps 8 bytes per posting.
type Index struct {
	dict     *Dict
	starts   []int32 // by term id, one more than the terms indexed
	postings []posting
	lengths  []float32
	avgLen   float32
}

// NewIndex indexes docs; the i-th document is docs(i).
func NewIndex(dict *Dict, n int, docs func(i int) *Doc) *Index {
	x := &Index{dict: dict, lengths: make([]float32, n)}
	// Every term of docs already has its id: the dictionary only grows.
	counts := make([]int32, dict.size()) // by term id
	var total float64
	for i := range n {
		d := docs(i)
		x.lengths[i] = d.Length
		total += float64(d.Length)
		for _, tf := range d.Terms {
			counts[tf.Term]++
		}
	}
	x.starts = make([]int32, len(counts)+1)
	for t, c := range counts {
		x.starts[t+1] = x.starts[t] + c
	}
	x.postings = make([]posting, x.starts[len(counts)])
	next := counts // reused as each term's next free slot
	copy(next, x.starts[:len(counts)])
	for i := range n {
		for _, tf := range docs(i).Terms {
			x.postings[next[tf.Term]] = posting{int32(i), tf.Freq}
			next[tf.Term]++
		}
	}
	if n > 0 {
		x.avgLen = float32(total / float64(n))
	}
	return x
}

// termPostings are the postings of a term id; none for a term added to the
// dictionary after the index was built.
func (x *Index) termPostings(id uint32) []posting {
	if int(id)+1 >= len(x.starts) {
		return nil
	}
	return x.postings[x.starts[id]:x.starts[id+1]]
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
		ps := x.termPostings(id)
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
