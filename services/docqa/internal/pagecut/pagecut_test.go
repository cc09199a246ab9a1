package pagecut

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/carhub/backend/services/docqa/internal/ingest/ingesttest"
	"github.com/carhub/backend/services/docqa/internal/tooltest"
)

// poppler runs a poppler tool on pdf and returns its output.
func poppler(t *testing.T, pdf []byte, tool string, args ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "in.pdf")
	if err := os.WriteFile(path, pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(tool, append(args, path, "-")...).Output()
	if err != nil && tool == "pdfinfo" { // pdfinfo takes no output file
		out, err = exec.Command(tool, append(args, path)...).Output()
	}
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return string(out)
}

var pagesLine = regexp.MustCompile(`(?m)^Pages:\s+(\d+)$`)

func pageCount(t *testing.T, pdf []byte) int {
	t.Helper()
	m := pagesLine.FindStringSubmatch(poppler(t, pdf, "pdfinfo"))
	if m == nil {
		t.Fatal("pdfinfo: no page count")
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

func TestCutHoldsExactlyThatPage(t *testing.T) {
	tooltest.RequireTool(t, "pdfinfo")
	generated := ingesttest.Book("",
		ingesttest.Page{Text: "First page: safety."},
		ingesttest.Page{Text: "Second page: change the engine oil every 15000 km.", Width: 792, Height: 612},
		ingesttest.Page{Text: "Third page: index."})
	spec, err := os.ReadFile("../pdftext/testdata/corpus/pdfcpu-adobe_errata.pdf")
	if err != nil {
		t.Fatal(err)
	}
	zh, err := os.ReadFile("../pdftext/testdata/corpus/zh-maintenance-4pages.pdf")
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		pdf  []byte
		page int
	}{
		"generated, landscape page": {generated, 2},
		"a real document":           {spec, 7},
		"Chinese, embedded fonts":   {zh, 3},
	} {
		t.Run(name, func(t *testing.T) {
			out, pages, err := Cut(bytes.NewReader(tc.pdf), tc.page)
			if err != nil {
				t.Fatal(err)
			}
			if want := pageCount(t, tc.pdf); pages != want {
				t.Errorf("pages %d, pdfinfo says %d", pages, want)
			}
			if n := pageCount(t, out); n != 1 {
				t.Errorf("the cut has %d pages, want 1", n)
			}
			n := strconv.Itoa(tc.page)
			want := poppler(t, tc.pdf, "pdftotext", "-f", n, "-l", n)
			got := poppler(t, out, "pdftotext")
			if strings.TrimSpace(want) == "" || strings.Join(strings.Fields(got), " ") != strings.Join(strings.Fields(want), " ") {
				t.Errorf("the cut's text %q, page %d's %q", got, tc.page, want)
			}
		})
	}
	for _, page := range []int{0, 4} {
		if _, pages, err := Cut(bytes.NewReader(generated), page); !errors.Is(err, ErrPageRange) || pages != 3 {
			t.Errorf("Cut page %d: %d pages, %v; want 3, ErrPageRange", page, pages, err)
		}
	}
	if _, _, err := Cut(strings.NewReader("%PDF-1.4\ngarbage"), 1); !errors.Is(err, ErrUnreadable) {
		t.Errorf("Cut of garbage: %v, want ErrUnreadable", err)
	}
}
