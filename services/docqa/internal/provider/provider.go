// Package provider implements docqa.Embedder, docqa.ChatModel and
// docqa.Reranker.
//
// Remote providers speak the OpenAI HTTP API through the official client
// library (github.com/openai/openai-go): [Embedder] calls /v1/embeddings in
// bounded, concurrent batches, [Chat] streams /v1/chat/completions and
// [Reranker] calls the /rerank endpoint of self-hostable rerank servers. Any
// OpenAI-compatible server works (SiliconFlow, vLLM, Ollama, ...) given its
// base URL. Failures wrap docqa.ErrUnavailable (the HTTP layer answers 503);
// an answer from the provider with an HTTP error status is an [*APIError]
// carrying the provider's status and message.
//
// When no credentials are configured the service uses the local fallbacks:
// [LexicalEmbedder] (hashed words and CJK character n-grams, deterministic,
// no model files) and [ExtractiveChat] (quotes the best retrieved passages
// with file name and page).
package provider

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/openai/openai-go/v3"

	"github.com/carhub/backend/services/docqa/internal/docqa"
)

// APIError is a provider's answer with an HTTP error status. It wraps
// docqa.ErrUnavailable: whatever the status, the service cannot answer
// without the provider. Use errors.As to read the status and message.
type APIError struct {
	Op         string // "embeddings", "chat" or "rerank"
	StatusCode int
	Message    string // the provider's error message, or the status text
}

func (e *APIError) Error() string {
	return fmt.Sprintf("%s: provider answered %d: %s", e.Op, e.StatusCode, e.Message)
}

// Unwrap makes errors.Is(err, docqa.ErrUnavailable) hold.
func (e *APIError) Unwrap() error { return docqa.ErrUnavailable }

// Retryable reports whether the status is one the client retries
// (429 and 5xx); other 4xx statuses mean the request or credentials are wrong.
func (e *APIError) Retryable() bool {
	return e.StatusCode == http.StatusTooManyRequests || e.StatusCode >= 500
}

// classify turns an error of the client library into the errors of the
// docqa interfaces. A cancelled or expired caller context is returned as such
// (the caller went away; nothing is unavailable); every other failure wraps
// docqa.ErrUnavailable.
func classify(ctx context.Context, op string, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("%s: %w", op, ctxErr)
	}
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		msg := strings.TrimSpace(apiErr.Message)
		if msg == "" {
			msg = http.StatusText(apiErr.StatusCode)
		}
		return &APIError{Op: op, StatusCode: apiErr.StatusCode, Message: msg}
	}
	return fmt.Errorf("%s: provider request failed: %v: %w", op, err, docqa.ErrUnavailable)
}

// checkBaseURL accepts an absolute http(s) URL; the client library appends
// "embeddings" or "chat/completions", so it must include the API prefix
// (usually "/v1").
func checkBaseURL(field, raw string) error {
	if raw == "" {
		return fmt.Errorf("%s: required", field)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%s: %q is not an absolute http(s) URL", field, raw)
	}
	return nil
}
