package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/carhub/backend/services/docqa/internal/docqa"
)

// Defaults of ChatConfig.
const (
	DefaultFirstByteTimeout = 30 * time.Second
	DefaultChatTimeout      = 5 * time.Minute
	DefaultChatMaxRetries   = 2
)

// ChatConfig configures an OpenAI-compatible streaming chat client. Zero
// durations take the defaults above.
type ChatConfig struct {
	// BaseURL of the API including its prefix, e.g. "https://api.deepseek.com/v1".
	BaseURL string
	// APIKey is sent as a bearer token; "" sends none (keyless local servers).
	APIKey string
	// Model is required: chat providers share no common model name.
	Model string
	// FirstByteTimeout bounds the wait for the first frame of the stream
	// (retries before it included).
	FirstByteTimeout time.Duration
	// Timeout bounds the whole answer, from the request to the last frame.
	Timeout time.Duration
	// MaxRetries is how often a request answered 429 or 5xx before the stream
	// starts is retried. 0 takes the default; a negative value disables retries.
	// Nothing is retried once deltas have reached the caller.
	MaxRetries int
	// HTTPClient replaces the default client (tests, proxies).
	HTTPClient *http.Client
	// Metrics records the requests and the tokens used (nil: none).
	Metrics *Metrics
}

// Chat is a docqa.ChatModel over /v1/chat/completions with stream=true. It
// is safe for concurrent use.
type Chat struct {
	svc       openai.ChatCompletionService
	model     string
	firstByte time.Duration
	timeout   time.Duration
	metrics   *Metrics
}

var _ docqa.ChatModel = (*Chat)(nil)

// NewChat checks cfg and returns the client. It does not contact the provider.
func NewChat(cfg ChatConfig) (*Chat, error) {
	if err := checkBaseURL("chat BaseURL", cfg.BaseURL); err != nil {
		return nil, err
	}
	if cfg.Model == "" {
		return nil, errors.New("chat Model: required")
	}
	if cfg.FirstByteTimeout == 0 {
		cfg.FirstByteTimeout = DefaultFirstByteTimeout
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultChatTimeout
	}
	if cfg.FirstByteTimeout < 0 || cfg.Timeout < 0 {
		return nil, fmt.Errorf("chat timeouts: FirstByteTimeout %s and Timeout %s must be positive", cfg.FirstByteTimeout, cfg.Timeout)
	}
	switch {
	case cfg.MaxRetries == 0:
		cfg.MaxRetries = DefaultChatMaxRetries
	case cfg.MaxRetries < 0:
		cfg.MaxRetries = 0
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = newHTTPClient(4)
	}
	return &Chat{
		svc:       openai.NewChatCompletionService(clientOptions("chat", cfg.BaseURL, cfg.APIKey, cfg.HTTPClient, cfg.MaxRetries)...),
		model:     cfg.Model,
		firstByte: cfg.FirstByteTimeout,
		timeout:   cfg.Timeout,
		metrics:   cfg.Metrics,
	}, nil
}

// Name is "openai:" followed by the model.
func (c *Chat) Name() string { return "openai:" + c.model }

var (
	errFirstByte = errors.New("first byte timeout")
	errTimeout   = errors.New("answer timeout")
)

// Stream sends req.Messages with req.Temperature and calls onDelta with each
// non-empty content delta of the first choice as soon as its frame is read:
// nothing is buffered. It returns the provider's finish reason.
//
// Errors: a cancelled ctx ends the HTTP request at once and returns an error
// wrapping ctx's error; an error from onDelta ends the request and is
// returned as is; everything else (error status, no first frame within
// FirstByteTimeout, answer not done within Timeout, malformed frames, a stream
// that ends without a finish reason) wraps docqa.ErrUnavailable.
func (c *Chat) Stream(ctx context.Context, req docqa.ChatRequest, onDelta func(content string) error) (_ string, err error) {
	if len(req.Messages) == 0 {
		return "", errors.New("chat: no messages to send")
	}
	start := time.Now()
	defer func() { c.metrics.done(ctx, KindChat, start, err) }()
	msgs, err := chatMessages(req.Messages)
	if err != nil {
		return "", err
	}

	sctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	sctx, cancelTimeout := context.WithTimeoutCause(sctx, c.timeout, errTimeout)
	defer cancelTimeout()
	firstByte := time.AfterFunc(c.firstByte, func() { cancel(errFirstByte) })
	defer firstByte.Stop()

	stream := c.svc.NewStreaming(sctx, openai.ChatCompletionNewParams{
		Model:       c.model,
		Messages:    msgs,
		Temperature: openai.Float(req.Temperature),
		// Servers that honour it send the tokens used in a last frame
		// without choices (the metrics' cost per question); others ignore it.
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	})
	defer stream.Close()

	finish := ""
	first := true
	for stream.Next() {
		if first {
			firstByte.Stop()
			first = false
		}
		chunk := stream.Current()
		if u := chunk.Usage; u.PromptTokens > 0 || u.CompletionTokens > 0 {
			c.metrics.usage(c.model, u.PromptTokens, u.CompletionTokens)
		}
		for _, ch := range chunk.Choices {
			if ch.Index != 0 {
				continue
			}
			if ch.Delta.Content != "" {
				if err := onDelta(ch.Delta.Content); err != nil {
					return "", err
				}
			}
			if ch.FinishReason != "" {
				finish = ch.FinishReason
			}
		}
	}
	if err := stream.Err(); err != nil {
		return "", c.streamError(ctx, sctx, err)
	}
	if finish == "" {
		return "", fmt.Errorf("chat: provider ended the stream without a finish reason: %w", docqa.ErrUnavailable)
	}
	return finish, nil
}

// streamError names why the stream failed. ctx is the caller's context,
// sctx the one carrying the timeouts.
func (c *Chat) streamError(ctx, sctx context.Context, err error) error {
	if ctx.Err() != nil {
		return classify(ctx, "chat", err)
	}
	switch context.Cause(sctx) {
	case errFirstByte:
		return fmt.Errorf("chat: no answer from the provider within %s: %w", c.firstByte, docqa.ErrUnavailable)
	case errTimeout:
		return fmt.Errorf("chat: answer not complete within %s: %w", c.timeout, docqa.ErrUnavailable)
	}
	var streamErr *ssestream.StreamError
	if errors.As(err, &streamErr) {
		return fmt.Errorf("chat: provider sent an error in the stream: %s: %w", streamErr.Message, docqa.ErrUnavailable)
	}
	var syntaxErr *json.SyntaxError
	if errors.As(err, &syntaxErr) {
		return fmt.Errorf("chat: provider sent a malformed frame: %v: %w", err, docqa.ErrUnavailable)
	}
	return classify(ctx, "chat", err)
}

// chatMessages converts messages for the client library.
func chatMessages(messages []docqa.Message) ([]openai.ChatCompletionMessageParamUnion, error) {
	msgs := make([]openai.ChatCompletionMessageParamUnion, 0, len(messages))
	for _, m := range messages {
		switch m.Role {
		case docqa.RoleSystem:
			msgs = append(msgs, openai.SystemMessage(m.Content))
		case docqa.RoleUser:
			msgs = append(msgs, openai.UserMessage(m.Content))
		case docqa.RoleAssistant:
			msgs = append(msgs, openai.AssistantMessage(m.Content))
		default:
			return nil, fmt.Errorf("chat: message role %q is not system, user or assistant", m.Role)
		}
	}
	return msgs, nil
}
