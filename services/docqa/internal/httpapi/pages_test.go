package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"io"
	"math"
	"mime"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/carhub/backend/services/docqa/internal/ingest/ingesttest"
	"github.com/carhub/backend/services/docqa/internal/pdftext"
	"github.com/carhub/backend/services/docqa/internal/tooltest"
)

// book is a manual whose pages are labelled i, ii, 3-12, 3-13; page 3 is
// landscape.
func book() []byte {
	return ingesttest.Book("<< /Nums [0 << /S /r >> 2 << /S /D /P (3-) /St 12 >>] >>",
		ingesttest.Page{Text: "Contents of the owner's manual.\nSafety, driving, maintenance."},
		ingesttest.Page{Text: "Foreword of the owner's manual.\nRead this manual before driving the car."},
		ingesttest.Page{Text: "Maintenance schedule of the car.\nChange the engine oil every 15000 km.\nReplace the brake fluid every two years.", Width: 792, Height: 612},
		ingesttest.Page{Text: "Index of the owner's manual.\nBrakes, engine, tyres."},
	)
}

// pageGet sends GET path with the given headers.
func pageGet(t *testing.T, s *service, path string, header ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return exchange(t, s.client, req)
}

func wantJSONError(t *testing.T, resp *http.Response, body []byte, status int, code, field string) {
	t.Helper()
	var e errorBody
	if resp.StatusCode != status || json.Unmarshal(body, &e) != nil || e.Code != code {
		t.Fatalf("status %d body %s; want %d %s", resp.StatusCode, body, status, code)
	}
	if field != "" && !strings.Contains(e.Message, field) {
		t.Errorf("message %q does not name %s", e.Message, field)
	}
}

func TestPagePNG(t *testing.T) {
	forEachAuthMode(t, func(t *testing.T, accounts bool) {
		s := newService(t, options{accounts: accounts})
		doc := s.uploadPDF(t, "manual.pdf", book())
		base := "/api/documents/" + doc.FileMD5 + "/pages/"

		for _, tc := range []struct {
			path         string
			wantW, wantH int
			aspect       float64 // the page's height over its width
		}{
			{"1.png", 1000, 1295, 792.0 / 612}, // default width, portrait
			{"3.png", 1000, 773, 612.0 / 792},  // landscape
			{"1.png?width=200", 200, 259, 792.0 / 612},
			{"3.png?width=2000", 2000, 1546, 612.0 / 792},
		} {
			resp, body := pageGet(t, s, base+tc.path)
			if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "image/png" {
				t.Fatalf("%s: %d %s %.200s", tc.path, resp.StatusCode, resp.Header.Get("Content-Type"), body)
			}
			img, err := png.Decode(bytes.NewReader(body))
			if err != nil {
				t.Fatalf("%s: %v", tc.path, err)
			}
			b := img.Bounds()
			if b.Dx() != tc.wantW || b.Dy() != tc.wantH {
				t.Errorf("%s: %dx%d, want %dx%d", tc.path, b.Dx(), b.Dy(), tc.wantW, tc.wantH)
			}
			if got := float64(b.Dy()) / float64(b.Dx()); math.Abs(got-tc.aspect) > 1/float64(b.Dx()) {
				t.Errorf("%s: aspect %.4f, the page's %.4f", tc.path, got, tc.aspect)
			}
			if cc := resp.Header.Get("Cache-Control"); !strings.HasPrefix(cc, "private") {
				t.Errorf("%s: Cache-Control %q, want private", tc.path, cc)
			}
		}

		t.Run("ETag and If-None-Match", func(t *testing.T) {
			resp, body := pageGet(t, s, base+"2.png?width=600")
			etag := resp.Header.Get("ETag")
			if resp.StatusCode != http.StatusOK || !strings.Contains(etag, doc.FileMD5) || !strings.Contains(etag, "w600") {
				t.Fatalf("%d, ETag %q", resp.StatusCode, etag)
			}
			resp, body2 := pageGet(t, s, base+"2.png?width=600", "If-None-Match", etag)
			if resp.StatusCode != http.StatusNotModified || len(body2) != 0 || resp.Header.Get("ETag") != etag {
				t.Errorf("If-None-Match: %d, %d bytes, ETag %q; want 304, empty", resp.StatusCode, len(body2), resp.Header.Get("ETag"))
			}
			resp, _ = pageGet(t, s, base+"2.png?width=600", "If-None-Match", `"other", `+etag)
			if resp.StatusCode != http.StatusNotModified {
				t.Errorf("If-None-Match with a list: %d, want 304", resp.StatusCode)
			}
			// Another width is another image.
			resp, body3 := pageGet(t, s, base+"2.png?width=700", "If-None-Match", etag)
			if resp.StatusCode != http.StatusOK || resp.Header.Get("ETag") == etag || bytes.Equal(body, body3) {
				t.Errorf("another width: %d, ETag %q", resp.StatusCode, resp.Header.Get("ETag"))
			}
		})

		t.Run("bad width, page and number", func(t *testing.T) {
			for _, w := range []string{"199", "2001", "abc", "", "1e3"} {
				resp, body := pageGet(t, s, base+"1.png?width="+w)
				wantJSONError(t, resp, body, http.StatusBadRequest, "INVALID_ARGUMENT", "width")
			}
			for _, p := range []string{"0.png", "5.png", "-1.png", "0.pdf", "5.pdf", "1.gif", "1"} {
				resp, body := pageGet(t, s, base+p)
				wantJSONError(t, resp, body, http.StatusNotFound, "NOT_FOUND", "")
			}
			for _, p := range []string{"x.png", "+1.png", ".png", "1.5.pdf"} {
				resp, body := pageGet(t, s, base+p)
				wantJSONError(t, resp, body, http.StatusBadRequest, "INVALID_ARGUMENT", "n")
			}
			resp, body := pageGet(t, s, "/api/documents/"+strings.Repeat("ab", 16)+"/pages/1.png")
			wantJSONError(t, resp, body, http.StatusNotFound, "NOT_FOUND", "")
		})

		t.Run("pages are cached, and go with their document", func(t *testing.T) {
			cached := func() []string {
				names, _ := filepath.Glob(filepath.Join(s.pages.Dir(), doc.FileMD5+"-*"))
				return names
			}
			if len(cached()) == 0 {
				t.Fatal("nothing cached after the renders")
			}
			if resp := s.del(t, "/api/documents/"+doc.FileMD5); resp.StatusCode != http.StatusNoContent {
				t.Fatalf("delete: %d", resp.StatusCode)
			}
			if got := cached(); len(got) != 0 {
				t.Errorf("cached pages left after the delete: %v", got)
			}
			resp, body := pageGet(t, s, base+"1.png")
			wantJSONError(t, resp, body, http.StatusNotFound, "NOT_FOUND", "")
		})
	})
}

// The cache stays within its bound however many pages are drawn, the
// most recent kept.
func TestPageCacheBound(t *testing.T) {
	s := newService(t, options{pageCacheBytes: 15_000})
	doc := s.uploadPDF(t, "manual.pdf", book())
	var last []byte
	for _, w := range []int{400, 500, 600, 700, 800, 900, 1000} {
		resp, body := pageGet(t, s, "/api/documents/"+doc.FileMD5+"/pages/1.png?width="+strconv.Itoa(w))
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("width %d: %d", w, resp.StatusCode)
		}
		last = body
		if s.pages.Size() > 15_000 {
			t.Fatalf("after width %d the cache holds %d bytes, bound 15000", w, s.pages.Size())
		}
	}
	var total int64
	entries, _ := os.ReadDir(s.pages.Dir())
	for _, e := range entries {
		info, _ := e.Info()
		total += info.Size()
	}
	if total > 15_000 || len(entries) >= 7 {
		t.Errorf("cache directory holds %d files, %d bytes; bound 15000", len(entries), total)
	}
	if got, ok := s.pages.Get(doc.FileMD5 + "-1-w1000-r1.png"); !ok || !bytes.Equal(got, last) {
		t.Errorf("the latest page is not the one cached (kept %v)", ok)
	}
	if _, ok := s.pages.Get(doc.FileMD5 + "-1-w400-r1.png"); ok {
		t.Errorf("the oldest page is still cached")
	}
}

// Another user's document is 404 for its pages, as for its original.
func TestPagesOfAnotherUsersDocument(t *testing.T) {
	s := newService(t, options{identitySecret: limitSecret})
	doc := alice.upload(t, s, "manual.pdf", book())
	for _, p := range []string{"1.png", "1.pdf", "1.png?width=5"} {
		path := "/api/documents/" + doc.FileMD5 + "/pages/" + p
		if code, body := alice.do(t, s, http.MethodGet, path, "", nil); code != http.StatusOK && p != "1.png?width=5" {
			t.Fatalf("alice's own page %s: %d %s", p, code, body)
		}
		code, body := bob.do(t, s, http.MethodGet, path, "", nil)
		if code != http.StatusNotFound || !strings.Contains(string(body), `"NOT_FOUND"`) {
			t.Errorf("bob reads alice's page %s: %d %s; want 404", p, code, body)
		}
		// And the file itself answers the same.
		code, _ = bob.do(t, s, http.MethodGet, "/api/documents/"+doc.FileMD5+"/file", "", nil)
		if code != http.StatusNotFound {
			t.Errorf("bob reads alice's file: %d", code)
		}
	}
}

// pdfTool runs a poppler tool on pdf; the tests need poppler-utils.
func pdfTool(t *testing.T, pdf []byte, tool string, args ...string) string {
	t.Helper()
	tooltest.RequireTool(t, tool)
	path := filepath.Join(t.TempDir(), "in.pdf")
	if err := os.WriteFile(path, pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	args = append(args, path)
	if tool == "pdftotext" {
		args = append(args, "-")
	}
	out, err := exec.Command(tool, args...).Output()
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return string(out)
}

var pdfinfoPages = regexp.MustCompile(`(?m)^Pages:\s+(\d+)$`)

func TestPagePDF(t *testing.T) {
	s := newService(t, options{})
	pdf := book()
	doc := s.uploadPDF(t, "Betriebsanleitung Übersicht.pdf", pdf)
	resp, body := pageGet(t, s, "/api/documents/"+doc.FileMD5+"/pages/3.pdf")
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/pdf" {
		t.Fatalf("%d %s %.200s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	disp, params, err := mime.ParseMediaType(resp.Header.Get("Content-Disposition"))
	if err != nil || disp != "inline" || params["filename"] != "Betriebsanleitung Übersicht p. 3-12.pdf" {
		t.Errorf("Content-Disposition %q: %s %q %v", resp.Header.Get("Content-Disposition"), disp, params["filename"], err)
	}
	if !strings.Contains(resp.Header.Get("Content-Disposition"), "filename*=utf-8''Betriebsanleitung%20%C3%9Cbersicht") {
		t.Errorf("Content-Disposition %q: want RFC 5987's filename*", resp.Header.Get("Content-Disposition"))
	}
	if m := pdfinfoPages.FindStringSubmatch(pdfTool(t, body, "pdfinfo")); m == nil || m[1] != "1" {
		t.Errorf("pdfinfo of the cut: %v, want 1 page", m)
	}
	want := pdfTool(t, pdf, "pdftotext", "-f", "3", "-l", "3")
	got := pdfTool(t, body, "pdftotext")
	if strings.Join(strings.Fields(got), " ") != strings.Join(strings.Fields(want), " ") || !strings.Contains(got, "brake fluid") {
		t.Errorf("the cut reads %q, page 3 reads %q", got, want)
	}
	etag := resp.Header.Get("ETag")
	if resp, _ := pageGet(t, s, "/api/documents/"+doc.FileMD5+"/pages/3.pdf", "If-None-Match", etag); resp.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match %s: %d, want 304", etag, resp.StatusCode)
	}
	// A page without a label is named by its number.
	plain := s.uploadPDF(t, "plain.pdf", manual("plain"))
	resp, _ = pageGet(t, s, "/api/documents/"+plain.FileMD5+"/pages/2.pdf")
	if _, params, _ := mime.ParseMediaType(resp.Header.Get("Content-Disposition")); params["filename"] != "plain p. 2.pdf" {
		t.Errorf("filename %q, want %q", params["filename"], "plain p. 2.pdf")
	}
}

// slowPages is a page engine whose renders wait for release, or answer
// busy.
type slowPages struct {
	*pdftext.Engine
	release chan struct{}
	busy    bool
	mu      sync.Mutex
	renders int
}

func (p *slowPages) Locate(ctx context.Context, r io.ReaderAt, size int64, passages []pdftext.Passage) ([][]pdftext.Rect, error) {
	<-p.release
	return p.Engine.Locate(ctx, r, size, passages)
}

func (p *slowPages) Render(ctx context.Context, r io.ReaderAt, size int64, page, width int) (*image.RGBA, error) {
	if p.busy {
		return nil, pdftext.ErrBusy
	}
	p.mu.Lock()
	p.renders++
	p.mu.Unlock()
	<-p.release
	return p.Engine.Render(ctx, r, size, page, width)
}

func TestPageRenderBounds(t *testing.T) {
	t.Run("busy engine: 503 with Retry-After", func(t *testing.T) {
		s := newService(t, options{pages: &slowPages{Engine: pdfEngine, busy: true}})
		doc := s.uploadPDF(t, "manual.pdf", book())
		resp, body := pageGet(t, s, "/api/documents/"+doc.FileMD5+"/pages/1.png")
		wantJSONError(t, resp, body, http.StatusServiceUnavailable, "UNAVAILABLE", "try again")
		if resp.Header.Get("Retry-After") == "" {
			t.Error("no Retry-After")
		}
	})
	t.Run("past the budget: 503, then the finished page from the cache", func(t *testing.T) {
		slow := &slowPages{Engine: pdfEngine, release: make(chan struct{})}
		s := newService(t, options{pages: slow, pageBudget: 200 * time.Millisecond})
		doc := s.uploadPDF(t, "manual.pdf", book())
		path := "/api/documents/" + doc.FileMD5 + "/pages/1.png"
		resp, body := pageGet(t, s, path)
		wantJSONError(t, resp, body, http.StatusServiceUnavailable, "UNAVAILABLE", "longer than 200ms")
		if resp.Header.Get("Retry-After") == "" {
			t.Error("no Retry-After")
		}
		// A second request while the first render runs joins it.
		resp, _ = pageGet(t, s, path)
		if resp.StatusCode != http.StatusServiceUnavailable {
			t.Errorf("second request during the render: %d", resp.StatusCode)
		}
		close(slow.release)
		deadline := time.Now().Add(10 * time.Second)
		for {
			if _, ok := s.pages.Get(doc.FileMD5 + "-1-w1000-r1.png"); ok {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the render past the budget never reached the cache")
			}
			time.Sleep(20 * time.Millisecond)
		}
		resp, body = pageGet(t, s, path)
		if _, err := png.Decode(bytes.NewReader(body)); resp.StatusCode != http.StatusOK || err != nil {
			t.Errorf("after the render: %d, %v", resp.StatusCode, err)
		}
		if slow.renders != 1 {
			t.Errorf("%d renders for one page, want 1", slow.renders)
		}
	})
}

// Sources whose highlights take longer than the budget are sent without
// them, on time, and the answer follows.
func TestSourcesWithoutHighlightsPastTheBudget(t *testing.T) {
	slow := &slowPages{Engine: pdfEngine, release: make(chan struct{})}
	defer close(slow.release)
	s := newService(t, options{local: true, writing: true, pages: slow, highlightBudget: 100 * time.Millisecond})
	s.uploadPDF(t, "manual.pdf", book())
	start := time.Now()
	resp := s.chat(t, `{"question":"How often do I replace the brake fluid?"}`)
	events := withoutComments(readEvents(t, resp))
	if len(events) < 2 || events[0].Name != "sources" || events[len(events)-1].Name != "done" {
		t.Fatalf("events %+v", events)
	}
	if strings.Contains(events[0].Data, "highlights") || !strings.Contains(events[0].Data, `"pageLabel":"3-12"`) {
		t.Errorf("sources %s: want labels without highlights", events[0].Data)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the answer took %v with a highlight budget of 100ms", d)
	}
}

type highlightData struct {
	X, Y, W, H float64
}

type labelledSource struct {
	Page       int             `json:"page"`
	PageLabel  *string         `json:"pageLabel"`
	Text       string          `json:"text"`
	Highlights []highlightData `json:"highlights"`
}

// chatSources asks question and returns the sources event's sources and
// more, together.
func chatSources(t *testing.T, s *service, question string) []labelledSource {
	t.Helper()
	resp := s.chat(t, `{"question":"`+question+`"}`)
	events := withoutComments(readEvents(t, resp))
	if len(events) == 0 || events[0].Name != "sources" {
		t.Fatalf("events %+v", events)
	}
	var ev struct {
		Sources []labelledSource `json:"sources"`
		More    []labelledSource `json:"more"`
	}
	unmarshal(t, events[0].Data, &ev)
	return append(ev.Sources, ev.More...)
}

func TestSourcesCarryPageLabelsAndHighlights(t *testing.T) {
	s := newService(t, options{local: true, writing: true})
	pdf := book()
	s.uploadPDF(t, "manual.pdf", pdf)
	s.uploadPDF(t, "plain.pdf", manual("plain"))
	srcs := chatSources(t, s, "How often do I replace the brake fluid of the engine oil manual?")
	seen := map[int]bool{}
	for _, src := range srcs {
		if strings.Contains(src.Text, "plain manual") {
			if src.PageLabel != nil {
				t.Errorf("a source of a PDF without labels has pageLabel %q", *src.PageLabel)
			}
			continue
		}
		want := []string{"i", "ii", "3-12", "3-13"}[src.Page-1]
		if src.PageLabel == nil || *src.PageLabel != want {
			t.Errorf("page %d: pageLabel %v, want %q", src.Page, src.PageLabel, want)
		}
		seen[src.Page] = true
		if src.Page != 3 {
			continue
		}
		// Page 3's passage is its three lines: three highlights, top to
		// bottom, inside the page, each the height of a line of 10-point
		// text on a page 612 points high.
		if len(src.Highlights) != 3 {
			t.Fatalf("page 3: highlights %+v, want 3 lines", src.Highlights)
		}
		for i, h := range src.Highlights {
			if h.X < 0 || h.Y < 0 || h.X+h.W > 1 || h.Y+h.H > 1 || h.W <= 0 || h.H < 6.0/612 || h.H > 14.0/612 {
				t.Errorf("highlight %d %+v is not a line of the page", i, h)
			}
			if i > 0 && h.Y <= src.Highlights[i-1].Y {
				t.Errorf("highlight %d %+v is not below the one before", i, h)
			}
		}
		// The first line starts 32 points below the top, 50 from the left.
		if h := src.Highlights[0]; math.Abs(h.X-50.0/792) > 0.01 || math.Abs(h.Y-(32.0-8)/612) > 0.015 {
			t.Errorf("first line at %+v, want about x %.3f, y %.3f", h, 50.0/792, 24.0/612)
		}
	}
	if !seen[3] {
		t.Errorf("page 3 was not among the sources %+v", srcs)
	}
}

// TestQuotedSourceHighlightsOnlyItsQuotedLines: a page of eight lines, of
// which the quote holds the ones about tyre pressures (the quote has room
// for about 400 characters of the page's 600): the source's highlights are
// the quoted sentences' lines, one each, not the whole page's eight.
func TestQuotedSourceHighlightsOnlyItsQuotedLines(t *testing.T) {
	s := newService(t, options{local: true})
	lines := []string{
		"The tyre pressure for a fully loaded car is 2.9 bar at the front axle.",
		"Check the tyre pressure once a month when the tyres are cold, bar by bar.",
		"The wiper blades should be cleaned with a soft cloth and warm water.",
		"Keep the windscreen washer reservoir filled with a frost-proof mixture.",
		"Headlamp bulbs are replaced from the engine compartment by a workshop.",
		"The luggage compartment holds up to 380 litres with the seats upright.",
		"Roof loads must not exceed 75 kilograms including the rack itself.",
		"Child seats are fastened with the ISOFIX anchorages of the rear seats.",
	}
	s.uploadPDF(t, "pressures.pdf", ingesttest.Book("", ingesttest.Page{Text: strings.Join(lines, "\n")}))
	resp := s.chat(t, `{"question":"What tyre pressure at the front axle when the car is fully loaded?"}`)
	events := withoutComments(readEvents(t, resp))
	if len(events) < 2 || events[0].Name != "sources" {
		t.Fatalf("events %+v", events)
	}
	var ev struct {
		Sources []labelledSource `json:"sources"`
	}
	unmarshal(t, events[0].Data, &ev)
	if len(ev.Sources) != 1 {
		t.Fatalf("sources %+v, want the one page quoted", ev.Sources)
	}
	var answer strings.Builder
	for _, e := range events[1:] {
		var c struct {
			Content string `json:"content"`
		}
		if e.Name == "" {
			unmarshal(t, e.Data, &c)
			answer.WriteString(c.Content)
		}
	}
	quoted := 0
	for _, l := range lines {
		if strings.Contains(answer.String(), l) {
			quoted++
		}
	}
	if !strings.Contains(answer.String(), lines[0]) || quoted == 0 || quoted >= len(lines) {
		t.Fatalf("the quote holds %d of the %d lines, the pressure's first: %q", quoted, len(lines), answer.String())
	}
	if got := len(ev.Sources[0].Highlights); got != quoted {
		t.Errorf("%d highlights for a quote of %d lines (of the page's %d): %+v", got, quoted, len(lines), ev.Sources[0].Highlights)
	}
}
