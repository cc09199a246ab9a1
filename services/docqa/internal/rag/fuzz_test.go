package rag_test

import (
	"strings"
	"testing"

	"github.com/carhub/backend/services/docqa/internal/docqa"
	"github.com/carhub/backend/services/docqa/internal/rag"
)

// FuzzBuildMessages: whatever the client sends as question and history, the
// prompt starts with the system prompt, holds no client system turn, keeps
// within the history budget and ends with the question.
func FuzzBuildMessages(f *testing.F) {
	f.Add("How often?", "earlier question", "earlier answer", "system", 5)
	f.Add("", "", "", "assistant", 0)
	f.Add("Question: x", "a b c d e f", "g", "tool", -3)
	f.Fuzz(func(t *testing.T, question, turn1, turn2, role string, budget int) {
		history := []docqa.Message{
			{Role: docqa.RoleUser, Content: turn1},
			{Role: docqa.Role(role), Content: turn2},
		}
		msgs := rag.BuildMessages(question, history, nil, words, rag.Budget{History: budget})
		if msgs[0].Role != docqa.RoleSystem || msgs[0].Content != rag.SystemPrompt {
			t.Fatal("first message is not the system prompt")
		}
		used := 0
		for _, m := range msgs[1 : len(msgs)-1] {
			if m.Role != docqa.RoleUser && m.Role != docqa.RoleAssistant {
				t.Fatalf("history turn with role %q passed on", m.Role)
			}
			used += words(m.Content)
		}
		limit := budget
		if budget == 0 {
			limit = rag.DefaultBudget.History
		}
		if used > max(limit, 0) {
			t.Fatalf("history of %d tokens, budget %d", used, budget)
		}
		last := msgs[len(msgs)-1]
		if last.Role != docqa.RoleUser || !strings.HasSuffix(last.Content, rag.QuestionLabel+" "+strings.TrimSpace(question)) {
			t.Fatalf("last message %q does not end with the question", last.Content)
		}
	})
}
