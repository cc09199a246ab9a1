// Command docqa-service serves document question answering: PDF upload and
// import into a vector store, and retrieval-augmented chat streamed as
// server-sent events. Configuration comes from the environment (see config).
package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/carhub/backend/pkg/backupcli"
	"github.com/carhub/backend/pkg/buildinfo"
	"github.com/carhub/backend/pkg/config"
	"github.com/carhub/backend/pkg/ginprobes"
	"github.com/carhub/backend/pkg/httpserver"
	"github.com/carhub/backend/pkg/logging"
	"github.com/carhub/backend/pkg/metrics"
	"github.com/carhub/backend/pkg/profiling"
	"github.com/carhub/backend/pkg/serviceenv"
	"github.com/carhub/backend/pkg/tracing"
	"github.com/carhub/backend/services/docqa/internal/docqa"
	"github.com/carhub/backend/services/docqa/internal/embedded"
	"github.com/carhub/backend/services/docqa/internal/httpapi"
	"github.com/carhub/backend/services/docqa/internal/milvus"
	"github.com/carhub/backend/services/docqa/internal/ocr"
	"github.com/carhub/backend/services/docqa/internal/provider"
	"github.com/carhub/backend/services/docqa/internal/rag"
	"github.com/carhub/backend/services/docqa/internal/retrieval"
)

// version is stamped at build: -ldflags "-X main.version=$(git describe)".
var version = "dev"

func main() {
	if buildinfo.IsVersionFlag(os.Args[1:]) {
		fmt.Println(buildinfo.Read("docqa-service", version))
		return
	}
	ctx, cancel := httpserver.SignalContext(context.Background())
	defer cancel()
	serve := run
	switch {
	case backupcli.Is(os.Args[1:]):
		serve = func(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
			return backupCommand(ctx, os.Args[1:], getenv, stdout)
		}
	case len(os.Args) > 1:
		serve = func(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
			return command(ctx, os.Args[1:], getenv, stdout)
		}
	}
	if err := serve(ctx, os.Getenv, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "docqa-service:", err)
		cancel()
		os.Exit(1)
	}
}

// serviceConfig is the whole configuration, read from the environment.
type serviceConfig struct {
	Addr string `env:"DOCQA_ADDR" default:":8080"`
	// AuthMode: off (everyone is the built-in user) or local (the gateway
	// hands over the identity fuel-service signed with AuthIdentitySecret).
	AuthMode           string `env:"AUTH_MODE" default:"off"`
	AuthIdentitySecret string `env:"AUTH_IDENTITY_SECRET" secret:"true"`
	// Per-user limits, applied with AUTH_MODE=local (0: no limit): chat
	// questions a minute, uploads running at once.
	ChatQuestionsPerMinute int `env:"CHAT_QUESTIONS_PER_MINUTE" default:"20"`
	UploadsPerUser         int `env:"UPLOADS_PER_USER" default:"2"`

	VectorStore      string        `env:"VECTOR_STORE" default:"embedded"` // embedded | milvus
	StorePath        string        `env:"DOCQA_STORE_PATH" default:"var/vectors"`
	MilvusAddress    string        `env:"MILVUS_ADDRESS"`
	MilvusUsername   string        `env:"MILVUS_USERNAME"`
	MilvusPassword   string        `env:"MILVUS_PASSWORD" secret:"true"`
	MilvusDatabase   string        `env:"MILVUS_DATABASE"`
	MilvusCollection string        `env:"MILVUS_COLLECTION" default:"vector_store"`
	MilvusNProbe     int           `env:"MILVUS_NPROBE" default:"64"`
	MilvusTimeout    time.Duration `env:"MILVUS_TIMEOUT" default:"10s"`

	DataDir string `env:"DOCQA_DATA_DIR" default:"data"`
	TempDir string `env:"DOCQA_TEMP_DIR" default:"var/uploads"` // this instance's own: leftovers are removed at start
	// FilesDir keeps the original of every stored PDF, served by GET
	// /api/documents/:md5/file. On the file system of TempDir, keeping one
	// is a hard link of the upload: no copy.
	FilesDir string `env:"DOCQA_FILES_DIR" default:"var/docqa-files"`

	// At most IngestConcurrency documents are extracted and embedded at once
	// (each one PDF engine instance); IngestQueue more wait in line; past
	// that an upload is answered 503 with Retry-After.
	IngestConcurrency int `env:"INGEST_CONCURRENCY" default:"2"`
	IngestQueue       int `env:"INGEST_QUEUE" default:"16"`
	// PDFCacheDir keeps the PDF engine's compiled code between starts
	// (a restart then takes a tenth of a second); empty compiles at every
	// start.
	PDFCacheDir string `env:"DOCQA_PDF_CACHE_DIR" default:"var/pdfium-cache"`
	// Single pages of the originals (GET /api/documents/:md5/pages/:n.png
	// and .pdf, and the highlights of sources) are drawn on
	// PDFPageInstances PDF engine instances of their own; the images and
	// one-page PDFs are kept in PageCacheDir, beside the originals, at most
	// PageCacheBytes (least recently used out first; kept across restarts).
	PDFPageInstances int    `env:"PDF_PAGE_INSTANCES" default:"1"`
	PageCacheDir     string `env:"DOCQA_PAGE_CACHE_DIR" default:"var/docqa-pages"`
	PageCacheBytes   int64  `env:"DOCQA_PAGE_CACHE_BYTES" default:"268435456"` // 256 MiB

	// OCR reads pages without a text layer (scanned manuals) with
	// Tesseract: auto when tesseract is found at OCR_TESSERACT or on PATH,
	// off never (such a PDF is refused). OCR_LANGUAGES is auto (each page
	// read with the installed languages of the script Tesseract's OSD finds
	// on it) or Tesseract's codes joined by '+', each checked at start and
	// read together on every page; OCR_CONCURRENCY
	// tesseract processes run at once across the service, each page within
	// OCR_PAGE_TIMEOUT or skipped and reported.
	OCR            string        `env:"OCR" default:"auto"` // auto | off
	OCRTesseract   string        `env:"OCR_TESSERACT"`
	OCRLanguages   string        `env:"OCR_LANGUAGES" default:"auto"`
	OCRConcurrency int           `env:"OCR_CONCURRENCY" default:"1"`
	OCRPageTimeout time.Duration `env:"OCR_PAGE_TIMEOUT" default:"60s"`

	EmbeddingBaseURL     string        `env:"EMBEDDING_BASE_URL"`
	EmbeddingAPIKey      string        `env:"EMBEDDING_API_KEY" secret:"true"`
	EmbeddingModel       string        `env:"EMBEDDING_MODEL" default:"BAAI/bge-m3"`
	EmbeddingBatchSize   int           `env:"EMBEDDING_BATCH_SIZE" default:"32"`
	EmbeddingConcurrency int           `env:"EMBEDDING_CONCURRENCY" default:"4"`
	EmbeddingTimeout     time.Duration `env:"EMBEDDING_TIMEOUT" default:"60s"`
	EmbeddingMaxRetries  int           `env:"EMBEDDING_MAX_RETRIES" default:"2"`

	ChatBaseURL          string        `env:"CHAT_BASE_URL"`
	ChatAPIKey           string        `env:"CHAT_API_KEY" secret:"true"`
	ChatModel            string        `env:"CHAT_MODEL" default:"deepseek-ai/DeepSeek-V3"`
	ChatFirstByteTimeout time.Duration `env:"CHAT_FIRST_BYTE_TIMEOUT" default:"60s"`
	ChatTimeout          time.Duration `env:"CHAT_TIMEOUT" default:"5m"`
	ChatMaxRetries       int           `env:"CHAT_MAX_RETRIES" default:"2"`
	ChatContextTokens    int           `env:"CHAT_CONTEXT_TOKENS" default:"6000"` // retrieved passages in the prompt
	ChatHistoryTokens    int           `env:"CHAT_HISTORY_TOKENS" default:"2000"` // earlier turns in the prompt

	// Retrieval: hybrid fuses the lexical (BM25) and vector rankings by
	// reciprocal rank fusion, convex by their normalized scores; routed
	// answers a question that names an identifier by lexical and the
	// others by convex; anchored keeps lexical's first chunks first and
	// hybrid's order for the rest; vector and lexical use one ranking
	// alone. Unset: the default for the embedder (retrieval.DefaultMode).
	Retrieval              string  `env:"RETRIEVAL"` // lexical | vector | hybrid | convex | routed | anchored
	RetrievalRRFK          int     `env:"RETRIEVAL_RRF_K" default:"20"`
	RetrievalLexicalWeight float64 `env:"RETRIEVAL_LEXICAL_WEIGHT" default:"2"`
	RetrievalVectorWeight  float64 `env:"RETRIEVAL_VECTOR_WEIGHT" default:"1"`
	RetrievalCandidates    int     `env:"RETRIEVAL_CANDIDATES" default:"50"`        // from each ranking, and for the reranker
	RetrievalLexicalShare  float64 `env:"RETRIEVAL_LEXICAL_SHARE" default:"0.8"`    // convex: the lexical scores' share
	RetrievalNormalization string  `env:"RETRIEVAL_NORMALIZATION" default:"minmax"` // convex: minmax | zscore
	RetrievalAnchorDepth   int     `env:"RETRIEVAL_ANCHOR_DEPTH" default:"3"`       // anchored: BM25's first chunks kept first

	// A reranker (the /rerank API of self-hostable rerank servers) reorders
	// the best RETRIEVAL_CANDIDATES fused chunks when RERANK_BASE_URL is set.
	RerankBaseURL    string        `env:"RERANK_BASE_URL"`
	RerankAPIKey     string        `env:"RERANK_API_KEY" secret:"true"`
	RerankModel      string        `env:"RERANK_MODEL" default:"BAAI/bge-reranker-v2-m3"`
	RerankTimeout    time.Duration `env:"RERANK_TIMEOUT" default:"30s"`
	RerankMaxRetries int           `env:"RERANK_MAX_RETRIES" default:"1"`

	// CORS_ORIGINS, TRUSTED_PROXIES, SHUTDOWN_DRAIN, METRICS: as every
	// service reads them.
	serviceenv.HTTP
	SSEHeartbeat    time.Duration `env:"SSE_HEARTBEAT" default:"15s"`
	UploadStall     time.Duration `env:"UPLOAD_STALL_TIMEOUT" default:"30s"` // an upload silent this long is ended
	ShutdownTimeout time.Duration `env:"SHUTDOWN_TIMEOUT" default:"10s"`
}

// remote reports whether a remote provider is configured: a base URL or an
// API key (a self-hosted server may need no key; a key alone means the
// provider library's default endpoint).
func remote(baseURL, apiKey string) bool {
	return baseURL != "" || apiKey != ""
}

// run starts the service and serves until ctx is done. httpserver.Serve
// logs the listening address ("listening", addr), so a test can start the
// whole service on 127.0.0.1:0 and read where it listens.
func run(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
	var cfg serviceConfig
	if err := config.Load(getenv, &cfg); err != nil {
		return err
	}
	web, err := cfg.HTTP.Parse()
	if err != nil {
		return err
	}
	log := logging.New(stdout, web.LogLevel)
	build := buildinfo.Read("docqa-service", version)
	log.Info("starting docqa-service", append([]any{"version", build.Version, "revision", build.Revision}, config.Attrs(cfg)...)...)
	// Before the store, the providers and the handler: they ask whether
	// tracing is on.
	stopTracing, err := tracing.Init(ctx, getenv, "docqa-service", log)
	if err != nil {
		return err
	}
	defer stopTracing()
	stopProfiler, err := profiling.Start(ctx, web.Pprof, log)
	if err != nil {
		return err
	}
	defer stopProfiler()
	// reg stays nil with METRICS=off: nothing is registered or served.
	var (
		reg             *prometheus.Registry
		providerMetrics *provider.Metrics
	)
	if web.Metrics {
		reg = metrics.NewRegistry()
		providerMetrics = provider.NewMetrics(reg)
		if err := build.Register(reg); err != nil {
			return fmt.Errorf("metrics: %w", err)
		}
	}

	setGCPercent(getenv, cfg.VectorStore, log)
	store, storeKind, err := openStore(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer store.Close()
	if p, ok := store.(interface{ DB() *sql.DB }); ok && reg != nil {
		if err := metrics.RegisterDB(reg, storeKind, p.DB()); err != nil {
			return fmt.Errorf("metrics: %w", err)
		}
	}

	md, err := newModels(ctx, cfg, store, providerMetrics, log)
	if err != nil {
		return err
	}
	docs, err := openDocuments(ctx, cfg, store, md.embedder, reg, log)
	if err != nil {
		return err
	}
	defer docs.Close()
	authMode, identitySecret, limits, err := authConfig(cfg)
	if err != nil {
		return err
	}
	ready := readiness(store, docs.pdf, docs.files.Path())
	handler := httpapi.New(httpapi.Config{
		Log:                log,
		Store:              store,
		Embedder:           md.embedder,
		Chat:               md.chat,
		Retriever:          md.retriever,
		Pipeline:           docs.pipeline,
		Originals:          docs.files,
		Pages:              docs.pdf,
		PageCache:          docs.pageCache,
		PDFEngine:          docs.pdf,
		OCR:                docs.ocrHealth,
		CountTokens:        docs.split.CountTokens,
		Budget:             rag.Budget{History: cfg.ChatHistoryTokens, Context: cfg.ChatContextTokens},
		Heartbeat:          cfg.SSEHeartbeat,
		UploadStallTimeout: cfg.UploadStall,
		CORSOrigins:        web.Origins,
		TrustedProxies:     web.Proxies,
		StoreKind:          storeKind,
		EmbedderMode:       md.embedderMode,
		ChatMode:           md.chatMode,
		Metrics:            reg,
		Probes:             ready,
		AuthMode:           authMode,
		IdentitySecret:     identitySecret,
		ChatPerMinute:      limits.chatPerMinute,
		UploadsPerUser:     limits.uploadsPerUser,
		Receipts:           newReceipts(docs.ocr, cfg, log),
	})

	ln, err := httpserver.Listen(cfg.Addr)
	if err != nil {
		return fmt.Errorf("DOCQA_ADDR: %w", err)
	}
	// A PDF engine that cannot start ends the service: better restarted by
	// its supervisor than serving without being able to read a document.
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	started := time.Now()
	go func() {
		if err := docs.pdf.Wait(ctx); err != nil {
			if ctx.Err() == nil {
				stop(fmt.Errorf("PDF engine: %w", err))
			}
			return
		}
		log.Info("docqa-service ready", "pdf_engine_start_ms", time.Since(started).Milliseconds(), "store", storeKind,
			"embedder", md.embedder.Name(), "embedder_mode", md.embedderMode, "chat", md.chat.Name(), "chat_mode", md.chatMode)
	}()
	serveOpts := httpserver.Options{ShutdownTimeout: cfg.ShutdownTimeout, Drain: web.Drain, OnStop: ready.Drain}
	if err := httpserver.Serve(ctx, ln, handler, log, serveOpts); err != nil {
		return err
	}
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		return cause
	}
	return nil
}

// newOCR reads the OCR settings: nil and "off" with OCR=off; nil and
// "missing" (logged) with OCR=auto when tesseract is not found; else the
// engine, once tesseract answered and has every language of OCR_LANGUAGES
// (with auto: every installed language; without OSD's data, logged, every
// page reads them all). A language without its data ends the start with
// an error naming it.
func newOCR(ctx context.Context, cfg serviceConfig, log *slog.Logger) (*ocr.Engine, httpapi.OCRHealth, error) {
	off := httpapi.OCRHealth{Status: httpapi.OCRStatusOff}
	switch cfg.OCR {
	case "off":
		return nil, off, nil
	case "auto":
	default:
		return nil, off, fmt.Errorf("OCR: %q must be auto or off", cfg.OCR)
	}
	langs, auto, err := ocr.ParseLanguages(cfg.OCRLanguages)
	if err != nil {
		return nil, off, fmt.Errorf("OCR_LANGUAGES: %w", err)
	}
	if cfg.OCRConcurrency < 1 {
		return nil, off, fmt.Errorf("OCR_CONCURRENCY: %d must be at least 1", cfg.OCRConcurrency)
	}
	if cfg.OCRPageTimeout <= 0 {
		return nil, off, fmt.Errorf("OCR_PAGE_TIMEOUT: %s must be positive", cfg.OCRPageTimeout)
	}
	command, err := ocr.Find(cfg.OCRTesseract)
	if err != nil {
		where := "on PATH"
		if cfg.OCRTesseract != "" {
			where = "at OCR_TESSERACT=" + cfg.OCRTesseract
		}
		log.Warn("OCR is not installed: PDFs of scanned pages are refused (install tesseract-ocr, or set OCR=off to silence this)",
			"looked", where, "err", err)
		return nil, httpapi.OCRHealth{Status: httpapi.OCRStatusMissing}, nil
	}
	version, installed, err := ocr.Check(ctx, command, langs)
	if err != nil {
		return nil, off, fmt.Errorf("OCR: %w", err)
	}
	health := httpapi.OCRHealth{Status: httpapi.OCRStatusOK, Mode: httpapi.OCRModeFixed, Languages: langs}
	osd := auto && slices.Contains(installed, "osd")
	if auto {
		if langs = ocr.Recognizable(installed); len(langs) == 0 {
			return nil, off, fmt.Errorf("OCR: OCR_LANGUAGES=auto and no language is installed for %s (apt-get install tesseract-ocr-eng)", command)
		}
		health = httpapi.OCRHealth{Status: httpapi.OCRStatusOK, Mode: httpapi.OCRModeAuto, Languages: langs, Scripts: map[string][]string{}}
		if osd {
			health.Scripts = ocr.NewPlan(langs).Scripts
		} else {
			log.Warn("OCR cannot tell a page's script: Tesseract's osd data is missing, so every page is read with every installed language, slower (apt-get install tesseract-ocr-osd, or list the languages in OCR_LANGUAGES)",
				"languages", langs)
		}
	}
	engine, err := ocr.New(ocr.Config{Command: command, Languages: langs, Auto: osd, Concurrency: cfg.OCRConcurrency,
		PageTimeout: cfg.OCRPageTimeout, Log: log})
	if err != nil {
		return nil, off, err
	}
	log.Info("OCR reads scanned pages", "tesseract", command, "version", version, "mode", health.Mode, "languages", langs,
		"scripts", health.Scripts, "concurrency", cfg.OCRConcurrency, "page_timeout", cfg.OCRPageTimeout)
	return engine, health, nil
}

// readiness is the service's /readyz: the vector store answers, the PDF
// engine has started (uploads wait for it) and the originals' directory
// takes a new file (every upload keeps its original there).
func readiness(store docqa.VectorStore, pdf interface{ Ready() (bool, error) }, filesDir string) *ginprobes.Probes {
	return ginprobes.New(
		ginprobes.Check{Name: "vector_store", Run: store.Ping},
		ginprobes.Check{Name: "pdf_engine", Run: func(context.Context) error {
			switch ready, err := pdf.Ready(); {
			case err != nil:
				return fmt.Errorf("failed to start: %w", err)
			case !ready:
				return errors.New("starting")
			}
			return nil
		}},
		ginprobes.Check{Name: "files_dir", Run: func(context.Context) error { return writable(filesDir) }},
	)
}

// writable creates and removes a file in dir. The name starts with a dot:
// originals are named by their md5, so the probe's file is never served
// even if a crash leaves it behind.
func writable(dir string) error {
	f, err := os.CreateTemp(dir, ".readyz-*")
	if err != nil {
		return fmt.Errorf("DOCQA_FILES_DIR is not writable: %w", err)
	}
	name := f.Name()
	if err := f.Close(); err != nil {
		_ = os.Remove(name)
		return fmt.Errorf("DOCQA_FILES_DIR: %w", err)
	}
	if err := os.Remove(name); err != nil {
		return fmt.Errorf("DOCQA_FILES_DIR: %w", err)
	}
	return nil
}

// registerer is reg as a prometheus.Registerer, nil when reg is: a nil
// *Registry in the interface would not compare equal to nil.
func registerer(reg *prometheus.Registry) prometheus.Registerer {
	if reg == nil {
		return nil
	}
	return reg
}

// command runs a command other than serving: "reindex" gives a Milvus
// collection created without the lexical field its sparse BM25 field (see
// milvus.Store.Reindex); the embedded store needs none, its lexical index
// is built at every start.
func command(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	if len(args) != 1 || args[0] != "reindex" {
		return fmt.Errorf("unknown command %q: the commands are reindex, backup --to FILE and restore --from FILE [--force] (none: serve)", strings.Join(args, " "))
	}
	var cfg serviceConfig
	if err := config.Load(getenv, &cfg); err != nil {
		return err
	}
	log := logging.New(stdout, slog.LevelInfo)
	store, kind, err := openStore(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer store.Close()
	m, ok := store.(*milvus.Store)
	if !ok {
		log.Info("reindex: nothing to do: the " + kind + " store builds its lexical index at every start")
		return nil
	}
	if m.LexicalIndex() {
		log.Info("reindex: nothing to do: the collection has its lexical field", "collection", cfg.MilvusCollection)
		return nil
	}
	return m.Reindex(ctx, log)
}

// embeddedGCPercent is the garbage collector's target with the embedded
// store when GOGC is not set. That store keeps every vector, chunk text and
// posting in the heap, so the heap is mostly long-lived data; at Go's
// default of 100 the garbage of one ingestion could grow as large as the
// whole store before a collection. At 50, eight 100 MB uploads at once peak
// under 1 GiB (917 MiB in make bench, "docqa ingestion") instead of 1.1 GiB,
// in the same time.
const embeddedGCPercent = 50

// setGCPercent applies embeddedGCPercent to the embedded store; an
// operator's GOGC (or GOMEMLIMIT beside it) is left as the runtime read it.
func setGCPercent(getenv func(string) string, vectorStore string, log *slog.Logger) {
	if getenv("GOGC") != "" {
		return
	}
	if s := strings.ToLower(vectorStore); s == "embedded" || s == "" {
		debug.SetGCPercent(embeddedGCPercent)
		log.Info("garbage collector target set for the embedded store", "gogc", embeddedGCPercent)
	}
}

// openStore opens the configured vector store.
func openStore(ctx context.Context, cfg serviceConfig, log *slog.Logger) (docqa.VectorStore, string, error) {
	switch strings.ToLower(cfg.VectorStore) {
	case "embedded", "":
		s, err := embedded.Open(cfg.StorePath, log)
		if err != nil {
			return nil, "", fmt.Errorf("DOCQA_STORE_PATH: open embedded vector store: %w", err)
		}
		return s, "embedded", nil
	case "milvus":
		if cfg.MilvusAddress == "" {
			return nil, "", errors.New("MILVUS_ADDRESS: required when VECTOR_STORE=milvus")
		}
		s, err := milvus.Open(ctx, milvus.Config{
			Address:    cfg.MilvusAddress,
			Username:   cfg.MilvusUsername,
			Password:   cfg.MilvusPassword,
			Database:   cfg.MilvusDatabase,
			Collection: cfg.MilvusCollection,
			NProbe:     cfg.MilvusNProbe,
			Timeout:    cfg.MilvusTimeout,
		})
		if err != nil {
			return nil, "", fmt.Errorf("MILVUS_ADDRESS: open milvus: %w", err)
		}
		return s, "milvus", nil
	}
	return nil, "", fmt.Errorf("VECTOR_STORE: %q is neither embedded nor milvus", cfg.VectorStore)
}

func newEmbedder(cfg serviceConfig, m *provider.Metrics) (docqa.Embedder, string, error) {
	if !remote(cfg.EmbeddingBaseURL, cfg.EmbeddingAPIKey) {
		return provider.NewLexicalEmbedder(), "local", nil
	}
	e, err := provider.NewEmbedder(provider.EmbedderConfig{
		BaseURL:     cfg.EmbeddingBaseURL,
		APIKey:      cfg.EmbeddingAPIKey,
		Model:       cfg.EmbeddingModel,
		BatchSize:   cfg.EmbeddingBatchSize,
		Concurrency: cfg.EmbeddingConcurrency,
		Timeout:     cfg.EmbeddingTimeout,
		MaxRetries:  cfg.EmbeddingMaxRetries,
		Metrics:     m,
	})
	if err != nil {
		return nil, "", fmt.Errorf("EMBEDDING_BASE_URL, EMBEDDING_MODEL: %w", err)
	}
	return e, "remote", nil
}

// newChat returns the configured chat model, or the local fallback, which
// weighs a question's words by store's term counts when it keeps them.
func newChat(cfg serviceConfig, store docqa.VectorStore, m *provider.Metrics) (docqa.ChatModel, string, error) {
	if !remote(cfg.ChatBaseURL, cfg.ChatAPIKey) {
		counts, _ := store.(docqa.TermCounter)
		return provider.NewExtractiveChat(counts), "local", nil
	}
	c, err := provider.NewChat(provider.ChatConfig{
		BaseURL:          cfg.ChatBaseURL,
		APIKey:           cfg.ChatAPIKey,
		Model:            cfg.ChatModel,
		FirstByteTimeout: cfg.ChatFirstByteTimeout,
		Timeout:          cfg.ChatTimeout,
		MaxRetries:       cfg.ChatMaxRetries,
		Metrics:          m,
	})
	if err != nil {
		return nil, "", fmt.Errorf("CHAT_BASE_URL, CHAT_MODEL: %w", err)
	}
	return c, "remote", nil
}

// newRetriever wires retrieval, with the reranker when one is configured.
// RETRIEVAL unset takes the default for the embedder (local or not).
func newRetriever(cfg serviceConfig, store docqa.VectorStore, embedder docqa.Embedder, localEmbedder bool, log *slog.Logger, m *provider.Metrics) (*retrieval.Retriever, error) {
	var mode retrieval.Mode
	var reason string
	if cfg.Retrieval != "" {
		var err error
		if mode, err = retrieval.ParseMode(cfg.Retrieval); err != nil {
			return nil, fmt.Errorf("RETRIEVAL: %w", err)
		}
		reason = "RETRIEVAL=" + string(mode)
	}
	norm, err := retrieval.ParseNormalization(cfg.RetrievalNormalization)
	if err != nil {
		return nil, fmt.Errorf("RETRIEVAL_NORMALIZATION: %w", err)
	}
	if cfg.RetrievalLexicalShare <= 0 || cfg.RetrievalLexicalShare > 1 {
		return nil, fmt.Errorf("RETRIEVAL_LEXICAL_SHARE: %v is not in (0, 1]", cfg.RetrievalLexicalShare)
	}
	if cfg.RetrievalAnchorDepth < 1 {
		return nil, fmt.Errorf("RETRIEVAL_ANCHOR_DEPTH: %d is below 1", cfg.RetrievalAnchorDepth)
	}
	if cfg.RetrievalRRFK < 1 || cfg.RetrievalCandidates < 1 {
		return nil, errors.New("RETRIEVAL_RRF_K, RETRIEVAL_CANDIDATES: must be at least 1")
	}
	if cfg.RetrievalLexicalWeight <= 0 || cfg.RetrievalVectorWeight <= 0 {
		return nil, errors.New("RETRIEVAL_LEXICAL_WEIGHT, RETRIEVAL_VECTOR_WEIGHT: must be above 0")
	}
	rc := retrieval.Config{
		Store:         store,
		Embedder:      embedder,
		Mode:          mode,
		LocalEmbedder: localEmbedder,
		Reason:        reason,
		Normalization: norm,
		LexicalShare:  cfg.RetrievalLexicalShare,
		AnchorDepth:   cfg.RetrievalAnchorDepth,
		K:             cfg.RetrievalRRFK,
		LexicalWeight: cfg.RetrievalLexicalWeight,
		VectorWeight:  cfg.RetrievalVectorWeight,
		Candidates:    cfg.RetrievalCandidates,
		Log:           log,
	}
	if cfg.RerankBaseURL != "" {
		rr, err := provider.NewReranker(provider.RerankerConfig{
			BaseURL:    cfg.RerankBaseURL,
			APIKey:     cfg.RerankAPIKey,
			Model:      cfg.RerankModel,
			Timeout:    cfg.RerankTimeout,
			MaxRetries: cfg.RerankMaxRetries,
			Metrics:    m,
		})
		if err != nil {
			return nil, fmt.Errorf("RERANK_BASE_URL, RERANK_MODEL: %w", err)
		}
		rc.Reranker = rr
	}
	return retrieval.New(rc)
}

// checkEmbedder refuses to serve a store whose vectors another embedder
// wrote: searching them with this one would answer nonsense.
func checkEmbedder(ctx context.Context, store docqa.VectorStore, embedder docqa.Embedder) error {
	recorded, err := store.Embedder(ctx)
	if err != nil {
		return fmt.Errorf("read the vector store's embedder: %w", err)
	}
	if recorded != "" && recorded != embedder.Name() {
		return fmt.Errorf("%w: the store holds vectors of %q but the configured embedder is %q; "+
			"configure that embedder again or point DOCQA_STORE_PATH/MILVUS_COLLECTION at a new store",
			docqa.ErrEmbedderMismatch, recorded, embedder.Name())
	}
	return nil
}
