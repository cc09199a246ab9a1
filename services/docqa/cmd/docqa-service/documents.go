package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/carhub/backend/services/docqa/internal/docqa"
	"github.com/carhub/backend/services/docqa/internal/httpapi"
	"github.com/carhub/backend/services/docqa/internal/ingest"
	"github.com/carhub/backend/services/docqa/internal/ocr"
	"github.com/carhub/backend/services/docqa/internal/originals"
	"github.com/carhub/backend/services/docqa/internal/pagecache"
	"github.com/carhub/backend/services/docqa/internal/pdftext"
	"github.com/carhub/backend/services/docqa/internal/splitter"
)

// documents is what reads, keeps and shows the owners' manuals: OCR, the
// PDF engine, the splitter, the originals, the page cache and the ingest
// pipeline over them. Close stops the PDF engine.
type documents struct {
	ocr       *ocr.Engine // nil: OCR is off or its command is missing
	ocrHealth httpapi.OCRHealth
	pdf       *pdftext.Engine
	split     *splitter.Splitter
	files     *originals.Dir
	pageCache *pagecache.Cache
	pipeline  *ingest.Pipeline
}

// checkDocumentLimits refuses the document settings that cannot work, each
// error naming its variable.
func checkDocumentLimits(cfg serviceConfig) error {
	switch {
	case cfg.IngestConcurrency < 1:
		return fmt.Errorf("INGEST_CONCURRENCY: %d must be at least 1", cfg.IngestConcurrency)
	case cfg.IngestQueue < 0:
		return fmt.Errorf("INGEST_QUEUE: %d must not be negative", cfg.IngestQueue)
	case cfg.PDFPageInstances < 1:
		return fmt.Errorf("PDF_PAGE_INSTANCES: %d must be at least 1", cfg.PDFPageInstances)
	case cfg.PageCacheBytes < 1:
		return fmt.Errorf("DOCQA_PAGE_CACHE_BYTES: %d must be at least 1", cfg.PageCacheBytes)
	}
	return nil
}

// openDocuments starts OCR and the PDF engine, which compiles in the
// background while the service starts listening (/health says "starting"
// and uploads wait until it is ready), opens the directories and sweeps
// the uploads an interrupted run left.
func openDocuments(ctx context.Context, cfg serviceConfig, store docqa.VectorStore, embedder docqa.Embedder, reg *prometheus.Registry, log *slog.Logger) (*documents, error) {
	if err := checkDocumentLimits(cfg); err != nil {
		return nil, err
	}
	d := &documents{}
	var err error
	if d.ocr, d.ocrHealth, err = newOCR(ctx, cfg, log); err != nil {
		return nil, err
	}
	pdfCfg := pdftext.Config{Instances: cfg.IngestConcurrency, PageInstances: cfg.PDFPageInstances,
		CacheDir: cfg.PDFCacheDir, Log: log, OCRMissing: d.ocrHealth.Status == httpapi.OCRStatusMissing}
	if d.ocr != nil {
		pdfCfg.OCR = d.ocr
	}
	d.pdf = pdftext.Start(pdfCfg)
	if err := d.open(cfg, store, embedder, reg, log); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

func (d *documents) open(cfg serviceConfig, store docqa.VectorStore, embedder docqa.Embedder, reg *prometheus.Registry, log *slog.Logger) error {
	var err error
	if d.split, err = splitter.New(); err != nil {
		return err
	}
	if d.files, err = originals.Open(cfg.FilesDir); err != nil {
		return fmt.Errorf("DOCQA_FILES_DIR: %w", err)
	}
	if d.pageCache, err = pagecache.Open(cfg.PageCacheDir, cfg.PageCacheBytes); err != nil {
		return fmt.Errorf("DOCQA_PAGE_CACHE_DIR: %w", err)
	}
	queue := cfg.IngestQueue
	if queue == 0 {
		queue = -1 // ingest.Config's "none wait"
	}
	d.pipeline, err = ingest.New(ingest.Config{
		Store:       store,
		Embedder:    embedder,
		Splitter:    d.split,
		Extractor:   d.pdf,
		Concurrency: cfg.IngestConcurrency,
		QueueLength: queue,
		DataDir:     cfg.DataDir,
		TempDir:     cfg.TempDir,
		Originals:   d.files,
		Log:         log,
		Metrics:     registerer(reg),
	})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(cfg.TempDir, 0o700); err != nil {
		return fmt.Errorf("DOCQA_TEMP_DIR: %w", err)
	}
	swept, err := d.pipeline.SweepTemp()
	if err != nil {
		return fmt.Errorf("DOCQA_TEMP_DIR: %w", err)
	}
	if swept > 0 {
		log.Warn("removed uploads left by an interrupted run", "files", swept, "dir", cfg.TempDir)
	}
	return nil
}

// Close stops the PDF engine.
func (d *documents) Close() { _ = d.pdf.Close() }
