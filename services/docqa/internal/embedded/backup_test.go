package embedded

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/carhub/backend/services/docqa/internal/docqa"
)

// docNumbered is document i of a writer: its MD5 is that of its number,
// it has chunks chunks.
func docNumbered(i, chunks int) (docqa.Document, []docqa.Chunk) {
	sum := md5.Sum([]byte(fmt.Sprintf("document %d", i)))
	id := hex.EncodeToString(sum[:])
	doc := newDoc(id, fmt.Sprintf("manual-%d.pdf", i), t0.Add(time.Duration(i)*time.Second), chunks)
	cs := make([]docqa.Chunk, chunks)
	for j := range cs {
		cs[j] = chunk(id, j, j/3+1, fmt.Sprintf("document %d, chunk %d", i, j), vec(float32(i), float32(j), 1))
	}
	return doc, cs
}

// TestSnapshotWhileWriting copies the database while a writer keeps
// upserting documents: the copy holds the first k documents written
// (before <= k <= after), each with all its chunks.
func TestSnapshotWhileWriting(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := mustOpen(t, dir)
	const chunks = 40
	for i := 0; i < 50; i++ {
		doc, cs := docNumbered(i, chunks)
		mustUpsert(t, s, doc, cs, "test:v1")
	}
	var written atomic.Int64
	written.Store(50)
	stop, done := make(chan struct{}), make(chan error, 1)
	go func() {
		for i := 50; ; i++ {
			select {
			case <-stop:
				done <- nil
				return
			default:
			}
			doc, cs := docNumbered(i, chunks)
			if err := s.Upsert(ctx, doc, cs, "test:v1"); err != nil {
				done <- err
				return
			}
			written.Add(1)
		}
	}()
	for written.Load() < 53 {
		time.Sleep(time.Millisecond)
	}
	dst := filepath.Join(t.TempDir(), "copy.db")
	before := written.Load()
	err := Snapshot(ctx, dir, dst)
	after := written.Load() + 1 // one upsert may have committed without being counted yet
	close(stop)
	if werr := <-done; werr != nil {
		t.Fatal(werr)
	}
	if err != nil {
		t.Fatal(err)
	}
	c, err := ReadContents(ctx, dst)
	if err != nil {
		t.Fatal(err)
	}
	k := int64(len(c.Documents))
	if k < before || k > after {
		t.Fatalf("the copy holds %d documents, want between %d and %d", k, before, after)
	}
	var want []string
	for i := 0; i < int(k); i++ {
		doc, _ := docNumbered(i, chunks)
		want = append(want, doc.FileMD5)
	}
	slices.Sort(want)
	if !slices.Equal(c.Documents, want) {
		t.Fatalf("the copy's documents are not the first %d written", k)
	}
	if c.Chunks != int(k)*chunks {
		t.Fatalf("the copy holds %d chunks for %d documents of %d", c.Chunks, k, chunks)
	}
	// The copy is a store of its own.
	copyDir := t.TempDir()
	if err := os.Rename(dst, filepath.Join(copyDir, DBName)); err != nil {
		t.Fatal(err)
	}
	r := mustOpen(t, copyDir)
	for i := 0; i < int(k); i++ {
		doc, _ := docNumbered(i, chunks)
		got, err := r.Document(ctx, doc.FileMD5)
		if err != nil || got != doc {
			t.Fatalf("document %d in the copy: %+v (%v), want %+v", i, got, err, doc)
		}
	}
}

func TestSnapshotOfNoStore(t *testing.T) {
	err := Snapshot(context.Background(), t.TempDir(), filepath.Join(t.TempDir(), "copy.db"))
	if err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Snapshot of an empty directory: %v", err)
	}
}

func TestEnsureUnused(t *testing.T) {
	ctx := context.Background()
	if err := EnsureUnused(ctx, t.TempDir()); err != nil {
		t.Errorf("a directory without a store: %v", err)
	}
	dir := t.TempDir()
	s := mustOpen(t, dir)
	seed(t, s)
	if err := EnsureUnused(ctx, dir); !errors.Is(err, ErrInUse) {
		t.Fatalf("an open store: %v, want ErrInUse", err)
	}
	// The refused check changed nothing: the store still writes.
	doc, cs := docNumbered(1, 2)
	mustUpsert(t, s, doc, cs, "lexical:v1")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := EnsureUnused(ctx, dir); err != nil {
		t.Fatalf("a closed store: %v", err)
	}
	if docs, err := mustOpen(t, dir).Documents(ctx); err != nil || len(docs) != 3 {
		t.Fatalf("after the check the store holds %d documents (%v), want 3", len(docs), err)
	}
}
