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

func TestIndexScoresAndOrder(t *testing.T) {
	dict := NewDict()
	docs := []Doc{
		dict.Doc("", "", "oil oil filter"),        // 0: oil 2, filter 1; length 3
		dict.Doc("Octave", "", "filter design"),   // 1: octave 3, filter 1, design 1; length 5
		dict.Doc("", "Brakes", "brake pads wear"), // 2: brake 2+1, pad 1, wear 1; length 5
		dict.Doc("", "", "the of and"),            // 3: no terms
	}
	x := NewIndex(dict, len(docs), func(i int) *Doc { return &docs[i] })
	const n, avg = 4.0, 13.0 / 4

	got := x.Search("oil filter", 10, nil)
	want := []Hit{
		{0, float32(bm25(n, 1, 2, 3, avg) + bm25(n, 2, 1, 3, avg))},
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
	if got := NewIndex(dict, 0, nil).Search("oil", 3, nil); len(got) != 0 {
		t.Fatalf("empty index found %v", got)
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
	const texts = 2000 // 21 MB of text, one new term in each
	for i := range texts {
		dict.Doc("", "", fmt.Sprintf("%s unique%d", filler, i))
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 4<<20 {
		t.Fatalf("the dictionary of %d terms holds %d KB, more than its terms need", dict.size(), grew>>10)
	}
	runtime.KeepAlive(dict)
}
