package lexical

import (
	"cmp"
	"container/heap"
	"math"
	"slices"
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
	// Seq is the chunk's heading then its text as a sequence of terms, each
	// an index into Terms, with SeqBreak between the two: where the
	// question's terms stand, for the proximity score. The title is left
	// out (it is the same in every chunk of a document). nil when the chunk
	// has SeqBreak or more distinct terms.
	Seq []uint16
}

// SeqBreak separates the fields in Doc.Seq: terms on either side of it
// are never near each other.
const SeqBreak = math.MaxUint16

// Doc analyzes a chunk: the terms of its document's title, its heading and
// its text with their field weights, and the sequence of its heading's and
// text's terms.
func (d *Dict) Doc(title, heading, body string) Doc {
	counts := countsPool.Get().(map[string]float32)
	order := orderPool.Get().(*[]string)
	defer func() {
		clear(counts)
		countsPool.Put(counts)
		clear(*order) // the terms are slices of the prepared texts
		*order = (*order)[:0]
		orderPool.Put(order)
	}()
	for _, f := range []struct {
		text   string
		weight float32
		seq    bool
	}{{title, TitleWeight, false}, {heading, HeadingWeight, true}, {body, BodyWeight, true}} {
		if f.seq && len(*order) > 0 {
			*order = append(*order, "") // no term is empty: the break
		}
		eachTerm(Prepare(f.text), func(t string) {
			counts[t] += f.weight
			if f.seq {
				*order = append(*order, t)
			}
		})
	}
	doc := Doc{Terms: make([]TermFreq, 0, len(counts))}
	local := localPool.Get().(map[string]uint16)
	defer func() {
		clear(local)
		localPool.Put(local)
	}()
	d.mu.Lock()
	for t, c := range counts {
		id, ok := d.ids[t]
		if !ok {
			id = uint32(len(d.ids))
			// A term is often a slice of the chunk's whole prepared text;
			// a copy keeps the dictionary from holding every such text.
			d.ids[strings.Clone(t)] = id
		}
		if len(doc.Terms) < SeqBreak {
			local[t] = uint16(len(doc.Terms))
		}
		doc.Terms = append(doc.Terms, TermFreq{id, c})
		doc.Length += c
	}
	d.mu.Unlock()
	if len(doc.Terms) < SeqBreak && len(*order) > 0 {
		doc.Seq = make([]uint16, len(*order))
		for i, t := range *order {
			if t == "" {
				doc.Seq[i] = SeqBreak
			} else {
				doc.Seq[i] = local[t]
			}
		}
	}
	return doc
}

// countsPool holds Doc's maps of term counts: a chunk's analysis is
// repeated for every chunk of an upload and of a start.
var countsPool = sync.Pool{New: func() any { return map[string]float32{} }}

// orderPool and localPool hold Doc's sequences of terms and its maps of
// term to place in Doc.Terms, for the same reason.
var (
	orderPool = sync.Pool{New: func() any { return new([]string) }}
	localPool = sync.Pool{New: func() any { return map[string]uint16{} }}
)

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
// BM25 with term proximity, and mixed with the BM25 score of the
// document's page when the documents are grouped into pages (see Search).
// It is immutable: build a new one when the documents change.
//
// The postings of every term lie in one array, term after term: term t's
// are postings[starts[t]:starts[t+1]], in document order. Counting first
// and filling second sizes every list exactly, so a rebuild (after each
// upload) leaves no garbage of grown lists behind and keeps 8 bytes per
// posting.
type Index struct {
	dict     *Dict
	starts   []int32 // by term id, one more than the terms indexed
	postings []posting
	lengths  []float32
	avgLen   float32
	seqs     [][]uint16   // by document: Doc.Seq, nil in a page index
	terms    [][]TermFreq // by document: Doc.Terms, for Seq; nil in a page index
	pages    *Index       // the pages' index, nil when documents are not grouped
	pageOf   []int32      // by document: its page in pages
}

// Ranking constants, chosen on the dev split of the retrieval benchmark
// (proto-docs/docqa-retrieval-decisions.md, "second pass").
const (
	// RescoreDepth is how many of the best documents by BM25 get the
	// proximity score and their page's score; the others keep BM25's
	// order after them. The same ones are rescored whatever k, so a
	// shorter list is the beginning of a longer one.
	RescoreDepth = 100
	// ProximityWindow is the greatest distance, in index terms (stop
	// words not counted), at which two question terms count as near.
	ProximityWindow = 5
	// ProximityWeight weighs the proximity score against BM25's.
	ProximityWeight = 0.5
	// PageShare is the page's share in a document's score when the
	// documents are grouped into pages.
	PageShare = 0.3
)

// NewIndex indexes docs; the i-th document is docs(i). samePage, when not
// nil, groups the documents into pages: samePage(i) reports whether
// document i lies on the same page as document i−1 (a page's documents are
// consecutive), and a page is indexed as the sum of its documents.
func NewIndex(dict *Dict, n int, docs func(i int) *Doc, samePage func(i int) bool) *Index {
	x := build(dict, n, docs)
	x.seqs = make([][]uint16, n)
	x.terms = make([][]TermFreq, n)
	for i := range n {
		d := docs(i)
		x.seqs[i], x.terms[i] = d.Seq, d.Terms
	}
	if samePage == nil || n == 0 {
		return x
	}
	x.pageOf = make([]int32, n)
	var pages []Doc
	// A page's weighted counts, by term id, and the terms it has: an
	// array rather than a map, with which the rebuild after an upload took
	// 2.5 times as long.
	sum := make([]float32, dict.size())
	var has []uint32
	flush := func() {
		p := Doc{Terms: make([]TermFreq, len(has))}
		for j, t := range has {
			p.Terms[j] = TermFreq{t, sum[t]}
			p.Length += sum[t]
			sum[t] = 0
		}
		pages = append(pages, p)
		has = has[:0]
	}
	for i := range n {
		if i > 0 && !samePage(i) {
			flush()
		}
		for _, tf := range docs(i).Terms {
			if sum[tf.Term] == 0 {
				has = append(has, tf.Term)
			}
			sum[tf.Term] += tf.Freq
		}
		x.pageOf[i] = int32(len(pages))
	}
	flush()
	x.pages = build(dict, len(pages), func(i int) *Doc { return &pages[i] })
	return x
}

// build is the inverted index of docs, without sequences or pages.
func build(dict *Dict, n int, docs func(i int) *Doc) *Index {
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

// Hit is a found document and its score.
type Hit struct {
	Doc   int
	Score float32
}

// queryTerm is a question's term that the index holds, with its idf.
type queryTerm struct {
	id  uint32
	idf float32
}

// queryTerms are the question's terms that x holds, in the question's
// order, with their idf in x.
func (x *Index) queryTerms(ids []uint32) []queryTerm {
	n := float64(len(x.lengths))
	out := make([]queryTerm, 0, len(ids))
	for _, id := range ids {
		if df := float64(len(x.termPostings(id))); df > 0 {
			out = append(out, queryTerm{id, float32(math.Log(1 + (n-df+0.5)/(df+0.5)))})
		}
	}
	return out
}

// norm is BM25's length normalization of document doc, K in its formula.
func (x *Index) norm(doc int) float32 {
	return k1 * (1 - b + b*x.lengths[doc]/x.avgLen)
}

// Search returns at most k documents, best first, among those allowed says
// yes to (nil allows all); only documents with at least one of the
// question's terms are found. Document frequencies count every document,
// allowed or not, so a filter does not change how a term is weighed.
//
// The RescoreDepth best documents by BM25 are scored again: BM25 plus
// ProximityWeight times the term-proximity score of their Seq (BM25TP,
// Rasolofo and Savoy, ECIR 2003: every pair of distinct question terms at
// most ProximityWindow terms apart adds 1/distance² to the pair's sum s,
// and the pair adds min(idf) × (k1+1)·s / (K+s), K the document's BM25
// length normalization); when the documents are grouped into pages, that
// score takes 1 − PageShare of the result and the BM25 score of the
// document's page, over the index of pages, PageShare (Callan's passage and
// document evidence, SIGIR 1994, with chunks and pages). Ties keep
// document order; the documents below RescoreDepth keep their BM25 scores.
func (x *Index) Search(question string, k int, allowed []bool) []Hit {
	ids := x.dict.lookup(QueryTerms(question))
	if len(ids) == 0 || k < 1 || len(x.lengths) == 0 {
		return nil
	}
	terms := x.queryTerms(ids)
	scores := make([]float32, len(x.lengths))
	for _, t := range terms {
		for _, p := range x.termPostings(t.id) {
			if allowed != nil && !allowed[p.doc] {
				continue
			}
			scores[p.doc] += t.idf * p.freq * (k1 + 1) / (p.freq + x.norm(int(p.doc)))
		}
	}
	hits := TopK(scores, max(k, RescoreDepth), func(s float32) bool { return s > 0 })
	top := hits[:min(len(hits), RescoreDepth)]
	if x.pages == nil && len(terms) < 2 {
		return hits[:min(k, len(hits))] // nothing to add
	}
	var pageTerms []queryTerm
	if x.pages != nil {
		pageTerms = x.pages.queryTerms(ids)
	}
	var near proximity
	for i, h := range top {
		s := h.Score + ProximityWeight*near.score(terms, x.terms[h.Doc], x.seqs[h.Doc], x.norm(h.Doc))
		if x.pages != nil {
			s = (1-PageShare)*s + PageShare*x.pages.score(pageTerms, int(x.pageOf[h.Doc]))
		}
		top[i].Score = s
	}
	slices.SortStableFunc(top, func(a, b Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.Doc, b.Doc)
	})
	return hits[:min(k, len(hits))]
}

// score is document doc's BM25 score for terms: a binary search in each
// term's postings, which lie in document order.
func (x *Index) score(terms []queryTerm, doc int) float32 {
	var s float32
	for _, t := range terms {
		ps := x.termPostings(t.id)
		if i, ok := slices.BinarySearchFunc(ps, int32(doc), func(p posting, d int32) int { return cmp.Compare(p.doc, d) }); ok {
			s += t.idf * ps[i].freq * (k1 + 1) / (ps[i].freq + x.norm(doc))
		}
	}
	return s
}

// proximity computes BM25TP's proximity score; its buffers are reused
// from document to document.
type proximity struct {
	slot []int        // by place in the document's Terms: the question term's index + 1, 0 for none
	occs []occurrence // the question terms' places in Seq
	sums []float32    // by pair of question terms, i × len(terms) + j for i < j
}

type occurrence struct{ pos, term int }

// score is the proximity score of a document (its Terms and Seq) for the
// question's terms, norm its BM25 length normalization.
func (p *proximity) score(terms []queryTerm, docTerms []TermFreq, seq []uint16, norm float32) float32 {
	if len(terms) < 2 || len(seq) == 0 {
		return 0
	}
	p.slot = slices.Grow(p.slot[:0], len(docTerms))[:len(docTerms)]
	found := 0
	for j, tf := range docTerms {
		p.slot[j] = 0
		for i, t := range terms {
			if t.id == tf.Term {
				p.slot[j] = i + 1
				found++
				break
			}
		}
	}
	if found < 2 {
		return 0
	}
	p.occs = p.occs[:0]
	pos := 0
	for _, l := range seq {
		if l == SeqBreak {
			pos += ProximityWindow // fields are never near
			continue
		}
		if q := p.slot[l]; q > 0 {
			p.occs = append(p.occs, occurrence{pos, q - 1})
		}
		pos++
	}
	n := len(terms)
	p.sums = slices.Grow(p.sums[:0], n*n)[:n*n]
	clear(p.sums)
	for i, a := range p.occs {
		for _, c := range p.occs[i+1:] {
			d := c.pos - a.pos
			if d > ProximityWindow {
				break
			}
			if a.term != c.term {
				p.sums[min(a.term, c.term)*n+max(a.term, c.term)] += 1 / float32(d*d)
			}
		}
	}
	var score float32
	for i := range n {
		for j := i + 1; j < n; j++ {
			if s := p.sums[i*n+j]; s > 0 {
				score += min(terms[i].idf, terms[j].idf) * (k1 + 1) * s / (norm + s)
			}
		}
	}
	return score
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

// DocFreq returns how many of the n documents indexed hold each of terms
// (index terms, as Analyze makes them).
func (x *Index) DocFreq(terms []string) (df []int, n int) {
	df = make([]int, len(terms))
	x.dict.mu.RLock()
	defer x.dict.mu.RUnlock()
	for i, t := range terms {
		if id, ok := x.dict.ids[t]; ok {
			df[i] = len(x.termPostings(id))
		}
	}
	return df, len(x.lengths)
}
