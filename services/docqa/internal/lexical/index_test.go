package lexical

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func TestAnalyze(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		// English stems meet; stop words go; repeats stay.
		{"Engines and the engine's plotting", []string{"engin", "engin", "s", "plot"}},
		// Diacritics go before stemming: café and cafe are one term.
		{"Café cafe", []string{"cafe", "cafe"}},
		// Russian words get the Russian stemmer.
		{"Заменить масла маслом", []string{"замен", "масл", "масл"}},
		// CJK pairs are kept whole.
		{"更换机油", []string{"更换", "换机", "机油"}},
		// One text of several scripts: each word is stemmed afresh.
		{"Engines масла plotting ÉCHOS", []string{"engin", "масл", "plot", "echo"}},
		{"", nil},
	} {
		if got := Analyze(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("Analyze(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got, want := QueryTerms("plot plots plotting PLOTTED"), []string{"plot"}; !slices.Equal(got, want) {
		t.Errorf("QueryTerms = %q, want %q", got, want)
	}
}

// bm25 is the score of one term for a document, written out as the
// textbook has it.
func bm25(n, df, tf, length, avg float64) float64 {
	idf := math.Log(1 + (n-df+0.5)/(df+0.5))
	return idf * tf * (k1 + 1) / (tf + k1*(1-b+b*length/avg))
}

// tp is BM25TP's proximity score of one pair of question terms whose
// rarer one has document frequency df, with sum of 1/distance² near.
func tp(n, df, near, length, avg float64) float64 {
	idf := math.Log(1 + (n-df+0.5)/(df+0.5))
	return idf * (k1 + 1) * near / (near + k1*(1-b+b*length/avg))
}

func TestIndexScoresAndOrder(t *testing.T) {
	dict := NewDict()
	docs := []Doc{
		dict.Doc("", "", "oil oil filter"),        // 0: oil 2, filter 1; length 3
		dict.Doc("Octave", "", "filter design"),   // 1: octave 3, filter 1, design 1; length 5
		dict.Doc("", "Brakes", "brake pads wear"), // 2: brake 2+1, pad 1, wear 1; length 5
		dict.Doc("", "", "the of and"),            // 3: no terms
	}
	x := NewIndex(dict, len(docs), func(i int) *Doc { return &docs[i] }, nil)
	const n, avg = 4.0, 13.0 / 4

	// Document 0 holds oil at 0 and 1, filter at 2: the pair is 2 and 1
	// terms apart, and its proximity score comes on top of BM25.
	got := x.Search("oil filter", 10, nil)
	want := []Hit{
		{0, float32(bm25(n, 1, 2, 3, avg) + bm25(n, 2, 1, 3, avg) + ProximityWeight*tp(n, 2, 1.0/4+1, 3, avg))},
		{1, float32(bm25(n, 2, 1, 5, avg))},
	}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i].Doc != want[i].Doc || math.Abs(float64(got[i].Score-want[i].Score)) > 1e-5 {
			t.Fatalf("hit %d = %v, want %v", i, got[i], want[i])
		}
	}
	// The title counts three times: "octave" lifts document 1.
	if got := x.Search("octave filter", 1, nil); got[0].Doc != 1 {
		t.Fatalf("title match not first: %v", got)
	}
	// The heading counts twice, and the stem meets "braking".
	if got := x.Search("braking", 5, nil); len(got) != 1 || got[0].Doc != 2 ||
		math.Abs(float64(got[0].Score)-bm25(n, 1, 3, 5, avg)) > 1e-5 {
		t.Fatalf("heading: %v", got)
	}
	// A filter keeps the term weights but only the allowed documents.
	if got := x.Search("oil filter", 10, []bool{false, true, true, true}); len(got) != 1 || got[0].Doc != 1 || math.Abs(float64(got[0].Score-want[1].Score)) > 1e-5 {
		t.Fatalf("filtered: %v", got)
	}
	for _, q := range []string{"", "the and", "carburettor"} {
		if got := x.Search(q, 10, nil); len(got) != 0 {
			t.Fatalf("%q found %v", q, got)
		}
	}
	// A term the dictionary learned after the index was built finds nothing
	// in it.
	_ = dict.Doc("", "", "carburettor")
	if got := x.Search("carburettor oil", 10, nil); len(got) != 1 || got[0].Doc != 0 {
		t.Fatalf("a term newer than the index: %v", got)
	}
	if got := NewIndex(dict, 0, nil, nil).Search("oil", 3, nil); len(got) != 0 {
		t.Fatalf("empty index found %v", got)
	}
}

func TestDocSeq(t *testing.T) {
	dict := NewDict()
	d := dict.Doc("Oil manual", "Oil change", "Replace the oil filter; the filter is new.")
	term := map[uint32]string{}
	for t, id := range dict.ids {
		term[id] = t
	}
	var got []string
	for _, l := range d.Seq {
		if l == SeqBreak {
			got = append(got, "|")
			continue
		}
		got = append(got, term[d.Terms[l].Term])
	}
	// The title is left out; the heading, a break, the text, stop words
	// gone.
	if want := []string{"oil", "chang", "|", "replac", "oil", "filter", "filter", "new"}; !slices.Equal(got, want) {
		t.Fatalf("Seq reads %q, want %q", got, want)
	}
	if d := dict.Doc("Title only", "", ""); d.Seq != nil {
		t.Fatalf("a chunk with neither heading nor text has Seq %v", d.Seq)
	}
}

// TestProximityOrders: two documents with the same terms, hence the same
// BM25 score; the one where the question's terms stand together comes
// first, though it comes second in document order (which breaks ties).
func TestProximityOrders(t *testing.T) {
	dict := NewDict()
	docs := []Doc{
		dict.Doc("", "", "oil lamp bulb cable fuse relay filter"), // oil and filter 6 apart: not near
		dict.Doc("", "", "filter lamp oil bulb cable fuse relay"), // 2 apart
		dict.Doc("", "", "wiper blade"),
	}
	x := NewIndex(dict, len(docs), func(i int) *Doc { return &docs[i] }, nil)
	got := x.Search("oil filter", 10, nil)
	const n, avg = 3.0, 16.0 / 3
	base := bm25(n, 2, 1, 7, avg) * 2
	want := []Hit{{1, float32(base + ProximityWeight*tp(n, 2, 1.0/4, 7, avg))}, {0, float32(base)}}
	if len(got) != 2 || got[0].Doc != want[0].Doc || got[1].Doc != want[1].Doc ||
		math.Abs(float64(got[0].Score-want[0].Score)) > 1e-5 || math.Abs(float64(got[1].Score-want[1].Score)) > 1e-5 {
		t.Fatalf("got %v, want %v", got, want)
	}
	// One question term alone has no pair: BM25 decides, ties in order.
	if got := x.Search("oil", 10, nil); len(got) != 2 || got[0].Doc != 0 || math.Abs(float64(got[0].Score)-bm25(n, 2, 1, 7, avg)) > 1e-5 {
		t.Fatalf("one term: %v", got)
	}
}

func TestProximityScore(t *testing.T) {
	terms := []queryTerm{{id: 7, idf: 2}, {id: 9, idf: 1}, {id: 4, idf: 3}}
	docTerms := []TermFreq{{Term: 9, Freq: 1}, {Term: 5, Freq: 1}, {Term: 7, Freq: 2}, {Term: 4, Freq: 1}}
	const norm = 1.5
	var p proximity
	pair := func(idf, near float64) float64 { return idf * (k1 + 1) * near / (norm + near) }
	for _, tc := range []struct {
		name string
		seq  []uint16
		want float64
	}{
		// 7 at 0 and 4, 9 at 1, 4 at 6: pairs (7,9) at 1 and 3, (7,4) at
		// 6 (too far) and 2, (9,4) at 5.
		{"pairs", []uint16{2, 0, 1, 1, 2, 1, 3}, pair(1, 1+1.0/9) + pair(2, 1.0/4) + pair(1, 1.0/25)},
		// A field break keeps the heading's term from the text's.
		{"break", []uint16{2, SeqBreak, 0}, 0},
		{"adjacent across no break", []uint16{2, 0}, pair(1, 1)},
		// The same term twice is no pair.
		{"one term", []uint16{2, 2, 1}, 0},
		{"empty", nil, 0},
	} {
		if got := p.score(terms, docTerms, tc.seq, norm); math.Abs(float64(got)-tc.want) > 1e-5 {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestPageShare: documents 1 and 2 share a page. Documents 0 and 1 have
// the same BM25 score for "oil filter" (oil once, same length), but 1's
// page also holds "filter", so 1 comes before 0; grouped by nothing, 0
// comes first.
func TestPageShare(t *testing.T) {
	dict := NewDict()
	docs := []Doc{
		dict.Doc("", "", "oil pump"),     // page 0
		dict.Doc("", "", "oil sump"),     // page 1
		dict.Doc("", "", "filter cover"), // page 1
		dict.Doc("", "", "wiper blade"),  // page 2
	}
	samePage := func(i int) bool { return i == 2 }
	x := NewIndex(dict, len(docs), func(i int) *Doc { return &docs[i] }, samePage)
	got := x.Search("oil filter", 10, nil)
	const n, avg = 4.0, 2.0
	const pn, pavg = 3.0, 8.0 / 3 // pages: 2, 4 and 2 terms long
	chunk := bm25(n, 2, 1, 2, avg)
	page0 := bm25(pn, 2, 1, 2, pavg)
	page1 := bm25(pn, 2, 1, 4, pavg) + bm25(pn, 1, 1, 4, pavg)
	want := map[int]float64{
		0: (1-PageShare)*chunk + PageShare*page0,
		1: (1-PageShare)*chunk + PageShare*page1,
		2: (1-PageShare)*bm25(n, 1, 1, 2, avg) + PageShare*page1,
	}
	if len(got) != 3 {
		t.Fatalf("got %v", got)
	}
	order := []int{got[0].Doc, got[1].Doc, got[2].Doc}
	if !slices.Equal(order, []int{2, 1, 0}) {
		t.Fatalf("order %v, want [2 1 0]: %v", order, got)
	}
	for _, h := range got {
		if math.Abs(float64(h.Score)-want[h.Doc]) > 1e-5 {
			t.Errorf("document %d scores %v, want %v", h.Doc, h.Score, want[h.Doc])
		}
	}
	if got := NewIndex(dict, len(docs), func(i int) *Doc { return &docs[i] }, nil).Search("oil filter", 10, nil); got[1].Doc != 0 {
		t.Fatalf("without pages: %v, want document 0 second (ties in order)", got)
	}
}

// TestSearchDepth: a longer list begins with a shorter one, though
// documents below RescoreDepth by BM25 are not rescored.
func TestSearchDepth(t *testing.T) {
	dict := NewDict()
	docs := make([]Doc, RescoreDepth+20)
	for i := range docs {
		// Each document longer than the one before: BM25 falls with i;
		// proximity and pages reorder the first ones.
		docs[i] = dict.Doc("", "", "oil "+strings.Repeat("word ", i%7)+"filter "+strings.Repeat("pad ", 8*i))
	}
	x := NewIndex(dict, len(docs), func(i int) *Doc { return &docs[i] }, func(i int) bool { return i%2 == 1 })
	all := x.Search("oil filter", len(docs), nil)
	if len(all) != len(docs) {
		t.Fatalf("%d hits, want %d", len(all), len(docs))
	}
	for _, k := range []int{1, 5, 50, RescoreDepth, RescoreDepth + 10} {
		if got := x.Search("oil filter", k, nil); !slices.Equal(got, all[:k]) {
			t.Fatalf("k %d: %v, want the first %d of %v", k, got, k, all[:k])
		}
	}
	// The rescored ones come first: a document below the depth is not
	// among them even where its BM25 score alone would beat a rescored one.
	for _, h := range all[:RescoreDepth] {
		if h.Doc >= RescoreDepth {
			t.Fatalf("document %d, beyond the depth, among the first %d", h.Doc, RescoreDepth)
		}
	}
}

func TestTopK(t *testing.T) {
	scores := []float32{0.5, 0, 2, 0.5, 1, 0.5}
	got := TopK(scores, 4, func(s float32) bool { return s > 0 })
	if want := []Hit{{2, 2}, {4, 1}, {0, 0.5}, {3, 0.5}}; !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v (ties in index order)", got, want)
	}
	if got := TopK(scores, 10, nil); len(got) != 6 || got[5] != (Hit{1, 0}) {
		t.Fatalf("all: %v", got)
	}
}

// TestDocAllocations: analysing a chunk of English text allocates less
// than one object per word. Every chunk is analysed at each upload and at
// each start; before the stemmer's state was reused and ASCII words skipped
// the diacritics transform, it was more than two per word, and an upload
// of eight 100 MB PDFs made 7 GB of garbage.
func TestDocAllocations(t *testing.T) {
	dict := NewDict()
	body := strings.Repeat("The engine oil filter should be replaced every ten thousand kilometres; check the brake pads and the tyre pressure. ", 20)
	words := len(strings.Fields(body))
	dict.Doc("Owner manual", "Maintenance", body) // the terms get their ids
	if n := testing.AllocsPerRun(20, func() { dict.Doc("Owner manual", "Maintenance", body) }); n >= float64(words) {
		t.Fatalf("Doc of %d words: %.0f allocations, want fewer than one per word", words, n)
	}
}

// TestDictKeepsNoText: the dictionary's terms do not hold on to the texts
// they were read from (a term is often a slice of the prepared text).
func TestDictKeepsNoText(t *testing.T) {
	dict := NewDict()
	filler := strings.Repeat("lorem ipsum dolor sit amet ", 400) // 10.8 KB
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	// 4.3 MB of text, one new term in each: a dictionary that kept the
	// texts would grow by that much, one that keeps its 400 terms by a few
	// KB. (2 000 texts, 21 MB, said the same at five times the cost: 110 s
	// of a loaded 2-core machine under -race.)
	const texts = 400
	for i := range texts {
		dict.Doc("", "", fmt.Sprintf("%s unique%d", filler, i))
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 1<<20 {
		t.Fatalf("the dictionary of %d terms holds %d KB, more than its terms need", dict.size(), grew>>10)
	}
	runtime.KeepAlive(dict)
}
