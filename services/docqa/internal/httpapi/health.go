package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
)

// healthTimeout bounds the store's Ping so /health answers promptly.
const healthTimeout = 3 * time.Second

type healthResponse struct {
	Status   string         `json:"status"` // "ok" | "unavailable"
	Time     time.Time      `json:"time"`
	Store    storeHealth    `json:"store"`
	Embedder providerHealth `json:"embedder"`
	Chat     providerHealth `json:"chat"`
}

type storeHealth struct {
	Kind   string `json:"kind"`   // "embedded" | "milvus"
	Status string `json:"status"` // "ok" | "unavailable"
	Error  string `json:"error,omitempty"`
}

type providerHealth struct {
	Name string `json:"name"`
	Mode string `json:"mode"` // "remote" | "local" (the built-in fallback)
}

// health answers 200 when the vector store answers and 503 otherwise; it
// also says which embedder and chat model serve, so a deployment running
// on the local fallbacks is visible.
func (h *handler) health(c *gin.Context) {
	ctx, cancel := context.WithTimeout(c.Request.Context(), healthTimeout)
	defer cancel()
	res := healthResponse{
		Status:   "ok",
		Time:     h.cfg.Now().UTC(),
		Store:    storeHealth{Kind: h.cfg.StoreKind, Status: "ok"},
		Embedder: providerHealth{Name: h.cfg.Embedder.Name(), Mode: h.cfg.EmbedderMode},
		Chat:     providerHealth{Name: h.cfg.Chat.Name(), Mode: h.cfg.ChatMode},
	}
	status := http.StatusOK
	if err := h.cfg.Store.Ping(ctx); err != nil {
		h.log.WarnContext(ctx, "health: vector store unavailable", "err", err)
		status = http.StatusServiceUnavailable
		res.Status = "unavailable"
		res.Store.Status = "unavailable"
		res.Store.Error = "the vector store does not answer"
	}
	c.JSON(status, res)
}
