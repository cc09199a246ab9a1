// Package rag builds the prompt of a retrieval-augmented answer: the
// instructions, the recent conversation, the retrieved passages as numbered
// context and the question, each part held to a token budget so the prompt
// fits the chat model's window.
package rag

import (
	"fmt"
	"strings"

	"github.com/carhub/backend/services/docqa/internal/docqa"
)

// Budget limits, in tokens as counted by the caller's counter, the parts of
// the prompt that grow with use. A zero field takes its default; a negative
// one leaves that part out.
type Budget struct {
	History int // earlier turns of the conversation
	Context int // retrieved passages
}

// DefaultBudget keeps the prompt under about 9k tokens with the instructions
// and a long question, leaving room for the answer in the 16k-32k windows of
// current chat models. Ten chunks of 400 tokens (the topK default) take about
// 4200 of the 6000.
var DefaultBudget = Budget{History: 2000, Context: 6000}

// QuestionLabel starts the question inside the last user message; what
// follows it is the user's question verbatim.
const QuestionLabel = "Question:"

// ContextLabel starts the numbered passages inside the last user message.
const ContextLabel = "Context:"

// SystemPrompt tells the model how to answer. It is written in English (the
// language models follow best) and asks for the question's language.
const SystemPrompt = `You answer questions about the user's documents.
Use only the numbered passages under "Context:" in the last message; do not use outside knowledge.
Cite the passages you use with their numbers in square brackets, like [1] or [2][3], right after the statement they support.
If the passages do not contain the answer, say so plainly instead of guessing.
Answer in the language of the question, even when the passages are in another language.`

// noContext stands in for the passages when none were retrieved or none fit.
const noContext = "(no passages were found in the documents)"

// BuildMessages returns the messages for the chat model: the system
// instructions; the most recent turns of history that fit budget.History
// (oldest first, a turn is never cut; turns with a role other than user or
// assistant, or empty content, are skipped); and a last user message with
// the context and the question.
//
// The context holds the leading sources, best first, that fit
// budget.Context, each as "[n] fileName, p. page" followed by its text, where
// n is the source's 1-based position in sources: the numbers match the order
// the client gets the sources in. It stops at the first source that does not
// fit, so the numbers stay contiguous.
//
// count returns the number of tokens of a string (the splitter's CountTokens).
func BuildMessages(question string, history []docqa.Message, sources []docqa.ScoredChunk, count func(string) int, budget Budget) []docqa.Message {
	if budget.History == 0 {
		budget.History = DefaultBudget.History
	}
	if budget.Context == 0 {
		budget.Context = DefaultBudget.Context
	}

	msgs := []docqa.Message{{Role: docqa.RoleSystem, Content: SystemPrompt}}
	msgs = append(msgs, recentTurns(history, count, budget.History)...)

	var b strings.Builder
	b.WriteString(ContextLabel)
	b.WriteString("\n")
	passages := contextBlocks(sources, count, budget.Context)
	if len(passages) == 0 {
		b.WriteString(noContext)
	} else {
		b.WriteString(strings.Join(passages, "\n\n"))
	}
	b.WriteString("\n\n")
	b.WriteString(QuestionLabel)
	b.WriteString(" ")
	b.WriteString(strings.TrimSpace(question))
	return append(msgs, docqa.Message{Role: docqa.RoleUser, Content: b.String()})
}

// recentTurns keeps the newest turns whose tokens add up to at most budget.
func recentTurns(history []docqa.Message, count func(string) int, budget int) []docqa.Message {
	if budget < 0 {
		return nil
	}
	start := len(history)
	used := 0
	for i := len(history) - 1; i >= 0; i-- {
		m := history[i]
		if (m.Role != docqa.RoleUser && m.Role != docqa.RoleAssistant) || strings.TrimSpace(m.Content) == "" {
			start = i // skipped, but older turns may still fit
			continue
		}
		n := count(m.Content)
		if used+n > budget {
			break
		}
		used += n
		start = i
	}
	var out []docqa.Message
	for _, m := range history[start:] {
		if (m.Role == docqa.RoleUser || m.Role == docqa.RoleAssistant) && strings.TrimSpace(m.Content) != "" {
			out = append(out, m)
		}
	}
	return out
}

// contextBlocks formats the leading sources that fit budget.
func contextBlocks(sources []docqa.ScoredChunk, count func(string) int, budget int) []string {
	if budget < 0 {
		return nil
	}
	var blocks []string
	used := 0
	for i, s := range sources {
		block := fmt.Sprintf("[%d] %s, p. %d\n%s", i+1, s.Document.FileName, s.Chunk.Page, strings.TrimSpace(s.Chunk.Text))
		n := count(block)
		if used+n > budget {
			break
		}
		used += n
		blocks = append(blocks, block)
	}
	return blocks
}
