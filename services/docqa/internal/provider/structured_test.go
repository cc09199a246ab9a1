package provider_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/carhub/backend/services/docqa/internal/docqa"
	"github.com/carhub/backend/services/docqa/internal/openaifake"
	"github.com/carhub/backend/services/docqa/internal/provider"
)

var testSchema = docqa.Schema{
	Name:        "pair",
	Description: "Two numbers.",
	Schema: map[string]any{
		"type": "object", "additionalProperties": false, "required": []any{"a"},
		"properties": map[string]any{"a": map[string]any{"type": "integer"}},
	},
}

// TestStructuredSendsTheSchema: one request without stream, temperature 0,
// response_format json_schema with the schema, strict; the answer's
// content comes back as it is.
func TestStructuredSendsTheSchema(t *testing.T) {
	fake := openaifake.New(t, openaifake.WithScript(openaifake.Script{Deltas: openaifake.Text(`{"a":`, ` 7}`)}))
	c := mustChat(t, fake, func(cfg *provider.ChatConfig) { cfg.MaxRetries = -1 })
	got, err := c.Structured(context.Background(), chatReq.Messages, testSchema)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != `{"a": 7}` {
		t.Errorf("answer %s", got)
	}
	req, ok := fake.LastChatRequest()
	if !ok || req.Stream || req.Temperature == nil || *req.Temperature != 0 || len(req.Messages) != 4 || req.Messages[3].Content != chatReq.Messages[3].Content {
		t.Fatalf("request %+v", req)
	}
	var format struct {
		Type       string `json:"type"`
		JSONSchema struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Strict      bool            `json:"strict"`
			Schema      json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	}
	if err := json.Unmarshal(req.ResponseFormat, &format); err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(testSchema.Schema)
	if format.Type != "json_schema" || format.JSONSchema.Name != "pair" || format.JSONSchema.Description != "Two numbers." ||
		!format.JSONSchema.Strict || string(format.JSONSchema.Schema) != string(want) {
		t.Errorf("response_format %s", req.ResponseFormat)
	}
}

// TestStructuredFailures: every way the answer is not the document is
// ErrUnavailable, an error status an *APIError.
func TestStructuredFailures(t *testing.T) {
	for _, tc := range []struct {
		name   string
		script openaifake.Script
		fail   *openaifake.Failure
		status int
	}{
		{name: "not JSON", script: openaifake.Script{Deltas: openaifake.Text("Sure! Here it is: {")}},
		{name: "cut at the length limit", script: openaifake.Script{Deltas: openaifake.Text(`{"a": 1}`), FinishReason: "length"}},
		{name: "malformed body", script: openaifake.Script{Deltas: openaifake.Text(`{"a": 1}`)}, fail: &openaifake.Failure{Malformed: true}},
		{name: "error status", script: openaifake.Script{Deltas: openaifake.Text(`{"a": 1}`)}, fail: &openaifake.Failure{Status: 503}, status: 503},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := openaifake.New(t, openaifake.WithScript(tc.script))
			if tc.fail != nil {
				fake.FailChat(*tc.fail)
			}
			c := mustChat(t, fake, func(cfg *provider.ChatConfig) { cfg.MaxRetries = -1 })
			got, err := c.Structured(context.Background(), chatReq.Messages, testSchema)
			if !errors.Is(err, docqa.ErrUnavailable) || got != nil {
				t.Fatalf("got %s, %v; want ErrUnavailable", got, err)
			}
			var apiErr *provider.APIError
			if errors.As(err, &apiErr) != (tc.status != 0) || tc.status != 0 && apiErr.StatusCode != tc.status {
				t.Errorf("error %v", err)
			}
		})
	}
}
