package httpapi_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/carhub/backend/services/docqa/internal/ingest"
	"github.com/carhub/backend/services/docqa/internal/ingest/ingesttest"
)

// TestFileNamesNeverReflectedUnescaped: a file name is the client's text.
// Wherever it comes back (the upload answer, the progress stream, the
// document list, the chat's sources), it is JSON-escaped, so a page that
// drops it into HTML cannot be made to run markup.
func TestFileNamesNeverReflectedUnescaped(t *testing.T) {
	forEachAuthMode(t, func(t *testing.T, accounts bool) {
		s := newService(t, options{accounts: accounts, local: true})
		const name = `<img src=x onerror="alert(1)">&.pdf`
		const raw = `<img`

		readAll := func(resp *http.Response) string {
			t.Helper()
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d: %s", resp.StatusCode, b)
			}
			return string(b)
		}
		check := func(where, body string) {
			t.Helper()
			if strings.Contains(body, raw) || strings.Contains(body, `">&`) {
				t.Errorf("%s reflects the file name unescaped: %s", where, body)
			}
			if !strings.Contains(body, `\u003cimg src=x onerror=\"alert(1)\"\u003e\u0026.pdf`) {
				t.Errorf("%s does not carry the escaped file name: %s", where, body)
			}
		}

		pdf := ingesttest.PDF("Windscreen washer fluid is topped up every month.")
		check("upload answer", readAll(s.upload(t, "/api/documents/upload", part{"file", name, pdf})))
		other := ingesttest.PDF("The coolant is replaced every five years.")
		check("upload stream", readAll(s.upload(t, "/api/documents/upload/stream", part{"file", name, other})))
		check("document list", readAll(s.get(t, "/api/documents")))
		check("chat sources", readAll(s.chat(t, `{"question":"When is the washer fluid topped up?"}`)))

		// The name is kept as sent (only escaped on the wire).
		var list []ingest.Result
		decode(t, s.get(t, "/api/documents"), http.StatusOK, &list)
		if len(list) != 2 || list[0].FileName != name {
			t.Fatalf("stored names: %+v", list)
		}
	})
}
