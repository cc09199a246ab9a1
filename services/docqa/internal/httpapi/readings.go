package httpapi

import (
	"context"
	"errors"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/pkg/ginx"
	"github.com/carhub/backend/services/docqa/internal/docqa"
	"github.com/carhub/backend/services/docqa/internal/maintenance"
	"github.com/carhub/backend/services/docqa/internal/specs"
)

// maintenanceSchedule answers POST /api/documents/:md5/maintenance-schedule:
// the maintenance items proposed from the document's schedule pages
// (internal/maintenance). Nothing is stored: the client turns the items the
// owner ticks into reminders.
func (h *handler) maintenanceSchedule(c *gin.Context) {
	h.readFromDocument(c, "a maintenance schedule", maintenance.ErrModel, func(ctx context.Context, md5 string, m docqa.StructuredModel) (any, error) {
		return maintenance.Proposer{Retriever: h.cfg.Retriever, Model: m, Log: h.log}.Propose(ctx, md5)
	})
}

// specifications answers POST /api/documents/:md5/specifications: the
// specifications read from the document's pages (internal/specs). Nothing
// is stored.
func (h *handler) specifications(c *gin.Context) {
	h.readFromDocument(c, "the specifications", specs.ErrModel, func(ctx context.Context, md5 string, m docqa.StructuredModel) (any, error) {
		return specs.Proposer{Retriever: h.cfg.Retriever, Model: m, Log: h.log}.Propose(ctx, md5)
	})
}

// readFromDocument answers a POST that reads something (what) from the
// pages of the document :md5: read by the chat model when it answers
// structured output (m nil otherwise: read by rules). The document is one
// the caller may read (404 otherwise, as GET /file answers); a model that
// fails (errModel) is UNAVAILABLE, any other failure the store's.
func (h *handler) readFromDocument(c *gin.Context, what string, errModel error, read func(ctx context.Context, md5 string, m docqa.StructuredModel) (any, error)) {
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
	m, _ := h.cfg.Chat.(docqa.StructuredModel)
	out, err := read(ctx, md5, m)
	switch {
	case errors.Is(err, errModel) && ctx.Err() == nil:
		ginx.Fail(c, apperr.Wrap(apperr.Unavailable, err, "the chat model did not answer %s; try again later", what))
		return
	case err != nil:
		ginx.Fail(c, storeDown(ctx, err))
		return
	}
	c.JSON(http.StatusOK, out)
}
