package httpapi

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/pkg/ginx"
	"github.com/carhub/backend/pkg/httpserver"
	"github.com/carhub/backend/pkg/sse"
	"github.com/carhub/backend/services/docqa/internal/docqa"
	"github.com/carhub/backend/services/docqa/internal/language"
	"github.com/carhub/backend/services/docqa/internal/rag"
	"github.com/carhub/backend/services/docqa/internal/script"
)

// Chat request bounds of ../shared/spec/decisions.md. The history's bounds
// keep the work of counting its tokens small (proto-docs/auth-decisions.md,
// "Chat history and the tokenizer's work"): the web client sends at most
// the last 20 items, each cut to maxHistoryChars.
const (
	maxQuestionChars = 8000
	maxHistoryItems  = 40
	maxHistoryChars  = 16000
	defaultTopK      = 10
	maxTopK          = 100
	maxDocuments     = 100
)

// chatRequest is the body of POST /api/chat/stream. Pointers tell an absent
// field from a zero one.
type chatRequest struct {
	Question *string       `json:"question"`
	Message  *string       `json:"message"` // alias of question; question wins
	TopK     *int          `json:"topK"`
	History  []chatMessage `json:"history"`
	// Documents limits retrieval to these documents (their fileMd5).
	Documents []string `json:"documents"`
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// chatQuery is a validated chat request.
type chatQuery struct {
	Question  string
	TopK      int
	History   []docqa.Message
	Documents []string
}

// validate checks the request against ../shared/spec/decisions.md and returns the query.
// Every member is checked, so that one answer names each one that is
// wrong (apperr.Join).
func (r chatRequest) validate() (chatQuery, error) {
	q := chatQuery{TopK: defaultTopK}
	var errs []error
	switch {
	case r.Question != nil:
		q.Question = *r.Question
	case r.Message != nil:
		q.Question = *r.Message
	}
	if strings.TrimSpace(q.Question) == "" {
		errs = append(errs, apperr.Invalid("question", "is required and must not be blank"))
	} else if n := utf8.RuneCountInString(q.Question); n > maxQuestionChars {
		errs = append(errs, apperr.Invalid("question", "must be at most %d characters (got %d)", maxQuestionChars, n))
	}
	if r.TopK != nil {
		if *r.TopK < 1 || *r.TopK > maxTopK {
			errs = append(errs, apperr.Invalid("topK", "must be an integer from 1 to %d", maxTopK))
		}
		q.TopK = *r.TopK
	}
	if len(r.History) > maxHistoryItems {
		// Not each turn: a long list would make a long answer.
		errs = append(errs, apperr.Invalid("history", "must hold at most %d turns (got %d)", maxHistoryItems, len(r.History)))
	} else {
		for i, m := range r.History {
			role := docqa.Role(m.Role)
			if role != docqa.RoleUser && role != docqa.RoleAssistant {
				errs = append(errs, apperr.Invalid(fmt.Sprintf("history[%d].role", i), "must be %q or %q", docqa.RoleUser, docqa.RoleAssistant))
			}
			if n := utf8.RuneCountInString(m.Content); n > maxHistoryChars {
				errs = append(errs, apperr.Invalid(fmt.Sprintf("history[%d].content", i), "must be at most %d characters (got %d)", maxHistoryChars, n))
			}
			q.History = append(q.History, docqa.Message{Role: role, Content: m.Content})
		}
	}
	if len(r.Documents) > maxDocuments {
		errs = append(errs, apperr.Invalid("documents", "must name at most %d documents (got %d)", maxDocuments, len(r.Documents)))
	} else {
		for i, md5 := range r.Documents {
			if !docqa.ValidMD5(md5) {
				errs = append(errs, apperr.Invalid(fmt.Sprintf("documents[%d]", i), "must be a document's fileMd5 (32 lowercase hex digits)"))
			}
		}
	}
	q.Documents = r.Documents
	return q, apperr.Join(errs...)
}

// sourceView is one item of the sources event.
type sourceView struct {
	DocID    string `json:"docId"`
	FileName string `json:"fileName"`
	FileMD5  string `json:"fileMd5"`
	Page     int    `json:"page"`
	// PageLabel is the page's printed label ("iii", "3-12"), absent when
	// the PDF has none or the chunk was stored before labels were read.
	PageLabel  string  `json:"pageLabel,omitempty"`
	ChunkIndex int     `json:"chunkIndex"`
	Score      float32 `json:"score"`
	Text       string  `json:"text"`
	// Highlights are the passage's lines on its page (highlights.go),
	// absent when they could not be found.
	Highlights []rectView `json:"highlights,omitempty"`
	// OCR: the passage was read by OCR from a scanned page, so it may
	// hold misread words.
	OCR bool `json:"ocr"`
}

// Answer modes of the sources event: what the answer that follows is.
const (
	modeAnswer = "answer" // a chat model writes it, citing sources as [n]
	modeQuotes = "quotes" // no chat model: quoted passages (docqa.Quoter)
)

type sourcesEvent struct {
	// Mode says what the answer is: written by a model or quoted.
	Mode string `json:"mode"`
	// Sources are what the answer's [n] number: in quotes mode the quoted
	// passages only, in answer mode every retrieved passage (the prompt's
	// numbering).
	Sources []sourceView `json:"sources"`
	// More are the retrieved passages not in Sources (quotes mode), best
	// first; empty in answer mode.
	More []sourceView `json:"more"`
	// Notice, in quotes mode, says why nothing is quoted: noticeOtherScript
	// when no retrieved passage is in the question's writing system,
	// noticeOtherLanguage when none is in its language, noticeNoMatch when
	// none holds enough of what the question asks about. Absent otherwise.
	Notice string `json:"notice,omitempty"`
	// Scripts are, with noticeOtherScript, the retrieved passages' writing
	// systems (script.Of), each once, best passage first.
	Scripts []string `json:"scripts,omitempty"`
	// Languages are, with noticeOtherLanguage, the retrieved passages'
	// languages (ISO 639-1 codes, language.Of), each once, best passage
	// first.
	Languages []string `json:"languages,omitempty"`
}

// noticeOtherScript: in quotes mode, the question is in another writing
// system than every retrieved passage (script.Other). Quoting passages a
// reader of the question may not read, matched by nothing but chance (a
// table of contents, as often as not), would not answer it: none is quoted,
// all are listed under more, and the answer is otherScriptAnswer.
const noticeOtherScript = "other_script"

// otherScriptAnswer is the whole answer with noticeOtherScript. It is
// English, as the fallback's other sentences are; clients show the notice
// in their own language instead.
func otherScriptAnswer(systems []string) string {
	names := strings.Join(systems, ", ")
	if n := len(systems); n > 1 {
		names = strings.Join(systems[:n-1], ", ") + " and " + systems[n-1]
	}
	return fmt.Sprintf("The passages that match this question are in %s script, not in the question's, and without a chat model nothing is translated, so none is quoted. Ask in the language of the documents, or open one of the passages listed.", names)
}

// noticeOtherLanguage: in quotes mode, the question is in the script of
// the retrieved passages but in another language than every one of them
// whose language is sure (language.Other: German asked of an English
// manual). Handled as noticeOtherScript: none quoted, all under more, the
// answer otherLanguageAnswer.
const noticeOtherLanguage = "other_language"

// otherLanguageAnswer is the whole answer with noticeOtherLanguage, in
// English as otherScriptAnswer.
func otherLanguageAnswer(langs []string) string {
	names := make([]string, len(langs))
	for i, l := range langs {
		names[i] = language.Name(l)
	}
	list := strings.Join(names, ", ")
	if n := len(names); n > 1 {
		list = strings.Join(names[:n-1], ", ") + " and " + names[n-1]
	}
	return fmt.Sprintf("The passages that match this question are in %s, not in the question's language, and without a chat model nothing is translated, so none is quoted. Ask in the language of the documents, or open one of the passages listed.", list)
}

// noticeNoMatch: in quotes mode, passages were retrieved but none holds
// enough of the question's content to answer it (relevance.Question
// .Matches, the threshold measured on the retrieval benchmark): the
// manuals do not seem to cover the question. None is quoted, all are
// listed under more (the nearest passages), and the answer is
// noMatchAnswer.
const noticeNoMatch = "no_match"

// noMatchAnswer is the whole answer with noticeNoMatch, in English as
// otherScriptAnswer; clients show the notice in their own language.
const noMatchAnswer = "The stored documents do not seem to cover this question: no passage holds enough of what it asks about, so none is quoted. The nearest passages are listed; ask in other words, or open one of them."

type contentEvent struct {
	Content string `json:"content"`
}

type doneEvent struct {
	FinishReason string `json:"finishReason"`
	// Used are the 1-based positions in the sources event's sources that the
	// answer uses, one per (document, page), in the order first used.
	Used []int `json:"used"`
}

func toSourceViews(hits []docqa.ScoredChunk, highlights map[string][]rectView) []sourceView {
	out := make([]sourceView, len(hits)) // [] rather than null when none
	for i, h := range hits {
		out[i] = sourceView{
			DocID:      h.Chunk.ID,
			FileName:   h.Document.FileName,
			FileMD5:    h.Document.FileMD5,
			Page:       h.Chunk.Page,
			PageLabel:  h.Chunk.PageLabel,
			Highlights: highlights[h.Chunk.ID],
			ChunkIndex: h.Chunk.Index,
			Score:      h.Score,
			Text:       h.Chunk.Text,
			OCR:        h.Chunk.OCR,
		}
	}
	return out
}

// chat answers POST /api/chat/stream: validation and retrieval failures are
// plain JSON errors; once the sources event is sent, the answer streams and
// a failure becomes an error event.
func (h *handler) chat(c *gin.Context) {
	ctx := c.Request.Context()
	var req chatRequest
	if err := ginx.BindJSON(c, &req); err != nil {
		ginx.Fail(c, err)
		return
	}
	q, err := req.validate()
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	hits, err := h.retrieve(ctx, q)
	if err != nil {
		ginx.Fail(c, err)
		return
	}

	h.chatStreams.Inc()
	defer h.chatStreams.Dec()
	ev := sourcesEvent{Mode: modeAnswer}
	sources, more := hits, []docqa.ScoredChunk(nil)
	// What a quoted source's highlights cover: the sentences quoted, by chunk id.
	var marked map[string][]string
	if quoter, ok := h.cfg.Chat.(docqa.Quoter); ok {
		// The quotes are chosen before anything streams, so the sources
		// event lists only what the answer quotes.
		ev.Mode = modeQuotes
		if other, systems := script.Other(q.Question, chunkTexts(hits)); other {
			ev.Notice, ev.Scripts = noticeOtherScript, systems
			sources, more = nil, hits
		} else if other, langs := language.Other(q.Question, chunkTexts(hits)); other {
			ev.Notice, ev.Languages = noticeOtherLanguage, langs
			sources, more = nil, hits
		} else {
			quotes := quoter.Quoted(ctx, q.Question, hits)
			sources, more = splitQuoted(hits, quotes)
			marked = quotedSentences(hits, quotes)
			if len(quotes) == 0 && len(hits) > 0 {
				ev.Notice = noticeNoMatch
			}
		}
	}
	marks := h.highlights(ctx, hits, marked)
	ev.Sources, ev.More = toSourceViews(sources, marks), toSourceViews(more, marks)
	w := sse.New(c.Writer)
	if err := w.Event("sources", ev); err != nil {
		return // the client is gone
	}
	if ev.Notice != "" {
		answer := noMatchAnswer
		switch ev.Notice {
		case noticeOtherScript:
			answer = otherScriptAnswer(ev.Scripts)
		case noticeOtherLanguage:
			answer = otherLanguageAnswer(ev.Languages)
		}
		if err := w.Event("", contentEvent{Content: answer}); err == nil {
			_ = w.Event("done", doneEvent{FinishReason: "stop", Used: []int{}})
		}
		return
	}
	mode := ev.Mode
	stop := w.Heartbeat(h.cfg.Heartbeat)
	// A server shutting down ends the answer itself with an error event
	// rather than letting the shutdown timeout cut the connection.
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go func() {
		select {
		case <-httpserver.Stopping(ctx):
			cancel(errShuttingDown)
		case <-ctx.Done():
		}
	}()
	// A quoting model reads the question and its sources only: the prompt
	// (and counting its history's tokens) is for a model that writes.
	var messages []docqa.Message
	if mode == modeAnswer {
		messages = rag.BuildMessages(q.Question, q.History, hits, h.cfg.CountTokens, h.cfg.Budget)
	}
	var answer strings.Builder
	finish, err := h.cfg.Chat.Stream(ctx, docqa.ChatRequest{
		Messages:    messages,
		Question:    q.Question,
		Temperature: h.cfg.Temperature,
		Sources:     sources,
	}, func(content string) error {
		answer.WriteString(content)
		return w.Event("", contentEvent{Content: content})
	})
	stop()
	if err != nil {
		if errors.Is(context.Cause(ctx), errShuttingDown) {
			h.streamError(c, w, apperr.New(apperr.Unavailable, "the service is shutting down; ask again"))
			return
		}
		if ctx.Err() != nil {
			h.log.InfoContext(ctx, "chat cancelled by the client", "err", err)
			return
		}
		h.streamError(c, w, err)
		return
	}
	used := citedSources(answer.String(), sources)
	if mode == modeQuotes {
		used = onePerPage(sources, seq(len(sources)))
	}
	_ = w.Event("done", doneEvent{FinishReason: finish, Used: used})
}

// quotedSentences returns the sentences quoted of each hit, by chunk id.
func quotedSentences(hits []docqa.ScoredChunk, quotes []docqa.Quote) map[string][]string {
	out := map[string][]string{}
	for _, q := range quotes {
		if q.Index >= 0 && q.Index < len(hits) {
			out[hits[q.Index].Chunk.ID] = q.Sentences
		}
	}
	return out
}

// chunkTexts returns the hits' texts.
func chunkTexts(hits []docqa.ScoredChunk) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Chunk.Text
	}
	return out
}

// splitQuoted returns the hits at the quoted positions, in the order
// quoted, and the others in their order.
func splitQuoted(hits []docqa.ScoredChunk, quoted []docqa.Quote) (used, rest []docqa.ScoredChunk) {
	in := make([]bool, len(hits))
	for _, q := range quoted {
		if i := q.Index; i >= 0 && i < len(hits) && !in[i] {
			in[i] = true
			used = append(used, hits[i])
		}
	}
	for i, h := range hits {
		if !in[i] {
			rest = append(rest, h)
		}
	}
	return used, rest
}

// citation is a model's "[2]" or "[2, 3]" (the prompt asks for [n] or [2][3]).
var citation = regexp.MustCompile(`\[(\d+(?:\s*[,，]\s*\d+)*)\]`)

// citedSources returns the 1-based positions in sources that answer cites,
// in the order first cited, one per (document, page); numbers outside the
// sources are ignored.
func citedSources(answer string, sources []docqa.ScoredChunk) []int {
	var ns []int
	for _, m := range citation.FindAllStringSubmatch(answer, -1) {
		for _, f := range strings.FieldsFunc(m[1], func(r rune) bool { return r == ',' || r == '，' || r == ' ' }) {
			if n, err := strconv.Atoi(f); err == nil && n >= 1 && n <= len(sources) {
				ns = append(ns, n)
			}
		}
	}
	return onePerPage(sources, ns)
}

// onePerPage keeps the first of ns (1-based positions in sources) per
// (document, page); it never returns nil, so the JSON is a list.
func onePerPage(sources []docqa.ScoredChunk, ns []int) []int {
	type page struct {
		md5 string
		n   int
	}
	seen := map[page]bool{}
	out := []int{}
	for _, n := range ns {
		s := sources[n-1]
		pg := page{s.Document.FileMD5, s.Chunk.Page}
		if !seen[pg] {
			seen[pg] = true
			out = append(out, n)
		}
	}
	return out
}

// seq is 1..n.
func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i + 1
	}
	return out
}

var errShuttingDown = errors.New("server shutting down")

// retrieve checks that every named document is stored, then asks the
// retriever for the question's chunks.
func (h *handler) retrieve(ctx context.Context, q chatQuery) ([]docqa.ScoredChunk, error) {
	for i, md5 := range q.Documents {
		if _, err := h.cfg.Store.Document(ctx, md5); errors.Is(err, docqa.ErrNotFound) {
			return nil, apperr.Invalid(fmt.Sprintf("documents[%d]", i), "no stored document has fileMd5 %s", md5)
		} else if err != nil {
			return nil, storeDown(ctx, err)
		}
	}
	hits, err := h.cfg.Retriever.Retrieve(ctx, q.Question, docqa.Query{TopK: q.TopK, Documents: q.Documents})
	if err != nil {
		return nil, storeDown(ctx, err)
	}
	return hits, nil
}

// storeDown makes any failure of retrieval UNAVAILABLE: whatever broke
// inside the store or the embedder, the service cannot answer without it.
func storeDown(ctx context.Context, err error) error {
	if ctx.Err() == nil && !errors.Is(err, docqa.ErrUnavailable) && !errors.Is(err, docqa.ErrDimension) {
		return fmt.Errorf("retrieval: %w: %w", docqa.ErrUnavailable, err)
	}
	return err
}
