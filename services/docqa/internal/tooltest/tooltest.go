// Package tooltest finds the commands a test needs (tesseract, poppler's
// tools, ImageMagick) and ends a test that lacks one: a failure under
// CI=true, a skip elsewhere. The OCR and ingest test helpers both use it,
// so neither imports the other for it.
package tooltest

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// debianPackages names the Debian package of each command the tests use.
var debianPackages = map[string]string{
	"tesseract": "tesseract-ocr",
	"pdftoppm":  "poppler-utils",
	"pdftotext": "poppler-utils",
	"pdfinfo":   "poppler-utils",
	"convert":   "imagemagick",
}

// RequireTool returns the path of command tool. A missing one fails the
// test under CI=true (.ci/run installs every one of them) and skips it
// elsewhere, saying what to install: CI never passes without the test.
func RequireTool(tb testing.TB, tool string) string {
	tb.Helper()
	path, err := exec.LookPath(tool)
	if err != nil {
		Missing(tb, fmt.Sprintf("%s is not installed (apt-get install %s)", tool, debianPackages[tool]))
	}
	return path
}

// Missing ends a test that lacks what it needs (msg says what): a failure
// under CI=true, where .ci/run provides everything, a skip elsewhere.
func Missing(tb testing.TB, msg string) {
	tb.Helper()
	if os.Getenv("CI") == "true" {
		tb.Fatal(msg)
	}
	tb.Skip(msg)
}
