package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/carhub/backend/services/docqa/internal/ocr/ocrtest"
)

// scannedManuals writes copies image-only PDFs of pages pages each into dir
// and returns their paths. Each page is A5 and holds three short lines (so
// that OCR reads it in well under a second), numbered by copy and page so
// that no two manuals are the same file.
func scannedManuals(dir string, copies, pages, dpi int) ([]string, error) {
	if _, err := exec.LookPath("pdftoppm"); err != nil {
		return nil, fmt.Errorf("-scanned renders its pages with pdftoppm (apt-get install poppler-utils): %w", err)
	}
	var paths []string
	for c := 1; c <= copies; c++ {
		text := make([]ocrtest.Page, pages)
		for p := range text {
			text[p] = ocrtest.Page{Text: scannedPageText(c, p+1)}
		}
		src := filepath.Join(dir, fmt.Sprintf("text-%d.pdf", c))
		if err := os.WriteFile(src, ocrtest.PDF(text...), 0o600); err != nil {
			return nil, err
		}
		prefix := filepath.Join(dir, fmt.Sprintf("page-%d", c))
		if out, err := exec.Command("pdftoppm", "-r", strconv.Itoa(dpi), "-gray", "-png", src, prefix).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("pdftoppm: %v: %s", err, out)
		}
		scans := make([]ocrtest.Page, pages)
		for p := range scans {
			img, err := readPNG(fmt.Sprintf("%s-%0*d.png", prefix, len(strconv.Itoa(pages)), p+1))
			if err != nil {
				return nil, err
			}
			scans[p] = ocrtest.Page{Image: a5(img, dpi), DPI: dpi}
		}
		path := filepath.Join(dir, fmt.Sprintf("scanned-%d.pdf", c))
		if err := os.WriteFile(path, ocrtest.PDF(scans...), 0o600); err != nil {
			return nil, err
		}
		for p := range pages {
			os.Remove(fmt.Sprintf("%s-%0*d.png", prefix, len(strconv.Itoa(pages)), p+1))
		}
		os.Remove(src)
		paths = append(paths, path)
	}
	return paths, nil
}

// scannedPageText is page p of manual c: a heading and two lines.
func scannedPageText(c, p int) string {
	return fmt.Sprintf("Service Manual %d - Section %d\n"+
		"Check the tyre pressure every month and before a long trip.\n"+
		"Tighten the wheel nuts to %d Nm; see page %d for the tools.", c, p, 100+p, p+1)
}

// a5 is the top left A5 (148 x 210 mm, an owner's manual's usual page) of
// an A4 scan, where the text lies: half the pixels OCR reads.
func a5(img *image.Gray, dpi int) *image.Gray {
	w, h := int(148/25.4*float64(dpi)), int(210/25.4*float64(dpi))
	r := image.Rect(0, 0, w, h).Add(img.Rect.Min).Intersect(img.Rect)
	return img.SubImage(r).(*image.Gray)
}

func readPNG(path string) (*image.Gray, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if g, ok := img.(*image.Gray); ok {
		return g, nil
	}
	g := image.NewGray(img.Bounds())
	draw.Draw(g, g.Rect, img, img.Bounds().Min, draw.Src)
	return g, nil
}

// uploadStream uploads one file through the progress stream and counts its
// ocr progress events (which must count the pages 1..pages in order); the
// done event is its answer, an error event its failure.
func uploadStream(client *http.Client, base, path string, pages int) outcome {
	o := outcome{file: path}
	data, err := os.ReadFile(path)
	if err != nil {
		o.err = err
		return o
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	part, _ := mw.CreateFormFile("file", filepath.Base(path))
	part.Write(data)
	mw.Close()
	start := time.Now()
	req, err := http.NewRequest(http.MethodPost, base+"/api/documents/upload/stream", &body)
	if err != nil {
		o.err = err
		return o
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := client.Do(req)
	if err != nil {
		o.err = err
		return o
	}
	defer resp.Body.Close()
	o.status, o.retryAfter = resp.StatusCode, resp.Header.Get("Retry-After")
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		o.errBody = string(bytes.TrimSpace(b))
		return o
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var name string
	done := false
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event:"):
			name = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
		case strings.HasPrefix(line, "data:"):
			data := strings.TrimSpace(strings.TrimPrefix(line, "data:"))
			switch name {
			case "progress":
				var p struct {
					Stage   string `json:"stage"`
					Current int    `json:"current"`
					Total   int    `json:"total"`
				}
				if err := json.Unmarshal([]byte(data), &p); err != nil {
					o.err = fmt.Errorf("progress %s: %w", data, err)
					return o
				}
				if p.Stage == "ocr" {
					if o.ocrEvents == 0 {
						o.firstOCR = time.Since(start)
					}
					o.ocrEvents++
					if p.Current != o.ocrEvents || p.Total != pages {
						o.err = fmt.Errorf("ocr progress %d/%d after %d such events", p.Current, p.Total, o.ocrEvents-1)
						return o
					}
				}
			case "done":
				done = true
				o.err = json.Unmarshal([]byte(data), &o.doc)
			case "error":
				o.status, o.errBody = http.StatusInternalServerError, data
			}
		}
	}
	o.took = time.Since(start)
	if err := sc.Err(); err != nil && o.err == nil {
		o.err = err
	}
	if !done && o.err == nil && o.errBody == "" {
		o.err = fmt.Errorf("the stream ended without a done event after %d ocr progress events", o.ocrEvents)
	}
	return o
}
