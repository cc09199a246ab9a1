package answer

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/services/docqa/internal/docqa"
)

// writer is a chat model that writes: it streams pieces and records the
// request it was asked.
type writer struct {
	pieces []string
	err    error
	got    docqa.ChatRequest
}

func (w *writer) Name() string { return "writer" }

func (w *writer) Stream(_ context.Context, req docqa.ChatRequest, onDelta func(string) error) (string, error) {
	w.got = req
	for _, p := range w.pieces {
		if err := onDelta(p); err != nil {
			return "", err
		}
	}
	if w.err != nil {
		return "", w.err
	}
	return "stop", nil
}

// quoter quotes the given positions of the sources, whatever the question.
type quoter struct {
	writer
	quotes []docqa.Quote
}

func (q *quoter) Quoted(context.Context, string, []docqa.ScoredChunk) []docqa.Quote { return q.quotes }

var _ docqa.Quoter = (*quoter)(nil)

// hit is a retrieved passage of document md5's page.
func hit(id, md5 string, page int, text string) docqa.ScoredChunk {
	return docqa.ScoredChunk{Chunk: docqa.Chunk{ID: id, Page: page, Text: text}, Document: docqa.Document{FileMD5: md5, FileName: md5 + ".pdf"}}
}

func ids(hits []docqa.ScoredChunk) []string {
	out := []string{}
	for _, h := range hits {
		out = append(out, h.Chunk.ID)
	}
	return out
}

var manual = []docqa.ScoredChunk{
	hit("a", "m1", 1, "Change the engine oil every 15000 km or once a year."),
	hit("b", "m1", 2, "Tyre pressure front 2.3 bar, rear 2.5 bar, when the tyres are cold."),
	hit("c", "m2", 7, "The coolant is a mixture of water and antifreeze for the engine."),
}

func TestQueryValidate(t *testing.T) {
	ok := Query{Question: "How often do I change the oil?", TopK: DefaultTopK}
	md5 := strings.Repeat("a", 32)
	for _, tc := range []struct {
		name   string
		edit   func(q *Query)
		fields []string // the members the one error names, in order; none: valid
	}{
		{"valid", func(*Query) {}, nil},
		{"valid at every bound", func(q *Query) {
			q.Question, q.TopK = strings.Repeat("ö", MaxQuestionChars), MaxTopK
			q.History = slices.Repeat([]docqa.Message{{Role: docqa.RoleAssistant, Content: strings.Repeat("x", MaxHistoryChars)}}, MaxHistoryItems)
			q.Documents = slices.Repeat([]string{md5}, MaxDocuments)
		}, nil},
		{"blank question", func(q *Query) { q.Question = " \n\t" }, []string{"question"}},
		{"long question", func(q *Query) { q.Question = strings.Repeat("x", MaxQuestionChars+1) }, []string{"question"}},
		{"topK 0", func(q *Query) { q.TopK = 0 }, []string{"topK"}},
		{"topK past the bound", func(q *Query) { q.TopK = MaxTopK + 1 }, []string{"topK"}},
		{"too many turns, named once", func(q *Query) {
			q.History = slices.Repeat([]docqa.Message{{Role: "robot"}}, MaxHistoryItems+1)
		}, []string{"history"}},
		{"bad turns", func(q *Query) {
			q.History = []docqa.Message{{Role: docqa.RoleUser}, {Role: docqa.RoleSystem, Content: strings.Repeat("x", MaxHistoryChars+1)}}
		}, []string{"history[1].role", "history[1].content"}},
		{"too many documents", func(q *Query) { q.Documents = slices.Repeat([]string{md5}, MaxDocuments+1) }, []string{"documents"}},
		{"not an md5", func(q *Query) { q.Documents = []string{md5, strings.ToUpper(md5)} }, []string{"documents[1]"}},
		{"every member wrong", func(q *Query) {
			q.Question, q.TopK, q.History, q.Documents = "", -1, []docqa.Message{{Role: "x"}}, []string{"x"}
		}, []string{"question", "topK", "history[0].role", "documents[0]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := ok
			tc.edit(&q)
			err := q.Validate()
			if len(tc.fields) == 0 {
				if err != nil {
					t.Fatalf("Validate = %v, want nil", err)
				}
				return
			}
			var e *apperr.Error
			if !errors.As(err, &e) || e.Code != apperr.InvalidArgument || e.Field != tc.fields[0] {
				t.Fatalf("Validate = %v, want one INVALID_ARGUMENT naming %v", err, tc.fields)
			}
			parts := strings.Split(e.Message, "; ")
			if len(parts) != len(tc.fields) {
				t.Fatalf("message %q names %d members, want %v", e.Message, len(parts), tc.fields)
			}
			for i, f := range tc.fields {
				if !strings.HasPrefix(parts[i], f+": ") {
					t.Errorf("member %d of %q is not %s", i, e.Message, f)
				}
			}
		})
	}
}

func TestPrepare(t *testing.T) {
	for _, tc := range []struct {
		name      string
		chat      docqa.ChatModel
		question  string
		hits      []docqa.ScoredChunk
		mode      Mode
		notice    Notice
		sources   []string
		more      []string
		scripts   []string
		languages []string
	}{
		{name: "a writing model cites every hit", chat: &writer{}, question: "机油多久换一次？", hits: manual,
			mode: ModeAnswer, sources: []string{"a", "b", "c"}, more: []string{}},
		{name: "quotes in the order quoted, the rest under more",
			chat:     &quoter{quotes: []docqa.Quote{{Index: 2}, {Index: 0}, {Index: 0}, {Index: 9}, {Index: -1}}},
			question: "What is the coolant and the oil interval?", hits: manual,
			mode: ModeQuotes, sources: []string{"c", "a"}, more: []string{"b"}},
		{name: "nothing worth quoting is no_match", chat: &quoter{}, question: "How do I reset the service indicator?", hits: manual,
			mode: ModeQuotes, notice: NoticeNoMatch, sources: []string{}, more: []string{"a", "b", "c"}},
		{name: "nothing retrieved is no notice", chat: &quoter{}, question: "How do I reset the service indicator?",
			mode: ModeQuotes, sources: []string{}, more: []string{}},
		{name: "another script quotes nothing", chat: &quoter{quotes: []docqa.Quote{{Index: 0}}}, question: "机油多久换一次？", hits: manual,
			mode: ModeQuotes, notice: NoticeOtherScript, sources: []string{}, more: []string{"a", "b", "c"}, scripts: []string{"Latin"}},
		{name: "another language quotes nothing", chat: &quoter{quotes: []docqa.Quote{{Index: 0}}},
			question: "Wie oft muss ich das Motoröl bei meinem Auto wechseln lassen?", hits: manual,
			mode: ModeQuotes, notice: NoticeOtherLanguage, sources: []string{}, more: []string{"a", "b", "c"}, languages: []string{"en"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := New(Config{Chat: tc.chat}).Prepare(context.Background(), tc.question, tc.hits)
			if p.Mode != tc.mode || p.Notice != tc.notice {
				t.Errorf("mode, notice = %q, %q; want %q, %q", p.Mode, p.Notice, tc.mode, tc.notice)
			}
			if got := ids(p.Sources); !slices.Equal(got, tc.sources) {
				t.Errorf("sources = %v, want %v", got, tc.sources)
			}
			if got := ids(p.More); !slices.Equal(got, tc.more) {
				t.Errorf("more = %v, want %v", got, tc.more)
			}
			if !slices.Equal(p.Scripts, tc.scripts) || !slices.Equal(p.Languages, tc.languages) {
				t.Errorf("scripts, languages = %v, %v; want %v, %v", p.Scripts, p.Languages, tc.scripts, tc.languages)
			}
			if (p.NoticeAnswer() != "") != (tc.notice != "") {
				t.Errorf("NoticeAnswer = %q with notice %q", p.NoticeAnswer(), tc.notice)
			}
		})
	}
}

func TestNoticeAnswerNamesWhatThePassagesAreIn(t *testing.T) {
	for _, tc := range []struct {
		plan Plan
		want string
	}{
		{Plan{Notice: NoticeOtherScript, Scripts: []string{"Latin"}}, "are in Latin script, not in the question's"},
		{Plan{Notice: NoticeOtherScript, Scripts: []string{"Latin", "Cyrillic", "Greek"}}, "are in Latin, Cyrillic and Greek script,"},
		{Plan{Notice: NoticeOtherLanguage, Languages: []string{"en", "de"}}, "are in English and German, not in the question's language"},
		{Plan{Notice: NoticeNoMatch}, "do not seem to cover this question"},
	} {
		if got := tc.plan.NoticeAnswer(); !strings.Contains(got, tc.want) {
			t.Errorf("%q: NoticeAnswer = %q, want it to hold %q", tc.plan.Notice, got, tc.want)
		}
	}
}

func TestWrite(t *testing.T) {
	q := Query{Question: "How often is the oil changed, and the tyre pressure?", TopK: 3,
		History: []docqa.Message{{Role: docqa.RoleUser, Content: "earlier"}}}
	t.Run("a writing model's citations, one per page", func(t *testing.T) {
		sources := append(slices.Clone(manual), hit("a2", "m1", 1, "More of page one."))
		w := &writer{pieces: []string{"Every 15000 km [4][1]; ", "2.3 bar [2, 9] [0]", " and [3，2]."}}
		s := New(Config{Chat: w, Temperature: 0.3, CountTokens: func(s string) int { return len(s) }})
		var got strings.Builder
		finish, used, err := s.Write(context.Background(), q, Plan{Mode: ModeAnswer, Sources: sources}, func(c string) error {
			got.WriteString(c)
			return nil
		})
		if err != nil || finish != "stop" {
			t.Fatalf("Write = %q, %v", finish, err)
		}
		if want := strings.Join(w.pieces, ""); got.String() != want {
			t.Errorf("emitted %q, want %q", got.String(), want)
		}
		// [4] and [1] are page 1 of m1: the first cited stands for both.
		if want := []int{4, 2, 3}; !slices.Equal(used, want) {
			t.Errorf("used = %v, want %v", used, want)
		}
		if len(w.got.Messages) == 0 || w.got.Temperature != 0.3 || w.got.Question != q.Question || len(w.got.Sources) != 4 {
			t.Errorf("request = %+v; want the prompt, the temperature, the question and the 4 sources", w.got)
		}
	})
	t.Run("quotes use every source, one per page, and get no prompt", func(t *testing.T) {
		sources := []docqa.ScoredChunk{manual[1], manual[0], hit("a2", "m1", 1, "More of page one.")}
		w := &quoter{writer: writer{pieces: []string{"> quoted [1]"}}}
		_, used, err := New(Config{Chat: w}).Write(context.Background(), q, Plan{Mode: ModeQuotes, Sources: sources}, func(string) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		if want := []int{1, 2}; !slices.Equal(used, want) {
			t.Errorf("used = %v, want %v", used, want)
		}
		if w.got.Messages != nil || len(w.got.Sources) != 3 {
			t.Errorf("request = %+v; want no messages and the 3 sources", w.got)
		}
	})
	t.Run("nothing cited is an empty list", func(t *testing.T) {
		s := New(Config{Chat: &writer{pieces: []string{"no citation [x]"}}, CountTokens: func(s string) int { return len(s) }})
		_, used, err := s.Write(context.Background(), q, Plan{Mode: ModeAnswer, Sources: manual}, func(string) error { return nil })
		if err != nil || used == nil || len(used) != 0 {
			t.Errorf("used, err = %#v, %v; want [] and nil", used, err)
		}
	})
	t.Run("the model's and emit's errors", func(t *testing.T) {
		q := Query{Question: q.Question, TopK: q.TopK}
		down := errors.New("model down")
		if _, _, err := New(Config{Chat: &writer{err: down}}).Write(context.Background(), q, Plan{Mode: ModeAnswer}, func(string) error { return nil }); !errors.Is(err, down) {
			t.Errorf("model failure: err = %v", err)
		}
		gone := errors.New("client gone")
		if _, _, err := New(Config{Chat: &writer{pieces: []string{"x"}}}).Write(context.Background(), q, Plan{Mode: ModeAnswer}, func(string) error { return gone }); !errors.Is(err, gone) {
			t.Errorf("emit failure: err = %v", err)
		}
	})
}
