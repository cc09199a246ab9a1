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
	Status    string          `json:"status"` // "ok" | "starting" | "unavailable"
	Time      time.Time       `json:"time"`
	PDF       pdfHealth       `json:"pdf"`
	Store     storeHealth     `json:"store"`
	Embedder  providerHealth  `json:"embedder"`
	Chat      providerHealth  `json:"chat"`
	Retrieval retrievalHealth `json:"retrieval"`
	OCR       OCRHealth       `json:"ocr"`
}

// OCR's states in /health.
const (
	OCRStatusOK      = "ok"      // tesseract found, every language installed
	OCRStatusOff     = "off"     // OCR=off
	OCRStatusMissing = "missing" // OCR=auto and no tesseract: scanned PDFs are refused
)

// OCR_LANGUAGES' modes in /health.
const (
	OCRModeAuto  = "auto"  // each page read with the installed languages of its script
	OCRModeFixed = "fixed" // every page read with the languages listed
)

// OCRHealth says whether scanned pages are read, and in which languages
// (Tesseract's codes; [] unless the status is ok): with the mode auto,
// Languages are every installed language, what a page reads with when
// OSD cannot tell its script, and Scripts the languages a page of each
// script reads with ({} when OSD's data is not installed: every page reads
// with every language). Mode is "" and Scripts nil unless the status is ok.
type OCRHealth struct {
	Status    string              `json:"status"`
	Mode      string              `json:"mode,omitempty"`
	Languages []string            `json:"languages"`
	Scripts   map[string][]string `json:"scripts,omitzero"`
}

// retrievalHealth says how questions find their chunks: the mode in force
// and why (RETRIEVAL, or the default for the embedder), the one that
// serves (vector when the store has no lexical index, as an older Milvus
// collection has not), and the reranker, "" for none.
type retrievalHealth struct {
	Mode         string `json:"mode"`
	Reason       string `json:"reason"`
	Serving      string `json:"serving"`
	LexicalIndex bool   `json:"lexicalIndex"`
	Reranker     string `json:"reranker,omitempty"`
}

type storeHealth struct {
	Kind   string `json:"kind"`   // "embedded" | "milvus"
	Status string `json:"status"` // "ok" | "unavailable"
	Error  string `json:"error,omitempty"`
}

// pdfHealth is the PDF engine's state: "starting" while it compiles at
// start-up (uploads wait for it), "ok", or "unavailable" when it failed.
type pdfHealth struct {
	Status string `json:"status"`
}

type providerHealth struct {
	Name string `json:"name"`
	Mode string `json:"mode"` // "remote" | "local" (the built-in fallback)
}

// health answers 200 when the PDF engine is ready and the vector store
// answers, 503 otherwise ("starting" while the engine starts); it also says
// which embedder and chat model serve, so a deployment running on the local
// fallbacks is visible.
func (h *handler) health(c *gin.Context) {
	ctx, cancel := context.WithTimeout(c.Request.Context(), healthTimeout)
	defer cancel()
	res := healthResponse{
		Status:   "ok",
		Time:     h.cfg.Now().UTC(),
		PDF:      pdfHealth{Status: "ok"},
		Store:    storeHealth{Kind: h.cfg.StoreKind, Status: "ok"},
		Embedder: providerHealth{Name: h.cfg.Embedder.Name(), Mode: h.cfg.EmbedderMode},
		Chat:     providerHealth{Name: h.cfg.Chat.Name(), Mode: h.cfg.ChatMode},
		Retrieval: retrievalHealth{
			Mode:         string(h.cfg.Retriever.Configured()),
			Reason:       h.cfg.Retriever.Reason(),
			Serving:      string(h.cfg.Retriever.Effective()),
			LexicalIndex: h.cfg.Store.LexicalIndex(),
			Reranker:     h.cfg.Retriever.Reranker(),
		},
		OCR: h.cfg.OCR,
	}
	if res.OCR.Status == "" {
		res.OCR.Status = OCRStatusOff
	}
	if res.OCR.Status != OCRStatusOK {
		res.OCR = OCRHealth{Status: res.OCR.Status}
	}
	if res.OCR.Languages == nil {
		res.OCR.Languages = []string{}
	}
	if res.OCR.Mode == OCRModeAuto && res.OCR.Scripts == nil {
		res.OCR.Scripts = map[string][]string{}
	}
	status := http.StatusOK
	switch ready, err := h.cfg.PDFEngine.Ready(); {
	case err != nil:
		status, res.Status, res.PDF.Status = http.StatusServiceUnavailable, "unavailable", "unavailable"
	case !ready:
		status, res.Status, res.PDF.Status = http.StatusServiceUnavailable, "starting", "starting"
	}
	if err := h.cfg.Store.Ping(ctx); err != nil {
		h.log.WarnContext(ctx, "health: vector store unavailable", "err", err)
		status = http.StatusServiceUnavailable
		res.Status = "unavailable"
		res.Store.Status = "unavailable"
		res.Store.Error = "the vector store does not answer"
	}
	c.JSON(status, res)
}
