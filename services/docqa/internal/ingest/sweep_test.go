package ingest

import (
	"os"
	"path/filepath"
	"testing"
)

func TestSweepTempRemovesOnlyLeftoverUploads(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"docqa-upload-1.pdf", "docqa-upload-2.pdf", "keep.pdf", "docqa-upload-3.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("%PDF-"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	p := &Pipeline{cfg: Config{TempDir: dir}}
	n, err := p.SweepTemp()
	if err != nil || n != 2 {
		t.Fatalf("SweepTemp = %d, %v; want 2 removed", n, err)
	}
	entries, _ := os.ReadDir(dir)
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	if len(left) != 2 || left[0] != "docqa-upload-3.txt" || left[1] != "keep.pdf" {
		t.Fatalf("left %v", left)
	}

	// The shared system directory is never swept.
	if _, err := (&Pipeline{}).SweepTemp(); err == nil {
		t.Fatal("SweepTemp with no TempDir of its own did not refuse")
	}
}
