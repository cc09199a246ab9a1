package main

import (
	"log/slog"
	"slices"

	"github.com/carhub/backend/services/docqa/internal/httpapi"
	"github.com/carhub/backend/services/docqa/internal/ocr"
	"github.com/carhub/backend/services/docqa/internal/receiptscan"
)

// newReceipts is what reads POST /api/receipts/scan's photos: the service's
// OCR engine, and with OCR_LANGUAGES=auto and chi_sim installed, a second
// engine reading chi_sim with the Latin languages for a photo the first
// reading found nothing in (a Chinese receipt whose few characters OSD took
// for Latin). Nil without OCR: the route answers 503.
func newReceipts(engine *ocr.Engine, cfg serviceConfig, log *slog.Logger) httpapi.ReceiptScanner {
	if engine == nil {
		return nil
	}
	rc := receiptscan.Config{OCR: engine, Log: log}
	if plan, auto := engine.Plan(); auto && slices.Contains(plan.Languages, "chi_sim") {
		langs := slices.Clone(plan.Scripts["Latin"])
		if !slices.Contains(langs, "chi_sim") {
			langs = append(langs, "chi_sim")
		}
		if han, err := hanEngine(cfg, langs, log); err != nil {
			log.Warn("receipts: no second reading in Chinese", "err", err)
		} else {
			rc.Han = han // not a nil *ocr.Engine in the interface
		}
	}
	return receiptscan.New(rc)
}

func hanEngine(cfg serviceConfig, langs []string, log *slog.Logger) (*ocr.Engine, error) {
	command, err := ocr.Find(cfg.OCRTesseract)
	if err != nil {
		return nil, err
	}
	return ocr.New(ocr.Config{Command: command, Languages: langs, Concurrency: cfg.OCRConcurrency,
		PageTimeout: cfg.OCRPageTimeout, Log: log})
}
