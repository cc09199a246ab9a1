package pagecache

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// onDisk is the total size of the cache's files and their names.
func onDisk(t *testing.T, dir string) (int64, []string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	var names []string
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		total += info.Size()
		names = append(names, e.Name())
	}
	return total, names
}

func page(n int) []byte { return bytes.Repeat([]byte{byte(n)}, 1000) }

func key(n int) string { return fmt.Sprintf("%032x-%d-1000.png", 0xabc, n) }

func TestLeastRecentlyUsedGoFirstAndTheTotalStaysUnderTheBound(t *testing.T) {
	dir := t.TempDir()
	c, err := Open(dir, 3500) // room for three pages of 1000 bytes
	if err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= 3; n++ {
		if err := c.Put(key(n), page(n)); err != nil {
			t.Fatal(err)
		}
	}
	if got, ok := c.Get(key(1)); !ok || !bytes.Equal(got, page(1)) { // 1 is now the most recent
		t.Fatalf("Get(1) = %d bytes, %v", len(got), ok)
	}
	for n := 4; n <= 5; n++ { // past the bound: 2, then 3 go
		if err := c.Put(key(n), page(n)); err != nil {
			t.Fatal(err)
		}
		if c.Size() > c.MaxBytes() {
			t.Fatalf("after page %d: %d bytes held, bound %d", n, c.Size(), c.MaxBytes())
		}
	}
	for n, want := range map[int]bool{1: true, 2: false, 3: false, 4: true, 5: true} {
		if _, ok := c.Get(key(n)); ok != want {
			t.Errorf("page %d kept %v, want %v", n, ok, want)
		}
	}
	total, names := onDisk(t, dir)
	slices.Sort(names)
	if want := []string{key(1), key(4), key(5)}; total != 3000 || !slices.Equal(names, want) || total != c.Size() {
		t.Errorf("on disk %d bytes %v (cache counts %d), want 3000 bytes %v", total, names, c.Size(), want)
	}
	// Too large for the bound: not kept, nothing evicted for it.
	if err := c.Put(key(9), bytes.Repeat([]byte{9}, 4000)); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Get(key(9)); ok || c.Size() != 3000 {
		t.Errorf("a page larger than the bound: kept %v, size %d", ok, c.Size())
	}
}

func TestReopenKeepsFilesAndTheirOrder(t *testing.T) {
	dir := t.TempDir()
	c, err := Open(dir, 10_000)
	if err != nil {
		t.Fatal(err)
	}
	base := time.Now().Add(-time.Hour)
	for n := 1; n <= 3; n++ {
		c.now = func() time.Time { return base.Add(time.Duration(n) * time.Minute) }
		if err := c.Put(key(n), page(n)); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, key(n))
		if err := os.Chtimes(p, c.now(), c.now()); err != nil {
			t.Fatal(err)
		}
	}
	c.now = func() time.Time { return base.Add(10 * time.Minute) }
	if _, ok := c.Get(key(1)); !ok { // touched: now the newest on disk
		t.Fatal("miss")
	}
	// A leftover of a crashed write goes; a file not named as a key stays.
	if err := os.WriteFile(filepath.Join(dir, tempPrefix+"x"), []byte("torn"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Reopened with room for two: the least recently used (2) goes.
	c2, err := Open(dir, 2000)
	if err != nil {
		t.Fatal(err)
	}
	for n, want := range map[int]bool{1: true, 2: false, 3: true} {
		if got, ok := c2.Get(key(n)); ok != want || ok && !bytes.Equal(got, page(n)) {
			t.Errorf("after reopening, page %d kept %v, want %v", n, ok, want)
		}
	}
	_, names := onDisk(t, dir)
	slices.Sort(names)
	if want := []string{key(1), key(3), "README"}; !slices.Equal(names, want) {
		t.Errorf("directory holds %v, want %v", names, want)
	}
}

func TestRemovePrefixAndKeys(t *testing.T) {
	c, err := Open(t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if c.MaxBytes() != DefaultMaxBytes {
		t.Errorf("default bound %d", c.MaxBytes())
	}
	for _, k := range []string{"aa-1.png", "aa-2.pdf", "bb-1.png"} {
		if err := c.Put(k, []byte(k)); err != nil {
			t.Fatal(err)
		}
	}
	c.RemovePrefix("aa-")
	for k, want := range map[string]bool{"aa-1.png": false, "aa-2.pdf": false, "bb-1.png": true} {
		if _, ok := c.Get(k); ok != want {
			t.Errorf("%s kept %v, want %v", k, ok, want)
		}
	}
	for _, bad := range []string{"../x", "a/b", "", ".hidden", "UPPER"} {
		if err := c.Put(bad, []byte("x")); err == nil {
			t.Errorf("Put(%q) accepted", bad)
		}
	}
}
