package originals_test

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/carhub/backend/services/docqa/internal/originals"
)

const md5 = "9e107d9d372bb6826bd81d3542a419d6"

// upload writes b to a temporary file in dir, as ingest.Receive does.
func upload(t *testing.T, dir string, b []byte) *os.File {
	t.Helper()
	f, err := os.CreateTemp(dir, "docqa-upload-*.pdf")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
	return f
}

// keep keeps b, written to a temporary file in dir, as md5's original.
func keep(t *testing.T, d *originals.Dir, dir string, b []byte) error {
	t.Helper()
	return d.Keep(md5, sha256.Sum256(b), upload(t, dir, b), int64(len(b)))
}

func mustOpen(t *testing.T, path string) *originals.Dir {
	t.Helper()
	d, err := originals.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

func readOriginal(t *testing.T, d *originals.Dir, md5 string) []byte {
	t.Helper()
	f, err := d.Open(md5)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(f); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestOpenCreatesAndSweeps(t *testing.T) {
	path := filepath.Join(t.TempDir(), "var", "files")
	d := mustOpen(t, path)
	if st, err := os.Stat(path); err != nil || !st.IsDir() || st.Mode().Perm() != 0o700 {
		t.Fatalf("directory: %v %v", st, err)
	}
	if d.Path() != path {
		t.Errorf("Path = %q", d.Path())
	}
	// A copy a killed process left is removed at the next Open; originals stay.
	for _, name := range []string{".keeping-123.tmp", md5 + ".pdf"} {
		if err := os.WriteFile(filepath.Join(path, name), []byte("%PDF-"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	mustOpen(t, path)
	if got := names(t, path); !slices.Equal(got, []string{md5 + ".pdf"}) {
		t.Errorf("after Open the directory holds %v", got)
	}
}

func TestOpenRefusesWhatItCannotWrite(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"", file, filepath.Join(file, "below")} {
		if _, err := originals.Open(path); err == nil {
			t.Errorf("Open(%q) succeeded", path)
		}
	}
	if os.Geteuid() != 0 { // permissions do not stop root
		ro := filepath.Join(t.TempDir(), "read-only")
		if err := os.Mkdir(ro, 0o500); err != nil {
			t.Fatal(err)
		}
		if _, err := originals.Open(ro); err == nil || !strings.Contains(err.Error(), "not writable") {
			t.Errorf("Open(read-only) = %v", err)
		}
	}
}

// TestKeepLinks: on one file system the upload becomes the original without
// a copy, and stays when the upload's name is removed.
func TestKeepLinks(t *testing.T) {
	root := t.TempDir()
	d := mustOpen(t, filepath.Join(root, "files"))
	pdf := []byte("%PDF-1.4\nthe bytes of a manual\n%%EOF\n")
	src := upload(t, root, pdf)
	if err := d.Keep(md5, sha256.Sum256(pdf), src, int64(len(pdf))); err != nil {
		t.Fatal(err)
	}
	srcInfo, _ := src.Stat()
	dstInfo, err := os.Stat(filepath.Join(d.Path(), md5+".pdf"))
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(srcInfo, dstInfo) {
		t.Error("the original is a copy, not a link of the upload")
	}
	if err := os.Remove(src.Name()); err != nil {
		t.Fatal(err)
	}
	if got := readOriginal(t, d, md5); !bytes.Equal(got, pdf) {
		t.Errorf("original = %q", got)
	}
	// Keeping it again is a no-op.
	if err := keep(t, d, root, pdf); err != nil {
		t.Fatal(err)
	}
	if got := names(t, d.Path()); !slices.Equal(got, []string{md5 + ".pdf"}) {
		t.Errorf("directory holds %v", got)
	}
}

// TestKeepCopies: where no link can be made (here: the upload has no name
// left to link), the bytes are copied.
func TestKeepCopies(t *testing.T) {
	root := t.TempDir()
	d := mustOpen(t, filepath.Join(root, "files"))
	pdf := bytes.Repeat([]byte("%PDF-1.4 copied "), 10000)
	src := upload(t, root, pdf)
	if err := os.Remove(src.Name()); err != nil {
		t.Fatal(err)
	}
	if err := d.Keep(md5, sha256.Sum256(pdf), src, int64(len(pdf))); err != nil {
		t.Fatal(err)
	}
	if got := readOriginal(t, d, md5); !bytes.Equal(got, pdf) {
		t.Errorf("original has %d bytes, want %d", len(got), len(pdf))
	}
	if got := names(t, d.Path()); !slices.Equal(got, []string{md5 + ".pdf"}) {
		t.Errorf("directory holds %v (a temporary copy left behind?)", got)
	}
}

func TestOpenAndRemove(t *testing.T) {
	root := t.TempDir()
	d := mustOpen(t, filepath.Join(root, "files"))
	if _, err := d.Open(md5); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open of an original not kept = %v, want fs.ErrNotExist", err)
	}
	if err := d.Remove(md5); err != nil {
		t.Errorf("Remove of an original not kept = %v", err)
	}
	if err := keep(t, d, root, []byte("%PDF-1.4 x")); err != nil {
		t.Fatal(err)
	}
	if err := d.Remove(md5); err != nil {
		t.Fatal(err)
	}
	if got := names(t, d.Path()); len(got) != 0 {
		t.Errorf("directory holds %v", got)
	}
}

// TestNamesAreMD5sOnly: nothing but 32 lower-case hex digits reaches the
// file system, so no name leaves the directory.
func TestNamesAreMD5sOnly(t *testing.T) {
	root := t.TempDir()
	d := mustOpen(t, filepath.Join(root, "files"))
	secret := filepath.Join(root, "secret.pdf")
	if err := os.WriteFile(secret, []byte("%PDF-secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	src := upload(t, root, []byte("%PDF-1.4"))
	for _, bad := range []string{"", "../secret", "../../etc/passwd", strings.ToUpper(md5), md5 + "0", md5[:31] + "/", md5[:30] + ".."} {
		if _, err := d.Open(bad); err == nil || errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Open(%q) = %v, want a refusal", bad, err)
		}
		if err := d.Keep(bad, sha256.Sum256([]byte("%PDF-1.4")), src, 8); err == nil {
			t.Errorf("Keep(%q) succeeded", bad)
		}
		if err := d.Replace(bad, src, 8); err == nil {
			t.Errorf("Replace(%q) succeeded", bad)
		}
		if err := d.Remove(bad); err == nil {
			t.Errorf("Remove(%q) succeeded", bad)
		}
	}
	if _, err := os.Stat(secret); err != nil {
		t.Errorf("a file outside the directory was touched: %v", err)
	}
}

// TestKeepComparesBytesNotMD5: a file kept under an MD5 is the original of
// another upload with that MD5 only when their SHA-256 sums match. A
// different file of the same size (what an MD5 collision gives) or of
// another size is refused and the kept original stays; Replace then puts
// the new file in its place.
func TestKeepComparesBytesNotMD5(t *testing.T) {
	root := t.TempDir()
	d := mustOpen(t, filepath.Join(root, "files"))
	first := []byte("%PDF-1.4 the first uploader's file")
	if err := keep(t, d, root, first); err != nil {
		t.Fatal(err)
	}
	sameSize := []byte("%PDF-1.4 the other uploader's file")
	if len(sameSize) != len(first) {
		t.Fatal("the test's files must have one size")
	}
	for _, other := range [][]byte{sameSize, []byte("%PDF-1.4 shorter"), append(slices.Clone(first), '\n')} {
		if err := keep(t, d, root, other); !errors.Is(err, originals.ErrDifferentFile) {
			t.Errorf("Keep of %q under the first file's MD5 = %v, want ErrDifferentFile", other, err)
		}
		if got := readOriginal(t, d, md5); !bytes.Equal(got, first) {
			t.Fatalf("the kept original became %q", got)
		}
	}
	if err := keep(t, d, root, first); err != nil {
		t.Errorf("keeping the same bytes again = %v", err)
	}
	if err := d.Replace(md5, upload(t, root, sameSize), int64(len(sameSize))); err != nil {
		t.Fatal(err)
	}
	if got := readOriginal(t, d, md5); !bytes.Equal(got, sameSize) {
		t.Errorf("after Replace the original is %q", got)
	}
	if got := names(t, d.Path()); !slices.Equal(got, []string{md5 + ".pdf"}) {
		t.Errorf("directory holds %v", got)
	}
}
