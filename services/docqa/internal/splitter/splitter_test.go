package splitter

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
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

func TestDecodeUTF8LikeJava(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"abc", "abc"},
		{"\xe4\xb8", "\ufffd"},                 // truncated 3-byte sequence: one replacement
		{"\xe4\xb8x", "\ufffdx"},               // ... followed by ASCII
		{"\xb8\xad", "\ufffd\ufffd"},           // lone continuation bytes: one each
		{"\xe0\x80", "\ufffd\ufffd"},           // E0 80 is never well-formed
		{"\xf0\x9f\x98", "\ufffd"},             // truncated 4-byte sequence
		{"a\xffb", "a\ufffdb"},                 // invalid byte
		{"\ufffd", "\ufffd"},                   // a real U+FFFD is kept as is
		{"中\xe6\x96", "中\ufffd"},               // window cut inside 文
		{"\xed\xa0\x80", "\ufffd\ufffd\ufffd"}, // surrogate code point: ED A0 is ill-formed
	} {
		if got := decodeUTF8LikeJava(tc.in); got != tc.want {
			t.Errorf("decode(%q) = %q, want %q", tc.in, got, tc.want)
		}
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
	for _, seed := range []string{"", "hello!", "cat. dog? cow!\n", "我们今天学习中文。", "\xe4\xb8\xad\xff", strings.Repeat("word. ", 300)} {
		f.Add(seed)
	}
	if b, err := os.ReadFile("testdata/zh-maintenance.txt"); err == nil {
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, text string) {
		chunks := s.Split(text)
		ascii := isASCII(text)
		for _, c := range chunks {
			if !utf8.ValidString(c) {
				t.Fatalf("chunk %q is not valid UTF-8", c)
			}
			if c != javaTrim(c) {
				t.Fatalf("chunk %q is not trimmed", c)
			}
			if utf16Len(c) <= 5 {
				t.Fatalf("chunk %q has 5 characters or fewer", c)
			}
			// ASCII text decodes without replacement characters, so every
			// chunk is a piece of the input.
			if ascii && !strings.Contains(text, c) {
				t.Fatalf("chunk %q is not part of the input", c)
			}
		}
	})
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
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

// BenchmarkSplit splits every golden input page per iteration and reports
// chunks per second.
func BenchmarkSplit(b *testing.B) {
	s := mustNew(b)
	inputs, _ := filepath.Glob("testdata/*.txt")
	var pages []string
	for _, in := range inputs {
		text, err := os.ReadFile(in)
		if err != nil {
			b.Fatal(err)
		}
		pages = append(pages, string(text))
	}
	chunks := 0
	for b.Loop() {
		for _, p := range pages {
			chunks += len(s.Split(p))
		}
	}
	b.ReportMetric(float64(chunks)/b.Elapsed().Seconds(), "chunks/s")
}
