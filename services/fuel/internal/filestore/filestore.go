// Package filestore keeps the files of attachments in one directory
// (FUEL_FILES_DIR), each under a random key that the database records. A
// file is written under a temporary name, synced and only then renamed to
// its key, so a key names either nothing or a whole file; a variant (a
// thumbnail) sits beside its file as KEY.VARIANT.
package filestore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/carhub/backend/pkg/atomicfile"
)

// ErrNotFound is returned for a key (or variant) that holds no file.
var ErrNotFound = errors.New("filestore: no such file")

// tempPrefix starts the names of files being written.
const tempPrefix = ".tmp-"

// Store is a directory of files named by key.
type Store struct {
	dir string
}

// Open returns the store of dir, creating the directory when absent.
func Open(dir string) (*Store, error) {
	if dir == "" {
		return nil, errors.New("filestore: no directory")
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("filestore: create %s: %w", dir, err)
	}
	return &Store{dir: dir}, nil
}

// Dir is the store's directory.
func (s *Store) Dir() string { return s.dir }

// NewKey returns a fresh random key: 32 lower-case hex digits.
func NewKey() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

// ValidKey reports whether k is a key NewKey could have made: a key from
// the database or a backup never names a path outside the store.
func ValidKey(k string) bool {
	if len(k) != 32 {
		return false
	}
	for i := 0; i < len(k); i++ {
		if !(k[i] >= '0' && k[i] <= '9' || k[i] >= 'a' && k[i] <= 'f') {
			return false
		}
	}
	return true
}

// validVariant reports whether v may name a variant: lower-case letters.
func validVariant(v string) bool {
	if v == "" || len(v) > 16 {
		return false
	}
	for i := 0; i < len(v); i++ {
		if v[i] < 'a' || v[i] > 'z' {
			return false
		}
	}
	return true
}

// Path is the file of key, or of its variant when variant is not "".
func (s *Store) Path(key, variant string) (string, error) {
	if !ValidKey(key) || variant != "" && !validVariant(variant) {
		return "", fmt.Errorf("filestore: bad key %q or variant %q", key, variant)
	}
	name := key
	if variant != "" {
		name += "." + variant
	}
	return filepath.Join(s.dir, name), nil
}

// Put stores data under a new key and returns the key.
func (s *Store) Put(data []byte) (string, error) {
	key := NewKey()
	return key, s.PutAs(key, "", data)
}

// PutAs stores data as the file of key (or of its variant), replacing
// any: written to a temporary name, synced, renamed, the directory synced.
func (s *Store) PutAs(key, variant string, data []byte) error {
	dst, err := s.Path(key, variant)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(s.dir, tempPrefix+"*")
	if err != nil {
		return fmt.Errorf("filestore: %w", err)
	}
	tmp := f.Name()
	if _, err = f.Write(data); err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = atomicfile.Place(tmp, dst, true)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("filestore: write %s: %w", filepath.Base(dst), err)
	}
	return nil
}

// Open opens the file of key (or of its variant); ErrNotFound when there
// is none.
func (s *Store) Open(key, variant string) (*os.File, error) {
	p, err := s.Path(key, variant)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNotFound
	}
	return f, err
}

// ReadFile returns the bytes of key's file; ErrNotFound when there is none.
func (s *Store) ReadFile(key string) ([]byte, error) {
	p, err := s.Path(key, "")
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNotFound
	}
	return b, err
}

// Remove removes the file of key and its variants; a key that holds none
// is no error.
func (s *Store) Remove(key string) error {
	p, err := s.Path(key, "")
	if err != nil {
		return err
	}
	variants, err := filepath.Glob(p + ".*")
	if err != nil {
		return err
	}
	var errs []error
	for _, name := range append(variants, p) {
		if err := os.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// DeletedFiles is the list of files whose records are gone
// (fuel.AttachmentStore's DeletedAttachmentFiles and
// ForgetDeletedAttachmentFiles).
type DeletedFiles interface {
	DeletedAttachmentFiles(ctx context.Context, limit int) ([]string, error)
	ForgetDeletedAttachmentFiles(ctx context.Context, keys []string) error
}

// purgeBatch is how many keys Purge takes at a time.
const purgeBatch = 100

// Purge removes the files that d lists, then takes them off d's list, and
// returns how many it removed. A file is removed before its key is
// forgotten, so a failure in between only repeats the removal later.
func (s *Store) Purge(ctx context.Context, d DeletedFiles) (int, error) {
	n := 0
	for {
		keys, err := d.DeletedAttachmentFiles(ctx, purgeBatch)
		if err != nil || len(keys) == 0 {
			return n, err
		}
		done := keys[:0:0]
		var errs []error
		for _, k := range keys {
			if !ValidKey(k) {
				done = append(done, k) // names no file of ours
				continue
			}
			if err := s.Remove(k); err != nil {
				errs = append(errs, err)
				continue
			}
			done = append(done, k)
		}
		if err := d.ForgetDeletedAttachmentFiles(ctx, done); err != nil {
			return n, err
		}
		n += len(done)
		if len(errs) > 0 {
			return n, errors.Join(errs...)
		}
		if len(keys) < purgeBatch {
			return n, nil
		}
	}
}

// Sweep removes every file of the store whose key keep does not hold
// (with its variants), and leftover temporary files: after a restore,
// the files of the database that was replaced. Names that are no key of
// the store are left alone. It returns how many files it removed.
func (s *Store) Sweep(keep map[string]bool) (int, error) {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return 0, fmt.Errorf("filestore: %w", err)
	}
	n := 0
	var errs []error
	for _, e := range entries {
		name := e.Name()
		key, _, _ := strings.Cut(name, ".")
		switch {
		case strings.HasPrefix(name, tempPrefix):
		case ValidKey(key) && !keep[key]:
		default:
			continue
		}
		if err := os.Remove(filepath.Join(s.dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		n++
	}
	return n, errors.Join(errs...)
}
