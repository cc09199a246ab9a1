package httpapi_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/carhub/backend/services/docqa/internal/ingest"
	"github.com/carhub/backend/services/docqa/internal/pdftext"
)

// gatedExtractor holds every extraction until the test opens the gate, so
// that uploads pile up in the ingestion queue.
type gatedExtractor struct {
	inner   ingest.Extractor
	entered chan string // the size of each file that reached extraction
	gate    chan struct{}
}

func (g *gatedExtractor) Extract(ctx context.Context, r io.ReaderAt, size int64, progress func(stage pdftext.Stage, done, total int)) (pdftext.Document, error) {
	g.entered <- "entered"
	select {
	case <-g.gate:
	case <-ctx.Done():
		return pdftext.Document{}, ctx.Err()
	}
	return g.inner.Extract(ctx, r, size, progress)
}

// With one slot and one place in line: the first upload runs, the second
// waits and is told its place, the third is refused at once with 503 and
// Retry-After; once the gate opens both admitted uploads are stored whole.
func TestIngestionQueueBoundsUploads(t *testing.T) {
	forEachAuthMode(t, func(t *testing.T, accounts bool) {
		g := &gatedExtractor{inner: pdfEngine, entered: make(chan string, 4), gate: make(chan struct{})}
		s := newService(t, options{accounts: accounts, extractor: g, concurrency: 1, queue: 1})

		first := make(chan ingest.Result, 1)
		go func() { first <- s.uploadPDF(t, "first.pdf", manual("queue-one")) }()
		select {
		case <-g.entered:
		case <-time.After(10 * time.Second):
			t.Fatal("first upload never reached extraction")
		}

		// The second upload streams its progress: it must say it is queued,
		// place 1, before anything else happens to it.
		resp := s.upload(t, "/api/documents/upload/stream", part{"file", "second.pdf", manual("queue-two")})
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("second upload: status %d", resp.StatusCode)
		}
		r := newEventReader(resp.Body)
		var queued ingest.Progress
		for queued.Stage != ingest.StageQueued {
			ev, err := r.next()
			if err != nil {
				t.Fatalf("stream ended before a queued event: %v", err)
			}
			if ev.Name == "progress" {
				unmarshal(t, ev.Data, &queued)
				if queued.Stage != ingest.StageReceived && queued.Stage != ingest.StageQueued {
					t.Fatalf("progress %+v before the queued event", queued)
				}
			}
		}
		if queued.Current != 1 || !strings.Contains(queued.Message, "place 1") {
			t.Fatalf("queued event %+v, want place 1", queued)
		}

		// The line is full: the third is refused before its body matters.
		third := s.upload(t, "/api/documents/upload", part{"file", "third.pdf", manual("queue-three")})
		if got := third.Header.Get("Retry-After"); got != "10" {
			t.Errorf("Retry-After %q, want 10", got)
		}
		wantError(t, third, http.StatusServiceUnavailable, "UNAVAILABLE", "too many documents")
		// So is an import, which needs a place too.
		wantError(t, s.post(t, "/api/documents/import", "", nil), http.StatusServiceUnavailable, "UNAVAILABLE", "too many documents")

		close(g.gate)
		var wg sync.WaitGroup
		wg.Go(func() {
			// The second upload goes on to be stored.
			events := withoutComments(readEventsFrom(t, r))
			last := events[len(events)-1]
			if last.Name != "done" || !strings.Contains(last.Data, `"fileName":"second.pdf"`) {
				t.Errorf("second upload ended with %+v", last)
			}
		})
		res := <-first
		wg.Wait()
		if res.FileName != "first.pdf" || res.Duplicate || res.Chunks == 0 {
			t.Errorf("first upload = %+v", res)
		}
		if n := storedCount(t, s); n != 2 {
			t.Errorf("%d documents stored, want the two admitted ones", n)
		}
		// Both places are free again.
		s.uploadPDF(t, "third.pdf", manual("queue-three"))
		if n := storedCount(t, s); n != 3 {
			t.Errorf("%d documents stored after the retry, want 3", n)
		}
	})
}
