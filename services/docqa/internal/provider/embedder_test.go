package provider_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/carhub/backend/services/docqa/internal/docqa"
	"github.com/carhub/backend/services/docqa/internal/openaifake"
	"github.com/carhub/backend/services/docqa/internal/provider"
)

// mustEmbedder builds an Embedder against fake; edit adjusts the config.
func mustEmbedder(tb testing.TB, fake *openaifake.Server, edit func(*provider.EmbedderConfig)) *provider.Embedder {
	tb.Helper()
	cfg := provider.EmbedderConfig{BaseURL: fake.URL, APIKey: openaifake.APIKey}
	if edit != nil {
		edit(&cfg)
	}
	e, err := provider.NewEmbedder(cfg)
	if err != nil {
		tb.Fatalf("NewEmbedder: %v", err)
	}
	return e
}

func texts(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("chunk %d: 发动机机油 every %d km", i, 1000*i)
	}
	return out
}

func TestEmbedderBatchesAndKeepsOrder(t *testing.T) {
	fake := openaifake.New(t)
	e := mustEmbedder(t, fake, nil)
	in := texts(100)

	got, err := e.Embed(context.Background(), in)
	if err != nil {
		t.Fatalf("Embed: %v", err)
	}
	if len(got) != len(in) {
		t.Fatalf("got %d vectors for %d texts", len(got), len(in))
	}
	for i, v := range got {
		if !slices.Equal(v, openaifake.Vector(in[i], docqa.Dimension)) {
			t.Fatalf("vector %d is not the one of text %d: order lost", i, i)
		}
	}

	reqs := fake.EmbeddingRequests()
	var sizes []int
	seen := map[string]bool{}
	for _, r := range reqs {
		sizes = append(sizes, len(r.Input))
		if r.Model != provider.DefaultEmbeddingModel {
			t.Errorf("model %q, want the default %q", r.Model, provider.DefaultEmbeddingModel)
		}
		if r.Authorization != "Bearer "+openaifake.APIKey {
			t.Errorf("Authorization %q", r.Authorization)
		}
		if r.EncodingFormat != "float" {
			t.Errorf("encoding_format %q, want float", r.EncodingFormat)
		}
		for _, s := range r.Input {
			if seen[s] {
				t.Errorf("text %q sent twice", s)
			}
			seen[s] = true
		}
	}
	slices.Sort(sizes)
	if want := []int{4, 32, 32, 32}; !slices.Equal(sizes, want) {
		t.Errorf("batch sizes %v, want %v", sizes, want)
	}
	if len(seen) != len(in) {
		t.Errorf("%d distinct texts sent, want %d", len(seen), len(in))
	}
	if e.Name() != "openai:BAAI/bge-m3" {
		t.Errorf("Name %q", e.Name())
	}
}

func TestEmbedderEmptyInputSendsNothing(t *testing.T) {
	fake := openaifake.New(t)
	got, err := mustEmbedder(t, fake, nil).Embed(context.Background(), nil)
	if err != nil || len(got) != 0 {
		t.Fatalf("Embed(nil) = %v, %v; want no vectors, no error", got, err)
	}
	if n := len(fake.EmbeddingRequests()); n != 0 {
		t.Fatalf("%d requests sent for no text", n)
	}
}

func TestEmbedderBoundsConcurrency(t *testing.T) {
	// Each request is held long enough that all allowed requests overlap.
	fake := openaifake.New(t, openaifake.WithEmbeddingDelay(100*time.Millisecond))
	e := mustEmbedder(t, fake, func(c *provider.EmbedderConfig) { c.BatchSize = 2; c.Concurrency = 3 })

	if _, err := e.Embed(context.Background(), texts(20)); err != nil {
		t.Fatalf("Embed: %v", err)
	}
	if n := len(fake.EmbeddingRequests()); n != 10 {
		t.Fatalf("%d requests, want 10 batches of 2", n)
	}
	got := fake.MaxInFlight()
	if got > 3 {
		t.Fatalf("%d requests in flight at once, limit is 3", got)
	}
	if got < 2 {
		t.Fatalf("at most %d request in flight: batches were not sent concurrently", got)
	}
}

// The bound holds for the whole service: several uploads embedding at once
// share Concurrency requests, they do not get Concurrency each.
func TestEmbedderBoundsConcurrencyAcrossCalls(t *testing.T) {
	fake := openaifake.New(t, openaifake.WithEmbeddingDelay(100*time.Millisecond))
	e := mustEmbedder(t, fake, func(c *provider.EmbedderConfig) { c.BatchSize = 2; c.Concurrency = 3 })

	const calls = 4
	var wg sync.WaitGroup
	errs := make(chan error, calls)
	for range calls {
		wg.Go(func() {
			got, err := e.Embed(context.Background(), texts(12))
			if err == nil && len(got) != 12 {
				err = fmt.Errorf("%d vectors for 12 texts", len(got))
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("Embed: %v", err)
		}
	}
	if n := len(fake.EmbeddingRequests()); n != calls*6 {
		t.Fatalf("%d requests, want %d", n, calls*6)
	}
	if got := fake.MaxInFlight(); got != 3 {
		t.Fatalf("%d requests in flight at once across %d calls, want exactly the limit 3", got, calls)
	}
}

func TestEmbedderRetries(t *testing.T) {
	tests := []struct {
		name     string
		failures []openaifake.Failure
	}{
		{"429 with Retry-After", []openaifake.Failure{{Status: http.StatusTooManyRequests, RetryAfter: "1"}}},
		{"500 with backoff", []openaifake.Failure{{Status: http.StatusInternalServerError}}},
		{"502 then 503", []openaifake.Failure{
			{Status: http.StatusBadGateway, RetryAfter: "0"},
			{Status: http.StatusServiceUnavailable, RetryAfter: "0"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := openaifake.New(t)
			fake.FailEmbeddings(tt.failures...)
			in := texts(3)
			got, err := mustEmbedder(t, fake, nil).Embed(context.Background(), in)
			if err != nil {
				t.Fatalf("Embed after transient failures: %v", err)
			}
			if !slices.Equal(got[2], openaifake.Vector(in[2], docqa.Dimension)) {
				t.Fatal("wrong vector after retry")
			}
			if n, want := len(fake.EmbeddingRequests()), len(tt.failures)+1; n != want {
				t.Fatalf("%d requests, want %d (failures then success)", n, want)
			}
		})
	}
}

func TestEmbedderErrors(t *testing.T) {
	tests := []struct {
		name       string
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
			failures:   []openaifake.Failure{{Status: 400, Message: "input must have less than 8192 tokens"}},
			maxRetries: 3, wantStatus: 400, wantReqs: 1, wantInMsg: "less than 8192 tokens",
		},
		{
			name:       "Retry-After beyond the limit gives up at once",
			failures:   []openaifake.Failure{{Status: 429, RetryAfter: "3600", Message: "quota exceeded"}},
			maxRetries: 3, wantStatus: 429, wantReqs: 1, wantInMsg: "quota exceeded",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := openaifake.New(t)
			fake.FailEmbeddings(tt.failures...)
			e := mustEmbedder(t, fake, func(c *provider.EmbedderConfig) { c.MaxRetries = tt.maxRetries })
			_, err := e.Embed(context.Background(), texts(2))
			if !errors.Is(err, docqa.ErrUnavailable) {
				t.Fatalf("err = %v, want one wrapping ErrUnavailable", err)
			}
			var apiErr *provider.APIError
			if !errors.As(err, &apiErr) || apiErr.StatusCode != tt.wantStatus {
				t.Fatalf("err = %#v, want an APIError with status %d", err, tt.wantStatus)
			}
			if !strings.Contains(err.Error(), tt.wantInMsg) {
				t.Errorf("error %q does not carry the provider's message %q", err, tt.wantInMsg)
			}
			if n := len(fake.EmbeddingRequests()); n != tt.wantReqs {
				t.Errorf("%d requests, want %d", n, tt.wantReqs)
			}
		})
	}
}

func TestEmbedderWrongKey(t *testing.T) {
	fake := openaifake.New(t)
	e := mustEmbedder(t, fake, func(c *provider.EmbedderConfig) { c.APIKey = "sk-wrong" })
	_, err := e.Embed(context.Background(), texts(1))
	var apiErr *provider.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 401 || !errors.Is(err, docqa.ErrUnavailable) {
		t.Fatalf("err = %v, want a 401 APIError wrapping ErrUnavailable", err)
	}
	if apiErr.Retryable() {
		t.Error("401 reported as retryable")
	}
}

func TestEmbedderDimensionMismatch(t *testing.T) {
	fake := openaifake.New(t, openaifake.WithDimension(768))
	_, err := mustEmbedder(t, fake, nil).Embed(context.Background(), texts(3))
	if !errors.Is(err, docqa.ErrDimension) {
		t.Fatalf("err = %v, want ErrDimension", err)
	}
	if !strings.Contains(err.Error(), "768") || !strings.Contains(err.Error(), "1024") {
		t.Errorf("error %q should name both dimensions", err)
	}
}

func TestEmbedderRequestTimeout(t *testing.T) {
	fake := openaifake.New(t)
	fake.FailEmbeddings(openaifake.Failure{Hang: true})
	e := mustEmbedder(t, fake, func(c *provider.EmbedderConfig) {
		c.Timeout = 200 * time.Millisecond
		c.MaxRetries = -1
	})
	_, err := e.Embed(context.Background(), texts(1))
	if !errors.Is(err, docqa.ErrUnavailable) || !strings.Contains(err.Error(), "within 200ms") {
		t.Fatalf("err = %v, want a timeout wrapping ErrUnavailable", err)
	}
}

func TestEmbedderProviderDown(t *testing.T) {
	fake := openaifake.New(t)
	e := mustEmbedder(t, fake, func(c *provider.EmbedderConfig) { c.MaxRetries = -1 })
	fake.Close()
	_, err := e.Embed(context.Background(), texts(1))
	if !errors.Is(err, docqa.ErrUnavailable) {
		t.Fatalf("err = %v, want ErrUnavailable for a closed server", err)
	}
}

func TestEmbedderCallerCancel(t *testing.T) {
	fake := openaifake.New(t)
	fake.FailEmbeddings(openaifake.Failure{Hang: true})
	e := mustEmbedder(t, fake, nil)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := e.Embed(ctx, texts(1))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if errors.Is(err, docqa.ErrUnavailable) {
		t.Fatalf("a caller that went away is not a provider outage: %v", err)
	}
}

func TestNewEmbedderRejectsBadConfig(t *testing.T) {
	tests := []struct {
		name  string
		cfg   provider.EmbedderConfig
		field string
	}{
		{"no base URL", provider.EmbedderConfig{}, "BaseURL"},
		{"relative base URL", provider.EmbedderConfig{BaseURL: "/v1"}, "BaseURL"},
		{"ftp base URL", provider.EmbedderConfig{BaseURL: "ftp://x/v1"}, "BaseURL"},
		{"negative batch", provider.EmbedderConfig{BaseURL: "http://x/v1", BatchSize: -1}, "BatchSize"},
		{"huge batch", provider.EmbedderConfig{BaseURL: "http://x/v1", BatchSize: 5000}, "BatchSize"},
		{"negative concurrency", provider.EmbedderConfig{BaseURL: "http://x/v1", Concurrency: -2}, "Concurrency"},
		{"negative timeout", provider.EmbedderConfig{BaseURL: "http://x/v1", Timeout: -time.Second}, "Timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := provider.NewEmbedder(tt.cfg)
			if err == nil || !strings.Contains(err.Error(), tt.field) {
				t.Fatalf("err = %v, want one naming %s", err, tt.field)
			}
		})
	}
}

func TestEmbedderMalformedAnswer(t *testing.T) {
	fake := openaifake.New(t)
	fake.FailEmbeddings(openaifake.Failure{Malformed: true})
	_, err := mustEmbedder(t, fake, nil).Embed(context.Background(), texts(2))
	if !errors.Is(err, docqa.ErrUnavailable) {
		t.Fatalf("err = %v, want ErrUnavailable", err)
	}
	if n := len(fake.EmbeddingRequests()); n != 1 {
		t.Errorf("%d requests: a malformed 200 answer is not retried", n)
	}
}
