// Package pdftexttest serves the tests that start the PDF engine: one
// compilation cache for all of them, so each test process loads the
// engine's compiled code instead of compiling it again (several seconds and
// a few hundred MB each time).
package pdftexttest

import (
	"os"
	"path/filepath"
	"time"
)

// StartTimeout bounds a test's wait for the PDF engine. On a fresh clone
// the engine compiles PDFium without a cache, and under make test the
// other packages' tests and the web client's build share the two cores:
// a minute was not enough once (CI, 2026-12-07). The bound only catches a
// hang, so it is generous.
const StartTimeout = 10 * time.Minute

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
