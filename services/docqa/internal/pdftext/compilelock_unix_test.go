//go:build unix

package pdftext

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/carhub/backend/services/docqa/internal/pdftext/pdftexttest"
)

// A second lock on the same cache waits until the first is released.
func TestLockCompileWaitsForTheFirst(t *testing.T) {
	dir := t.TempDir()
	unlock, err := lockCompile(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan func())
	go func() {
		second, err := lockCompile(dir)
		if err != nil {
			t.Error(err)
			second = func() {}
		}
		got <- second
	}()
	select {
	case second := <-got:
		second()
		t.Fatal("the second lock was taken while the first was held")
	case <-time.After(200 * time.Millisecond):
	}
	unlock()
	select {
	case second := <-got:
		second()
	case <-time.After(10 * time.Second):
		t.Fatal("the second lock was not taken after the first was released")
	}
}

// The lock lies beside the directory wazero writes the compiled code in:
// the shared engine of these tests (TestMain) started on the tests' cache.
func TestLockCompileBesideTheCompiledCode(t *testing.T) {
	dir := pdftexttest.CacheDir()
	if dir == "" {
		t.Fatal("no user cache directory (neither XDG_CACHE_HOME nor HOME is set): the tests' engine ran without a compilation cache")
	}
	for _, name := range []string{cacheSubdir(), cacheSubdir() + ".lock"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
