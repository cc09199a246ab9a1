package ocrtest

import (
	"context"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/carhub/backend/services/docqa/internal/tooltest"
)

// RequireLanguages checks that command has the Tesseract data of langs
// (osd among them for OCR_LANGUAGES=auto); a missing one fails the test
// under CI=true and skips it elsewhere, naming its Debian package.
func RequireLanguages(tb testing.TB, command string, langs ...string) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, command, "--list-langs").CombinedOutput()
	if err != nil {
		tb.Fatalf("%s --list-langs: %v\n%s", command, err, out)
	}
	have := strings.Fields(string(out))
	for _, l := range langs {
		if !slices.Contains(have, l) {
			tooltest.Missing(tb, "Tesseract's "+l+" data is not installed (apt-get install tesseract-ocr-"+strings.ReplaceAll(l, "_", "-")+")")
		}
	}
}

// Recall is the share of the reference's words (of letters, digits and
// marks; characters one by one when cjk) that got has, each counted once.
func Recall(ref, got string, cjk bool) float64 {
	split := Words
	if cjk {
		split = Chars
	}
	r, g := split(ref), split(got)
	if len(r) == 0 {
		return 1
	}
	have := map[string]int{}
	for _, w := range g {
		have[w]++
	}
	hit := 0
	for _, w := range r {
		if have[w] > 0 {
			have[w]--
			hit++
		}
	}
	return float64(hit) / float64(len(r))
}

// Words are the runs of letters, digits and combining marks of s, in NFKC
// and lower case.
func Words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(norm.NFKC.String(s)), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.Is(unicode.M, r)
	})
}

// Chars are the letters and digits of s one by one, in NFKC and lower case.
func Chars(s string) []string {
	var out []string
	for _, r := range strings.ToLower(norm.NFKC.String(s)) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			out = append(out, string(r))
		}
	}
	return out
}
