package httpapi

import (
	"errors"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/pkg/ginx"
	"github.com/carhub/backend/services/docqa/internal/docqa"
	"github.com/carhub/backend/services/docqa/internal/specs"
)

// specifications answers POST /api/documents/:md5/specifications: the
// specifications read from the document's pages (internal/specs), by the
// chat model when it answers structured output, else by rules. The
// document is one the caller may read (404 otherwise, as GET /file
// answers). Nothing is stored.
func (h *handler) specifications(c *gin.Context) {
	ctx := c.Request.Context()
	md5, err := md5Param(c)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	if _, err := h.cfg.Store.Document(ctx, md5); errors.Is(err, docqa.ErrNotFound) {
		ginx.Fail(c, apperr.Wrap(apperr.NotFound, err, "document %s not found", md5))
		return
	} else if err != nil {
		ginx.Fail(c, storeDown(ctx, err))
		return
	}
	p := specs.Proposer{Retriever: h.cfg.Retriever, Log: h.log}
	if m, ok := h.cfg.Chat.(docqa.StructuredModel); ok {
		p.Model = m
	}
	out, err := p.Propose(ctx, md5)
	switch {
	case errors.Is(err, specs.ErrModel) && ctx.Err() == nil:
		ginx.Fail(c, apperr.Wrap(apperr.Unavailable, err, "the chat model did not answer the specifications; try again later"))
		return
	case err != nil:
		ginx.Fail(c, storeDown(ctx, err))
		return
	}
	c.JSON(http.StatusOK, out)
}
