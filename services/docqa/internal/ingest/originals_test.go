package ingest_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/carhub/backend/pkg/apperr"
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

// collide puts other, a file of the same size as pdf, in place of pdf's
// kept original: what an upload of a file whose MD5 collides with pdf's
// leaves on disk. It returns pdf's MD5.
func collide(t *testing.T, dir string, pdf []byte) (sum string, other []byte) {
	t.Helper()
	other = slices.Clone(pdf)
	other[len(other)-2] ^= 1 // same size, other bytes
	sum = fmt.Sprintf("%x", md5.Sum(pdf))
	writeFile(t, filepath.Join(dir, sum+".pdf"), other)
	return sum, other
}

// TestUploadCollidingWithAStoredFileIsRefused: an original is the file of
// an upload with the same MD5 only when their SHA-256 sums match. While a
// document uses the kept original, an upload of other bytes under its MD5
// (a collision: two same-size files with one MD5 are cheap to make) is
// refused with CONFLICT, by another owner or by the same one, and neither
// file is served for the other.
func TestUploadCollidingWithAStoredFileIsRefused(t *testing.T) {
	dir, keep := withOriginals(t)
	e := newEnv(t, keep)
	pdf := samplePDF("victim")
	attacker := docqa.AsReader(context.Background(), 7)
	if _, err := ingestWith(attacker, e.pipe, "planted.pdf", pdf, nil); err != nil {
		t.Fatal(err)
	}
	sum, planted := collide(t, dir, pdf)
	for _, who := range []struct {
		name string
		ctx  context.Context
	}{
		{"another owner", docqa.AsReader(context.Background(), 8)},
		{"the owner of the stored document", attacker},
	} {
		_, err := ingestWith(who.ctx, e.pipe, "manual.pdf", pdf, nil)
		if code(err) != apperr.Conflict || !strings.Contains(err.Error(), sum) {
			t.Errorf("%s: upload = %v, want CONFLICT naming the MD5", who.name, err)
		}
		if got, err := os.ReadFile(filepath.Join(dir, sum+".pdf")); err != nil || !bytes.Equal(got, planted) {
			t.Fatalf("%s: the kept original changed (%v)", who.name, err)
		}
	}
	if owners, err := e.store.Owners(context.Background(), sum); err != nil || !slices.Equal(owners, []uint64{7}) {
		t.Errorf("owners of %s = %v, %v; want only the first uploader", sum, owners, err)
	}
	e.assertTempEmpty(t)
}

// TestUploadReplacesAnUnusedOriginalOfOtherBytes: an original that no
// document uses (a crash between keeping it and the store write) does not
// block a later upload with its MD5: the upload's file replaces it.
func TestUploadReplacesAnUnusedOriginalOfOtherBytes(t *testing.T) {
	dir, keep := withOriginals(t)
	e := newEnv(t, keep)
	pdf := samplePDF("after a crash")
	sum, _ := collide(t, dir, pdf)
	res, err := e.ingestBytes(t, "manual.pdf", pdf, nil)
	if err != nil || res.FileMD5 != sum || res.Duplicate {
		t.Fatalf("upload = %+v, %v", res, err)
	}
	if got, err := os.ReadFile(filepath.Join(dir, sum+".pdf")); err != nil || !bytes.Equal(got, pdf) {
		t.Errorf("the original is not the upload's file (%v)", err)
	}
	if got := keptFiles(t, dir); !slices.Equal(got, []string{sum + ".pdf"}) {
		t.Errorf("directory holds %v", got)
	}
}
