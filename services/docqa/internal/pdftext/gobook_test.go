package pdftext

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/carhub/backend/services/docqa/internal/tooltest"
)

// TestGoBookChapterWordRecall scores pdfcpu's TheGoProgrammingLanguageCh1.pdf
// (troff output set glyph by glyph with tight kerning, where PDFium's own
// spacing kept 61% of the words) against pdftotext, read from the Go module
// cache where pdfcpu's test data lies (the file is not in the repository:
// its licence is unclear). Without the file or pdftotext it fails under
// CI=true and skips elsewhere.
func TestGoBookChapterWordRecall(t *testing.T) {
	pdftotext := tooltest.RequireTool(t, "pdftotext")
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal("go env GOMODCACHE:", err)
	}
	// pdfcpu is a module the service requires: its test data is in the
	// module cache wherever the tests were built (CI included).
	found, _ := filepath.Glob(filepath.Join(strings.TrimSpace(string(out)), "github.com/pdfcpu/pdfcpu@*/pkg/testdata/TheGoProgrammingLanguageCh1.pdf"))
	if len(found) == 0 {
		tooltest.Missing(t, "pdfcpu's test data is not in the module cache (go mod download github.com/pdfcpu/pdfcpu)")
	}
	path := found[len(found)-1]
	ref, err := exec.Command(pdftotext, "-q", "-enc", "UTF-8", path, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext %s: %v", path, err)
	}
	f, size := mustOpen(t, path)
	doc, err := engine.Extract(context.Background(), f, size, nil)
	if err != nil {
		t.Fatal(err)
	}
	refPages := strings.Split(strings.TrimSuffix(string(ref), "\f"), "\f")
	if len(refPages) != len(doc.Pages) {
		t.Fatalf("%d pages, pdftotext %d", len(doc.Pages), len(refPages))
	}
	var s score
	for i, p := range doc.Pages {
		s.add(words(refPages[i]), words(p.Text))
	}
	t.Logf("recall %.4f, precision %.4f, pair recall %.4f (%d words, %d pages)",
		s.recall(), s.precision(), s.pairRecall(), s.refItems, len(doc.Pages))
	if s.recall() < 0.95 || s.precision() < 0.95 {
		t.Errorf("recall %.4f, precision %.4f: want >= 0.95 each", s.recall(), s.precision())
	}
}
