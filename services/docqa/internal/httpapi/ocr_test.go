package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/carhub/backend/services/docqa/internal/httpapi"
	"github.com/carhub/backend/services/docqa/internal/ingest"
	"github.com/carhub/backend/services/docqa/internal/ocr"
	"github.com/carhub/backend/services/docqa/internal/ocr/ocrtest"
	"github.com/carhub/backend/services/docqa/internal/pdftext"
	"github.com/carhub/backend/services/docqa/internal/pdftext/pdftexttest"
)

// /health says whether OCR reads scanned pages, and in which languages.
func TestHealthSaysOCR(t *testing.T) {
	for _, c := range []struct {
		name string
		ocr  httpapi.OCRHealth
		want string
	}{
		{"ok", httpapi.OCRHealth{Status: httpapi.OCRStatusOK, Mode: httpapi.OCRModeFixed, Languages: []string{"eng", "deu"}},
			`{"status":"ok","mode":"fixed","languages":["eng","deu"]}`},
		{"auto", httpapi.OCRHealth{Status: httpapi.OCRStatusOK, Mode: httpapi.OCRModeAuto, Languages: []string{"chi_sim", "deu", "eng"},
			Scripts: map[string][]string{"Latin": {"deu", "eng"}, "Han": {"chi_sim"}}},
			`{"status":"ok","mode":"auto","languages":["chi_sim","deu","eng"],"scripts":{"Han":["chi_sim"],"Latin":["deu","eng"]}}`},
		// Without OSD's data, auto cannot tell scripts: every page reads every language.
		{"auto without OSD", httpapi.OCRHealth{Status: httpapi.OCRStatusOK, Mode: httpapi.OCRModeAuto, Languages: []string{"eng"}},
			`{"status":"ok","mode":"auto","languages":["eng"],"scripts":{}}`},
		{"off", httpapi.OCRHealth{Status: httpapi.OCRStatusOff}, `{"status":"off","languages":[]}`},
		{"off, languages left over", httpapi.OCRHealth{Status: httpapi.OCRStatusOff, Mode: httpapi.OCRModeAuto, Languages: []string{"eng"}},
			`{"status":"off","languages":[]}`},
		{"unset", httpapi.OCRHealth{}, `{"status":"off","languages":[]}`},
		{"missing", httpapi.OCRHealth{Status: httpapi.OCRStatusMissing}, `{"status":"missing","languages":[]}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newService(t, options{local: true, ocr: c.ocr})
			var body struct {
				Status string          `json:"status"`
				OCR    json.RawMessage `json:"ocr"`
			}
			decode(t, s.get(t, "/health"), http.StatusOK, &body)
			if string(body.OCR) != c.want || body.Status != "ok" {
				t.Fatalf("health %s, ocr %s; want ok, %s", body.Status, body.OCR, c.want)
			}
		})
	}
}

// startPDF starts a PDF engine of the test's own.
func startPDF(t *testing.T, cfg pdftext.Config) *pdftext.Engine {
	t.Helper()
	cfg.CacheDir = pdftexttest.CacheDir()
	e := pdftext.Start(cfg)
	t.Cleanup(func() { e.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), pdftexttest.StartTimeout)
	defer cancel()
	if err := e.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	return e
}

// An image-only PDF is refused with 400 when OCR is off (today's answer)
// and when it is wanted but not installed (which the message says).
func TestScannedPDFWithoutOCRIs400(t *testing.T) {
	scan := ocrtest.PDF(ocrtest.Page{Image: ocrtest.Noise(600, 800, 1), DPI: 100})
	off := newService(t, options{local: true, ocr: httpapi.OCRHealth{Status: httpapi.OCRStatusOff}})
	wantError(t, off.upload(t, "/api/documents/upload", part{"file", "scan.pdf", scan}), http.StatusBadRequest,
		"INVALID_ARGUMENT", "file: the PDF has no extractable text (scanned pages need OCR first)")
	missing := newService(t, options{local: true, ocr: httpapi.OCRHealth{Status: httpapi.OCRStatusMissing},
		extractor: startPDF(t, pdftext.Config{OCRMissing: true})})
	wantError(t, missing.upload(t, "/api/documents/upload", part{"file", "scan.pdf", scan}), http.StatusBadRequest,
		"INVALID_ARGUMENT", "file: the PDF has no extractable text, and OCR is not installed on this server (tesseract was not found)")
	if n := storedCount(t, missing); n != 0 {
		t.Fatalf("%d chunks stored", n)
	}
}

func newOCREngine(t *testing.T, cfg ocr.Config) *ocr.Engine {
	t.Helper()
	cfg.Command = ocrtest.Require(t, "pdftoppm")
	e, err := ocr.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// A manual of a text page, a scanned page and a page of noise: the
// stream reports the ocr stage page by page, the answer counts the page
// read by OCR and reports the unreadable one, and the chat's sources say
// which passages OCR read.
func TestScannedPagesAreReadAndSaySo(t *testing.T) {
	rec := newOCREngine(t, ocr.Config{Languages: []string{"deu"}})
	german := ocrtest.WriteFile(t, "de.pdf", ocrtest.PDF(ocrtest.Page{Text: ocrtest.German}))
	manual := ocrtest.PDF(
		ocrtest.Page{Text: ocrtest.English},
		ocrtest.Page{Image: ocrtest.Scan(t, german, 1, 300, false), DPI: 300},
		ocrtest.Page{Image: ocrtest.Noise(2480, 3508, 1), DPI: 300},
	)
	s := newService(t, options{local: true, writing: true, extractor: startPDF(t, pdftext.Config{OCR: rec})})

	events := readEvents(t, s.upload(t, "/api/documents/upload/stream", part{"file", "manual.pdf", manual}))
	var stages []string
	var done ingest.Result
	last := 0
	for _, e := range withoutComments(events) {
		switch e.Name {
		case "progress":
			var p ingest.Progress
			unmarshal(t, e.Data, &p)
			if p.Percent < last {
				t.Fatalf("percent went back from %d to %d at %+v", last, p.Percent, p)
			}
			last = p.Percent
			if p.Stage == ingest.StageOCR || p.Stage == ingest.StageParsing {
				stages = append(stages, fmt.Sprintf("%s %d/%d %d%%", p.Stage, p.Current, p.Total, p.Percent))
			}
		case "done":
			unmarshal(t, e.Data, &done)
		default:
			t.Fatalf("event %s: %s", e.Name, e.Data)
		}
	}
	want := []string{"parsing 1/3 13%", "parsing 2/3 21%", "parsing 3/3 30%", "ocr 1/2 45%", "ocr 2/2 60%"}
	if !slices.Equal(stages, want) {
		t.Fatalf("stages %q, want %q", stages, want)
	}
	wantSkipped := []pdftext.SkippedPage{{Page: 3, Reason: pdftext.SkipUnreadable}}
	if done.Pages != 3 || done.OCRPages != 1 || !slices.Equal(done.SkippedPages, wantSkipped) {
		t.Fatalf("answer: %d pages, %d by OCR, skipped %v; want 3, 1, %v", done.Pages, done.OCRPages, done.SkippedPages, wantSkipped)
	}
	raw := events[len(events)-1].Data
	if !strings.Contains(raw, `"ocrPages":1,"skippedPages":[{"page":3,"reason":"unreadable"}]`) {
		t.Fatalf("done %s", raw)
	}

	// The German page is found by its words, and its source says OCR read it.
	chatEvents := readEvents(t, s.chat(t, `{"question":"Profiltiefe Winterreifen Millimeter","topK":10}`))
	var sources struct {
		Sources []struct {
			Page       int             `json:"page"`
			OCR        bool            `json:"ocr"`
			Text       string          `json:"text"`
			Highlights []highlightData `json:"highlights"`
		} `json:"sources"`
	}
	unmarshal(t, chatEvents[0].Data, &sources)
	if len(sources.Sources) == 0 || sources.Sources[0].Page != 2 {
		t.Fatalf("sources %+v: the scanned page is not first", sources.Sources)
	}
	// The scanned page's passages are highlighted from OCR's word boxes,
	// one rectangle per line, each on that line's words in the original
	// the scan was made of (pdftotext -bbox).
	boxes := ocrtest.WordBoxes(t, german, 1)
	const tol = 0.02 // of the page: 12 points across, 17 down (a line is 15)
	for _, src := range sources.Sources {
		if src.OCR != (src.Page == 2) {
			t.Fatalf("source of page %d says ocr %v", src.Page, src.OCR)
		}
		if !src.OCR {
			continue
		}
		var lines []string
		for _, line := range strings.Split(src.Text, "\n") {
			if strings.TrimSpace(line) != "" {
				lines = append(lines, line)
			}
		}
		if len(src.Highlights) != len(lines) {
			t.Fatalf("scanned passage of %d lines has %d highlights %+v:\n%s", len(lines), len(src.Highlights), src.Highlights, src.Text)
		}
		for i, line := range lines {
			box, ok := ocrtest.LineBox(boxes, line)
			if !ok {
				t.Fatalf("OCR's line %q is not a line of the original", line)
			}
			r := src.Highlights[i]
			if math.Abs(r.X-box.Left) > tol || math.Abs(r.X+r.W-box.Right) > tol ||
				math.Abs(r.Y-box.Top) > tol || math.Abs(r.Y+r.H-box.Bottom) > tol {
				t.Errorf("line %q: highlight %+v, the original's words span %+v (tolerance %g)", line, r, box, tol)
			}
		}
	}
	if !strings.Contains(chatEvents[0].Data, `"ocr":true`) || !strings.Contains(chatEvents[0].Data, `"ocr":false`) {
		t.Fatalf("sources %s", chatEvents[0].Data)
	}

	// A duplicate answers the stored document, without this ingestion's report.
	dup := s.uploadPDF(t, "manual.pdf", manual)
	if !dup.Duplicate || dup.OCRPages != 0 || dup.SkippedPages != nil {
		t.Fatalf("duplicate %+v", dup)
	}
}

// A page past OCR_PAGE_TIMEOUT is skipped and reported in the answer.
func TestOCRTimeoutIsReportedInTheAnswer(t *testing.T) {
	rec := newOCREngine(t, ocr.Config{Languages: []string{"eng"}, PageTimeout: 5 * time.Millisecond})
	english := ocrtest.WriteFile(t, "en.pdf", ocrtest.PDF(ocrtest.Page{Text: ocrtest.English}))
	manual := ocrtest.PDF(ocrtest.Page{Text: ocrtest.German}, ocrtest.Page{Image: ocrtest.Scan(t, english, 1, 200, false), DPI: 200})
	s := newService(t, options{local: true, extractor: startPDF(t, pdftext.Config{OCR: rec})})
	resp := s.upload(t, "/api/documents/upload", part{"file", "manual.pdf", manual})
	var body map[string]json.RawMessage
	decode(t, resp, http.StatusOK, &body)
	if got := string(body["skippedPages"]); got != `[{"page":2,"reason":"ocr_timeout"}]` {
		t.Fatalf("skippedPages %s", got)
	}
	if _, ok := body["ocrPages"]; ok {
		t.Fatalf("ocrPages %s on a document no page of which OCR read", body["ocrPages"])
	}
}
