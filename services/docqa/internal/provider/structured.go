package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/carhub/backend/services/docqa/internal/docqa"
)

var _ docqa.StructuredModel = (*Chat)(nil)

// Structured asks for one answer, not streamed, whose content is a JSON
// document valid against schema (response_format json_schema, strict),
// with temperature 0: an extraction, not prose. It returns that content.
// It is bounded by the answer's Timeout (there is no first byte to wait
// for apart from the whole answer); 429 and 5xx are retried as for Stream.
//
// Errors: a cancelled ctx returns an error wrapping ctx's error; an error
// status is an *APIError; a refusal, an answer cut short (finish reason
// "length"), or content that is not a JSON document wraps
// docqa.ErrUnavailable.
func (c *Chat) Structured(ctx context.Context, messages []docqa.Message, schema docqa.Schema) (_ []byte, err error) {
	msgs, err := chatMessages(messages)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	defer func() { c.metrics.done(ctx, KindChat, start, err) }()
	tctx, cancel := context.WithTimeoutCause(ctx, c.timeout, errTimeout)
	defer cancel()
	res, err := c.svc.New(tctx, openai.ChatCompletionNewParams{
		Model:       c.model,
		Messages:    msgs,
		Temperature: openai.Float(0),
		ResponseFormat: openai.ChatCompletionNewParamsResponseFormatUnion{
			OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{
				Name:        schema.Name,
				Description: openai.String(schema.Description),
				Schema:      schema.Schema,
				Strict:      openai.Bool(true),
			}},
		},
	})
	if err != nil {
		if ctx.Err() == nil && context.Cause(tctx) == errTimeout {
			return nil, fmt.Errorf("chat: answer not complete within %s: %w", c.timeout, docqa.ErrUnavailable)
		}
		return nil, classify(ctx, "chat", err)
	}
	if u := res.Usage; u.PromptTokens > 0 || u.CompletionTokens > 0 {
		c.metrics.usage(c.model, u.PromptTokens, u.CompletionTokens)
	}
	if len(res.Choices) == 0 {
		return nil, fmt.Errorf("chat: the provider answered no choice: %w", docqa.ErrUnavailable)
	}
	choice := res.Choices[0]
	switch {
	case choice.Message.Refusal != "":
		return nil, fmt.Errorf("chat: the model refused: %s: %w", choice.Message.Refusal, docqa.ErrUnavailable)
	case choice.FinishReason == "length":
		return nil, fmt.Errorf("chat: the model's answer was cut at its length limit: %w", docqa.ErrUnavailable)
	case !json.Valid([]byte(choice.Message.Content)):
		return nil, fmt.Errorf("chat: the model's answer is not JSON: %w", docqa.ErrUnavailable)
	}
	return []byte(choice.Message.Content), nil
}
