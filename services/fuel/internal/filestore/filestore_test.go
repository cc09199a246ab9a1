package filestore_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/carhub/backend/services/fuel/internal/filestore"
)

func mustOpen(t *testing.T) (*filestore.Store, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "files")
	s, err := filestore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s, dir
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	slices.Sort(out)
	return out
}

func TestPutReadRemove(t *testing.T) {
	s, dir := mustOpen(t)
	key, err := s.Put([]byte("receipt"))
	if err != nil {
		t.Fatal(err)
	}
	if !filestore.ValidKey(key) {
		t.Fatalf("key %q", key)
	}
	if err := s.PutAs(key, "thumb", []byte("small")); err != nil {
		t.Fatal(err)
	}
	if got, err := s.ReadFile(key); err != nil || string(got) != "receipt" {
		t.Fatalf("read %q, %v", got, err)
	}
	// Nothing but the file and its variant: no temporary file is left.
	if got, want := names(t, dir), []string{key, key + ".thumb"}; !slices.Equal(got, want) {
		t.Fatalf("directory %v, want %v", got, want)
	}
	if err := s.Remove(key); err != nil {
		t.Fatal(err)
	}
	if got := names(t, dir); len(got) != 0 {
		t.Fatalf("after Remove: %v", got)
	}
	if _, err := s.ReadFile(key); !errors.Is(err, filestore.ErrNotFound) {
		t.Fatalf("read after Remove: %v", err)
	}
	if err := s.Remove(key); err != nil {
		t.Fatalf("a second Remove: %v", err)
	}
}

func TestKeysNameNoOtherPath(t *testing.T) {
	s, _ := mustOpen(t)
	for _, k := range []string{"", "../../etc/passwd", "0123456789abcdef0123456789ABCDEF", "0123456789abcdef0123456789abcde/"} {
		if _, err := s.Path(k, ""); err == nil {
			t.Errorf("key %q was taken", k)
		}
	}
	if _, err := s.Path(filestore.NewKey(), "../x"); err == nil {
		t.Error("variant ../x was taken")
	}
}

// deletedList is a DeletedFiles in memory.
type deletedList struct{ keys []string }

func (d *deletedList) DeletedAttachmentFiles(_ context.Context, limit int) ([]string, error) {
	return slices.Clone(d.keys[:min(limit, len(d.keys))]), nil
}

func (d *deletedList) ForgetDeletedAttachmentFiles(_ context.Context, keys []string) error {
	d.keys = slices.DeleteFunc(d.keys, func(k string) bool { return slices.Contains(keys, k) })
	return nil
}

func TestPurgeAndSweep(t *testing.T) {
	s, dir := mustOpen(t)
	var keys []string
	for i := 0; i < 150; i++ { // more than one batch
		k, err := s.Put([]byte{byte(i)})
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	d := &deletedList{keys: slices.Clone(keys[:120])}
	d.keys = append(d.keys, "not-a-key")
	n, err := s.Purge(context.Background(), d)
	if err != nil || n != 121 || len(d.keys) != 0 {
		t.Fatalf("purge: %d, %v; left %v", n, err, d.keys)
	}
	if got := names(t, dir); !slices.Equal(got, slices.Sorted(slices.Values(keys[120:]))) {
		t.Fatalf("after the purge %d files, want the 30 not deleted", len(got))
	}

	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".tmp-123"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	keep := map[string]bool{keys[149]: true}
	if n, err := s.Sweep(keep); err != nil || n != 30 {
		t.Fatalf("sweep: %d, %v", n, err)
	}
	if got, want := names(t, dir), []string{keys[149], "notes.txt"}; !slices.Equal(got, want) {
		t.Fatalf("after the sweep %v, want %v", got, want)
	}
}
