package provider_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/carhub/backend/services/docqa/internal/docqa"
	"github.com/carhub/backend/services/docqa/internal/openaifake"
	"github.com/carhub/backend/services/docqa/internal/provider"
)

// mustReranker builds a Reranker against baseURL with the fake's key; edit
// adjusts the config.
func mustReranker(tb testing.TB, baseURL string, edit func(*provider.RerankerConfig)) *provider.Reranker {
	tb.Helper()
	cfg := provider.RerankerConfig{BaseURL: baseURL, APIKey: openaifake.APIKey}
	if edit != nil {
		edit(&cfg)
	}
	r, err := provider.NewReranker(cfg)
	if err != nil {
		tb.Fatalf("NewReranker: %v", err)
	}
	return r
}

// manual holds the passages of the tests; the fake ranks them 1, 3, 2, 0
// (it answers sorted by score, so not in input order).
var manual = []string{
	"Tyre pressure: 2.3 bar front and rear.",
	"Change the engine oil every 10000 km.",
	"Engine coolant: check it cold.",
	"Oil grade 5W-30; change the filter with it.",
}

const question = "When to change the engine oil?"

func TestRerankerScoresInInputOrder(t *testing.T) {
	fake := openaifake.New(t)
	r := mustReranker(t, fake.URL, nil)

	got, err := r.Rerank(context.Background(), question, manual)
	if err != nil {
		t.Fatalf("Rerank: %v", err)
	}
	// Of the 6 words "when to change the engine oil": passage 1 has
	// change, the, engine, oil; 2 has engine; 3 has oil, change, the.
	want := []float64{0, 4.0 / 6, 1.0 / 6, 3.0 / 6}
	if !slices.Equal(got, want) {
		t.Fatalf("scores %v, want %v in input order", got, want)
	}
	for i, p := range manual {
		if got[i] != openaifake.Score(question, p) {
			t.Errorf("score %d = %v, the fake's score of passage %d is %v", i, got[i], i, openaifake.Score(question, p))
		}
	}

	reqs := fake.RerankRequests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	req := reqs[0]
	if req.Model != provider.DefaultRerankModel || req.Query != question || !slices.Equal(req.Documents, manual) {
		t.Errorf("request model %q query %q documents %q", req.Model, req.Query, req.Documents)
	}
	if req.TopN == nil || *req.TopN != len(manual) {
		t.Errorf("top_n %v, want %d: every passage needs a score", req.TopN, len(manual))
	}
	if req.ReturnDocuments == nil || *req.ReturnDocuments {
		t.Errorf("return_documents %v, want false: the texts are not needed back", req.ReturnDocuments)
	}
	if r.Name() != "openai-rerank:BAAI/bge-reranker-v2-m3" {
		t.Errorf("Name %q", r.Name())
	}
}

func TestRerankerSendsModelAndKey(t *testing.T) {
	tests := []struct {
		name, key, model string
		wantAuth         string
		wantModel        string
	}{
		{"key and model", "sk-rerank", "jina-reranker-v2-base-multilingual", "Bearer sk-rerank", "jina-reranker-v2-base-multilingual"},
		{"keyless server", "", "", "", provider.DefaultRerankModel},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Variables meant for the OpenAI API must not leak to a rerank server.
			t.Setenv("OPENAI_API_KEY", "sk-from-environment")
			t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
			fake := openaifake.New(t, openaifake.WithAPIKey(tt.key))
			r := mustReranker(t, fake.URL, func(c *provider.RerankerConfig) { c.APIKey, c.Model = tt.key, tt.model })
			if _, err := r.Rerank(context.Background(), question, manual[:1]); err != nil {
				t.Fatalf("Rerank: %v", err)
			}
			req := fake.RerankRequests()[0]
			if req.Authorization != tt.wantAuth || req.Model != tt.wantModel {
				t.Errorf("Authorization %q model %q, want %q and %q", req.Authorization, req.Model, tt.wantAuth, tt.wantModel)
			}
		})
	}
}

func TestRerankerEmptyInputSendsNothing(t *testing.T) {
	fake := openaifake.New(t)
	r := mustReranker(t, fake.URL, nil)
	for _, in := range [][]string{nil, {}} {
		got, err := r.Rerank(context.Background(), question, in)
		if err != nil || got == nil || len(got) != 0 {
			t.Fatalf("Rerank(%#v) = %#v, %v; want an empty slice, no error", in, got, err)
		}
	}
	if n := len(fake.RerankRequests()); n != 0 {
		t.Fatalf("%d requests sent for no passage", n)
	}
}

func TestRerankerRetries(t *testing.T) {
	tests := []struct {
		name     string
		failures []openaifake.Failure
	}{
		{"503 then success", []openaifake.Failure{{Status: http.StatusServiceUnavailable, RetryAfter: "0", Message: "model loading"}}},
		{"429 with Retry-After", []openaifake.Failure{{Status: http.StatusTooManyRequests, RetryAfter: "0"}}},
		{"500 with backoff", []openaifake.Failure{{Status: http.StatusInternalServerError}}},
		{"502 then 503", []openaifake.Failure{
			{Status: http.StatusBadGateway, RetryAfter: "0"},
			{Status: http.StatusServiceUnavailable, RetryAfter: "0"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := openaifake.New(t)
			fake.FailRerank(tt.failures...)
			got, err := mustReranker(t, fake.URL, nil).Rerank(context.Background(), question, manual)
			if err != nil {
				t.Fatalf("Rerank after transient failures: %v", err)
			}
			if want := []float64{0, 4.0 / 6, 1.0 / 6, 3.0 / 6}; !slices.Equal(got, want) {
				t.Fatalf("scores %v after retry, want %v", got, want)
			}
			reqs := fake.RerankRequests()
			if n, want := len(reqs), len(tt.failures)+1; n != want {
				t.Fatalf("%d requests, want %d (failures then success)", n, want)
			}
			for _, req := range reqs {
				if !slices.Equal(req.Documents, manual) {
					t.Fatalf("a retry sent documents %q", req.Documents)
				}
			}
		})
	}
}

func TestRerankerErrors(t *testing.T) {
	tests := []struct {
		name       string
		key        string
		failures   []openaifake.Failure
		maxRetries int
		wantStatus int
		wantReqs   int
		wantInMsg  string
	}{
		{
			name:       "5xx until retries run out",
			failures:   slices.Repeat([]openaifake.Failure{{Status: 503, RetryAfter: "0", Message: "overloaded"}}, 5),
			maxRetries: 2, wantStatus: 503, wantReqs: 3, wantInMsg: "overloaded",
		},
		{
			name:       "400 is not retried and keeps the provider's message",
			failures:   []openaifake.Failure{{Status: 400, Message: "query is longer than 512 tokens"}},
			maxRetries: 3, wantStatus: 400, wantReqs: 1, wantInMsg: "longer than 512 tokens",
		},
		{
			name:       "Retry-After beyond the limit gives up at once",
			failures:   []openaifake.Failure{{Status: 429, RetryAfter: "3600", Message: "quota exceeded"}},
			maxRetries: 3, wantStatus: 429, wantReqs: 1, wantInMsg: "quota exceeded",
		},
		{
			name: "wrong key", key: "sk-wrong-key",
			// The fake records only requests that pass its key check.
			wantStatus: 401, wantReqs: 0, wantInMsg: "Incorrect API key",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := openaifake.New(t)
			fake.FailRerank(tt.failures...)
			r := mustReranker(t, fake.URL, func(c *provider.RerankerConfig) {
				c.MaxRetries = tt.maxRetries
				if tt.key != "" {
					c.APIKey = tt.key
				}
			})
			_, err := r.Rerank(context.Background(), question, manual)
			if !errors.Is(err, docqa.ErrUnavailable) {
				t.Fatalf("err = %v, want one wrapping ErrUnavailable", err)
			}
			var apiErr *provider.APIError
			if !errors.As(err, &apiErr) || apiErr.StatusCode != tt.wantStatus || apiErr.Op != "rerank" {
				t.Fatalf("err = %#v, want a rerank APIError with status %d", err, tt.wantStatus)
			}
			if !strings.Contains(err.Error(), tt.wantInMsg) {
				t.Errorf("error %q does not carry the provider's message %q", err, tt.wantInMsg)
			}
			if strings.Contains(err.Error(), openaifake.APIKey) || (tt.key != "" && strings.Contains(err.Error(), tt.key)) {
				t.Errorf("error %q shows the API key", err)
			}
			if n := len(fake.RerankRequests()); n != tt.wantReqs {
				t.Errorf("%d requests, want %d", n, tt.wantReqs)
			}
		})
	}
}

// answering starts a server that answers every request with status, content
// type and body, and counts the requests.
func answering(t *testing.T, status int, contentType, body string) (url string, requests *atomic.Int32) {
	t.Helper()
	requests = new(atomic.Int32)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if r.URL.Path != "/v1/rerank" {
			http.NotFound(w, r)
			return
		}
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1", requests
}

// Rerank servers answer errors in several shapes; the status and message
// come through from each.
func TestRerankerErrorBodies(t *testing.T) {
	tests := []struct {
		name        string
		status      int
		contentType string
		body        string
		wantMsg     string
	}{
		{"OpenAI shape", 400, "application/json", `{"error":{"message":"documents: too many","type":"invalid_request_error"}}`, "documents: too many"},
		{"error as a string", 422, "application/json", `{"error":"Input validation error: query is empty","error_type":"Validation"}`, "Input validation error: query is empty"},
		{"top-level message", 400, "application/json", `{"code":20012,"message":"Model does not exist.","data":null}`, "Model does not exist."},
		{"FastAPI detail", 404, "application/json", `{"detail":"Model not found: bge"}`, "Model not found: bge"},
		{"FastAPI validation", 422, "application/json", `{"detail":[{"loc":["body","query"],"msg":"field required"},{"msg":"too long"}]}`, "field required; too long"},
		{"not JSON", 400, "text/html", `<html><body>Bad Request</body></html>`, "Bad Request"},
		{"empty body", 404, "text/plain", ``, "Not Found"},
		{"message with the key", 403, "application/json", `{"message":"key sk-fake-test-key has no access to this model"}`, "key [API key] has no access to this model"},
		{"3xx status", 302, "application/json", `{}`, "Found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, requests := answering(t, tt.status, tt.contentType, tt.body)
			_, err := mustReranker(t, url, nil).Rerank(context.Background(), question, manual)
			var apiErr *provider.APIError
			if !errors.As(err, &apiErr) || apiErr.StatusCode != tt.status || !errors.Is(err, docqa.ErrUnavailable) {
				t.Fatalf("err = %v, want an APIError with status %d wrapping ErrUnavailable", err, tt.status)
			}
			if apiErr.Message != tt.wantMsg {
				t.Errorf("message %q, want %q", apiErr.Message, tt.wantMsg)
			}
			if strings.Contains(err.Error(), openaifake.APIKey) {
				t.Errorf("error %q shows the API key", err)
			}
			if n := requests.Load(); n != 1 {
				t.Errorf("%d requests: a %d is not retried", n, tt.status)
			}
		})
	}
}

func TestRerankerMalformedAnswers(t *testing.T) {
	tests := []struct {
		name      string
		body      string
		wantInMsg string
	}{
		{"index out of range", `{"results":[{"index":0,"relevance_score":0.1},{"index":4,"relevance_score":0.9}]}`, "index 4 for 2 passages"},
		{"negative index", `{"results":[{"index":-1,"relevance_score":0.1},{"index":1,"relevance_score":0.9}]}`, "index -1 for 2 passages"},
		{"duplicate index", `{"results":[{"index":1,"relevance_score":0.9},{"index":1,"relevance_score":0.1}]}`, "index 1 twice"},
		{"missing index", `{"results":[{"index":1,"relevance_score":0.9}]}`, "none for passage 0"},
		{"no results", `{"results":[]}`, "0 results for 2 passages"},
		{"result without index", `{"results":[{"relevance_score":0.9},{"index":1,"relevance_score":0.1}]}`, "without an index"},
		{"result without score", `{"results":[{"index":0},{"index":1,"relevance_score":0.1}]}`, "no relevance_score for index 0"},
		{"null score", `{"results":[{"index":0,"relevance_score":null},{"index":1,"relevance_score":0.1}]}`, "no relevance_score for index 0"},
		{"NaN score", `{"results":[{"index":0,"relevance_score":NaN},{"index":1,"relevance_score":0.1}]}`, `at byte 42 of 81 (invalid character 'N'`},
		{"not JSON", `<html>upstream error</html>`, "malformed JSON"},
		{"empty body", ``, "malformed JSON"},
		{"wrong types", `{"results":[{"index":"0","relevance_score":0.1}]}`, "unexpected body"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, requests := answering(t, http.StatusOK, "application/json", tt.body)
			got, err := mustReranker(t, url, nil).Rerank(context.Background(), question, manual[:2])
			if !errors.Is(err, docqa.ErrUnavailable) {
				t.Fatalf("Rerank = %v, %v; want an error wrapping ErrUnavailable", got, err)
			}
			if !strings.Contains(err.Error(), tt.wantInMsg) {
				t.Errorf("error %q does not say %q", err, tt.wantInMsg)
			}
			if n := requests.Load(); n != 1 {
				t.Errorf("%d requests: a malformed 200 answer is not retried", n)
			}
		})
	}
}

// A server that labels its JSON answer otherwise is still understood.
func TestRerankerAnswerWithoutJSONContentType(t *testing.T) {
	url, _ := answering(t, http.StatusOK, "text/plain; charset=utf-8",
		`{"results":[{"index":1,"relevance_score":0.75},{"index":0,"relevance_score":-2.5}]}`)
	got, err := mustReranker(t, url, nil).Rerank(context.Background(), question, manual[:2])
	if err != nil || !slices.Equal(got, []float64{-2.5, 0.75}) {
		t.Fatalf("Rerank = %v, %v; want [-2.5 0.75]", got, err)
	}
}

func TestRerankerFakeMalformedAnswer(t *testing.T) {
	fake := openaifake.New(t)
	fake.FailRerank(openaifake.Failure{Malformed: true})
	_, err := mustReranker(t, fake.URL, nil).Rerank(context.Background(), question, manual)
	if !errors.Is(err, docqa.ErrUnavailable) || !strings.Contains(err.Error(), "malformed JSON") {
		t.Fatalf("err = %v, want a malformed answer wrapping ErrUnavailable", err)
	}
	if n := len(fake.RerankRequests()); n != 1 {
		t.Errorf("%d requests: a malformed 200 answer is not retried", n)
	}
}

func TestRerankerRequestTimeout(t *testing.T) {
	fake := openaifake.New(t)
	fake.FailRerank(openaifake.Failure{Hang: true})
	r := mustReranker(t, fake.URL, func(c *provider.RerankerConfig) { c.Timeout = 200 * time.Millisecond })
	_, err := r.Rerank(context.Background(), question, manual)
	if !errors.Is(err, docqa.ErrUnavailable) || !strings.Contains(err.Error(), "within 200ms") {
		t.Fatalf("err = %v, want a timeout wrapping ErrUnavailable", err)
	}
	if n := len(fake.RerankRequests()); n != 1 {
		t.Errorf("%d requests: a request that timed out is not retried", n)
	}
}

func TestRerankerProviderDown(t *testing.T) {
	fake := openaifake.New(t)
	r := mustReranker(t, fake.URL, func(c *provider.RerankerConfig) { c.MaxRetries = -1 })
	fake.Close()
	_, err := r.Rerank(context.Background(), question, manual)
	if !errors.Is(err, docqa.ErrUnavailable) {
		t.Fatalf("err = %v, want ErrUnavailable for a closed server", err)
	}
}

func TestRerankerCallerCancel(t *testing.T) {
	tests := []struct {
		name    string
		ctx     func() (context.Context, context.CancelFunc)
		wantErr error
	}{
		{"cancelled while waiting", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(50*time.Millisecond, cancel)
			return ctx, cancel
		}, context.Canceled},
		{"cancelled before", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx, cancel
		}, context.Canceled},
		{"caller's deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 50*time.Millisecond)
		}, context.DeadlineExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := openaifake.New(t)
			fake.FailRerank(openaifake.Failure{Hang: true})
			ctx, cancel := tt.ctx()
			defer cancel()
			_, err := mustReranker(t, fake.URL, nil).Rerank(ctx, question, manual)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if errors.Is(err, docqa.ErrUnavailable) {
				t.Fatalf("a caller that went away is not a provider outage: %v", err)
			}
		})
	}
}

func TestNewRerankerRejectsBadConfig(t *testing.T) {
	tests := []struct {
		name  string
		cfg   provider.RerankerConfig
		field string
	}{
		{"no base URL", provider.RerankerConfig{}, "BaseURL"},
		{"relative base URL", provider.RerankerConfig{BaseURL: "/v1"}, "BaseURL"},
		{"ftp base URL", provider.RerankerConfig{BaseURL: "ftp://x/v1"}, "BaseURL"},
		{"negative timeout", provider.RerankerConfig{BaseURL: "http://x/v1", Timeout: -time.Second}, "Timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := provider.NewReranker(tt.cfg)
			if err == nil || !strings.Contains(err.Error(), tt.field) {
				t.Fatalf("err = %v, want one naming %s", err, tt.field)
			}
		})
	}
}

// FuzzRerankAnswer: whatever the server answers (its body is untrusted), the
// client returns one score per passage or an error wrapping ErrUnavailable
// that does not show the API key; it never panics.
func FuzzRerankAnswer(f *testing.F) {
	f.Add(uint16(200), `{"results":[{"index":2,"relevance_score":0.9},{"index":0,"relevance_score":0.5},{"index":1,"relevance_score":0.1}]}`)
	f.Add(uint16(200), `{"results":[{"index":0,"relevance_score":1},{"index":0,"relevance_score":1},{"index":1,"relevance_score":1}]}`)
	f.Add(uint16(200), `{"results":[{"index":3,"relevance_score":1e308}]}`)
	f.Add(uint16(200), `{"results":null}`)
	f.Add(uint16(200), `[{"index":0,"score":0.5}]`)
	f.Add(uint16(400), `{"error":{"message":"bad key sk-fake-test-key"}}`)
	f.Add(uint16(422), `{"detail":[{"msg":"x"},{"msg":""},5]}`)
	f.Add(uint16(500), `{"error":5}`)

	var answer atomic.Pointer[struct {
		status int
		body   string
	}]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a := answer.Load()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(a.status)
		_, _ = io.WriteString(w, a.body)
	}))
	f.Cleanup(srv.Close)
	r := mustReranker(f, srv.URL+"/v1", func(c *provider.RerankerConfig) { c.MaxRetries = -1 })

	f.Fuzz(func(t *testing.T, status uint16, body string) {
		answer.Store(&struct {
			status int
			body   string
		}{200 + int(status)%400, body})
		got, err := r.Rerank(context.Background(), question, manual[:3])
		if err != nil {
			if !errors.Is(err, docqa.ErrUnavailable) || strings.Contains(err.Error(), openaifake.APIKey) {
				t.Fatalf("err = %v", err)
			}
			return
		}
		if len(got) != 3 {
			t.Fatalf("%d scores for 3 passages", len(got))
		}
	})
}
