package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, name, content string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestReserve(t *testing.T) {
	dir := t.TempDir()
	a, err := Reserve(dir, "x-*.tmp")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Reserve(dir, "x-*.tmp")
	if a == b || filepath.Dir(a) != dir || !strings.HasPrefix(filepath.Base(a), "x-") {
		t.Fatalf("reserved %q and %q", a, b)
	}
	if fi, err := os.Stat(a); err != nil || fi.Size() != 0 {
		t.Fatalf("reserved file: %v %v", fi, err)
	}
	if _, err := Reserve(filepath.Join(dir, "missing"), "x-*"); err == nil {
		t.Fatal("reserved in a missing directory")
	}
}

func TestPlaceWithoutOverwrite(t *testing.T) {
	dir := t.TempDir()
	tmp, dst := filepath.Join(dir, "tmp"), filepath.Join(dir, "dst")
	write(t, tmp, "new")
	if err := Place(tmp, dst, false); err != nil {
		t.Fatal(err)
	}
	if read(t, dst) != "new" {
		t.Fatal("dst does not hold tmp's content")
	}
	if _, err := os.Stat(tmp); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("tmp left behind: %v", err)
	}

	// A dst that exists is never replaced, and tmp is kept for the caller.
	write(t, tmp, "newer")
	err := Place(tmp, dst, false)
	if !errors.Is(err, fs.ErrExist) || !errors.Is(err, ErrNotEmpty) {
		t.Fatalf("placing over an existing file: %v, want ErrNotEmpty and fs.ErrExist", err)
	}
	if read(t, dst) != "new" || read(t, tmp) != "newer" {
		t.Fatal("a refused place changed a file")
	}
}

func TestPlaceOverwrite(t *testing.T) {
	dir := t.TempDir()
	tmp, dst := filepath.Join(dir, "tmp"), filepath.Join(dir, "dst")
	write(t, dst, "old")
	write(t, tmp, "new")
	if err := Place(tmp, dst, true); err != nil {
		t.Fatal(err)
	}
	if read(t, dst) != "new" {
		t.Fatal("not replaced")
	}
	if _, err := os.Stat(tmp); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("tmp left behind: %v", err)
	}
	if err := Place(filepath.Join(dir, "gone"), dst, true); err == nil {
		t.Fatal("placing a missing file succeeded")
	}
}
