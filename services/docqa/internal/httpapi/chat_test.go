package httpapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/carhub/backend/services/docqa/internal/ingest/ingesttest"
	"github.com/carhub/backend/services/docqa/internal/openaifake"
	"github.com/carhub/backend/services/docqa/internal/retrieval"
)

type sourceData struct {
	DocID      string  `json:"docId"`
	FileName   string  `json:"fileName"`
	FileMD5    string  `json:"fileMd5"`
	Page       int     `json:"page"`
	ChunkIndex int     `json:"chunkIndex"`
	Score      float64 `json:"score"`
	Text       string  `json:"text"`
}

type sourcesData struct {
	Mode    string       `json:"mode"`
	More    []sourceData `json:"more"`
	Sources []sourceData `json:"sources"`
}

// twelvePages stores a document of twelve one-chunk pages.
func twelvePages(t *testing.T, s *service) {
	t.Helper()
	pages := make([]string, 12)
	for i := range pages {
		pages[i] = fmt.Sprintf("Page %d of the service manual: check item number %d at every inspection.", i+1, i+1)
	}
	if res := s.uploadPDF(t, "twelve.pdf", ingesttest.PDF(pages...)); res.Chunks != 12 {
		t.Fatalf("stored %d chunks, want 12", res.Chunks)
	}
}

func TestChatStream(t *testing.T) {
	forEachAuthMode(t, func(t *testing.T, accounts bool) {
		answer := []string{"Change the oil ", "every 15000 km.\nSecond line: ", "Grüße, 世界 🚗", "\n\n", "\"quoted\" \\ end"}
		s := newService(t, options{accounts: accounts, fake: []openaifake.Option{openaifake.WithScript(openaifake.Script{
			Deltas: openaifake.Text(answer...), FinishReason: "stop",
		})}})
		doc := s.uploadPDF(t, "manual.pdf", manual("iota"))

		events := withoutComments(readEvents(t, s.chat(t, `{"question":"How often do I change the oil?","topK":5}`)))
		if len(events) != len(answer)+2 {
			t.Fatalf("events = %+v", events)
		}
		if events[0].Name != "sources" {
			t.Fatalf("first event = %+v", events[0])
		}
		var src sourcesData
		unmarshal(t, events[0].Data, &src)
		if len(src.Sources) != 2 || src.Mode != "answer" {
			t.Fatalf("sources = %+v", src)
		}
		for i, h := range src.Sources {
			if h.FileName != "manual.pdf" || h.FileMD5 != doc.FileMD5 || h.Page != h.ChunkIndex+1 || h.DocID == "" || h.Text == "" ||
				(i > 0 && h.Score > src.Sources[i-1].Score) {
				t.Errorf("source %d = %+v", i, h)
			}
		}
		var got strings.Builder
		for i, ev := range events[1 : len(events)-1] {
			var c struct{ Content string }
			unmarshal(t, ev.Data, &c)
			if ev.Name != "" || c.Content != answer[i] {
				t.Errorf("content event %d = %+v, want %q", i, ev, answer[i])
			}
			got.WriteString(c.Content)
		}
		last := events[len(events)-1]
		if last.Name != "done" || last.Data != `{"finishReason":"stop","used":[]}` {
			t.Errorf("last event = %+v", last)
		}

		req, ok := s.fake.LastChatRequest()
		if !ok || req.Model != "chat-model" || req.Temperature == nil || *req.Temperature != 0.7 || !req.Stream {
			t.Fatalf("provider request = %+v", req)
		}
		user := req.Messages[len(req.Messages)-1]
		if user.Role != "user" || !strings.Contains(user.Content, "How often do I change the oil?") || !strings.Contains(user.Content, "engine oil") {
			t.Errorf("prompt = %+v", user)
		}
	})
}

func TestChatTopK(t *testing.T) {
	forEachAuthMode(t, func(t *testing.T, accounts bool) {
		s := newService(t, options{accounts: accounts})
		twelvePages(t, s)
		tests := []struct {
			body string
			want int
		}{
			{`{"question":"inspection item"}`, 10},
			{`{"question":"inspection item","topK":null}`, 10},
			{`{"question":"inspection item","topK":1}`, 1},
			{`{"question":"inspection item","topK":3}`, 3},
			{`{"question":"inspection item","topK":100}`, 12},
		}
		for _, tt := range tests {
			t.Run(tt.body, func(t *testing.T) {
				events := withoutComments(readEvents(t, s.chat(t, tt.body)))
				var src sourcesData
				unmarshal(t, events[0].Data, &src)
				if len(src.Sources) != tt.want {
					t.Errorf("%d sources, want %d", len(src.Sources), tt.want)
				}
			})
		}
	})
}

func TestChatBadRequests(t *testing.T) {
	forEachAuthMode(t, func(t *testing.T, accounts bool) {
		s := newService(t, options{accounts: accounts})
		tests := []struct {
			body, msg string
		}{
			{`{}`, "question: is required"},
			{`{"question":"   \n\t"}`, "question: is required"},
			{`{"question":""}`, "question: is required"},
			{`{"message":" "}`, "question: is required"},
			{`{"question":"` + strings.Repeat("é", 8001) + `"}`, "question: must be at most 8000"},
			{`{"question":42}`, "question: must be a string"},
			{`{"question":"q","topK":0}`, "topK: must be an integer from 1 to 100"},
			{`{"question":"q","topK":101}`, "topK: must be an integer from 1 to 100"},
			{`{"question":"q","topK":-3}`, "topK:"},
			{`{"question":"q","topK":5.0}`, "topK: must be an integer"},
			{`{"question":"q","topK":5.5}`, "topK: must be an integer"},
			{`{"question":"q","topK":"5"}`, "topK: must be an integer"},
			{`{"question":"q","topK":1e2}`, "topK: must be an integer"},
			{`{"question":"q","history":[{"role":"system","content":"x"}]}`, "history[0].role"},
			{`{"question":"q","history":[{"role":"user","content":"a"},{"role":"tool","content":"x"}]}`, "history[1].role"},
			{`{"question":"q","history":[{"content":"x"}]}`, "history[0].role"},
			{`{"question":"q","history":{"role":"user"}}`, "history: must be an array"},
			{`{"question":"q"`, "malformed JSON"},
			{`[]`, "JSON object"},
			{``, "JSON object"},
			{`{"question":"q"} {"question":"r"}`, "single JSON object"},
			{`{"question":"q","documents":"0cc175b9c0f1b6a831c399e269772661"}`, "documents: must be an array"},
			{`{"question":"q","documents":["0CC175B9C0F1B6A831C399E269772661"]}`, "documents[0]: must be a document's fileMd5"},
			{`{"question":"q","documents":["0cc175b9c0f1b6a831c399e269772661","x"]}`, "documents[1]: must be a document's fileMd5"},
			{`{"question":"q","documents":[` + strings.Repeat(`"0cc175b9c0f1b6a831c399e269772661",`, 100) + `"0cc175b9c0f1b6a831c399e269772661"]}`,
				"documents: must name at most 100"},
			{`{"question":"q","documents":["0cc175b9c0f1b6a831c399e269772661"]}`, "documents[0]: no stored document has fileMd5 0cc175b9c0f1b6a831c399e269772661"},
			// Every bad member in one answer, in order.
			{`{"question":" ","topK":0,"history":[{"role":"user","content":"a"},{"role":"tool","content":"x"},{"role":"system","content":"y"}],` +
				`"documents":["0cc175b9c0f1b6a831c399e269772661","x"]}`,
				`question: is required and must not be blank; topK: must be an integer from 1 to 100; history[1].role: must be "user" or "assistant"; ` +
					`history[2].role: must be "user" or "assistant"; documents[1]: must be a document's fileMd5 (32 lowercase hex digits)`},
		}
		for _, tt := range tests {
			t.Run(tt.body[:min(len(tt.body), 40)], func(t *testing.T) {
				wantError(t, s.chat(t, tt.body), http.StatusBadRequest, "INVALID_ARGUMENT", tt.msg)
			})
		}
		if n := len(s.fake.ChatRequests()); n != 0 {
			t.Errorf("%d chat calls for bad requests", n)
		}
		if n := len(s.fake.EmbeddingRequests()); n != 0 {
			t.Errorf("%d embedding calls for bad requests", n)
		}
	})
}

// The history's bounds: at most 40 turns of at most 16000 characters each;
// a body over them is one 400 that names each bad member, exactly.
func TestChatHistoryLimits(t *testing.T) {
	s := newService(t, options{local: true})
	s.uploadPDF(t, "manual.pdf", manual("limits"))
	turn := func(role, content string) map[string]string {
		return map[string]string{"role": role, "content": content}
	}
	body := func(question string, history ...map[string]string) string {
		b, err := json.Marshal(map[string]any{"question": question, "history": history})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	full := strings.Repeat("é", 16000)
	most := make([]map[string]string, 40)
	for i := range most {
		most[i] = turn([]string{"user", "assistant"}[i%2], full)
	}
	t.Run("at the limits", func(t *testing.T) {
		events := withoutComments(readEvents(t, s.chat(t, body("oil?", most...))))
		if last := events[len(events)-1]; last.Name != "done" {
			t.Fatalf("last event = %+v", last)
		}
	})
	for _, tt := range []struct {
		name, body, msg string
	}{
		{"41 turns", body("oil?", append(most, turn("user", "one more"))...), "history: must hold at most 40 turns (got 41)"},
		{"a turn too long", body("oil?", turn("user", "short"), turn("assistant", full+"é")),
			"history[1].content: must be at most 16000 characters (got 16001)"},
		{"several members", body(" ", turn("user", full+"ab"), turn("tool", full+"a"), turn("user", "fine")),
			"question: is required and must not be blank; history[0].content: must be at most 16000 characters (got 16002); " +
				`history[1].role: must be "user" or "assistant"; history[1].content: must be at most 16000 characters (got 16001)`},
		{"too many turns and a bad question", body(strings.Repeat("q", 8001), append(most, turn("tool", full+"a"))...),
			"question: must be at most 8000 characters (got 8001); history: must hold at most 40 turns (got 41)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var e errorBody
			decode(t, s.chat(t, tt.body), http.StatusBadRequest, &e)
			if e.Code != "INVALID_ARGUMENT" || e.Message != tt.msg {
				t.Errorf("error = %+v, want %q", e, tt.msg)
			}
		})
	}
}

func TestChatQuestionAliasAndHistory(t *testing.T) {
	forEachAuthMode(t, func(t *testing.T, accounts bool) {
		s := newService(t, options{accounts: accounts})
		s.uploadPDF(t, "manual.pdf", manual("kappa"))

		readEvents(t, s.chat(t, `{"message":"What does the alias ask?"}`))
		req, _ := s.fake.LastChatRequest()
		if !strings.Contains(req.Messages[len(req.Messages)-1].Content, "What does the alias ask?") {
			t.Errorf("alias not used: %+v", req.Messages)
		}

		readEvents(t, s.chat(t, `{"question":"The question wins","message":"the alias loses","history":[
		{"role":"user","content":"What is the tyre pressure?"},
		{"role":"assistant","content":"2.4 bar at the front."}]}`))
		req, _ = s.fake.LastChatRequest()
		last := req.Messages[len(req.Messages)-1].Content
		if !strings.Contains(last, "The question wins") || strings.Contains(last, "the alias loses") {
			t.Errorf("question did not win: %q", last)
		}
		var roles []string
		var turns []string
		for _, m := range req.Messages {
			roles = append(roles, m.Role)
			turns = append(turns, m.Content)
		}
		want := []string{"system", "user", "assistant", "user"}
		if strings.Join(roles, ",") != strings.Join(want, ",") || turns[1] != "What is the tyre pressure?" || turns[2] != "2.4 bar at the front." {
			t.Errorf("messages = %v %q", roles, turns)
		}
	})
}

func TestChatEmbeddingProviderDownIs503(t *testing.T) {
	forEachAuthMode(t, func(t *testing.T, accounts bool) {
		s := newService(t, options{accounts: accounts})
		for _, status := range []int{500, 502, 401, 429} {
			s.fake.FailEmbeddings(openaifake.Failure{Status: status})
			wantError(t, s.chat(t, `{"question":"anything"}`), http.StatusServiceUnavailable, "UNAVAILABLE", "unavailable")
		}
		if n := len(s.fake.ChatRequests()); n != 0 {
			t.Errorf("%d chat calls without retrieval", n)
		}
	})
}

// TestChatStoreFailureBeforeStream: a vector store that fails during
// retrieval is UNAVAILABLE (proto-docs/contract.md, "Chat request"), answered as JSON before any stream.
func TestChatStoreFailureBeforeStream(t *testing.T) {
	forEachAuthMode(t, func(t *testing.T, accounts bool) {
		s := newService(t, options{accounts: accounts})
		must(t, s.store.Close())
		wantError(t, s.chat(t, `{"question":"anything"}`), http.StatusServiceUnavailable, "UNAVAILABLE", "vector store")
	})
}

// TestChatProviderFailures: failures of the chat provider come after the
// sources event, as a terminal error event.
func TestChatProviderFailures(t *testing.T) {
	forEachAuthMode(t, func(t *testing.T, accounts bool) {
		tests := []struct {
			name     string
			failure  openaifake.Failure
			contents int
		}{
			{"500", openaifake.Failure{Status: 500}, 0},
			{"400", openaifake.Failure{Status: 400, Message: "bad request"}, 0},
			{"401", openaifake.Failure{Status: 401}, 0},
			{"429", openaifake.Failure{Status: 429}, 0},
			{"malformed frame", openaifake.Failure{Malformed: true, AfterDeltas: 2}, 2},
			{"hang before first byte", openaifake.Failure{Hang: true}, 0},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				s := newService(t, options{accounts: accounts, firstByte: 300 * time.Millisecond})
				s.fake.FailChat(tt.failure)
				events := withoutComments(readEvents(t, s.chat(t, `{"question":"what?"}`)))
				if len(events) != tt.contents+2 || events[0].Name != "sources" {
					t.Fatalf("events = %+v", events)
				}
				for _, ev := range events[1 : len(events)-1] {
					if ev.Name != "" {
						t.Errorf("unexpected %+v", ev)
					}
				}
				last := events[len(events)-1]
				var e errorBody
				unmarshal(t, last.Data, &e)
				if last.Name != "error" || e.Code != "UNAVAILABLE" || e.Message == "" {
					t.Errorf("last event = %+v", last)
				}
			})
		}
	})
}

// TestChatHangAfterDeltasTimesOut: a provider that stalls mid-answer is cut
// by the chat timeout and the stream ends with an error event.
func TestChatHangAfterDeltasTimesOut(t *testing.T) {
	forEachAuthMode(t, func(t *testing.T, accounts bool) {
		s := newService(t, options{accounts: accounts, chatTimeout: 500 * time.Millisecond})
		s.fake.FailChat(openaifake.Failure{Hang: true, AfterDeltas: 1})
		events := withoutComments(readEvents(t, s.chat(t, `{"question":"q"}`)))
		if len(events) != 3 || events[0].Name != "sources" || events[1].Name != "" || events[2].Name != "error" {
			t.Fatalf("events = %+v", events)
		}
		var e errorBody
		unmarshal(t, events[2].Data, &e)
		if e.Code != "UNAVAILABLE" {
			t.Errorf("error = %+v", e)
		}
	})
}

// TestChatHeartbeatWhileWaiting: comments keep the stream alive while the
// provider thinks.
func TestChatHeartbeatWhileWaiting(t *testing.T) {
	forEachAuthMode(t, func(t *testing.T, accounts bool) {
		s := newService(t, options{accounts: accounts, heartbeat: 5 * time.Millisecond, fake: []openaifake.Option{openaifake.WithScript(openaifake.Script{
			Deltas: []openaifake.Delta{{Content: "late", Delay: 200 * time.Millisecond}},
		})}})
		events := readEvents(t, s.chat(t, `{"question":"slow?"}`))
		pings := 0
		for i, ev := range events {
			if ev.Comment != "" {
				if ev.Comment != "ping" || i == 0 {
					t.Errorf("comment %d = %+v", i, ev)
				}
				pings++
			}
		}
		if pings == 0 {
			t.Errorf("no heartbeat in %+v", events)
		}
		rest := withoutComments(events)
		if len(rest) != 3 || rest[2].Name != "done" {
			t.Errorf("events = %+v", rest)
		}
	})
}

// TestChatClientDisconnectCancelsProvider: the client reads the first piece
// of the answer and goes away; the provider request must be cancelled.
func TestChatClientDisconnectCancelsProvider(t *testing.T) {
	forEachAuthMode(t, func(t *testing.T, accounts bool) {
		s := newService(t, options{accounts: accounts, fake: []openaifake.Option{openaifake.WithScript(openaifake.Script{
			Deltas: openaifake.Text("first", "never sent"),
		})}})
		s.fake.FailChat(openaifake.Failure{Hang: true, AfterDeltas: 1})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/api/chat/stream", strings.NewReader(`{"question":"q"}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := s.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		r := newEventReader(resp.Body)
		for {
			ev, err := r.next()
			if err != nil {
				t.Fatal(err)
			}
			if ev.Name == "" && ev.Comment == "" {
				if !strings.Contains(ev.Data, "first") {
					t.Fatalf("first content = %+v", ev)
				}
				break
			}
		}
		cancel()
		resp.Body.Close()
		select {
		case <-s.fake.Cancelled():
		case <-time.After(10 * time.Second): // a guard against hanging, not a timing assertion
			t.Fatal("the provider request was not cancelled after the client went away")
		}
		last, _ := s.fake.LastChatRequest()
		if !last.Cancelled || last.Completed {
			t.Errorf("provider request = %+v", last)
		}
	})
}

// A question limited to one manual gets its sources from that manual only,
// as many as topK asks, though the other manual holds the same words.
func TestChatDocuments(t *testing.T) {
	forEachAuthMode(t, func(t *testing.T, accounts bool) {
		s := newService(t, options{accounts: accounts, local: true, writing: true})
		alpha := s.uploadPDF(t, "alpha.pdf", manual("alpha"))
		beta := s.uploadPDF(t, "beta.pdf", manual("beta"))
		for _, tc := range []struct {
			body string
			want []string
		}{
			// Both tyre pages first: the question's words are on them.
			{`{"question":"alpha manual tyre pressure","topK":2}`, []string{alpha.FileMD5, beta.FileMD5}},
			{`{"question":"alpha manual tyre pressure","topK":2,"documents":["` + beta.FileMD5 + `"]}`, []string{beta.FileMD5, beta.FileMD5}},
			{`{"question":"alpha manual tyre pressure","topK":4,"documents":["` + beta.FileMD5 + `","` + alpha.FileMD5 + `"]}`,
				[]string{alpha.FileMD5, beta.FileMD5, alpha.FileMD5, beta.FileMD5}},
			{`{"question":"alpha manual tyre pressure","topK":3,"documents":[]}`, []string{alpha.FileMD5, beta.FileMD5, alpha.FileMD5}},
		} {
			events := withoutComments(readEvents(t, s.chat(t, tc.body)))
			var src sourcesData
			unmarshal(t, events[0].Data, &src)
			var got []string
			for _, h := range src.Sources {
				got = append(got, h.FileMD5)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("%s: sources from %v, want %v", tc.body, got, tc.want)
			}
			// The tyre page first: the question's words are on it.
			if src.Sources[0].Page != 2 {
				t.Errorf("%s: first source is page %d, want 2", tc.body, src.Sources[0].Page)
			}
		}
	})
}

func TestChatLocalFallback(t *testing.T) {
	forEachAuthMode(t, func(t *testing.T, accounts bool) {
		s := newService(t, options{accounts: accounts, local: true})
		s.uploadPDF(t, "manual.pdf", manual("lambda"))
		events := withoutComments(readEvents(t, s.chat(t, `{"question":"What is the tyre pressure?","topK":2}`)))
		if events[0].Name != "sources" || events[len(events)-1].Name != "done" || len(events) < 3 {
			t.Fatalf("events = %+v", events)
		}
		var src sourcesData
		unmarshal(t, events[0].Data, &src)
		if src.Mode != "quotes" {
			t.Errorf("mode = %q, want quotes: no chat model is configured", src.Mode)
		}
		var answer strings.Builder
		for _, ev := range events[1 : len(events)-1] {
			var c struct{ Content string }
			unmarshal(t, ev.Data, &c)
			answer.WriteString(c.Content)
		}
		if !strings.Contains(answer.String(), "2.4 bar") {
			t.Errorf("extractive answer = %q", answer.String())
		}
	})
}

// TestHealth: /health says which parts serve; it is asked without an
// identity in both modes, as a probe asks it.
func TestHealth(t *testing.T) {
	forEachAuthMode(t, func(t *testing.T, accounts bool) {
		s := newService(t, options{accounts: accounts})
		var h struct {
			Status         string
			Time           time.Time
			Store          struct{ Kind, Status string }
			Embedder, Chat struct{ Name, Mode string }
			Retrieval      struct {
				Mode, Reason, Serving, Reranker string
				LexicalIndex                    bool
			}
		}
		decode(t, s.anonymous(t, "/health"), http.StatusOK, &h)
		if h.Retrieval.Mode != "hybrid" || h.Retrieval.Serving != "hybrid" || !h.Retrieval.LexicalIndex || h.Retrieval.Reranker != "" ||
			h.Retrieval.Reason != "embedding model configured: hybrid (reciprocal rank fusion of BM25 and vector rankings)" {
			t.Errorf("health retrieval = %+v", h.Retrieval)
		}
		if h.Status != "ok" || !h.Time.Equal(testNow) || h.Store.Kind != "embedded" || h.Store.Status != "ok" ||
			h.Embedder.Name != "openai:bge-m3" || h.Embedder.Mode != "remote" || h.Chat.Name != "openai:chat-model" {
			t.Errorf("health = %+v", h)
		}
		local := newService(t, options{accounts: accounts, local: true})
		decode(t, local.anonymous(t, "/health"), http.StatusOK, &h)
		if h.Embedder.Mode != "local" || h.Chat.Mode != "local" || h.Embedder.Name != "lexical:v1" {
			t.Errorf("local health = %+v", h)
		}
		// The local embedder's default mode, and why.
		if want, reason := retrieval.DefaultMode(true); h.Retrieval.Mode != string(want) || h.Retrieval.Serving != string(want) ||
			h.Retrieval.Reason != reason || want != retrieval.LocalDefault {
			t.Errorf("local health retrieval = %+v", h.Retrieval)
		}

		must(t, s.store.Close())
		decode(t, s.anonymous(t, "/health"), http.StatusServiceUnavailable, &h)
		if h.Status != "unavailable" || h.Store.Status != "unavailable" {
			t.Errorf("health with the store down = %+v", h)
		}
	})
}

// engineState stands in for the PDF engine's readiness.
type engineState struct {
	ready bool
	err   error
}

func (e engineState) Ready() (bool, error) { return e.ready, e.err }

// While the PDF engine starts, /health says so with 503 (a gateway sends
// no uploads yet); an engine that failed to start is unavailable.
func TestHealthWhilePDFEngineStarts(t *testing.T) {
	forEachAuthMode(t, func(t *testing.T, accounts bool) {
		var h struct {
			Status string
			PDF    struct{ Status string }
			Store  struct{ Status string }
		}
		for _, tc := range []struct {
			state        engineState
			code         int
			status, pdf  string
			storeDownToo bool
		}{
			{engineState{ready: false}, http.StatusServiceUnavailable, "starting", "starting", false},
			{engineState{err: errors.New("compile failed")}, http.StatusServiceUnavailable, "unavailable", "unavailable", false},
			{engineState{ready: true}, http.StatusOK, "ok", "ok", false},
			{engineState{ready: false}, http.StatusServiceUnavailable, "unavailable", "starting", true},
		} {
			s := newService(t, options{accounts: accounts, pdfReady: tc.state})
			if tc.storeDownToo {
				must(t, s.store.Close())
			}
			decode(t, s.anonymous(t, "/health"), tc.code, &h)
			if h.Status != tc.status || h.PDF.Status != tc.pdf {
				t.Errorf("%+v: health = %+v, want status %q, pdf %q", tc.state, h, tc.status, tc.pdf)
			}
		}
	})
}

func TestCORS(t *testing.T) {
	forEachAuthMode(t, func(t *testing.T, accounts bool) {
		s := newService(t, options{accounts: accounts})
		tests := []struct {
			origin  string
			allowed bool
		}{
			{"http://localhost:8081", true},
			{"http://localhost:5173", true},
			{"http://evil.example", false},
		}
		for _, tt := range tests {
			t.Run(tt.origin, func(t *testing.T) {
				req, _ := http.NewRequest(http.MethodOptions, s.URL+"/api/chat/stream", nil)
				req.Header.Set("Origin", tt.origin)
				req.Header.Set("Access-Control-Request-Method", "POST")
				req.Header.Set("Access-Control-Request-Headers", "content-type,x-request-id")
				// A browser's preflight carries no credentials: none in either mode.
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				h := resp.Header
				if !tt.allowed {
					if h.Get("Access-Control-Allow-Origin") != "" {
						t.Errorf("refused origin got %v", h)
					}
					return
				}
				if resp.StatusCode/100 != 2 || h.Get("Access-Control-Allow-Origin") != tt.origin ||
					h.Get("Access-Control-Allow-Credentials") != "true" ||
					!strings.Contains(strings.ToLower(h.Get("Access-Control-Allow-Headers")), "x-request-id") ||
					!strings.Contains(h.Get("Access-Control-Allow-Methods"), "POST") {
					t.Errorf("preflight = %d %v", resp.StatusCode, h)
				}
				// The actual request carries the grant too.
				req2, _ := http.NewRequest(http.MethodGet, s.URL+"/api/documents", nil)
				req2.Header.Set("Origin", tt.origin)
				resp2, err := s.client.Do(req2)
				if err != nil {
					t.Fatal(err)
				}
				resp2.Body.Close()
				if resp2.StatusCode != http.StatusOK || resp2.Header.Get("Access-Control-Allow-Origin") != tt.origin ||
					resp2.Header.Get("Access-Control-Allow-Credentials") != "true" {
					t.Errorf("GET = %d %v", resp2.StatusCode, resp2.Header)
				}
			})
		}
	})
}

func TestUnknownRoutesAreJSON404(t *testing.T) {
	forEachAuthMode(t, func(t *testing.T, accounts bool) {
		s := newService(t, options{accounts: accounts})
		wantError(t, s.get(t, "/api/nothing"), http.StatusNotFound, "NOT_FOUND", "")
		wantError(t, s.get(t, "/api/chat/stream"), http.StatusNotFound, "NOT_FOUND", "")
		resp := s.get(t, "/health")
		io.Copy(io.Discard, resp.Body)
		if resp.Header.Get("X-Request-ID") == "" {
			t.Error("no X-Request-ID")
		}
	})
}

// FuzzChatBody: whatever the body, the answer is a 200 stream or a JSON
// 4xx error, never a 500 or a panic. With turns > 0 the body is instead a
// question (the fuzzed body's text) and that many turns of history, every
// other one with the fuzzed role and each with content repeated: then the
// answer is a 200 stream exactly when question and history are within
// their bounds, and otherwise a 400 that names each bad member in order.
func FuzzChatBody(f *testing.F) {
	for _, seed := range []string{
		`{"question":"oil?"}`, `{"question":"q","topK":5}`, `{"message":"m","topK":100}`,
		`{"question":"q","history":[{"role":"user","content":"c"}]}`, `{"topK":5.0}`, `{"topK":"5"}`,
		`{"question":null,"message":null}`, `{"question":"q","history":[null]}`, `null`, `"str"`, `{`, ``,
		`{"question":"\u0000\ud800"}`, `{"question":"q","topK":1e400}`,
	} {
		f.Add(seed, uint8(0), "", "", uint16(0))
	}
	for _, h := range []struct {
		turns         uint8
		role, content string
		repeat        uint16
	}{
		{2, "user", "What is the tyre pressure?", 1}, {40, "user", "a", 16000}, {41, "assistant", "a", 1},
		{1, "user", "é", 16001}, {3, "tool", "\xff", 16000}, {47, "", "", 0}, {1, "user", " \n", 8000},
	} {
		f.Add("oil change interval?", h.turns, h.role, h.content, h.repeat)
	}
	f.Add(" ", uint8(5), "system", "ab", uint16(8001))
	s := newService(f, options{local: true})
	s.uploadPDF(f, "manual.pdf", manual("fuzz"))
	f.Fuzz(func(t *testing.T, body string, turns uint8, role, content string, repeat uint16) {
		var want []string // the members a 400 must name, in order; nil: any
		if turns %= maxTurns + 8; turns > 0 {
			body, want = historyBody(t, body, int(turns), role, content, int(repeat))
		}
		resp, err := http.Post(s.URL+"/api/chat/stream", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		switch resp.StatusCode {
		case http.StatusOK:
			if !strings.HasPrefix(string(b), "event: sources\n") || !strings.Contains(string(b), "event: done\n") {
				t.Fatalf("stream = %q", b)
			}
			if len(want) > 0 {
				t.Fatalf("a body that should name %v was answered 200", want)
			}
		case http.StatusBadRequest, http.StatusRequestEntityTooLarge:
			var e errorBody
			if err := json.Unmarshal(b, &e); err != nil || e.Code == "" || e.Message == "" {
				t.Fatalf("error body = %q", b)
			}
			if turns == 0 || resp.StatusCode == http.StatusRequestEntityTooLarge && len(body) > 4<<20 {
				break
			}
			var named []string
			for _, part := range strings.Split(e.Message, "; ") {
				field, _, _ := strings.Cut(part, ": ")
				named = append(named, field)
			}
			if !slices.Equal(named, want) {
				t.Fatalf("the error names %v, want %v: %s", named, want, e.Message)
			}
		default:
			t.Fatalf("status %d for %q: %s", resp.StatusCode, body, b)
		}
	})
}

// maxTurns and maxTurnChars are the history's bounds (answer.MaxHistoryItems
// and answer.MaxHistoryChars).
const maxTurns, maxTurnChars = 40, 16000

// historyBody is a chat body with question and turns of history, the even
// ones with role and the odd ones "assistant", each with content repeated
// (at most about 70 KB), and the members a 400 for it must name, in order:
// none when the body is within the bounds.
func historyBody(t *testing.T, question string, turns int, role, content string, repeat int) (string, []string) {
	t.Helper()
	if len(content) > 0 {
		content = strings.Repeat(content, min(repeat, 70_000/len(content)))
	}
	history := make([]map[string]string, turns)
	for i := range history {
		history[i] = map[string]string{"role": role, "content": content}
		if i%2 == 1 {
			history[i]["role"] = "assistant"
		}
	}
	b, err := json.Marshal(map[string]any{"question": question, "history": history})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	if q := utf8.RuneCountInString(question); strings.TrimSpace(question) == "" || q > 8000 {
		want = append(want, "question")
	}
	if turns > maxTurns {
		return string(b), append(want, "history")
	}
	for i, m := range history {
		if m["role"] != "user" && m["role"] != "assistant" {
			want = append(want, fmt.Sprintf("history[%d].role", i))
		}
		if utf8.RuneCountInString(m["content"]) > maxTurnChars {
			want = append(want, fmt.Sprintf("history[%d].content", i))
		}
	}
	return string(b), want
}

// TestChatQuotesListOnlyTheQuoted: without a chat model the sources event
// lists the quoted passages, numbered as the answer numbers them, and the
// rest of the retrieved under more; done says all are used.
func TestChatQuotesListOnlyTheQuoted(t *testing.T) {
	s := newService(t, options{local: true})
	twelvePages(t, s)
	events, src := sourcesThenThree(t, s, `{"question":"Which item do I check at every inspection?","topK":6}`)
	if src.Mode != "quotes" || len(src.Sources) != 3 || len(src.More) != 3 {
		t.Fatalf("sources event: mode %q, %d sources, %d more; want quotes, 3 quoted, the other 3 retrieved", src.Mode, len(src.Sources), len(src.More))
	}
	ids := map[string]bool{}
	for _, h := range src.Sources {
		ids[h.DocID] = true
	}
	for _, h := range src.More {
		ids[h.DocID] = true
	}
	if len(ids) != 6 {
		t.Errorf("sources and more hold %d distinct chunks, want the 6 retrieved", len(ids))
	}
	for i, ev := range events[1:4] {
		var c struct{ Content string }
		unmarshal(t, ev.Data, &c)
		want := fmt.Sprintf("[%d] twelve.pdf, p. %d: ", i+1, src.Sources[i].Page)
		if !strings.HasPrefix(strings.TrimLeft(c.Content, "\n"), want) {
			t.Errorf("quote %d = %q, want it to start %q", i+1, c.Content, want)
		}
	}
	if events[4].Data != `{"finishReason":"stop","used":[1,2,3]}` {
		t.Errorf("done = %s", events[4].Data)
	}
}

// TestChatAnswerSaysWhichSourcesItCites: a model's citations are known at
// the end; done lists them in the order first cited, numbers outside the
// sources ignored.
func TestChatAnswerSaysWhichSourcesItCites(t *testing.T) {
	s := newService(t, options{fake: []openaifake.Option{openaifake.WithScript(openaifake.Script{
		Deltas: openaifake.Text("Item two is checked [", "2], then item one [1][2]", " and [9]."),
	})}})
	twelvePages(t, s)
	events, src := sourcesThenThree(t, s, `{"question":"Which item do I check at every inspection?","topK":5}`)
	for i, want := range []string{"Item two is checked [", "2], then item one [1][2]", " and [9]."} {
		if got := events[i+1].Data; got != fmt.Sprintf(`{"content":%q}`, want) {
			t.Errorf("content %d = %s, want %q", i+1, got, want)
		}
	}
	if src.Mode != "answer" || len(src.Sources) != 5 || src.More == nil || len(src.More) != 0 {
		t.Fatalf("sources event: mode %q, %d sources, more %v; want answer, the 5 retrieved, []", src.Mode, len(src.Sources), src.More)
	}
	if !strings.Contains(events[0].Data, `"more":[]`) {
		t.Errorf("more is not an empty list: %s", events[0].Data)
	}
	if events[4].Data != `{"finishReason":"stop","used":[2,1]}` {
		t.Errorf("done = %s, want used [2,1]", events[4].Data)
	}
}

// sourcesThenThree asks body and checks that the stream is a sources event,
// three pieces of the answer and done; it returns the events and the
// sources event's data.
func sourcesThenThree(t *testing.T, s *service, body string) ([]event, sourcesData) {
	t.Helper()
	events := withoutComments(readEvents(t, s.chat(t, body)))
	names := make([]string, len(events))
	for i, ev := range events {
		names[i] = ev.Name
	}
	if !slices.Equal(names, []string{"sources", "", "", "", "done"}) {
		t.Fatalf("events = %q, want sources, three pieces, done", names)
	}
	var src sourcesData
	unmarshal(t, events[0].Data, &src)
	return events, src
}

// otherScriptData is the sources event with its notice fields.
type otherScriptData struct {
	sourcesData
	Notice  string   `json:"notice"`
	Scripts []string `json:"scripts"`
}

// TestChatQuotesOtherScript: without a chat model, a question in another
// script than every retrieved passage (Chinese against an English manual)
// quotes nothing: the sources event says why and lists every retrieved
// passage under more, the answer is one sentence, and none is used.
func TestChatQuotesOtherScript(t *testing.T) {
	forEachAuthMode(t, func(t *testing.T, accounts bool) {
		s := newService(t, options{accounts: accounts, local: true})
		twelvePages(t, s)
		events := withoutComments(readEvents(t, s.chat(t, `{"question":"每次检查时要检查哪一项？","topK":4}`)))
		names := make([]string, len(events))
		for i, ev := range events {
			names[i] = ev.Name
		}
		if !slices.Equal(names, []string{"sources", "", "done"}) {
			t.Fatalf("events = %q, want sources, one piece, done", names)
		}
		var src otherScriptData
		unmarshal(t, events[0].Data, &src)
		if src.Mode != "quotes" || src.Notice != "other_script" || !slices.Equal(src.Scripts, []string{"Latin"}) ||
			src.Sources == nil || len(src.Sources) != 0 || len(src.More) != 4 {
			t.Fatalf("sources event = %s; want quotes, notice other_script, scripts [Latin], no sources, the 4 retrieved under more", events[0].Data)
		}
		pages := map[int]bool{}
		for i, h := range src.More {
			pages[h.Page] = true
			if h.FileName != "twelve.pdf" || !strings.HasPrefix(h.Text, fmt.Sprintf("Page %d of the service manual", h.Page)) ||
				(i > 0 && h.Score > src.More[i-1].Score) {
				t.Errorf("more[%d] = %+v", i, h)
			}
		}
		if len(pages) != 4 {
			t.Errorf("more holds pages %v, want 4 distinct ones", pages)
		}
		want := `{"content":"The passages that match this question are in Latin script, not in the question's, and without a chat model nothing is translated, so none is quoted. Ask in the language of the documents, or open one of the passages listed."}`
		if events[1].Data != want {
			t.Errorf("answer = %s\nwant     %s", events[1].Data, want)
		}
		if events[2].Data != `{"finishReason":"stop","used":[]}` {
			t.Errorf("done = %s, want none used", events[2].Data)
		}
	})
}

// TestChatQuotesQuestionWithAWordInAnotherScript: a Latin question that
// quotes a Chinese word is Latin; against the English manual it is quoted
// as any, and the sources event has no notice.
func TestChatQuotesQuestionWithAWordInAnotherScript(t *testing.T) {
	s := newService(t, options{local: true})
	twelvePages(t, s)
	events, src := sourcesThenThree(t, s, `{"question":"Which item do I check at every inspection (每次检查)?","topK":6}`)
	if src.Mode != "quotes" || len(src.Sources) != 3 || len(src.More) != 3 {
		t.Fatalf("sources event: mode %q, %d sources, %d more; want quotes, 3 quoted, the other 3 retrieved", src.Mode, len(src.Sources), len(src.More))
	}
	if strings.Contains(events[0].Data, `"notice"`) || strings.Contains(events[0].Data, `"scripts"`) {
		t.Errorf("sources event has a notice: %s", events[0].Data)
	}
	if events[4].Data != `{"finishReason":"stop","used":[1,2,3]}` {
		t.Errorf("done = %s", events[4].Data)
	}
}

// TestChatAnswerOtherScriptAsksForTheQuestionsLanguage: with a chat model,
// a Chinese question against the English manual is answered by the model
// from the retrieved passages: no notice, and the prompt tells it to answer
// in the question's language.
func TestChatAnswerOtherScriptAsksForTheQuestionsLanguage(t *testing.T) {
	s := newService(t, options{fake: []openaifake.Option{openaifake.WithScript(openaifake.Script{
		Deltas: openaifake.Text("每次检查", "都要检查", "第一项 [1]。"),
	})}})
	twelvePages(t, s)
	events, src := sourcesThenThree(t, s, `{"question":"每次检查时要检查哪一项？","topK":3}`)
	if src.Mode != "answer" || len(src.Sources) != 3 || strings.Contains(events[0].Data, `"notice"`) {
		t.Fatalf("sources event = %s; want answer mode, the 3 retrieved, no notice", events[0].Data)
	}
	req, ok := s.fake.LastChatRequest()
	if !ok || len(req.Messages) != 2 {
		t.Fatalf("provider request = %+v, want the system message and the question", req)
	}
	if sys := req.Messages[0]; sys.Role != "system" || !strings.Contains(sys.Content, "Answer in the language of the question, even when the passages are in another language.") {
		t.Errorf("system message = %+v", sys)
	}
	user := req.Messages[1].Content
	for i, h := range src.Sources {
		if !strings.Contains(user, fmt.Sprintf("[%d] twelve.pdf, p. %d\n%s", i+1, h.Page, h.Text)) {
			t.Errorf("prompt lacks source %d (p. %d): %q", i+1, h.Page, user)
		}
	}
	if !strings.HasSuffix(user, "Question: 每次检查时要检查哪一项？") {
		t.Errorf("prompt does not end with the question: %q", user)
	}
	if events[4].Data != `{"finishReason":"stop","used":[1]}` {
		t.Errorf("done = %s", events[4].Data)
	}
}

// TestChatSaysWhenTheManualsDoNotAnswer: without a chat model, a question
// no passage holds enough of (the service indicator, oil changes, in a
// manual of neither) quotes nothing: the sources event says no_match and
// lists the nearest passages under more, and the answer is one sentence.
// A question the manual answers is quoted as before, without a notice.
func TestChatSaysWhenTheManualsDoNotAnswer(t *testing.T) {
	s := newService(t, options{local: true})
	s.uploadPDF(t, "golf.pdf", ingesttest.PDF(
		"Wheels. Important: the torque for wheel bolts in section 7 is 120 newton metres (service code QZX07ALPHA).",
		"Tyre repair kit. Fill the sealant into the tyre through the valve and inflate the tyre to 2.5 bar.",
		"Adaptive cruise control keeps a set distance to the vehicle ahead. Press SET to store the speed.",
		"Child seats. Fasten the child seat with the ISOFIX anchors between the seat cushion and the backrest.",
	))
	for _, question := range []string{"How do I reset the service indicator?", "How often should I change the engine oil?"} {
		events := withoutComments(readEvents(t, s.chat(t, fmt.Sprintf(`{"question":%q}`, question))))
		if len(events) != 3 {
			t.Fatalf("%q: events %+v, want sources, one piece, done", question, events)
		}
		var src otherScriptData
		unmarshal(t, events[0].Data, &src)
		if src.Mode != "quotes" || src.Notice != "no_match" || src.Sources == nil || len(src.Sources) != 0 || len(src.More) == 0 {
			t.Errorf("%q: sources event %s; want quotes, notice no_match, no sources, the nearest under more", question, events[0].Data)
		}
		if want := `{"content":"The stored documents do not seem to cover this question: no passage holds enough of what it asks about, so none is quoted. The nearest passages are listed; ask in other words, or open one of them."}`; events[1].Data != want {
			t.Errorf("%q: answer %s, want %s", question, events[1].Data, want)
		}
		if events[2].Data != `{"finishReason":"stop","used":[]}` {
			t.Errorf("%q: done = %s, want none used", question, events[2].Data)
		}
	}
	events := withoutComments(readEvents(t, s.chat(t, `{"question":"What is the torque for the wheel bolts?"}`)))
	var src otherScriptData
	unmarshal(t, events[0].Data, &src)
	if src.Notice != "" || len(src.Sources) == 0 || src.Sources[0].Page != 1 {
		t.Fatalf("answerable question: sources event %s; want page 1 quoted, no notice", events[0].Data)
	}
	var answer strings.Builder
	for _, ev := range events {
		if ev.Name == "" {
			var c struct{ Content string }
			unmarshal(t, ev.Data, &c)
			answer.WriteString(c.Content)
		}
	}
	if !strings.Contains(answer.String(), "120 newton metres") {
		t.Errorf("answer %q lacks the torque", answer.String())
	}
}

// TestChatQuotesOtherLanguage: without a chat model, a German question of
// an English manual (one script, two languages) quotes nothing: the
// sources event says other_language with the manual's language, the
// passages are under more, and the answer is one sentence naming it.
func TestChatQuotesOtherLanguage(t *testing.T) {
	s := newService(t, options{local: true})
	s.uploadPDF(t, "golf.pdf", ingesttest.PDF(
		"Engine oil. Change the engine oil and the oil filter every 15 000 km or every 12 months, whichever comes first.",
		"Engine oil level. Check the engine oil level every month with the dipstick, with the car standing level.",
	))
	events := withoutComments(readEvents(t, s.chat(t, `{"question":"Wie oft muss das Motoröl gewechselt werden?"}`)))
	if len(events) != 3 {
		t.Fatalf("events %+v, want sources, one piece, done", events)
	}
	var src struct {
		otherScriptData
		Languages []string `json:"languages"`
	}
	unmarshal(t, events[0].Data, &src)
	if src.Notice != "other_language" || !slices.Equal(src.Languages, []string{"en"}) || len(src.Sources) != 0 || len(src.More) != 2 {
		t.Fatalf("sources event %s; want notice other_language, languages [en], both pages under more", events[0].Data)
	}
	want := `{"content":"The passages that match this question are in English, not in the question's language, and without a chat model nothing is translated, so none is quoted. Ask in the language of the documents, or open one of the passages listed."}`
	if events[1].Data != want {
		t.Errorf("answer %s\nwant   %s", events[1].Data, want)
	}
	// The same question in English is quoted.
	events = withoutComments(readEvents(t, s.chat(t, `{"question":"How often must the engine oil be changed?"}`)))
	var english otherScriptData
	unmarshal(t, events[0].Data, &english)
	if english.Notice != "" || len(english.Sources) == 0 {
		t.Errorf("English question: sources event %s; want quotes, no notice", events[0].Data)
	}
}
