// Package originals keeps the original bytes of every ingested PDF, one file
// per document named by the document's MD5, so that the web client can open
// a source at its page in the browser's own PDF viewer.
//
// The MD5 is the contract's name of a document, but not what an original is
// compared by: two different files with one MD5 are cheap to make, so a kept
// original is the same file as an upload only when their SHA-256 sums match
// (Keep). Nothing ever serves one file's bytes for another's.
//
// A file appears under its final name only once it is complete and on disk:
// the upload's temporary file is synced and hard-linked into the directory
// (no copy at all when both directories are on one file system), or else
// copied to a temporary file in the directory, synced and renamed. Readers
// therefore never see a half-written original, even after a crash.
package originals

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
)

// tempPattern names the copies being written; a process killed mid-copy
// leaves them behind, and Open removes them.
const tempPattern = ".keeping-*.tmp"

// Dir is a directory of originals. It is safe for concurrent use for
// different MD5s; callers serialize Keep and Remove of one MD5 (ingest's
// per-MD5 lock does).
type Dir struct {
	path string
}

// Open prepares the directory at path: it is created when absent (0700),
// copies left by a killed process are removed, and a probe file is created
// and removed, so a directory the service cannot write fails here, at
// start-up, rather than at the first upload.
func Open(path string) (*Dir, error) {
	if path == "" {
		return nil, errors.New("no directory given")
	}
	if err := os.MkdirAll(path, 0o700); err != nil {
		return nil, fmt.Errorf("create the directory of originals: %w", err)
	}
	leftovers, err := filepath.Glob(filepath.Join(path, tempPattern))
	if err != nil {
		return nil, err
	}
	for _, name := range leftovers {
		if err := os.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("remove a copy left by an interrupted run: %w", err)
		}
	}
	probe, err := os.CreateTemp(path, tempPattern)
	if err != nil {
		return nil, fmt.Errorf("directory %s is not writable: %w", path, err)
	}
	_ = probe.Close()
	if err := os.Remove(probe.Name()); err != nil {
		return nil, fmt.Errorf("directory %s: remove the write probe: %w", path, err)
	}
	return &Dir{path: path}, nil
}

// Path is the directory.
func (d *Dir) Path() string { return d.path }

var md5Name = regexp.MustCompile(`^[0-9a-f]{32}$`)

// name is the path of md5's original. The MD5 is checked here too, not only
// by the HTTP layer: nothing but 32 lower-case hex digits ever reaches the
// file system, so no name can leave the directory.
func (d *Dir) name(md5 string) (string, error) {
	if !md5Name.MatchString(md5) {
		return "", fmt.Errorf("originals: %q is not a lower-case hexadecimal MD5", md5)
	}
	return filepath.Join(d.path, md5+".pdf"), nil
}

// ErrDifferentFile is Keep's answer when md5's kept original is not the
// file being kept: another file with the same MD5 (a collision), or a
// damaged original. Keep leaves the kept original as it is.
var ErrDifferentFile = errors.New("originals: a different file with this MD5 is kept")

// Keep stores the first size bytes of src, a complete file on disk whose
// SHA-256 is sum, as the original of md5. An original already kept with
// the same SHA-256 is left as it is, so keeping the same file again costs
// one read of the kept file. One with other bytes is never replaced here:
// Keep answers an error wrapping ErrDifferentFile, and the caller decides
// (Replace) whether anything still uses it.
func (d *Dir) Keep(md5 string, sum [sha256.Size]byte, src *os.File, size int64) error {
	dst, err := d.name(md5)
	if err != nil {
		return err
	}
	same, err := sameFile(dst, sum, size)
	switch {
	case err == nil && same:
		return nil
	case err == nil:
		return fmt.Errorf("%w: %s", ErrDifferentFile, md5)
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	// The name must not become durable before the bytes it names.
	if err := src.Sync(); err != nil {
		return fmt.Errorf("originals: sync the upload: %w", err)
	}
	if err := os.Link(src.Name(), dst); err == nil {
		return d.syncDir()
	}
	// Another file system (EXDEV), one without hard links, or an original
	// kept meanwhile: copy (the rename replaces what is there).
	return d.copy(dst, io.NewSectionReader(src, 0, size))
}

// Replace stores the first size bytes of src as md5's original whatever is
// kept under that name: for an original that no document uses any more.
func (d *Dir) Replace(md5 string, src *os.File, size int64) error {
	dst, err := d.name(md5)
	if err != nil {
		return err
	}
	if err := src.Sync(); err != nil {
		return fmt.Errorf("originals: sync the upload: %w", err)
	}
	return d.copy(dst, io.NewSectionReader(src, 0, size))
}

// sameFile reports whether the file at name has size bytes whose SHA-256
// is sum. A missing file is an error wrapping fs.ErrNotExist; anything but
// a regular file is not the same.
func sameFile(name string, sum [sha256.Size]byte, size int64) (bool, error) {
	f, err := os.Open(name)
	if err != nil {
		return false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return false, fmt.Errorf("originals: %w", err)
	}
	if !st.Mode().IsRegular() || st.Size() != size {
		return false, nil
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return false, fmt.Errorf("originals: read the kept original: %w", err)
	}
	return [sha256.Size]byte(h.Sum(nil)) == sum, nil
}

// copy writes r to a temporary file beside dst, syncs it and renames it to
// dst, so dst is either absent or complete.
func (d *Dir) copy(dst string, r io.Reader) (err error) {
	tmp, err := os.CreateTemp(d.path, tempPattern)
	if err != nil {
		return fmt.Errorf("originals: %w", err)
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if _, err := io.Copy(tmp, r); err != nil {
		return fmt.Errorf("originals: copy: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("originals: sync: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("originals: %w", err)
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return fmt.Errorf("originals: %w", err)
	}
	return d.syncDir()
}

// syncDir makes the directory's new entry durable.
func (d *Dir) syncDir() error {
	f, err := os.Open(d.path)
	if err != nil {
		return fmt.Errorf("originals: %w", err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("originals: sync the directory: %w", err)
	}
	return nil
}

// Open opens md5's original for reading. An original that is not kept (a
// document stored before originals were kept, or none at all) is an error
// wrapping fs.ErrNotExist.
func (d *Dir) Open(md5 string) (*os.File, error) {
	name, err := d.name(md5)
	if err != nil {
		return nil, err
	}
	return os.Open(name)
}

// Remove deletes md5's original; one that is not kept is no error.
func (d *Dir) Remove(md5 string) error {
	name, err := d.name(md5)
	if err != nil {
		return err
	}
	if err := os.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("originals: %w", err)
	}
	return nil
}
