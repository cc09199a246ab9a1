package httpapi

import (
	"context"
	"errors"
	"fmt"

	"github.com/gin-gonic/gin"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/pkg/ginx"
	"github.com/carhub/backend/pkg/httpserver"
	"github.com/carhub/backend/pkg/sse"
	"github.com/carhub/backend/services/docqa/internal/answer"
	"github.com/carhub/backend/services/docqa/internal/docqa"
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

// toQuery is the request as the answer's Query (checked by its Validate):
// topK answer.DefaultTopK when absent.
func (r chatRequest) toQuery() answer.Query {
	q := answer.Query{TopK: answer.DefaultTopK, Documents: r.Documents}
	switch {
	case r.Question != nil:
		q.Question = *r.Question
	case r.Message != nil:
		q.Question = *r.Message
	}
	if r.TopK != nil {
		q.TopK = *r.TopK
	}
	for _, m := range r.History {
		q.History = append(q.History, docqa.Message{Role: docqa.Role(m.Role), Content: m.Content})
	}
	return q
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
	// Highlights are the passage's lines on its page (answer.Plan's),
	// absent when they could not be found.
	Highlights []rectView `json:"highlights,omitempty"`
	// OCR: the passage was read by OCR from a scanned page, so it may
	// hold misread words.
	OCR bool `json:"ocr"`
}

// rectView is one highlighted line of a source's passage on its page: x,
// y, width and height as fractions (0..1) of the page as shown (its crop
// box, turned by its /Rotate), the origin at the TOP LEFT, so that
// multiplied by the size of GET .../pages/:n.png at any width they land on
// its pixels.
type rectView struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
	W float64 `json:"w"`
	H float64 `json:"h"`
}

// sourcesEvent is answer.Plan as the contract's sources event.
type sourcesEvent struct {
	// Mode says what the answer is: written by a model or quoted.
	Mode answer.Mode `json:"mode"`
	// Sources are what the answer's [n] number (answer.Plan.Sources).
	Sources []sourceView `json:"sources"`
	// More are the retrieved passages not in Sources (quotes mode), best
	// first; empty in answer mode.
	More []sourceView `json:"more"`
	// Notice, in quotes mode, says why nothing is quoted (answer.Notice's
	// other_script, other_language, no_match); absent otherwise.
	Notice answer.Notice `json:"notice,omitempty"`
	// Scripts (with other_script) and Languages (with other_language) are
	// the retrieved passages' writing systems and languages.
	Scripts   []string `json:"scripts,omitempty"`
	Languages []string `json:"languages,omitempty"`
}

type contentEvent struct {
	Content string `json:"content"`
}

type doneEvent struct {
	FinishReason string `json:"finishReason"`
	// Used are the 1-based positions in the sources event's sources that the
	// answer uses, one per (document, page), in the order first used.
	Used []int `json:"used"`
}

func toSourcesEvent(p answer.Plan) sourcesEvent {
	return sourcesEvent{
		Mode: p.Mode, Notice: p.Notice, Scripts: p.Scripts, Languages: p.Languages,
		Sources: toSourceViews(p.Sources, p.Highlights), More: toSourceViews(p.More, p.Highlights),
	}
}

func toSourceViews(hits []docqa.ScoredChunk, highlights map[string][]docqa.Rect) []sourceView {
	out := make([]sourceView, len(hits)) // [] rather than null when none
	for i, h := range hits {
		out[i] = sourceView{
			DocID:      h.Chunk.ID,
			FileName:   h.Document.FileName,
			FileMD5:    h.Document.FileMD5,
			Page:       h.Chunk.Page,
			PageLabel:  h.Chunk.PageLabel,
			Highlights: toRectViews(highlights[h.Chunk.ID]),
			ChunkIndex: h.Chunk.Index,
			Score:      h.Score,
			Text:       h.Chunk.Text,
			OCR:        h.Chunk.OCR,
		}
	}
	return out
}

func toRectViews(rects []docqa.Rect) []rectView {
	if rects == nil {
		return nil
	}
	out := make([]rectView, len(rects))
	for i, r := range rects {
		out[i] = rectView{X: r.X, Y: r.Y, W: r.W, H: r.H}
	}
	return out
}

// chat answers POST /api/chat/stream: validation and retrieval failures are
// plain JSON errors; once the sources event is sent, the answer streams and
// a failure becomes an error event. What the answer is, internal/answer
// decides.
func (h *handler) chat(c *gin.Context) {
	ctx := c.Request.Context()
	var req chatRequest
	if err := ginx.BindJSON(c, &req); err != nil {
		ginx.Fail(c, err)
		return
	}
	q := req.toQuery()
	if err := q.Validate(); err != nil {
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
	plan := h.answers.Prepare(ctx, q.Question, hits)
	w := sse.New(c.Writer)
	if err := w.Event("sources", toSourcesEvent(plan)); err != nil {
		return // the client is gone
	}
	if plan.Notice != "" {
		if err := w.Event("", contentEvent{Content: plan.NoticeAnswer()}); err == nil {
			_ = w.Event("done", doneEvent{FinishReason: "stop", Used: []int{}})
		}
		return
	}
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
	finish, used, err := h.answers.Write(ctx, q, plan, func(content string) error {
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
	_ = w.Event("done", doneEvent{FinishReason: finish, Used: used})
}

var errShuttingDown = errors.New("server shutting down")

// retrieve checks that every named document is stored, then asks the
// retriever for the question's chunks.
func (h *handler) retrieve(ctx context.Context, q answer.Query) ([]docqa.ScoredChunk, error) {
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
