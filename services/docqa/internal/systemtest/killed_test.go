package systemtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/carhub/backend/services/docqa/internal/docqa"
	"github.com/carhub/backend/services/docqa/internal/embedded"
	"github.com/carhub/backend/services/docqa/internal/openaifake"
)

// TestKilledMidIngest kills the service with SIGKILL while it embeds an
// upload, starts it again on the same store directory and uploads the same
// PDF again: nothing of the first attempt may be stored, the re-upload is a
// new document (duplicate false), a third upload is a duplicate, and the
// store holds the document once with exactly the chunks the answer counted.
func TestKilledMidIngest(t *testing.T) {
	// Two texts per embedding request, one request at a time; the first two
	// requests are answered and the third hangs until its client is gone,
	// so the process is surely killed in the middle of the embedding stage
	// with some vectors in its memory, however slow the machine.
	fake := openaifake.New(t)
	fake.FailEmbeddings(openaifake.Failure{}, openaifake.Failure{}, openaifake.Failure{Hang: true})
	storeDir, tempDir := t.TempDir(), t.TempDir()
	env := serviceEnv(t, fake, storeDir, map[string]string{
		"DOCQA_TEMP_DIR":        tempDir,
		"EMBEDDING_BATCH_SIZE":  "2",
		"EMBEDDING_CONCURRENCY": "1",
	})
	pdf := prosePDF(12, 3)

	first := startService(t, env)
	stream := startStreamUpload(t, first.URL, pdf)
	sawEmbedding := false
	for !sawEmbedding {
		ev, err := stream.next()
		if err != nil {
			t.Fatalf("upload stream before the embedding stage: %v", err)
		}
		var p progress
		if ev.name != "progress" || json.Unmarshal([]byte(ev.data), &p) != nil {
			t.Fatalf("event %q %s before the embedding stage, want progress", ev.name, ev.data)
		}
		sawEmbedding = p.Stage == "embedding"
	}
	// Kill once the hanging request has arrived.
	deadline := time.Now().Add(30 * time.Second)
	for len(fake.EmbeddingRequests()) < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("%d embedding requests after the embedding stage began, want 3", len(fake.EmbeddingRequests()))
		}
		time.Sleep(10 * time.Millisecond)
	}
	first.Kill(t)
	for {
		ev, err := stream.next()
		if err != nil {
			break // the connection died with the process
		}
		if ev.name == "done" {
			t.Fatalf("the upload completed although its embedding request hung (%s)", ev.data)
		}
	}
	stream.body.Close()
	requestsBefore := len(fake.EmbeddingRequests())
	leftovers, _ := os.ReadDir(tempDir)
	t.Logf("killed after %d embedding requests; %d file(s) left in the temporary directory by the killed process",
		requestsBefore, len(leftovers))

	second := startService(t, env)
	// The restarted service removes what the killed one left mid-upload.
	if left, _ := os.ReadDir(tempDir); len(left) != 0 {
		t.Fatalf("after the restart %d file(s) remain in DOCQA_TEMP_DIR: %v", len(left), left)
	}
	if docs := documents(t, second.URL); len(docs) != 0 {
		t.Fatalf("after the kill the store lists %+v: the interrupted ingestion stored something", docs)
	}
	stream = startStreamUpload(t, second.URL, pdf)
	var res uploadResult
	for {
		ev, err := stream.next()
		if err != nil {
			t.Fatalf("re-upload stream: %v (no done event)", err)
		}
		if ev.name == "error" {
			t.Fatalf("re-upload failed: %s", ev.data)
		}
		if ev.name == "done" {
			if err := json.Unmarshal([]byte(ev.data), &res); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	if _, err := stream.next(); !errors.Is(err, io.EOF) {
		t.Errorf("after done: %v, want the end of the stream", err)
	}
	stream.body.Close()
	if res.Duplicate || res.Chunks < 2 {
		t.Fatalf("re-upload after the kill: %+v, want a new document of several chunks", res)
	}
	if len(fake.EmbeddingRequests()) == requestsBefore {
		t.Errorf("the re-upload made no embedding request")
	}

	again := upload(t, second.URL, "manual.pdf", pdf)
	if !again.Duplicate || again.FileMD5 != res.FileMD5 || again.Chunks != res.Chunks {
		t.Errorf("third upload: %+v, want a duplicate of %+v", again, res)
	}
	docs := documents(t, second.URL)
	if len(docs) != 1 || docs[0].FileMD5 != res.FileMD5 || docs[0].Chunks != res.Chunks {
		t.Fatalf("documents %+v, want the one document %+v", docs, res)
	}

	// Count the stored chunks in the store itself, once the service has
	// let go of it.
	second.Stop(t)
	store, err := embedded.Open(storeDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	hits, err := store.Search(context.Background(), openaifake.Vector("timing belt", docqa.Dimension), docqa.Query{TopK: docqa.MaxChunks})
	if err != nil {
		t.Fatal(err)
	}
	indexes := map[int]bool{}
	for _, h := range hits {
		if h.Document.FileMD5 != res.FileMD5 {
			t.Errorf("stored chunk %s belongs to %s", h.Chunk.ID, h.Document.FileMD5)
		}
		if indexes[h.Chunk.Index] {
			t.Errorf("chunk index %d stored twice", h.Chunk.Index)
		}
		indexes[h.Chunk.Index] = true
	}
	if len(hits) != res.Chunks {
		t.Errorf("the store holds %d chunks, the upload answered %d", len(hits), res.Chunks)
	}
	for i := range res.Chunks {
		if !indexes[i] {
			t.Errorf("chunk %d of %d is not stored", i, res.Chunks)
		}
	}
}

// streamUpload is an upload stream being read.
type streamUpload struct {
	*sseReader
	body io.ReadCloser
}

// startStreamUpload posts pdf to /api/documents/upload/stream and returns
// the event stream.
func startStreamUpload(t *testing.T, base string, pdf []byte) *streamUpload {
	t.Helper()
	ct, body := multipartFile(t, "manual.pdf", pdf)
	res, err := httpClient.Post(base+"/api/documents/upload/stream", ct, bytes.NewReader(body))
	if err != nil {
		t.Fatalf("upload stream: %v", err)
	}
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		t.Fatalf("upload stream: status %d %s", res.StatusCode, b)
	}
	t.Cleanup(func() { res.Body.Close() })
	return &streamUpload{sseReader: newSSEReader(res.Body), body: res.Body}
}
