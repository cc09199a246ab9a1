package provider

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"golang.org/x/sync/errgroup"
	"golang.org/x/sync/semaphore"

	"github.com/carhub/backend/services/docqa/internal/docqa"
)

// Defaults of EmbedderConfig.
const (
	DefaultEmbeddingModel  = "BAAI/bge-m3" // multilingual, 1024 dimensions
	DefaultBatchSize       = 32
	DefaultConcurrency     = 4
	DefaultEmbedTimeout    = 60 * time.Second
	DefaultEmbedMaxRetries = 3
	maxBatchSize           = 2048 // the OpenAI API's limit of inputs per call
)

// EmbedderConfig configures an OpenAI-compatible embeddings client. Zero
// values take the defaults above.
type EmbedderConfig struct {
	// BaseURL of the API including its prefix, e.g. "https://api.siliconflow.cn/v1".
	BaseURL string
	// APIKey is sent as a bearer token; "" sends none (keyless local servers).
	APIKey string
	Model  string
	// BatchSize is the most texts sent in one request.
	BatchSize int
	// Concurrency is the most requests in flight at once across every Embed
	// call of this Embedder (the whole service: concurrent uploads and chat
	// questions share it), waited for in order of arrival.
	Concurrency int
	// Timeout bounds each HTTP request (each attempt), not the whole Embed call.
	Timeout time.Duration
	// MaxRetries is how often a request answered 408, 409, 429 or 5xx (or
	// failing to connect) is retried, after the provider's Retry-After or
	// else an exponential backoff with jitter (0.5 s, 1 s, 2 s, ...); a
	// Retry-After over 30 s is not waited for. A request that timed out is
	// not retried. 0 takes the default; a negative value disables retries.
	MaxRetries int
	// HTTPClient replaces the default client (tests, proxies).
	HTTPClient *http.Client
	// Metrics records the requests and the tokens used (nil: none).
	Metrics *Metrics
}

// Embedder is a docqa.Embedder over /v1/embeddings. It is safe for
// concurrent use.
type Embedder struct {
	svc         openai.EmbeddingService
	model       string
	batchSize   int
	concurrency int
	inFlight    *semaphore.Weighted // requests in flight, service-wide
	timeout     time.Duration
	metrics     *Metrics
}

var _ docqa.Embedder = (*Embedder)(nil)

// NewEmbedder checks cfg and returns the client. It does not contact the
// provider.
func NewEmbedder(cfg EmbedderConfig) (*Embedder, error) {
	if err := checkBaseURL("embedder BaseURL", cfg.BaseURL); err != nil {
		return nil, err
	}
	if cfg.Model == "" {
		cfg.Model = DefaultEmbeddingModel
	}
	if cfg.BatchSize == 0 {
		cfg.BatchSize = DefaultBatchSize
	}
	if cfg.BatchSize < 0 || cfg.BatchSize > maxBatchSize {
		return nil, fmt.Errorf("embedder BatchSize: %d is outside 1..%d", cfg.BatchSize, maxBatchSize)
	}
	if cfg.Concurrency == 0 {
		cfg.Concurrency = DefaultConcurrency
	}
	if cfg.Concurrency < 0 {
		return nil, fmt.Errorf("embedder Concurrency: %d must be positive", cfg.Concurrency)
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultEmbedTimeout
	}
	if cfg.Timeout < 0 {
		return nil, fmt.Errorf("embedder Timeout: %s must be positive", cfg.Timeout)
	}
	switch {
	case cfg.MaxRetries == 0:
		cfg.MaxRetries = DefaultEmbedMaxRetries
	case cfg.MaxRetries < 0:
		cfg.MaxRetries = 0
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = newHTTPClient(cfg.Concurrency)
	}
	return &Embedder{
		svc:         openai.NewEmbeddingService(clientOptions("embedding", cfg.BaseURL, cfg.APIKey, cfg.HTTPClient, cfg.MaxRetries)...),
		model:       cfg.Model,
		batchSize:   cfg.BatchSize,
		concurrency: cfg.Concurrency,
		inFlight:    semaphore.NewWeighted(int64(cfg.Concurrency)),
		timeout:     cfg.Timeout,
		metrics:     cfg.Metrics,
	}, nil
}

// maxRetryDelay caps the wait before a retry. A provider asking (with
// Retry-After) for a longer wait gets no retry: the error reaches the user
// now rather than after a silent minute.
const maxRetryDelay = 30 * time.Second

// clientOptions builds the library's options without reading OPENAI_*
// environment variables: the service's own configuration is the only source.
// kind names the calls' spans when tracing is on (traced).
func clientOptions(kind, baseURL, apiKey string, hc *http.Client, maxRetries int) []option.RequestOption {
	opts := []option.RequestOption{
		option.WithHTTPClient(traced(kind, hc)),
		option.WithBaseURL(baseURL),
		option.WithMaxRetries(maxRetries),
		option.WithMaxRetryDelay(maxRetryDelay),
	}
	if apiKey != "" {
		opts = append(opts, option.WithAPIKey(apiKey))
	}
	return opts
}

// newHTTPClient keeps enough idle connections to the provider for the
// concurrent requests. No client-wide timeout: streams last as long as the
// answer, bounded by contexts instead.
func newHTTPClient(conns int) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = max(conns, t.MaxIdleConnsPerHost)
	return &http.Client{Transport: t}
}

// Name is "openai:" followed by the model.
func (e *Embedder) Name() string { return "openai:" + e.model }

// Embed returns one vector per text, in input order. Texts are sent in
// batches of at most BatchSize, at most Concurrency requests in flight at a
// time across all calls; the first failing batch cancels the others. Errors wrap docqa.ErrUnavailable
// (provider down, error status, timeout) or docqa.ErrDimension.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(e.concurrency)
	for start := 0; start < len(texts); start += e.batchSize {
		end := min(start+e.batchSize, len(texts))
		g.Go(func() error {
			if err := e.inFlight.Acquire(gctx, 1); err != nil {
				return err
			}
			defer e.inFlight.Release(1)
			return e.embedBatch(gctx, ctx, texts[start:end], out[start:end])
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// embedBatch fills dst with the vectors of batch. callerCtx tells a caller
// that went away apart from a sibling batch that failed.
func (e *Embedder) embedBatch(ctx, callerCtx context.Context, batch []string, dst [][]float32) (err error) {
	start := time.Now()
	defer func() { e.metrics.done(callerCtx, KindEmbedding, start, err) }()
	res, err := e.svc.New(ctx, openai.EmbeddingNewParams{
		Model:          openai.EmbeddingModel(e.model),
		Input:          openai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: batch},
		EncodingFormat: openai.EmbeddingNewParamsEncodingFormatFloat,
	}, option.WithRequestTimeout(e.timeout))
	if err != nil {
		if callerCtx.Err() == nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("embeddings: no answer from the provider within %s: %w", e.timeout, docqa.ErrUnavailable)
		}
		return classify(callerCtx, "embeddings", err)
	}
	e.metrics.usage(e.model, res.Usage.PromptTokens, 0)
	if len(res.Data) != len(batch) {
		return fmt.Errorf("embeddings: provider answered %d vectors for %d texts: %w", len(res.Data), len(batch), docqa.ErrUnavailable)
	}
	for _, d := range res.Data {
		i := int(d.Index)
		if i < 0 || i >= len(batch) || dst[i] != nil {
			return fmt.Errorf("embeddings: provider answered a bad or repeated index %d: %w", d.Index, docqa.ErrUnavailable)
		}
		if len(d.Embedding) != docqa.Dimension {
			return fmt.Errorf("embeddings: model %q answered %d dimensions, the service needs %d (configure a %d-dimension model such as %s): %w",
				e.model, len(d.Embedding), docqa.Dimension, docqa.Dimension, DefaultEmbeddingModel, docqa.ErrDimension)
		}
		v := make([]float32, len(d.Embedding))
		for j, x := range d.Embedding {
			v[j] = float32(x)
		}
		dst[i] = v
	}
	return nil
}
