// Package pdftexttest serves the tests that start the PDF engine: one
// compilation cache for all of them, so each test process loads the
// engine's compiled code instead of compiling it again (several seconds and
// a few hundred MB each time).
package pdftexttest

import (
	"os"
	"path/filepath"
)

// CacheDir is the engine's compilation cache for tests: a pure cache, keyed
// by the module's content and the runtime's version, kept in the user's
// cache directory across runs ("" when there is none: every start compiles).
func CacheDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "carhub-test", "pdfium")
}
