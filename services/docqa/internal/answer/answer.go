// Package answer decides how the chat answers a question from the passages
// retrieval found for it: whether a chat model writes the answer or,
// without one, which passages are quoted (or none, and why: the question
// is in another writing system or language than every passage, or no
// passage holds enough of what it asks); which sources the finished answer
// uses; and where each source's passage lies on its page (highlights.go).
//
// It knows no HTTP. internal/httpapi decodes the request into a Query,
// retrieves the passages, asks Service.Prepare for the Plan, sends it as
// the sources event and streams Service.Write's answer. The consumer
// interfaces (Locator, Originals) are declared here, as ingest declares
// its own; the chat model is the domain's docqa.ChatModel, and a
// docqa.Quoter (provider.ExtractiveChat) is what makes the answer quotes.
package answer

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/services/docqa/internal/docqa"
	"github.com/carhub/backend/services/docqa/internal/language"
	"github.com/carhub/backend/services/docqa/internal/pdftext"
	"github.com/carhub/backend/services/docqa/internal/rag"
	"github.com/carhub/backend/services/docqa/internal/script"
)

// Bounds of a Query (proto-docs/contract.md, "Chat request"). The history's bounds
// keep the work of counting its tokens small (proto-docs/auth-decisions.md,
// "Chat history and the tokenizer's work"): the web client sends at most
// the last 20 items, each cut to MaxHistoryChars.
const (
	MaxQuestionChars = 8000
	MaxHistoryItems  = 40
	MaxHistoryChars  = 16000
	DefaultTopK      = 10
	MaxTopK          = 100
	MaxDocuments     = 100
)

// Query is a question as asked: its text, how many passages to retrieve
// for it, the conversation before it and the documents it is limited to
// (their fileMd5; none: every document the reader may read).
type Query struct {
	Question  string
	TopK      int
	History   []docqa.Message
	Documents []string
}

// Validate checks q against the bounds above. Every member is checked, so
// that one error names each one that is wrong (apperr.Join); the field
// names are the chat request's.
func (q Query) Validate() error {
	var errs []error
	if strings.TrimSpace(q.Question) == "" {
		errs = append(errs, apperr.Invalid("question", "is required and must not be blank"))
	} else if n := utf8.RuneCountInString(q.Question); n > MaxQuestionChars {
		errs = append(errs, apperr.Invalid("question", "must be at most %d characters (got %d)", MaxQuestionChars, n))
	}
	if q.TopK < 1 || q.TopK > MaxTopK {
		errs = append(errs, apperr.Invalid("topK", "must be an integer from 1 to %d", MaxTopK))
	}
	if len(q.History) > MaxHistoryItems {
		// Not each turn: a long list would make a long answer.
		errs = append(errs, apperr.Invalid("history", "must hold at most %d turns (got %d)", MaxHistoryItems, len(q.History)))
	} else {
		for i, m := range q.History {
			if m.Role != docqa.RoleUser && m.Role != docqa.RoleAssistant {
				errs = append(errs, apperr.Invalid(fmt.Sprintf("history[%d].role", i), "must be %q or %q", docqa.RoleUser, docqa.RoleAssistant))
			}
			if n := utf8.RuneCountInString(m.Content); n > MaxHistoryChars {
				errs = append(errs, apperr.Invalid(fmt.Sprintf("history[%d].content", i), "must be at most %d characters (got %d)", MaxHistoryChars, n))
			}
		}
	}
	if len(q.Documents) > MaxDocuments {
		errs = append(errs, apperr.Invalid("documents", "must name at most %d documents (got %d)", MaxDocuments, len(q.Documents)))
	} else {
		for i, md5 := range q.Documents {
			if !docqa.ValidMD5(md5) {
				errs = append(errs, apperr.Invalid(fmt.Sprintf("documents[%d]", i), "must be a document's fileMd5 (32 lowercase hex digits)"))
			}
		}
	}
	return apperr.Join(errs...)
}

// Mode says what the answer is.
type Mode string

// The modes.
const (
	ModeAnswer Mode = "answer" // a chat model writes it, citing sources as [n]
	ModeQuotes Mode = "quotes" // no chat model: quoted passages (docqa.Quoter)
)

// Notice, in quotes mode, says why nothing is quoted; the answer is then
// Plan.NoticeAnswer's one paragraph. The empty Notice is none.
type Notice string

// The notices.
const (
	// NoticeOtherScript: the question is in another writing system than
	// every retrieved passage (script.Other). Quoting passages a reader of
	// the question may not read, matched by nothing but chance (a table of
	// contents, as often as not), would not answer it: none is quoted, all
	// are listed under More.
	NoticeOtherScript Notice = "other_script"
	// NoticeOtherLanguage: the question is in the script of the retrieved
	// passages but in another language than every one of them whose
	// language is sure (language.Other: German asked of an English
	// manual). Handled as NoticeOtherScript.
	NoticeOtherLanguage Notice = "other_language"
	// NoticeNoMatch: passages were retrieved but none holds enough of the
	// question's content to answer it (the Quoter's relevance.Question
	// .Matches, the threshold measured on the retrieval benchmark): the
	// manuals do not seem to cover the question. None is quoted, all are
	// listed under More (the nearest passages).
	NoticeNoMatch Notice = "no_match"
)

// Plan is what is decided before anything streams: what the sources event
// tells and what the answer that follows will be.
type Plan struct {
	Mode Mode
	// Sources are what the answer's [n] number: in quotes mode the quoted
	// passages only, in the order quoted; in answer mode every retrieved
	// passage (the prompt's numbering).
	Sources []docqa.ScoredChunk
	// More are the retrieved passages not in Sources (quotes mode), best
	// first; empty in answer mode.
	More []docqa.ScoredChunk
	// Notice says why nothing is quoted ("" otherwise).
	Notice Notice
	// Scripts are, with NoticeOtherScript, the retrieved passages' writing
	// systems (script.Of), each once, best passage first.
	Scripts []string
	// Languages are, with NoticeOtherLanguage, the retrieved passages'
	// languages (ISO 639-1 codes, language.Of), each once, best passage
	// first.
	Languages []string
	// Highlights are the passages' lines on their pages, by chunk id
	// (Service.highlights); a passage without them is absent.
	Highlights map[string][]docqa.Rect
	// quoted holds the quoted sentences of each quoted passage, by chunk id.
	quoted map[string][]string
}

// Locator finds passages on the pages of a PDF (pdftext's Engine): for
// each passage, its lines on its page. Errors: pdftext's classes
// (ErrBusy when ctx ends before an engine instance is free).
type Locator interface {
	Locate(ctx context.Context, r io.ReaderAt, size int64, passages []pdftext.Passage) ([][]pdftext.Rect, error)
}

// Originals opens the kept file of a document (internal/originals' Dir);
// an error, for one not kept.
type Originals interface {
	Open(md5 string) (*os.File, error)
}

// DefaultHighlightBudget bounds locating the sources on their pages; past
// it the sources go without highlights.
const DefaultHighlightBudget = 2 * time.Second

// Config wires a Service.
type Config struct {
	// Chat writes the answer; a docqa.Quoter makes it quotes.
	Chat docqa.ChatModel
	// Locator and Originals find the sources' lines on their pages; with
	// either nil, only passages OCR read (their lines stored with them)
	// have highlights.
	Locator   Locator
	Originals Originals
	// HighlightBudget bounds the locating (default DefaultHighlightBudget).
	HighlightBudget time.Duration
	// CountTokens and Budget hold a writing model's prompt to its budget
	// (rag.BuildMessages); CountTokens is required when Chat writes and
	// questions come with history.
	CountTokens func(string) int
	Budget      rag.Budget
	// Temperature of the chat model.
	Temperature float64
	Log         *slog.Logger
}

// Service answers questions; it is safe for concurrent use.
type Service struct {
	cfg Config
	log *slog.Logger
}

// New returns a Service; cfg.Chat is required.
func New(cfg Config) *Service {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.HighlightBudget <= 0 {
		cfg.HighlightBudget = DefaultHighlightBudget
	}
	return &Service{cfg: cfg, log: cfg.Log}
}

// Prepare decides how question is answered from hits, the retrieved
// passages best first. With a writing model every hit is a source. With a
// Quoter the quotes are chosen now, so that the sources are only what the
// answer quotes; nothing is quoted, and the Plan says why (Notice), when
// the question is in another script or language than every hit, or when
// hits were retrieved and none is worth quoting. Highlights are found
// last, within the budget; the Plan never fails for want of them.
func (s *Service) Prepare(ctx context.Context, question string, hits []docqa.ScoredChunk) Plan {
	p := Plan{Mode: ModeAnswer, Sources: hits}
	if quoter, ok := s.cfg.Chat.(docqa.Quoter); ok {
		p.Mode = ModeQuotes
		if other, systems := script.Other(question, chunkTexts(hits)); other {
			p.Notice, p.Scripts = NoticeOtherScript, systems
			p.Sources, p.More = nil, hits
		} else if other, langs := language.Other(question, chunkTexts(hits)); other {
			p.Notice, p.Languages = NoticeOtherLanguage, langs
			p.Sources, p.More = nil, hits
		} else {
			quotes := quoter.Quoted(ctx, question, hits)
			p.Sources, p.More = splitQuoted(hits, quotes)
			p.quoted = quotedSentences(hits, quotes)
			if len(quotes) == 0 && len(hits) > 0 {
				p.Notice = NoticeNoMatch
			}
		}
	}
	p.Highlights = s.highlights(ctx, hits, p.quoted)
	return p
}

// Write has the chat model answer q as p decided, passing each piece of
// the answer to emit as it comes. It returns the model's finish reason and
// the 1-based positions in p.Sources that the answer uses, one per
// (document, page), in the order first used: what a model cites as [n],
// or every quoted passage. Errors are the model's (docqa.ChatModel.Stream)
// and emit's. A Plan with a Notice needs no model: its answer is
// p.NoticeAnswer().
func (s *Service) Write(ctx context.Context, q Query, p Plan, emit func(content string) error) (finish string, used []int, err error) {
	// A quoting model reads the question and its sources only: the prompt
	// (and counting its history's tokens) is for a model that writes.
	var messages []docqa.Message
	if p.Mode == ModeAnswer {
		messages = rag.BuildMessages(q.Question, q.History, p.Sources, s.cfg.CountTokens, s.cfg.Budget)
	}
	var answer strings.Builder
	finish, err = s.cfg.Chat.Stream(ctx, docqa.ChatRequest{
		Messages:    messages,
		Question:    q.Question,
		Temperature: s.cfg.Temperature,
		Sources:     p.Sources,
	}, func(content string) error {
		answer.WriteString(content)
		return emit(content)
	})
	if err != nil {
		return "", nil, err
	}
	if p.Mode == ModeQuotes {
		return finish, onePerPage(p.Sources, seq(len(p.Sources))), nil
	}
	return finish, citedSources(answer.String(), p.Sources), nil
}

// NoticeAnswer is the whole answer of a Plan with a Notice ("" without
// one). It is English, as the fallback's other sentences are; clients show
// the notice in their own language instead.
func (p Plan) NoticeAnswer() string {
	switch p.Notice {
	case NoticeOtherScript:
		return fmt.Sprintf("The passages that match this question are in %s script, not in the question's, and without a chat model nothing is translated, so none is quoted. Ask in the language of the documents, or open one of the passages listed.", listed(p.Scripts))
	case NoticeOtherLanguage:
		names := make([]string, len(p.Languages))
		for i, l := range p.Languages {
			names[i] = language.Name(l)
		}
		return fmt.Sprintf("The passages that match this question are in %s, not in the question's language, and without a chat model nothing is translated, so none is quoted. Ask in the language of the documents, or open one of the passages listed.", listed(names))
	case NoticeNoMatch:
		return "The stored documents do not seem to cover this question: no passage holds enough of what it asks about, so none is quoted. The nearest passages are listed; ask in other words, or open one of them."
	}
	return ""
}

// listed is names as a sentence lists them: "a", "a and b", "a, b and c".
func listed(names []string) string {
	if n := len(names); n > 1 {
		return strings.Join(names[:n-1], ", ") + " and " + names[n-1]
	}
	return strings.Join(names, ", ")
}
