package ingest_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/carhub/backend/services/docqa/internal/docqa"
	"github.com/carhub/backend/services/docqa/internal/ingest"
	"github.com/carhub/backend/services/docqa/internal/originals"
)

// withOriginals keeps originals in a directory of the test's own and
// returns it.
func withOriginals(t *testing.T) (string, func(*ingest.Config)) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "originals")
	files, err := originals.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, func(c *ingest.Config) { c.Originals = files }
}

func keptFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestOriginalKeptAndDeleted(t *testing.T) {
	dir, keep := withOriginals(t)
	e := newEnv(t, keep)
	pdf := samplePDF("kept")
	res, err := e.ingestBytes(t, "kept.pdf", pdf, nil)
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(dir, res.FileMD5+".pdf")
	if got, err := os.ReadFile(name); err != nil || !bytes.Equal(got, pdf) {
		t.Fatalf("original: %v, equal %v", err, bytes.Equal(got, pdf))
	}
	if got := keptFiles(t, dir); !slices.Equal(got, []string{res.FileMD5 + ".pdf"}) {
		t.Errorf("directory holds %v", got)
	}
	e.assertTempEmpty(t) // the upload's temporary name is gone; the original is another name of it

	// A duplicate keeps nothing more.
	if dup, err := e.ingestBytes(t, "again.pdf", pdf, nil); err != nil || !dup.Duplicate {
		t.Fatalf("duplicate = %+v, %v", dup, err)
	}
	if got := keptFiles(t, dir); len(got) != 1 {
		t.Errorf("directory holds %v after a duplicate", got)
	}

	if err := e.pipe.Delete(context.Background(), res.FileMD5); err != nil {
		t.Fatal(err)
	}
	if got := keptFiles(t, dir); len(got) != 0 {
		t.Errorf("directory holds %v after the delete", got)
	}
	if _, err := e.store.Document(context.Background(), res.FileMD5); !errors.Is(err, docqa.ErrNotFound) {
		t.Errorf("document after the delete: %v", err)
	}
	if err := e.pipe.Delete(context.Background(), res.FileMD5); !errors.Is(err, docqa.ErrNotFound) {
		t.Errorf("second delete = %v, want ErrNotFound", err)
	}
}

// TestDuplicateRestoresOriginal: a document stored before originals were
// kept gets its original when the same file is uploaded again.
func TestDuplicateRestoresOriginal(t *testing.T) {
	dir, keep := withOriginals(t)
	e := newEnv(t, keep)
	pdf := samplePDF("older")
	res, err := e.ingestBytes(t, "older.pdf", pdf, nil)
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(dir, res.FileMD5+".pdf")
	if err := os.Remove(name); err != nil {
		t.Fatal(err)
	}
	calls := len(e.fake.EmbeddingRequests())
	if dup, err := e.ingestBytes(t, "older.pdf", pdf, nil); err != nil || !dup.Duplicate {
		t.Fatalf("duplicate = %+v, %v", dup, err)
	}
	if got, err := os.ReadFile(name); err != nil || !bytes.Equal(got, pdf) {
		t.Fatalf("original after the duplicate: %v", err)
	}
	if n := len(e.fake.EmbeddingRequests()); n != calls {
		t.Errorf("the duplicate made %d embedding calls", n-calls)
	}
}

// failingUpsert is a store whose writes fail, as a store that went down
// after the document was embedded.
type failingUpsert struct{ docqa.VectorStore }

func (failingUpsert) Upsert(context.Context, docqa.Document, []docqa.Chunk, string) error {
	return fmt.Errorf("write failed: %w", docqa.ErrUnavailable)
}

func TestFailedStoreWriteKeepsNoOriginal(t *testing.T) {
	dir, keep := withOriginals(t)
	e := newEnv(t, keep, func(c *ingest.Config) { c.Store = failingUpsert{c.Store} })
	_, err := e.ingestBytes(t, "lost.pdf", samplePDF("lost"), nil)
	if !errors.Is(err, docqa.ErrUnavailable) {
		t.Fatalf("err = %v", err)
	}
	if got := keptFiles(t, dir); len(got) != 0 {
		t.Errorf("a document not stored left %v", got)
	}
	e.assertTempEmpty(t)
}

func TestBadFilesKeepNoOriginal(t *testing.T) {
	dir, keep := withOriginals(t)
	e := newEnv(t, keep)
	for _, b := range [][]byte{[]byte("%PDF-1.4\n1 0 obj << /Type /Catalog garbage"), samplePDF("")[:200]} {
		if _, err := e.ingestBytes(t, "bad.pdf", b, nil); err == nil {
			t.Fatal("a bad file was ingested")
		}
	}
	if got := keptFiles(t, dir); len(got) != 0 {
		t.Errorf("bad files left %v", got)
	}
}

// TestDeleteRemovesOrphanOriginal: an original whose document is not
// stored (a crash between keeping it and the store write) goes with a
// delete of its MD5, which still answers ErrNotFound.
func TestDeleteRemovesOrphanOriginal(t *testing.T) {
	dir, keep := withOriginals(t)
	e := newEnv(t, keep)
	orphan := filepath.Join(dir, "0123456789abcdef0123456789abcdef.pdf")
	writeFile(t, orphan, samplePDF("orphan"))
	if err := e.pipe.Delete(context.Background(), "0123456789abcdef0123456789abcdef"); !errors.Is(err, docqa.ErrNotFound) {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(orphan); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("orphan original: %v", err)
	}
}

func TestImportKeepsOriginals(t *testing.T) {
	dir, keep := withOriginals(t)
	e := newEnv(t, keep)
	pdf := samplePDF("imported")
	writeFile(t, filepath.Join(e.dataDir, "sub", "imported.pdf"), pdf)
	res, err := importAll(e.pipe)
	if err != nil || len(res.Documents) != 1 {
		t.Fatalf("import = %+v, %v", res, err)
	}
	if got, err := os.ReadFile(filepath.Join(dir, res.Documents[0].FileMD5+".pdf")); err != nil || !bytes.Equal(got, pdf) {
		t.Fatalf("original: %v", err)
	}
}
