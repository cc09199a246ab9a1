package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/carhub/backend/services/docqa/internal/docqa"
)

// Defaults of RerankerConfig.
const (
	DefaultRerankModel      = "BAAI/bge-reranker-v2-m3" // multilingual cross-encoder
	DefaultRerankTimeout    = 30 * time.Second
	DefaultRerankMaxRetries = 2
)

// RerankerConfig configures a client of the /rerank API that self-hosted
// rerank servers share (the Jina and Cohere v1 shape: vLLM, Infinity,
// llama.cpp server, LocalAI, Xinference, SiliconFlow). Zero values take the
// defaults above.
type RerankerConfig struct {
	// BaseURL of the API including its prefix, e.g. "http://reranker:8000/v1";
	// requests go to BaseURL + "/rerank".
	BaseURL string
	// APIKey is sent as a bearer token; "" sends none (keyless local servers).
	APIKey string
	Model  string
	// Timeout bounds each HTTP request (each attempt), not the whole Rerank call.
	Timeout time.Duration
	// MaxRetries is how often a request answered 408, 409, 429 or 5xx (or
	// failing to connect) is retried, after the provider's Retry-After or
	// else an exponential backoff with jitter; a Retry-After over 30 s is not
	// waited for. A request that timed out is not retried. 0 takes the
	// default; a negative value disables retries.
	MaxRetries int
	// HTTPClient replaces the default client (tests, proxies).
	HTTPClient *http.Client
	// Metrics records the requests (nil: none).
	Metrics *Metrics
}

// Reranker is a docqa.Reranker over POST /rerank. It is safe for concurrent
// use.
type Reranker struct {
	client  openai.Client
	model   string
	apiKey  string // only to keep it out of error messages
	timeout time.Duration
	metrics *Metrics
}

var _ docqa.Reranker = (*Reranker)(nil)

// NewReranker checks cfg and returns the client. It does not contact the
// provider.
func NewReranker(cfg RerankerConfig) (*Reranker, error) {
	if err := checkBaseURL("reranker BaseURL", cfg.BaseURL); err != nil {
		return nil, err
	}
	if cfg.Model == "" {
		cfg.Model = DefaultRerankModel
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultRerankTimeout
	}
	if cfg.Timeout < 0 {
		return nil, fmt.Errorf("reranker Timeout: %s must be positive", cfg.Timeout)
	}
	switch {
	case cfg.MaxRetries == 0:
		cfg.MaxRetries = DefaultRerankMaxRetries
	case cfg.MaxRetries < 0:
		cfg.MaxRetries = 0
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = newHTTPClient(4)
	}
	return &Reranker{
		// A literal rather than openai.NewClient, which would add the
		// OPENAI_* environment variables: an OPENAI_API_KEY meant for
		// another provider would be sent to the rerank server.
		client:  openai.Client{Options: clientOptions("rerank", cfg.BaseURL, cfg.APIKey, cfg.HTTPClient, cfg.MaxRetries)},
		model:   cfg.Model,
		apiKey:  cfg.APIKey,
		timeout: cfg.Timeout,
		metrics: cfg.Metrics,
	}, nil
}

// Name is "openai-rerank:" followed by the model.
func (r *Reranker) Name() string { return "openai-rerank:" + r.model }

type rerankRequest struct {
	Model           string   `json:"model"`
	Query           string   `json:"query"`
	Documents       []string `json:"documents"`
	TopN            int      `json:"top_n"`
	ReturnDocuments bool     `json:"return_documents"`
}

// rerankResponse has pointers to tell a missing field from a zero value.
type rerankResponse struct {
	Results []struct {
		Index          *int     `json:"index"`
		RelevanceScore *float64 `json:"relevance_score"`
	} `json:"results"`
}

// Rerank returns one relevance score per passage, in the order of passages,
// from a single request. No passages means no request and no scores.
//
// Errors: a cancelled ctx returns an error wrapping ctx's error; a status
// other than 2xx (after the retries) is an [*APIError] with the provider's
// message; everything else wraps docqa.ErrUnavailable: provider unreachable,
// no answer within Timeout, a body that is not JSON (a NaN score among them:
// Python servers write it as a bare NaN), a result without a score, an index
// out of range, repeated or missing.
func (r *Reranker) Rerank(ctx context.Context, query string, passages []string) (_ []float64, err error) {
	if len(passages) == 0 {
		return []float64{}, nil
	}
	start := time.Now()
	defer func() { r.metrics.done(ctx, KindRerank, start, err) }()
	var (
		res  *http.Response
		body []byte // decoded here: the library refuses a JSON answer without a JSON content type
	)
	err = r.client.Post(ctx, "rerank", rerankRequest{
		Model:     r.model,
		Query:     query,
		Documents: passages,
		TopN:      len(passages),
	}, &body, option.WithRequestTimeout(r.timeout), option.WithResponseInto(&res))
	if err != nil {
		return nil, r.failure(ctx, res, err)
	}
	if res.StatusCode/100 != 2 {
		return nil, r.statusError(res)
	}
	return scores(body, len(passages))
}

// failure names why the request failed. res is the last response, if the
// provider answered at all.
func (r *Reranker) failure(ctx context.Context, res *http.Response, err error) error {
	if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("rerank: no answer from the provider within %s: %w", r.timeout, docqa.ErrUnavailable)
	}
	if ctx.Err() == nil && res != nil && res.StatusCode >= 400 {
		return r.statusError(res)
	}
	return classify(ctx, "rerank", err)
}

// statusError reads the provider's message from the error body itself: the
// client library reads only OpenAI's {"error": {"message": ...}}, and fails
// outright on {"error": "..."}, while rerank servers answer in several shapes.
func (r *Reranker) statusError(res *http.Response) error {
	var msg string
	if res.Body != nil {
		// After a status >= 400 the library has read the body and left a
		// copy in memory; after any other it has consumed the body, and the
		// status text stands in.
		b, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
		_ = res.Body.Close()
		msg = providerMessage(b)
	}
	if r.apiKey != "" {
		msg = strings.ReplaceAll(msg, r.apiKey, "[API key]")
	}
	if msg == "" {
		msg = http.StatusText(res.StatusCode)
	}
	return &APIError{Op: "rerank", StatusCode: res.StatusCode, Message: clip(msg, 300)}
}

// providerMessage finds the error message in an error body, whichever of the
// common shapes it has: {"error": {"message": "..."}}, {"error": "..."},
// {"message": "..."}, {"detail": "..."} or FastAPI's {"detail": [{"msg": "..."}]}.
// It returns "" when there is none.
func providerMessage(body []byte) string {
	var b struct {
		Error   json.RawMessage `json:"error"`
		Message json.RawMessage `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &b) != nil {
		return ""
	}
	var nested struct {
		Message json.RawMessage `json:"message"`
	}
	if json.Unmarshal(b.Error, &nested) == nil {
		if s := jsonString(nested.Message); s != "" {
			return s
		}
	}
	for _, raw := range []json.RawMessage{b.Error, b.Message, b.Detail} {
		if s := jsonString(raw); s != "" {
			return s
		}
	}
	var details []struct {
		Msg string `json:"msg"`
	}
	if json.Unmarshal(b.Detail, &details) == nil {
		msgs := make([]string, 0, len(details))
		for _, d := range details {
			if d.Msg != "" {
				msgs = append(msgs, d.Msg)
			}
		}
		return strings.Join(msgs, "; ")
	}
	return ""
}

// jsonString is raw's value if it is a JSON string, else "".
func jsonString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return strings.TrimSpace(s)
}

// scores maps the provider's results, which come in any order (usually by
// score), back to the order of the n passages.
func scores(body []byte, n int) ([]float64, error) {
	var ans rerankResponse
	if err := json.Unmarshal(body, &ans); err != nil {
		// The place, never the text around it: a body may echo what was
		// sent, the API key included, and a quoted piece of it could hold
		// part of the key that no replacement would find.
		var syntaxErr *json.SyntaxError
		if errors.As(err, &syntaxErr) {
			return nil, fmt.Errorf("rerank: provider answered malformed JSON at byte %d of %d (%v): %w",
				syntaxErr.Offset, len(body), err, docqa.ErrUnavailable)
		}
		return nil, fmt.Errorf("rerank: provider answered an unexpected body: %v: %w", err, docqa.ErrUnavailable)
	}
	out := make([]float64, n)
	seen := make([]bool, n)
	for _, res := range ans.Results {
		switch {
		case res.Index == nil:
			return nil, fmt.Errorf("rerank: provider answered a result without an index: %w", docqa.ErrUnavailable)
		case *res.Index < 0 || *res.Index >= n:
			return nil, fmt.Errorf("rerank: provider answered index %d for %d passages: %w", *res.Index, n, docqa.ErrUnavailable)
		case seen[*res.Index]:
			return nil, fmt.Errorf("rerank: provider answered index %d twice: %w", *res.Index, docqa.ErrUnavailable)
		case res.RelevanceScore == nil:
			return nil, fmt.Errorf("rerank: provider answered no relevance_score for index %d: %w", *res.Index, docqa.ErrUnavailable)
		}
		out[*res.Index] = *res.RelevanceScore
		seen[*res.Index] = true
	}
	for i, ok := range seen {
		if !ok {
			return nil, fmt.Errorf("rerank: provider answered %d results for %d passages, none for passage %d: %w",
				len(ans.Results), n, i, docqa.ErrUnavailable)
		}
	}
	return out, nil
}

// clip shortens s to at most n bytes, on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
