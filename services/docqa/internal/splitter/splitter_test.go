package splitter

import (
	"encoding/json"
	"flag"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/clipperhouse/uax29/v2/graphemes"

	"github.com/carhub/backend/services/docqa/internal/ingest/ingesttest"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden.json from the current output")

func mustNew(tb testing.TB) *Splitter {
	tb.Helper()
	s, err := New()
	if err != nil {
		tb.Fatalf("New: %v", err)
	}
	return s
}

// premise fails the test when a token count that a hand-worked case relies
// on is not what the case assumes.
func premise(t *testing.T, s *Splitter, text string, tokens int) {
	t.Helper()
	if got := s.CountTokens(text); got != tokens {
		t.Fatalf("premise: %q... is %d tokens, the case assumes %d", text[:min(len(text), 30)], got, tokens)
	}
}

func TestSplitShortTexts(t *testing.T) {
	s := mustNew(t)
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"empty", "", nil},
		{"blank", " \n\t\r\x00 ", nil},
		{"five characters are dropped", "hello", nil},
		{"five after trim are dropped", "  \n hello \n ", nil},
		{"six characters are kept", "hello!", []string{"hello!"}},
		{"trimmed both ends", "\n\n  Hello world.  \n", []string{"Hello world."}},
		{"inner newlines kept", "line one\nline two\n", []string{"line one\nline two"}},
		// Java's trim removes only characters <= U+0020: a no-break space stays.
		{"nbsp is not trimmed", "\u00a0abcde", []string{"\u00a0abcde"}},
		{"four Chinese characters dropped", "中文测试", nil},
		{"six Chinese characters kept", "中文测试句子", []string{"中文测试句子"}},
		// An astral character is two UTF-16 units, as Java counts length().
		{"astral counts double", "𠀀𠀀𠀀", []string{"𠀀𠀀𠀀"}},
		// Under 400 tokens nothing is cut, even with a sentence end past 200.
		{"short text not cut", strings.Repeat("A short sentence. ", 20), []string{strings.TrimSpace(strings.Repeat("A short sentence. ", 20))}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := s.Split(tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("Split(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// The cases below were worked out by hand from the rule; the premise calls
// check the token counts they rely on.
func TestSplitSentenceBoundaries(t *testing.T) {
	s := mustNew(t)

	t.Run("cut moves back to a period past character 200", func(t *testing.T) {
		// "cat" + 99 x " cat" + "." is 101 tokens and 400 characters; the
		// period is character 399. 400 " dog" follow: 501 tokens in all.
		cats := "cat" + strings.Repeat(" cat", 99) + "."
		dogs := strings.Repeat(" dog", 400)
		premise(t, s, cats, 101)
		premise(t, s, cats+dogs, 501)
		// Window 1 = 101 cat tokens + 299 dogs; the last period (399 > 200)
		// cuts it after the cats. Re-encoding the cats consumes 101 tokens;
		// the 400 dogs left are not more than 400, so they are not cut.
		want := []string{cats, strings.TrimSpace(dogs)}
		if got := s.Split(cats + dogs); !reflect.DeepEqual(got, want) {
			t.Fatalf("got %d chunks %q, want %q", len(got), abbreviate(got), abbreviate(want))
		}
	})

	t.Run("period before character 200 does not cut", func(t *testing.T) {
		// The period is character 3+40*4 = 163, not past 200.
		cats := "cat" + strings.Repeat(" cat", 40) + "."
		premise(t, s, cats, 42)
		text := cats + strings.Repeat(" dog", 500)
		premise(t, s, text, 542)
		// Window 1 = 42 tokens + 358 dogs, uncut; 142 dogs remain.
		want := []string{
			cats + strings.Repeat(" dog", 358),
			strings.TrimSpace(strings.Repeat(" dog", 142)),
		}
		if got := s.Split(text); !reflect.DeepEqual(got, want) {
			t.Fatalf("got %q, want %q", abbreviate(got), abbreviate(want))
		}
	})

	t.Run("question mark beats an earlier newline", func(t *testing.T) {
		// A newline at character 203, a question mark at 403: the later one
		// wins, and the newline stays inside the chunk (keepSeparator).
		a := "cat" + strings.Repeat(" cat", 50) + "\n"
		b := "cow" + strings.Repeat(" cow", 49) + "?"
		premise(t, s, a+b, 103)
		text := a + b + strings.Repeat(" dog", 400)
		premise(t, s, text, 503)
		want := []string{a + b, strings.TrimSpace(strings.Repeat(" dog", 400))}
		if got := s.Split(text); !reflect.DeepEqual(got, want) {
			t.Fatalf("got %q, want %q", abbreviate(got), abbreviate(want))
		}
	})

	t.Run("Chinese full stop", func(t *testing.T) {
		// Each sentence is 9 characters and 9 tokens; 60 of them are 540
		// tokens. Window 1 holds 44 whole sentences (396 tokens) and a part
		// of the 45th; its last 。 is character 44*9-1 = 395 > 200, so the
		// cut keeps 44 sentences. The 16 left (144 tokens) form chunk 2.
		sentence := "我们今天学习中文。"
		premise(t, s, sentence, 9)
		text := strings.Repeat(sentence, 60)
		premise(t, s, text, 540)
		want := []string{strings.Repeat(sentence, 44), strings.Repeat(sentence, 16)}
		if got := s.Split(text); !reflect.DeepEqual(got, want) {
			t.Fatalf("got %q, want %q", abbreviate(got), abbreviate(want))
		}
	})

	t.Run("full-width exclamation and question marks", func(t *testing.T) {
		sentences := []string{"今天天气很好！", "你去哪里？"}
		var b strings.Builder
		for b.Len() < 3000 {
			b.WriteString(sentences[0])
			b.WriteString(sentences[1])
		}
		for _, c := range s.Split(b.String())[:2] {
			if !strings.HasSuffix(c, "！") && !strings.HasSuffix(c, "？") {
				t.Fatalf("chunk %q does not end at a sentence end", abbreviate([]string{c}))
			}
		}
	})
}

func TestSplitGolden(t *testing.T) {
	s := mustNew(t)
	inputs, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no golden inputs in testdata (%v)", err)
	}
	for _, in := range inputs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			text, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			got := s.Split(string(text))
			golden := strings.TrimSuffix(in, ".txt") + ".golden.json"
			if *update {
				b, _ := json.MarshalIndent(got, "", "  ")
				if err := os.WriteFile(golden, append(b, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			b, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("read golden (run with -update to create it): %v", err)
			}
			var want []string
			if err := json.Unmarshal(b, &want); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("chunks differ from %s:\ngot  %q\nwant %q", golden, got, want)
			}
		})
	}
}

func TestSplitConcurrent(t *testing.T) {
	s := mustNew(t)
	text, err := os.ReadFile("testdata/zh-maintenance.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := s.Split(string(text))
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if got := s.Split(string(text)); !reflect.DeepEqual(got, want) {
				errs <- "concurrent Split gave a different result"
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}

func TestCountTokens(t *testing.T) {
	s := mustNew(t)
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"", 0},
		{"hello world", 2},
		{"<|endoftext|>", 7}, // special tokens count as ordinary text
	} {
		if got := s.CountTokens(tc.in); got != tc.want {
			t.Errorf("CountTokens(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

func FuzzSplit(f *testing.F) {
	s := mustNew(f)
	for _, seed := range []string{"", "hello!", "cat. dog? cow!\n", "我们今天学习中文。", "\xe4\xb8\xad\xff", strings.Repeat("word. ", 300),
		strings.Repeat("e\u0301\u0302", 500), strings.Repeat("👩\u200d👩\u200d👧\u200d👦", 300), strings.Repeat("กำลังใจ", 400),
		// runs longer than maxRunBytes, encoded in segments
		strings.Repeat("a", 3000), strings.Repeat("!?", 400) + "\n\n\n", "x" + strings.Repeat(" ", 700) + "y",
		strings.Repeat("\xff", 300), strings.Repeat("中", 200) + strings.Repeat("1", 900)} {
		f.Add(seed)
	}
	if b, err := os.ReadFile("testdata/zh-maintenance.txt"); err == nil {
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, text string) {
		checkSplit(t, s, text)
	})
}

// checkSplit checks what must hold for any input: the windows put together
// give back the text byte for byte, each ends on a grapheme cluster
// boundary, none but the last is more than 400 tokens and a cluster, the
// chunks are exactly the trimmed windows longer than 5 characters, and no
// chunk has a U+FFFD or invalid UTF-8 that the text did not have.
func checkSplit(t *testing.T, s *Splitter, text string) {
	t.Helper()
	windows := s.windows(text)
	if joined := strings.Join(windows, ""); joined != text && javaTrim(text) != "" {
		t.Fatalf("windows do not tile the text: %d bytes of %d", len(joined), len(text))
	}
	boundaries := map[int]bool{0: true, len(text): true}
	for g := graphemes.FromString(text); g.Next(); {
		boundaries[g.End()] = true
	}
	pos := 0
	var want []string
	for i, w := range windows {
		pos += len(w)
		if !boundaries[pos] {
			t.Fatalf("window %d ends at byte %d, inside a character", i, pos)
		}
		if n := s.CountTokens(w); n > s.chunkTokens+8 && i < len(windows)-1 && utf8.RuneCountInString(w) > 1 {
			t.Fatalf("window %d is %d tokens", i, n)
		}
		if piece := javaTrim(w); utf16Len(piece) > s.minLength {
			want = append(want, piece)
		}
	}
	got := s.Split(text)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("chunks are not the trimmed windows")
	}
	valid := utf8.ValidString(text)
	hadFFFD := strings.ContainsRune(text, utf8.RuneError)
	for _, c := range got {
		if valid && !utf8.ValidString(c) {
			t.Fatalf("chunk %q is not valid UTF-8", c)
		}
		if !hadFFFD && valid && strings.ContainsRune(c, utf8.RuneError) {
			t.Fatalf("chunk %q has a U+FFFD the text did not have", c)
		}
		if !strings.Contains(text, c) {
			t.Fatalf("chunk %q is not part of the input", c)
		}
	}
	if len(got) > s.maxChunks+1 {
		t.Fatalf("%d chunks", len(got))
	}
	checkSegments(t, text)
}

// checkSegments checks the segments text is encoded in: they tile the text,
// none holds a run (of letters, spaces or other non-digits) longer than
// maxRunBytes and a character as the tokenizer reads them, and a text
// without a longer run is one segment.
func checkSegments(t *testing.T, text string) {
	t.Helper()
	ends := segmentEnds(text)
	if !slices.IsSorted(ends) || ends[len(ends)-1] != len(text) || (len(ends) > 1 && ends[0] == 0) || len(slices.Compact(slices.Clone(ends))) != len(ends) {
		t.Fatalf("segment ends %v do not tile %d bytes", ends[:min(len(ends), 10)], len(text))
	}
	longest, from := 0, 0
	for _, end := range ends {
		longest = max(longest, longestRun(text[from:end]))
		from = end
	}
	if longest > maxRunBytes+utf8.UTFMax-1 {
		t.Fatalf("a segment holds a run of %d bytes", longest)
	}
	if len(ends) > 1 && longestRun(text) <= maxRunBytes {
		t.Fatalf("%d segments for a text whose runs are at most %d bytes", len(ends), maxRunBytes)
	}
}

// longestRun is the length in bytes as the tokenizer reads them of the
// longest run of one class other than digits in text.
func longestRun(text string) int {
	longest, class, width := 0, runClass(-1), 0
	for i := 0; i < len(text); {
		r, n, w := decodeRune(text[i:])
		if c := classOf(r); c != class {
			class, width = c, 0
		}
		if width += w; class != digit {
			longest = max(longest, width)
		}
		i += n
	}
	return longest
}

// randomText builds a page from runs of scripts that tokenize badly: CJK
// without punctuation, emoji with ZWJ and skin tones, combining marks, Thai,
// Cyrillic, spaces and the sentence ends the cut looks for.
func randomText(r *rand.Rand) string {
	pools := [][]string{
		{"冬", "季", "请", "使", "用", "防", "冻", "型", "玻", "璃", "水", "𠀀", "𪚥"},
		{"👩\u200d👩\u200d👧", "👍🏽", "🇩🇪", "❤\ufe0f", "🚗"},
		{"e\u0301", "a\u0308\u0323", "n\u0303", "o\u0302\u0301"},
		{"ก", "ำ", "ลั", "ง", "ใ", "จ", "ที่", "สุ", "ด"},
		{"масло", "шина", "тормоз", "Ö", "ß"},
		{" ", "\n", ". ", "。", "？", "!", "\t", "  "},
		{"oil", "tyre", "pressure", "2.4", "bar"},
	}
	var b strings.Builder
	for b.Len() < 500+r.IntN(12000) {
		pool := pools[r.IntN(len(pools))]
		for n := 1 + r.IntN(60); n > 0; n-- {
			b.WriteString(pool[r.IntN(len(pool))])
		}
	}
	return b.String()
}

// TestSplitPropertyRandomUnicode: the properties of checkSplit over many
// random pages of mixed scripts (seeded: a failure reproduces).
func TestSplitPropertyRandomUnicode(t *testing.T) {
	s := mustNew(t)
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		checkSplit(t, s, randomText(r))
	}
}

// The old splitter cut a long CJK page without punctuation inside
// characters: U+FFFD in chunks and one character too many in all.
func TestSplitCJKWithoutPunctuationExactly(t *testing.T) {
	s := mustNew(t)
	text := strings.Repeat("防冻型玻璃水冬季请使用𠀀", 200) // 2 400 characters, one astral in twelve
	chunks := s.Split(text)
	if len(chunks) < 2 {
		t.Fatalf("%d chunks, want the page cut", len(chunks))
	}
	if joined := strings.Join(chunks, ""); joined != text {
		t.Fatalf("chunks put together are %d runes, the page %d", utf8.RuneCountInString(joined), utf8.RuneCountInString(text))
	}
	for _, c := range chunks {
		if strings.ContainsRune(c, utf8.RuneError) {
			t.Fatalf("U+FFFD in %q", abbreviate([]string{c}))
		}
	}
}

// Emoji sequences, combining marks and Thai clusters are never cut apart,
// even where a token ends inside them.
func TestSplitKeepsClustersWhole(t *testing.T) {
	s := mustNew(t)
	for _, unit := range []string{"👩\u200d👩\u200d👧\u200d👦", "e\u0301\u0302\u0303", "กำลังใจ", "🇩🇪👍🏽"} {
		text := strings.Repeat(unit, 800)
		chunks := s.Split(text)
		if len(chunks) < 2 {
			t.Fatalf("%q: %d chunks", unit, len(chunks))
		}
		for _, c := range chunks {
			if !strings.HasPrefix(c, unit) || !strings.HasSuffix(c, unit) || len(c)%len(unit) != 0 {
				t.Fatalf("%q: a chunk starts or ends inside the cluster: %q", unit, abbreviate([]string{c}))
			}
		}
		if strings.Join(chunks, "") != text {
			t.Fatalf("%q: chunks do not give back the text", unit)
		}
	}
}

func abbreviate(chunks []string) []string {
	out := make([]string, len(chunks))
	for i, c := range chunks {
		r := []rune(c)
		if len(r) > 24 {
			c = string(r[:10]) + "…" + string(r[len(r)-10:]) + " (" + itoa(len(r)) + " chars)"
		}
		out[i] = c
	}
	return out
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// goldenPages returns the text of every golden input page.
func goldenPages(tb testing.TB) []string {
	tb.Helper()
	inputs, _ := filepath.Glob("testdata/*.txt")
	var pages []string
	for _, in := range inputs {
		text, err := os.ReadFile(in)
		if err != nil {
			tb.Fatal(err)
		}
		pages = append(pages, string(text))
	}
	return pages
}

// BenchmarkSplit splits every golden input page per iteration and reports
// chunks per second.
func BenchmarkSplit(b *testing.B) {
	s := mustNew(b)
	pages := goldenPages(b)
	chunks := 0
	for b.Loop() {
		for _, p := range pages {
			chunks += len(s.Split(p))
		}
	}
	b.ReportMetric(float64(chunks)/b.Elapsed().Seconds(), "chunks/s")
}

// tokenEnds: on valid UTF-8 a token ends where its bytes end, counted from
// the start (a token may end inside a character: cl100k_base splits rare
// ones); on invalid UTF-8, where the tokenizer reads each invalid byte as
// U+FFFD, the ends follow the text, so every window stays near 400 tokens.
func TestTokenEnds(t *testing.T) {
	s := mustNew(t)
	zh, err := os.ReadFile("testdata/zh-maintenance.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"hello world", string(zh), "𠜎𠜱𠝹𠱓 é👩\u200d👩\u200d👧 ﷽", "\uFFFD literal replacement \uFFFD"} {
		tokens := s.enc.EncodeOrdinary(text)
		want, off := make([]int, len(tokens)), 0
		for i, tok := range tokens {
			off += len(s.enc.Decode([]int{tok}))
			want[i] = off
		}
		if got := s.tokenEnds(text); !slices.Equal(got, want) {
			t.Errorf("%.20q: ends %v, want the tokens' byte counts %v", text, got, want)
		}
	}

	// 600 invalid bytes between words: the tokenizer sees 1 800 bytes of
	// U+FFFD where the text has 600.
	text := strings.Repeat("word \xff\xfe\xfd ", 200)
	ends := s.tokenEnds(text)
	if ends[len(ends)-1] != len(text) || !slices.IsSorted(ends) {
		t.Fatalf("ends do not run through the text: last %d of %d", ends[len(ends)-1], len(text))
	}
	for i := range len(ends) - 1 {
		if ends[i] > len(text) {
			t.Fatalf("token %d ends at %d, past the text", i, ends[i])
		}
	}
	checkSplit(t, s, text)
	if w := s.windows(text); len(w) < 2 {
		t.Fatalf("%d windows for %d tokens", len(w), len(ends))
	}
}

// runs are pages of one unbroken run of a kind of character, the worst
// case of the tokenizer's merge (quadratic in a run's length).
var runs = map[string]func(n int) string{
	"letters":  func(n int) string { return ingesttest.Run(ingesttest.Letters, n) },
	"a":        func(n int) string { return strings.Repeat("a", n) },
	"punct":    func(n int) string { return ingesttest.Run(ingesttest.Punctuation, n) },
	"spaces":   func(n int) string { return "x" + strings.Repeat(" ", n-2) + "x" },
	"newlines": func(n int) string { return "x" + strings.Repeat("\n", n-2) + "x" },
	"cjk":      func(n int) string { return ingesttest.Run(ingesttest.CJK, n/3) },
	"invalid":  func(n int) string { return strings.Repeat("\xff", n) },
}

// BenchmarkUnbrokenRun splits and counts a page of one unbroken 100 KB run
// of each kind.
//
//	go test -run '^$' -bench UnbrokenRun ./internal/splitter
func BenchmarkUnbrokenRun(b *testing.B) {
	s := mustNew(b)
	for _, kind := range slices.Sorted(maps.Keys(runs)) {
		page := runs[kind](100_000)
		b.Run(kind+"/Split", func(b *testing.B) {
			for b.Loop() {
				s.Split(page)
			}
			b.SetBytes(int64(len(page)))
		})
		b.Run(kind+"/CountTokens", func(b *testing.B) {
			for b.Loop() {
				s.CountTokens(page)
			}
			b.SetBytes(int64(len(page)))
		})
	}
}

// maxDriftPerCut is how far, per cut, the count of a text encoded in
// segments may be from cl100k_base's count of it whole (see maxRunBytes).
const maxDriftPerCut = 3

// A run longer than maxRunBytes is encoded in segments: the count moves by
// at most maxDriftPerCut per cut from cl100k_base's count of the whole text
// (quadratic in a run, but quick at these lengths).
func TestCountTokensOfLongRuns(t *testing.T) {
	s := mustNew(t)
	r := rand.New(rand.NewPCG(5, 6))
	for _, kind := range slices.Sorted(maps.Keys(runs)) {
		for range 12 {
			text := runs[kind](maxRunBytes + 10 + r.IntN(4000))
			if r.IntN(2) == 0 {
				text = "Check the " + text + " every month."
			}
			checkDrift(t, s, kind, text)
		}
	}
	// One character repeated, shifted by a leading one: the worst measured.
	for n := maxRunBytes + 1; n < 3*maxRunBytes; n += 7 {
		for _, unit := range []string{"\n", "\r\n", "=", "a", "\t", " "} {
			checkDrift(t, s, "x "+unit, "x "+strings.Repeat(unit, n)+" y")
		}
	}
}

func checkDrift(t *testing.T, s *Splitter, kind, text string) {
	t.Helper()
	cuts := len(segmentEnds(text)) - 1
	if cuts == 0 {
		t.Fatalf("%q: a run of %d bytes is not cut", kind, len(text))
	}
	exact := len(s.enc.EncodeOrdinary(text))
	if got := s.CountTokens(text); got < exact-maxDriftPerCut*cuts || got > exact+maxDriftPerCut*cuts {
		t.Errorf("%q, %d bytes: %d tokens, cl100k_base counts %d, %d cuts", kind, len(text), got, exact, cuts)
	}
}

// A page of one unbroken run of 128 KiB, 512 times maxRunBytes, is split
// and counted in segments (BenchmarkUnbrokenRun shows the time is linear:
// before the segments, 100 KB took seconds): its windows still tile it,
// and its count is 64 times cl100k_base's count of its first 2 KiB. (The
// cuts fall every maxRunBytes from the run's start, a multiple of the
// repeated character's tokens, so here the count is exact, well within
// maxDriftPerCut per cut.) The run's length only has to be many segments:
// 1 MiB, the most a page may carry, took half a minute under -race.
func TestSplitLongRun(t *testing.T) {
	s := mustNew(t)
	for _, unit := range []string{"a", "!", " "} { // letters, punctuation, spaces
		run := strings.Repeat(unit, 128<<10)
		block := run[:len(run)/64]
		if len(block)%maxRunBytes != 0 {
			t.Fatalf("a 64th of the run, %d bytes, is not whole segments", len(block))
		}
		if got, want := s.CountTokens(run), 64*len(s.enc.EncodeOrdinary(block)); got != want {
			t.Errorf("%q: %d tokens, 64 x %d bytes are %d", unit, got, len(block), want)
		}
		checkSplit(t, s, "x"+run+"x")
	}
}

// Normal text is one segment: its tokens are cl100k_base's, one for one.
func TestNormalTextIsEncodedWhole(t *testing.T) {
	s := mustNew(t)
	pages := goldenPages(t)
	r := rand.New(rand.NewPCG(7, 8))
	texts := slices.Clone(pages)
	for range 50 {
		texts = append(texts, randomText(r))
	}
	whole := 0
	for _, text := range texts {
		if longestRun(text) > maxRunBytes {
			continue
		}
		whole++
		if got, want := s.CountTokens(text), len(s.enc.EncodeOrdinary(text)); got != want {
			t.Errorf("%.20q: %d tokens, cl100k_base counts %d", text, got, want)
		}
	}
	if whole < len(pages) {
		t.Fatalf("only %d texts without a long run", whole)
	}
}
