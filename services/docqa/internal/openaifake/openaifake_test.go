package openaifake_test

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/carhub/backend/services/docqa/internal/openaifake"
)

func post(t *testing.T, ctx context.Context, url, key, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	t.Cleanup(func() { res.Body.Close() })
	return res
}

func TestEmbeddingsWire(t *testing.T) {
	fake := openaifake.New(t, openaifake.WithDimension(8))

	res := post(t, context.Background(), fake.URL+"/embeddings", openaifake.APIKey, `{"model":"m","input":"one text"}`)
	var got struct {
		Data []struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		} `json:"data"`
	}
	if err := json.NewDecoder(res.Body).Decode(&got); err != nil || res.StatusCode != 200 {
		t.Fatalf("status %d, decode %v", res.StatusCode, err)
	}
	if len(got.Data) != 1 || !slices.Equal(got.Data[0].Embedding, openaifake.Vector("one text", 8)) {
		t.Fatalf("data %+v", got.Data)
	}

	res = post(t, context.Background(), fake.URL+"/embeddings", openaifake.APIKey, `{"model":"m","input":["a","b"],"encoding_format":"base64"}`)
	var b64 struct {
		Data []struct {
			Embedding string `json:"embedding"`
		} `json:"data"`
	}
	if err := json.NewDecoder(res.Body).Decode(&b64); err != nil || len(b64.Data) != 2 {
		t.Fatalf("base64 answer: %v %+v", err, b64)
	}
	raw, _ := base64.StdEncoding.DecodeString(b64.Data[1].Embedding)
	want := openaifake.Vector("b", 8)
	for i, x := range want {
		if math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:])) != x {
			t.Fatalf("base64 vector differs at %d", i)
		}
	}

	reqs := fake.EmbeddingRequests()
	if len(reqs) != 2 || !slices.Equal(reqs[1].Input, []string{"a", "b"}) || reqs[0].Model != "m" {
		t.Fatalf("recorded %+v", reqs)
	}

	for _, tc := range []struct {
		key, body string
		status    int
	}{
		{"wrong", `{"model":"m","input":"x"}`, 401},
		{openaifake.APIKey, `{"model":"m","input":5}`, 400},
		{openaifake.APIKey, `{"input":"x"}`, 400},
		{openaifake.APIKey, `not json`, 400},
	} {
		if res := post(t, context.Background(), fake.URL+"/embeddings", tc.key, tc.body); res.StatusCode != tc.status {
			t.Errorf("%s with key %q: status %d, want %d", tc.body, tc.key, res.StatusCode, tc.status)
		}
	}
}

func TestChatWireAndFailureQueue(t *testing.T) {
	fake := openaifake.New(t, openaifake.WithScript(openaifake.Script{Deltas: openaifake.Text("a\nb", "ç"), FinishReason: "length"}))
	fake.FailChat(openaifake.Failure{Status: 429, RetryAfter: "7", Message: "slow down"})
	body := `{"model":"m","stream":true,"temperature":0.7,"messages":[{"role":"user","content":"hi"}]}`

	res := post(t, context.Background(), fake.URL+"/chat/completions", openaifake.APIKey, body)
	errBody, _ := io.ReadAll(res.Body)
	if res.StatusCode != 429 || res.Header.Get("Retry-After") != "7" || !strings.Contains(string(errBody), `"message":"slow down"`) {
		t.Fatalf("queued failure: %d %q %s", res.StatusCode, res.Header.Get("Retry-After"), errBody)
	}

	res = post(t, context.Background(), fake.URL+"/chat/completions", openaifake.APIKey, body)
	if ct := res.Header.Get("Content-Type"); res.StatusCode != 200 || ct != "text/event-stream" {
		t.Fatalf("status %d content type %q", res.StatusCode, ct)
	}
	var data []string
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		if line, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			data = append(data, line)
		}
	}
	if len(data) != 4 || data[3] != "[DONE]" {
		t.Fatalf("frames %q, want 2 deltas, the finish frame and [DONE]", data)
	}
	var contents []string
	for _, d := range data[:3] {
		var chunk struct {
			Choices []struct {
				Delta        struct{ Content string } `json:"delta"`
				FinishReason *string                  `json:"finish_reason"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(d), &chunk); err != nil {
			t.Fatalf("frame %q: %v", d, err)
		}
		contents = append(contents, chunk.Choices[0].Delta.Content)
		if fr := chunk.Choices[0].FinishReason; (fr != nil) != (d == data[2]) || (fr != nil && *fr != "length") {
			t.Errorf("frame %q: finish reason %v", d, fr)
		}
	}
	if !slices.Equal(contents, []string{"a\nb", "ç", ""}) {
		t.Errorf("contents %q", contents)
	}

	reqs := fake.ChatRequests()
	if len(reqs) != 2 || !reqs[1].Completed || reqs[1].Cancelled || reqs[1].FirstDeltaAt.IsZero() {
		t.Fatalf("recorded %+v", reqs)
	}
	if *reqs[1].Temperature != 0.7 || reqs[1].Messages[0].Content != "hi" {
		t.Errorf("recorded request %+v", reqs[1])
	}
}

// TestChatCompletion: without stream, the script's deltas joined are one
// message, and the response_format is recorded as sent.
func TestChatCompletion(t *testing.T) {
	fake := openaifake.New(t, openaifake.WithScript(openaifake.Script{Deltas: openaifake.Text(`{"items":`, `[]}`), FinishReason: "stop"}))
	res := post(t, context.Background(), fake.URL+"/chat/completions", openaifake.APIKey,
		`{"model":"m","messages":[{"role":"user","content":"two words"}],"response_format":{"type":"json_schema","json_schema":{"name":"s"}}}`)
	if res.StatusCode != 200 {
		t.Fatalf("status %d", res.StatusCode)
	}
	var body struct {
		Object  string
		Choices []struct {
			FinishReason string `json:"finish_reason"`
			Message      struct{ Role, Content string }
		}
		Usage struct {
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
		}
	}
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if body.Object != "chat.completion" || len(body.Choices) != 1 || body.Choices[0].Message.Content != `{"items":[]}` ||
		body.Choices[0].Message.Role != "assistant" || body.Choices[0].FinishReason != "stop" ||
		body.Usage.PromptTokens != 2 || body.Usage.CompletionTokens != 2 {
		t.Errorf("answer %+v", body)
	}
	reqs := fake.ChatRequests()
	if len(reqs) != 1 || reqs[0].Stream || !reqs[0].Completed || string(reqs[0].ResponseFormat) != `{"type":"json_schema","json_schema":{"name":"s"}}` {
		t.Errorf("recorded %+v", reqs)
	}

	fake.FailChat(openaifake.Failure{Malformed: true})
	res = post(t, context.Background(), fake.URL+"/chat/completions", openaifake.APIKey, `{"model":"m","messages":[{"role":"user","content":"hi"}]}`)
	if b, _ := io.ReadAll(res.Body); json.Valid(b) {
		t.Errorf("a malformed answer is JSON: %s", b)
	}
}

func TestChatHangSeesClientLeave(t *testing.T) {
	fake := openaifake.New(t)
	fake.FailChat(openaifake.Failure{Hang: true})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, fake.URL+"/chat/completions",
		strings.NewReader(`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	req.Header.Set("Authorization", "Bearer "+openaifake.APIKey)
	if res, err := http.DefaultClient.Do(req); err == nil {
		res.Body.Close()
		t.Fatal("a hanging request answered")
	}
	select {
	case <-fake.Cancelled():
	case <-time.After(10 * time.Second):
		t.Fatal("server never saw the client leave")
	}
	if rec, _ := fake.LastChatRequest(); !rec.Cancelled || rec.CancelledAt.IsZero() || rec.Completed {
		t.Fatalf("recorded %+v", rec)
	}
}

func TestScore(t *testing.T) {
	tests := []struct {
		query, document string
		want            float64
	}{
		{"oil change interval", "Change the engine oil every 10000 km; the interval halves off-road.", 1},
		{"oil change interval", "Oil: 5W-30.", 1.0 / 3},
		{"Oil OIL oil", "oil", 1}, // distinct words, case folded
		{"tyre pressure", "Tyres: 2.3 bar", 0},
		{"机油 更换", "机油 每年 更换", 1},
		{"", "anything", 0},
		{"?!", "anything", 0},
	}
	for _, tt := range tests {
		if got := openaifake.Score(tt.query, tt.document); got != tt.want {
			t.Errorf("Score(%q, %q) = %v, want %v", tt.query, tt.document, got, tt.want)
		}
	}
}

type rerankResult struct {
	Index          int     `json:"index"`
	RelevanceScore float64 `json:"relevance_score"`
	Document       *struct {
		Text string `json:"text"`
	} `json:"document"`
}

func decodeResults(t *testing.T, res *http.Response) []rerankResult {
	t.Helper()
	var got struct {
		Results []rerankResult `json:"results"`
	}
	if err := json.NewDecoder(res.Body).Decode(&got); err != nil || res.StatusCode != 200 {
		t.Fatalf("status %d, decode %v", res.StatusCode, err)
	}
	return got.Results
}

func TestRerankWire(t *testing.T) {
	fake := openaifake.New(t)
	docs := `["Tyre pressure: 2.3 bar.", "Change the oil every 10000 km.", "Oil: 5W-30."]`

	res := post(t, context.Background(), fake.URL+"/rerank", openaifake.APIKey,
		`{"model":"m","query":"oil change","documents":`+docs+`}`)
	got := decodeResults(t, res)
	// Sorted by score, highest first; the tie at 0 keeps input order.
	want := []rerankResult{{Index: 1, RelevanceScore: 1}, {Index: 2, RelevanceScore: 0.5}, {Index: 0, RelevanceScore: 0}}
	if len(got) != len(want) {
		t.Fatalf("results %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].Index != want[i].Index || got[i].RelevanceScore != want[i].RelevanceScore || got[i].Document != nil {
			t.Fatalf("result %d = %+v, want %+v", i, got[i], want[i])
		}
	}

	res = post(t, context.Background(), fake.URL+"/rerank", openaifake.APIKey,
		`{"model":"m","query":"oil change","documents":`+docs+`,"top_n":1,"return_documents":true}`)
	got = decodeResults(t, res)
	if len(got) != 1 || got[0].Index != 1 || got[0].Document == nil || got[0].Document.Text != "Change the oil every 10000 km." {
		t.Fatalf("top_n 1 with documents: %+v", got)
	}

	reqs := fake.RerankRequests()
	if len(reqs) != 2 {
		t.Fatalf("recorded %d requests, want 2", len(reqs))
	}
	if r := reqs[0]; r.Model != "m" || r.Query != "oil change" || len(r.Documents) != 3 || r.TopN != nil || r.ReturnDocuments != nil ||
		r.Authorization != "Bearer "+openaifake.APIKey {
		t.Errorf("recorded %+v", r)
	}
	if r := reqs[1]; r.TopN == nil || *r.TopN != 1 || r.ReturnDocuments == nil || !*r.ReturnDocuments {
		t.Errorf("recorded %+v", r)
	}

	for _, tc := range []struct {
		key, body string
		status    int
	}{
		{"wrong", `{"model":"m","query":"q","documents":["d"]}`, 401},
		{openaifake.APIKey, `{"query":"q","documents":["d"]}`, 400},
		{openaifake.APIKey, `{"model":"m","documents":["d"]}`, 400},
		{openaifake.APIKey, `{"model":"m","query":"q","documents":[]}`, 400},
		{openaifake.APIKey, `{"model":"m","query":"q","documents":"d"}`, 400},
		{openaifake.APIKey, `not json`, 400},
	} {
		if res := post(t, context.Background(), fake.URL+"/rerank", tc.key, tc.body); res.StatusCode != tc.status {
			t.Errorf("%s with key %q: status %d, want %d", tc.body, tc.key, res.StatusCode, tc.status)
		}
	}
}

func TestRerankFailureQueue(t *testing.T) {
	fake := openaifake.New(t)
	fake.FailRerank(
		openaifake.Failure{Status: 503, RetryAfter: "2", Message: "model loading"},
		openaifake.Failure{Malformed: true},
		openaifake.Failure{Hang: true},
	)
	body := `{"model":"m","query":"q","documents":["q"]}`

	res := post(t, context.Background(), fake.URL+"/rerank", openaifake.APIKey, body)
	errBody, _ := io.ReadAll(res.Body)
	if res.StatusCode != 503 || res.Header.Get("Retry-After") != "2" || !strings.Contains(string(errBody), `"message":"model loading"`) {
		t.Fatalf("queued status: %d %q %s", res.StatusCode, res.Header.Get("Retry-After"), errBody)
	}

	res = post(t, context.Background(), fake.URL+"/rerank", openaifake.APIKey, body)
	var v any
	if err := json.NewDecoder(res.Body).Decode(&v); res.StatusCode != 200 || err == nil {
		t.Fatalf("queued malformed answer: status %d, decodes as JSON: %v", res.StatusCode, err == nil)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, fake.URL+"/rerank", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+openaifake.APIKey)
	if res, err := http.DefaultClient.Do(req); err == nil {
		res.Body.Close()
		t.Fatal("a hanging request answered")
	}

	// The queue is empty: the next request succeeds.
	res = post(t, context.Background(), fake.URL+"/rerank", openaifake.APIKey, body)
	if got := decodeResults(t, res); len(got) != 1 || got[0].RelevanceScore != 1 {
		t.Fatalf("after the queue: %+v", got)
	}
	if n := len(fake.RerankRequests()); n != 4 {
		t.Fatalf("recorded %d requests, want 4 (failed ones included)", n)
	}
}
