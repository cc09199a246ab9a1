// Package httpapi is the HTTP layer of the docqa service: the routes of
// docqa-service.openapi.yaml on a pkg/ginx engine, request validation, the
// server-sent event streams of chat and upload, and the mapping of domain
// errors to the contract's error codes.
package httpapi

import (
	"log/slog"
	"net/netip"
	"os"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/pkg/ginauth"
	"github.com/carhub/backend/pkg/ginprobes"
	"github.com/carhub/backend/pkg/ginx"
	"github.com/carhub/backend/services/docqa/internal/answer"
	"github.com/carhub/backend/services/docqa/internal/docqa"
	"github.com/carhub/backend/services/docqa/internal/ingest"
	"github.com/carhub/backend/services/docqa/internal/pageview"
	"github.com/carhub/backend/services/docqa/internal/rag"
	"github.com/carhub/backend/services/docqa/internal/retrieval"
)

// Defaults of Config.
const (
	DefaultHeartbeat          = 15 * time.Second
	DefaultUploadStallTimeout = 30 * time.Second
	// maxChatBody bounds a chat request: 8000 characters of question plus a
	// generous history.
	maxChatBody = 4 << 20
)

// Config wires the handlers.
type Config struct {
	Log      *slog.Logger
	Store    docqa.VectorStore
	Embedder docqa.Embedder
	Chat     docqa.ChatModel
	// Retriever finds a question's chunks (default: hybrid retrieval over
	// Store and Embedder, without a reranker).
	Retriever *retrieval.Retriever
	Pipeline  *ingest.Pipeline
	// Originals serves GET /api/documents/:md5/file: the kept file of a
	// document (internal/originals' Dir). Nil: no original is kept.
	Originals interface {
		Open(md5 string) (*os.File, error)
	}
	// Pages draws and reads single pages of the originals (pdftext's
	// Engine): GET /api/documents/:md5/pages/:n.png and .pdf, and the
	// highlights of the chat's sources. Nil: those pages answer 404 and
	// sources carry no highlights.
	Pages PageEngine
	// PageCache keeps rendered pages and one-page PDFs (nil: none kept).
	PageCache PageCache
	// PageWait bounds a page's wait for the engine (503 with Retry-After
	// past it), PageBudget its whole preparation (503 past it; the work
	// finishes and is cached), HighlightBudget the locating of a chat
	// answer's sources on their pages. Zero: the Default* constants
	// (answer.DefaultHighlightBudget).
	PageWait        time.Duration
	PageBudget      time.Duration
	HighlightBudget time.Duration
	// PDFEngine reports whether the PDF engine has started (/health).
	PDFEngine interface{ Ready() (bool, error) }
	// OCR is what /health says of OCR: its status (OCRStatusOK, ...)
	// and, when ok, its languages. The zero value reads "off".
	OCR OCRHealth
	// CountTokens measures prompt text for the context budget (the
	// splitter's cl100k count).
	CountTokens func(string) int
	// Budget bounds the prompt's history and retrieved context, in tokens
	// (zero fields take rag.DefaultBudget's).
	Budget rag.Budget
	// Temperature of the chat model (the contract's 0.7 when zero).
	Temperature float64
	// Heartbeat is the interval of ": ping" comments on streams (default 15 s).
	Heartbeat time.Duration
	// MaxUploadBytes limits one upload request (default ingest.MaxFileBytes).
	MaxUploadBytes int64
	// UploadStallTimeout ends an upload whose client has sent nothing for
	// this long without closing the connection (default 30 s), so a stalled
	// client holds neither a handler nor a temporary file.
	UploadStallTimeout time.Duration
	CORSOrigins        []string
	// TrustedProxies: see ginx.Options.
	TrustedProxies []netip.Prefix
	// StoreKind, EmbedderMode and ChatMode are reported by /health:
	// "embedded"|"milvus", "remote"|"local".
	StoreKind    string
	EmbedderMode string
	ChatMode     string
	Now          func() time.Time
	// Metrics, when set, gets the request metrics and the chat streams
	// open, and is served at GET /metrics.
	Metrics *prometheus.Registry
	// AuthMode and IdentitySecret: with local, every /api request needs
	// the identity fuel-service signed for the gateway (pkg/ginauth.Trusted);
	// off (or empty) acts as the built-in user.
	AuthMode       auth.Mode
	IdentitySecret []byte
	// ChatPerMinute bounds each user's chat questions a minute, and
	// UploadsPerUser the uploads one user has running at once; 0: no limit.
	ChatPerMinute  int
	UploadsPerUser int
	// Probes, when set, serve GET /livez and GET /readyz.
	Probes *ginprobes.Probes
	// Receipts reads POST /api/receipts/scan's photos (receiptscan);
	// nil (no OCR): that route answers 503.
	Receipts ReceiptScanner
}

// alwaysReady stands for a PDF engine when none is configured.
type alwaysReady struct{}

func (alwaysReady) Ready() (bool, error) { return true, nil }

type handler struct {
	cfg Config
	log *slog.Logger
	// answers decides the chat's answers (internal/answer).
	answers *answer.Service
	// chatStreams counts the chat answers being streamed now.
	chatStreams prometheus.Gauge
	// Per-user limits (limits.go).
	chatLimit *ginauth.Limiter
	uploads   *ginauth.Concurrency
	// pages prepares the page routes' images and PDFs (internal/pageview);
	// nil when no original is kept.
	pages *pageview.Service
}

// New returns the engine serving every route of the docqa service.
func New(cfg Config) *gin.Engine {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Temperature == 0 {
		cfg.Temperature = 0.7
	}
	if cfg.Heartbeat <= 0 {
		cfg.Heartbeat = DefaultHeartbeat
	}
	if cfg.MaxUploadBytes <= 0 {
		cfg.MaxUploadBytes = ingest.MaxFileBytes
	}
	if cfg.UploadStallTimeout <= 0 {
		cfg.UploadStallTimeout = DefaultUploadStallTimeout
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.PageWait <= 0 {
		cfg.PageWait = DefaultPageWait
	}
	if cfg.PageBudget <= 0 {
		cfg.PageBudget = DefaultPageBudget
	}
	if cfg.PDFEngine == nil {
		cfg.PDFEngine = alwaysReady{}
	}
	if cfg.Retriever == nil {
		r, err := retrieval.New(retrieval.Config{Store: cfg.Store, Embedder: cfg.Embedder, LocalEmbedder: cfg.EmbedderMode == "local", Log: cfg.Log})
		if err != nil {
			panic("httpapi: " + err.Error()) // only a Config without Store or Embedder gets here
		}
		cfg.Retriever = r
	}
	h := &handler{cfg: cfg, log: cfg.Log, chatStreams: prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "docqa_chat_streams_open",
		Help: "Chat answers being streamed now.",
	})}
	h.answers = answer.New(answer.Config{
		Chat: cfg.Chat, Locator: cfg.Pages, Originals: cfg.Originals, HighlightBudget: cfg.HighlightBudget,
		CountTokens: cfg.CountTokens, Budget: cfg.Budget, Temperature: cfg.Temperature, Log: cfg.Log,
	})
	if cfg.Originals != nil {
		h.pages = pageview.New(pageview.Config{
			Engine: cfg.Pages, Originals: cfg.Originals, Cache: cfg.PageCache, Wait: cfg.PageWait, Budget: cfg.PageBudget, Log: cfg.Log,
		})
	}
	h.chatLimit = ginauth.NewLimiter(cfg.ChatPerMinute, time.Minute, cfg.ChatPerMinute)
	h.uploads = ginauth.NewConcurrency(cfg.UploadsPerUser)
	if cfg.Metrics != nil {
		cfg.Metrics.MustRegister(h.chatStreams)
	}

	r := ginx.New(cfg.Log, ginx.Options{
		CORSOrigins: cfg.CORSOrigins, TrustedProxies: cfg.TrustedProxies, MapError: errorOf, QuietPaths: []string{"/health"},
		Metrics: cfg.Metrics, Probes: cfg.Probes,
	})
	r.GET("/health", h.health)

	api := r.Group("/api", ginauth.Trusted(cfg.AuthMode, cfg.IdentitySecret, cfg.Now), ginauth.RequireScope())
	api.POST("/chat/stream", h.limitChat, ginx.BodyLimit(maxChatBody), h.chat)
	// The limit covers the whole multipart request, as the contract's
	// "maximum size of one multipart request" says; the file inside is
	// therefore a little smaller than 100 MB at most.
	upload := ginx.BodyLimit(cfg.MaxUploadBytes)
	api.POST("/documents/upload", h.limitUploads, upload, h.upload)
	api.POST("/documents/upload/stream", h.limitUploads, upload, h.uploadStream)
	// The operator's shared library: administrators only.
	api.POST("/documents/import", ginauth.RequireAdmin(), h.importDocuments)
	api.GET("/documents", h.listDocuments)
	api.DELETE("/documents/:md5", h.deleteDocument)
	// gin serves HEAD only where it is registered; the PDF viewer's range
	// requests and caches use it.
	api.GET("/documents/:md5/file", h.documentFile)
	api.HEAD("/documents/:md5/file", h.documentFile)
	// :page is "N.png" or "N.pdf" (gin cannot end a parameter with a suffix).
	api.GET("/documents/:md5/pages/:page", h.page)
	// A chat model's call each, so counted as a chat question.
	api.POST("/documents/:md5/maintenance-schedule", h.limitChat, h.maintenanceSchedule)
	api.POST("/documents/:md5/specifications", h.limitChat, h.specifications)
	// A photo is read like an upload: the same per-user limit; nothing kept.
	api.POST("/receipts/scan", h.limitUploads, ginx.BodyLimit(maxReceiptRequest), h.scanReceipt)
	return r
}
