package provider_test

import (
	"context"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/carhub/backend/services/docqa/internal/docqa"
	"github.com/carhub/backend/services/docqa/internal/provider"
)

// FuzzLexicalVector: any text (document text is untrusted) gets a finite
// unit vector of the right length, the same one every time.
func FuzzLexicalVector(f *testing.F) {
	for _, s := range []string{"", "Engine oil 5W-30.", "发动机机油", "ＡＢＣ", "\xff\xfe", "a\u0301b", strings.Repeat("x", 1000)} {
		f.Add(s)
	}
	e := provider.NewLexicalEmbedder()
	f.Fuzz(func(t *testing.T, s string) {
		v := e.Vector(s)
		if len(v) != docqa.Dimension {
			t.Fatalf("%d dimensions", len(v))
		}
		var sum float64
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				t.Fatalf("non-finite component for %q", s)
			}
			sum += float64(x) * float64(x)
		}
		if math.Abs(sum-1) > 1e-4 {
			t.Fatalf("squared norm %f for %q", sum, s)
		}
		w := e.Vector(s)
		for i := range v {
			if v[i] != w[i] {
				t.Fatalf("not deterministic for %q", s)
			}
		}
	})
}

// FuzzExtractiveChat: any passage text and question give an answer of valid
// UTF-8 pieces that each name the passage's file and page.
func FuzzExtractiveChat(f *testing.F) {
	f.Add("Change the oil. Rotate tyres!", "oil?")
	f.Add("机油每15000公里更换。轮胎换位。", "机油")
	f.Add("3.5 l. \n\n\n ...", "")
	f.Add("\xff\xfe.", "\xff")
	c := provider.NewExtractiveChat(nil)
	f.Fuzz(func(t *testing.T, text, question string) {
		req := docqa.ChatRequest{
			Messages: []docqa.Message{{Role: docqa.RoleUser, Content: question}},
			Question: question,
			Sources: []docqa.ScoredChunk{{
				Chunk:    docqa.Chunk{Page: 7, Text: text},
				Document: docqa.Document{FileName: "f.pdf"},
			}},
		}
		var pieces []string
		finish, err := c.Stream(context.Background(), req, func(s string) error {
			pieces = append(pieces, s)
			return nil
		})
		if err != nil || finish != "stop" || len(pieces) != 1 {
			t.Fatalf("finish %q err %v pieces %q", finish, err, pieces)
		}
		p := pieces[0]
		if p != provider.NoSourcesAnswer && !strings.HasPrefix(p, "[1] f.pdf, p. 7: ") {
			t.Fatalf("piece %q", p)
		}
		if utf8.ValidString(text) && !utf8.ValidString(p) {
			t.Fatalf("invalid UTF-8 from valid input: %q", p)
		}
		if utf8.RuneCountInString(p) > 450 {
			t.Fatalf("quote of %d characters", utf8.RuneCountInString(p))
		}
	})
}
