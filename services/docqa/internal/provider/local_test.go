package provider_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/carhub/backend/services/docqa/internal/docqa"
	"github.com/carhub/backend/services/docqa/internal/provider"
)

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return dot / math.Sqrt(na*nb)
}

func TestLexicalEmbedderDeterministicAndNormalised(t *testing.T) {
	e := provider.NewLexicalEmbedder()
	in := []string{
		"Change the engine oil every 15,000 km.",
		"发动机机油每行驶15000公里更换一次。",
		"エンジンオイルの交換時期",
		"",
		"the of and", // stop words only
		"Ölwechsel alle 15.000 Kilometer",
	}
	a, err := e.Embed(context.Background(), in)
	if err != nil {
		t.Fatalf("Embed: %v", err)
	}
	b, _ := provider.NewLexicalEmbedder().Embed(context.Background(), in)
	for i := range in {
		if len(a[i]) != docqa.Dimension {
			t.Fatalf("text %d: %d dimensions", i, len(a[i]))
		}
		if !slices.Equal(a[i], b[i]) {
			t.Errorf("text %d: two embedders disagree", i)
		}
		var sum float64
		for _, x := range a[i] {
			sum += float64(x) * float64(x)
		}
		if math.Abs(sum-1) > 1e-5 {
			t.Errorf("text %q: squared norm %f, want 1", in[i], sum)
		}
	}
	if e.Name() != "lexical:v1" {
		t.Errorf("Name %q", e.Name())
	}
}

func TestLexicalEmbedderRelatedScoresHigher(t *testing.T) {
	e := provider.NewLexicalEmbedder()
	tests := []struct {
		name                      string
		query, related, unrelated string
	}{
		{"English", "How often should I change the engine oil?",
			"Engine oil: change the oil and the oil filter every 15,000 km or once a year.",
			"The infotainment system pairs with your phone over Bluetooth."},
		{"English inflection", "replacing brake pads",
			"Brake pad replacement: the pads are replaced when 3 mm remain.",
			"Tyre pressure is shown on the label inside the fuel door."},
		{"Chinese", "多久更换一次机油？",
			"机油和机油滤清器应每行驶15000公里或每年更换一次。",
			"信息娱乐系统可以通过蓝牙与手机配对。"},
		{"Japanese", "タイヤの空気圧",
			"タイヤの空気圧は給油口の内側のラベルに記載されています。",
			"ブルートゥースで電話と接続できます。"},
		{"full-width folds to ASCII", "ＡＢＳ warning light",
			"The ABS warning light comes on when the system has a fault.",
			"Wipers are switched on with the right stalk."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, _ := e.Embed(context.Background(), []string{tt.query, tt.related, tt.unrelated})
			rel, unrel := cosine(v[0], v[1]), cosine(v[0], v[2])
			if rel <= unrel {
				t.Fatalf("related %.3f <= unrelated %.3f", rel, unrel)
			}
			if rel <= 0.1 {
				t.Fatalf("related text scores only %.3f", rel)
			}
		})
	}
}

func TestLexicalEmbedderHonoursCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := provider.NewLexicalEmbedder().Embed(ctx, []string{"x"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func source(file string, page int, text string, score float32) docqa.ScoredChunk {
	return docqa.ScoredChunk{
		Chunk:    docqa.Chunk{Page: page, Text: text},
		Document: docqa.Document{FileName: file},
		Score:    score,
	}
}

func TestExtractiveChatQuotesFileAndPage(t *testing.T) {
	sources := []docqa.ScoredChunk{
		source("manual.pdf", 3, "Maintenance schedule.\nChange the engine oil every 15,000 km. Rotate the tyres every 10,000 km.", 0.9),
		source("手册.pdf", 12, "机油每行驶15000公里更换一次。轮胎每10000公里换位。", 0.8),                                                                     // no word of the question
		source("manual.pdf", 3, "Maintenance schedule.\nChange the engine oil every 15,000 km. Rotate the tyres every 10,000 km.", 0.7), // repeat
		source("service.pdf", 1, "Engine oil: use SAE 0W-30. Change it together with the filter.", 0.6),
		source("warranty.pdf", 1, "The warranty lasts three years.", 0.5), // no word of the question
		source("oil.pdf", 2, "Check the engine oil level with the dipstick; change the oil when it is black.", 0.45),
		source("extra.pdf", 9, "Change the engine oil at a workshop.", 0.4), // a fourth answering passage
	}
	q := "How often do I change the engine oil?"
	// The messages a remote model gets mention the tyres only: the
	// extractive answer must go by Question.
	req := docqa.ChatRequest{
		Messages: []docqa.Message{{Role: docqa.RoleUser, Content: "Context: tyres tyres tyres\n\nQuestion: How often do I rotate the tyres?"}},
		Question: q,
		Sources:  sources,
	}
	c := provider.NewExtractiveChat(nil)
	got, finish, err := collect(context.Background(), c, req)
	if err != nil || finish != "stop" {
		t.Fatalf("Stream: %q, %v", finish, err)
	}
	if len(got) != 3 {
		t.Fatalf("%d pieces %q, want one per quoted passage (3: the repeat, the passages without the question's words and the fourth left out)", len(got), got)
	}
	answer := strings.Join(got, "")
	for _, want := range []string{
		"[1] manual.pdf, p. 3: Change the engine oil every 15,000 km.",
		"[4] service.pdf, p. 1: Engine oil: use SAE 0W-30.",
		"[6] oil.pdf, p. 2: ",
	} {
		if !strings.Contains(answer, want) {
			t.Errorf("answer lacks %q:\n%s", want, answer)
		}
	}
	for _, not := range []string{"[2]", "[3]", "[5]", "extra.pdf", "Rotate the tyres"} {
		if strings.Contains(answer, not) {
			t.Errorf("answer quotes %q, which holds none of the question's words or is past the third:\n%s", not, answer)
		}
	}
	if c.Name() != "local:extractive" {
		t.Errorf("Name %q", c.Name())
	}
}

// TestExtractiveChatQuotesNothingUnrelated: passages that share too little
// with the question are not quoted (the two cases: a manual
// without the answer); the chat says no_match then.
func TestExtractiveChatQuotesNothingUnrelated(t *testing.T) {
	c := provider.NewExtractiveChat(nil)
	for _, tc := range []struct {
		question string
		sources  []docqa.ScoredChunk
	}{
		{"How do I reset the service indicator?", []docqa.ScoredChunk{
			source("m.pdf", 7, "Important: the torque for wheel bolts in section 7 is 120 newton metres (service code QZX07ALPHA).", 0.9),
			source("m.pdf", 9, "Tyre repair kit: fill the sealant into the tyre and inflate it.", 0.8),
		}},
		{"How often should I change the engine oil?", []docqa.ScoredChunk{
			source("m.pdf", 4, "Adaptive cruise control keeps a set distance to the vehicle ahead.", 0.9),
		}},
	} {
		if quotes := c.Quoted(context.Background(), tc.question, tc.sources); len(quotes) != 0 {
			t.Errorf("%q quotes %+v", tc.question, quotes)
		}
	}
}

func TestExtractiveChatWithoutSources(t *testing.T) {
	got, finish, err := collect(context.Background(), provider.NewExtractiveChat(nil), docqa.ChatRequest{
		Messages: []docqa.Message{{Role: docqa.RoleUser, Content: "Anything?"}}, Question: "Anything?",
	})
	if err != nil || finish != "stop" {
		t.Fatalf("Stream: %q, %v", finish, err)
	}
	if !slices.Equal(got, []string{provider.NoSourcesAnswer}) {
		t.Fatalf("answer %q", got)
	}
}

func TestExtractiveChatStopsOnDeltaError(t *testing.T) {
	sources := []docqa.ScoredChunk{source("a.pdf", 1, "One. Two.", 1), source("b.pdf", 2, "Three.", 0.5)}
	stop := errors.New("client gone")
	calls := 0
	_, err := provider.NewExtractiveChat(nil).Stream(context.Background(), docqa.ChatRequest{Sources: sources}, func(string) error {
		calls++
		return stop
	})
	if !errors.Is(err, stop) || calls != 1 {
		t.Fatalf("err = %v after %d calls, want onDelta's error after 1", err, calls)
	}
}

// quoteOf is the quote the extractive model makes of one passage.
func quoteOf(t *testing.T, text, question string) string {
	t.Helper()
	got, _, err := collect(context.Background(), provider.NewExtractiveChat(nil), docqa.ChatRequest{
		Question: question, Sources: []docqa.ScoredChunk{source("m.pdf", 4, text, 1)},
	})
	if err != nil || len(got) != 1 {
		t.Fatalf("Stream: %q, %v", got, err)
	}
	q, ok := strings.CutPrefix(got[0], "[1] m.pdf, p. 4: ")
	if !ok {
		t.Fatalf("piece %q", got[0])
	}
	return q
}

// TestExtractiveQuoteBeginningMidSentence: a passage the splitter began
// inside a sentence is quoted with an ellipsis before it, whole words.
func TestExtractiveQuoteBeginningMidSentence(t *testing.T) {
	got := quoteOf(t, "ges of the engine oil every 15,000 km. Rotate the oil filter every 10,000 km.", "engine oil")
	if want := "…ges of the engine oil every 15,000 km. Rotate the oil filter every 10,000 km."; got != want {
		t.Errorf("quote %q, want %q", got, want)
	}
	// Over the budget, the broken first sentence is left out: no ellipsis then.
	long := "Rotate the tyres " + strings.Repeat("from front to back ", 19) + "at each service."
	if got := quoteOf(t, "of the oil. "+long, "rotate the tyres"); got != long {
		t.Errorf("quote %q, want %q", got, long)
	}
	// A passage cut off at its end says so; sentences that were apart are joined by an ellipsis.
	filler := "The weather " + strings.Repeat("was fine and dry ", 22) + "all day."
	got = quoteOf(t, "Check the oil level monthly. "+filler+" Top up the oil if the level is low and the engine", "oil level")
	if want := "Check the oil level monthly. … Top up the oil if the level is low and the engine…"; got != want {
		t.Errorf("quote %q, want %q", got, want)
	}
}

// TestExtractiveQuoteLongSentence: one sentence over the quote budget is
// cut after the last whole word that fits.
func TestExtractiveQuoteLongSentence(t *testing.T) {
	words := strings.Repeat("lubrication ", 60) // 720 characters, one sentence
	got := quoteOf(t, "Engine "+words+"matters.", "engine lubrication")
	if !strings.HasSuffix(got, "lubrication…") || strings.Contains(got, "  ") {
		t.Errorf("quote does not end on a whole word: …%q", got[max(0, len(got)-40):])
	}
	if n := utf8.RuneCountInString(got); n > 401 || n < 380 {
		t.Errorf("quote of %d characters, want the 400 budget cut at a word", n)
	}
	// Chinese has no spaces: every character is a word.
	zh := quoteOf(t, strings.Repeat("机油", 300)+"。", "机油")
	if n := utf8.RuneCountInString(zh); n != 401 || !strings.HasSuffix(zh, "…") {
		t.Errorf("Chinese quote of %d characters %q…", n, zh[:12])
	}
}
