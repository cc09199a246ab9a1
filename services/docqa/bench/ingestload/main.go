// Command ingestload sends PDF uploads to a running docqa-service all at
// once and checks how each one ended: stored whole, or refused with a clear
// 503 (UNAVAILABLE with Retry-After). Afterwards it lists the stored
// documents and checks that exactly the uploads answered 200 are there, each
// with the page and chunk counts its answer gave: nothing half-stored.
//
//	go run ./testdata/genpdf -size 100 -seed 1 -o /tmp/big-1.pdf   # ... -seed 8
//	ingestload -url http://127.0.0.1:8080 /tmp/big-*.pdf
//
// With -pid it also reports the service's peak resident memory (VmHWM of
// /proc/PID/status, Linux) after the run.
//
// With -scanned N it makes its own uploads instead of reading files: -copies
// image-only PDFs of N pages each (a scanned manual: each page a few lines
// of text, rendered by pdftoppm at -scan-dpi and written back as an image
// with no text layer, as a scanner makes), different in their text so that
// none is a duplicate. They go through the progress stream
// (/api/documents/upload/stream), and each upload must end stored with N
// pages read by OCR and one ocr progress event per page.
//
//	ingestload -url http://127.0.0.1:8080 -pid $PID -scanned 100 -copies 8
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "ingestload:", err)
		os.Exit(1)
	}
}

// document is the part of FileUploadResponse this tool checks.
type document struct {
	FileName  string `json:"fileName"`
	FileMD5   string `json:"fileMd5"`
	Pages     int    `json:"pages"`
	Chunks    int    `json:"chunks"`
	Duplicate bool   `json:"duplicate"`
	OCRPages  int    `json:"ocrPages"`
}

type outcome struct {
	file       string
	status     int
	retryAfter string
	doc        document
	errBody    string
	err        error
	took       time.Duration
	// Of a streamed upload: its ocr progress events, and when the first
	// came.
	ocrEvents int
	firstOCR  time.Duration
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("ingestload", flag.ContinueOnError)
	base := fs.String("url", "http://127.0.0.1:8080", "base URL of docqa-service")
	pid := fs.Int("pid", 0, "the service's process id, to report its peak RSS (VmHWM)")
	timeout := fs.Duration("timeout", 30*time.Minute, "limit of the whole run")
	scanned := fs.Int("scanned", 0, "upload generated scanned manuals of this many image-only pages instead of files")
	copies := fs.Int("copies", 8, "with -scanned: how many manuals, uploaded at once")
	scanDPI := fs.Int("scan-dpi", 150, "with -scanned: the resolution the pages are scanned at")
	if err := fs.Parse(args); err != nil {
		return err
	}
	files := fs.Args()
	if *scanned > 0 {
		if len(files) > 0 || *copies < 1 {
			return errors.New("-scanned makes its own uploads: name no files, and -copies at least 1")
		}
		dir, err := os.MkdirTemp("", "ingestload-scans-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		genStart := time.Now()
		if files, err = scannedManuals(dir, *copies, *scanned, *scanDPI); err != nil {
			return err
		}
		var size int64
		for _, f := range files {
			if st, err := os.Stat(f); err == nil {
				size += st.Size()
			}
		}
		fmt.Fprintf(stdout, "generated %d scanned manuals of %d image-only pages at %d dpi (%.1f MB each) in %.1fs\n",
			len(files), *scanned, *scanDPI, float64(size)/float64(len(files))/1e6, time.Since(genStart).Seconds())
	}
	if len(files) == 0 {
		return errors.New("name the PDF files to upload")
	}
	client := &http.Client{Timeout: *timeout}

	start := time.Now()
	out := make([]outcome, len(files))
	var wg sync.WaitGroup
	for i, f := range files {
		if *scanned > 0 {
			wg.Go(func() { out[i] = uploadStream(client, *base, f, *scanned) })
		} else {
			wg.Go(func() { out[i] = upload(client, *base, f) })
		}
	}
	wg.Wait()
	wall := time.Since(start)

	stored, refused := map[string]document{}, 0
	var failures []string
	for _, o := range out {
		switch {
		case o.err != nil:
			failures = append(failures, fmt.Sprintf("%s: %v", o.file, o.err))
			fmt.Fprintf(stdout, "%-24s error   %v\n", filepath.Base(o.file), o.err)
		case o.status == http.StatusOK && *scanned > 0:
			stored[o.doc.FileMD5] = o.doc
			fmt.Fprintf(stdout, "%-24s stored  %d pages (%d by OCR), %d chunks, %d ocr progress events, first after %.1fs, %.1fs\n",
				filepath.Base(o.file), o.doc.Pages, o.doc.OCRPages, o.doc.Chunks, o.ocrEvents, o.firstOCR.Seconds(), o.took.Seconds())
			if o.doc.OCRPages != *scanned || o.ocrEvents != *scanned || o.doc.Duplicate {
				failures = append(failures, fmt.Sprintf("%s: %d pages by OCR, %d ocr progress events, duplicate=%v; want %d, %d, false",
					o.file, o.doc.OCRPages, o.ocrEvents, o.doc.Duplicate, *scanned, *scanned))
			}
		case o.status == http.StatusOK:
			stored[o.doc.FileMD5] = o.doc
			fmt.Fprintf(stdout, "%-24s stored  %d pages, %d chunks, duplicate=%v, %.1fs\n",
				filepath.Base(o.file), o.doc.Pages, o.doc.Chunks, o.doc.Duplicate, o.took.Seconds())
		case o.status == http.StatusServiceUnavailable && o.retryAfter != "" && strings.Contains(o.errBody, `"UNAVAILABLE"`):
			refused++
			fmt.Fprintf(stdout, "%-24s refused 503, Retry-After %s: %s\n", filepath.Base(o.file), o.retryAfter, o.errBody)
		default:
			failures = append(failures, fmt.Sprintf("%s: status %d: %s", o.file, o.status, o.errBody))
			fmt.Fprintf(stdout, "%-24s status  %d %s\n", filepath.Base(o.file), o.status, o.errBody)
		}
	}

	listed, err := list(client, *base)
	if err != nil {
		return err
	}
	for md5, d := range stored {
		l, ok := listed[md5]
		switch {
		case !ok:
			failures = append(failures, fmt.Sprintf("%s answered 200 but is not listed", d.FileName))
		case l.Pages != d.Pages || l.Chunks != d.Chunks:
			failures = append(failures, fmt.Sprintf("%s listed with %d pages, %d chunks; its answer said %d, %d",
				d.FileName, l.Pages, l.Chunks, d.Pages, d.Chunks))
		}
	}
	for md5, l := range listed {
		if _, ok := stored[md5]; !ok {
			failures = append(failures, fmt.Sprintf("%s is stored but no upload of this run answered 200 for it", l.FileName))
		}
	}

	fmt.Fprintf(stdout, "uploads %d: stored %d, refused %d, failed %d; wall %.1fs\n",
		len(files), len(stored), refused, len(out)-len(stored)-refused, wall.Seconds())
	if *scanned > 0 {
		events := 0
		for _, o := range out {
			events += o.ocrEvents
		}
		fmt.Fprintf(stdout, "OCR: %d progress events for %d scanned pages; %.2f pages/s, %.2fs a page of wall time\n",
			events, *scanned*len(files), float64(events)/wall.Seconds(), wall.Seconds()/float64(max(events, 1)))
	}
	if *pid > 0 {
		hwm, err := peakRSS(*pid)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "service peak RSS (VmHWM): %d MiB\n", hwm>>20)
	}
	if len(failures) > 0 {
		return fmt.Errorf("%d problems:\n  %s", len(failures), strings.Join(failures, "\n  "))
	}
	return nil
}

// upload streams one file as a multipart body (it is not held in memory).
func upload(client *http.Client, base, path string) outcome {
	o := outcome{file: path}
	f, err := os.Open(path)
	if err != nil {
		o.err = err
		return o
	}
	defer f.Close()
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		part, err := mw.CreateFormFile("file", filepath.Base(path))
		if err == nil {
			_, err = io.Copy(part, f)
		}
		if err == nil {
			err = mw.Close()
		}
		pw.CloseWithError(err)
	}()
	start := time.Now()
	req, err := http.NewRequest(http.MethodPost, base+"/api/documents/upload", pr)
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
	body, err := io.ReadAll(resp.Body)
	o.took = time.Since(start)
	o.status, o.retryAfter = resp.StatusCode, resp.Header.Get("Retry-After")
	if err != nil {
		o.err = err
		return o
	}
	if resp.StatusCode == http.StatusOK {
		o.err = json.Unmarshal(body, &o.doc)
		return o
	}
	o.errBody = string(bytes.TrimSpace(body))
	return o
}

func list(client *http.Client, base string) (map[string]document, error) {
	resp, err := client.Get(base + "/api/documents")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("list documents: status %d", resp.StatusCode)
	}
	var docs []document
	if err := json.NewDecoder(resp.Body).Decode(&docs); err != nil {
		return nil, fmt.Errorf("list documents: %w", err)
	}
	out := make(map[string]document, len(docs))
	for _, d := range docs {
		out[d.FileMD5] = d
	}
	return out, nil
}

// peakRSS reads VmHWM (kB) of /proc/PID/status, in bytes.
func peakRSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("peak RSS: %w", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb int64
			if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%d kB", &kb); err != nil {
				return 0, fmt.Errorf("peak RSS: %q: %w", line, err)
			}
			return kb << 10, nil
		}
	}
	return 0, errors.New("peak RSS: no VmHWM line")
}
