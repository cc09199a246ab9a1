package embedded

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/carhub/backend/services/docqa/internal/docqa"
)

const killChildEnv = "EMBEDDED_KILL_TEST_DIR"

// TestKilledWriterLosesOnlyTheUnfinishedWrite runs a writer in a child
// process (this test binary again), lets it commit a few documents of 500
// chunks, then SIGKILLs it, most likely in the middle of a transaction. The
// reopened store has every document the child reported committed, each with
// all its chunks, and no document without all of its chunks.
func TestKilledWriterLosesOnlyTheUnfinishedWrite(t *testing.T) {
	if dir := os.Getenv(killChildEnv); dir != "" {
		killChild(dir)
		return
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledWriterLosesOnlyTheUnfinishedWrite$")
	cmd.Env = append(os.Environ(), killChildEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	committed := map[string]bool{}
	sc := bufio.NewScanner(out)
	for sc.Scan() && len(committed) < 4 {
		if md5, ok := strings.CutPrefix(sc.Text(), "committed "); ok {
			committed[md5] = true
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if len(committed) < 4 {
		t.Fatalf("the child reported %d commits before it ended", len(committed))
	}

	s := mustOpen(t, dir)
	docs, err := s.Documents(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]int{}
	for _, r := range s.index {
		have[r.key.md5]++
	}
	for _, d := range docs {
		if have[d.FileMD5] != d.Chunks {
			t.Errorf("document %s has %d of its %d chunks", d.FileMD5, have[d.FileMD5], d.Chunks)
		}
		delete(committed, d.FileMD5)
	}
	if len(committed) > 0 {
		t.Errorf("committed documents lost: %v", committed)
	}
	t.Logf("%d documents whole after SIGKILL", len(docs))
}

// killChild writes documents until it is killed, reporting each commit.
func killChild(dir string) {
	s, err := Open(dir, nil)
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(1)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for d := 0; ; d++ {
		md5 := fmt.Sprintf("%032x", d+1)
		chunks := make([]docqa.Chunk, 500)
		for i := range chunks {
			chunks[i] = chunk(md5, i, 1+i/10, "text of a chunk", randVec(rng))
		}
		if err := s.Upsert(context.Background(), newDoc(md5, "k.pdf", t0, len(chunks)), chunks, "e"); err != nil {
			fmt.Println("upsert:", err)
			os.Exit(1)
		}
		fmt.Println("committed", md5)
	}
}
