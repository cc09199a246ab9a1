// Package atomicfile gives a finished file its final name so that a reader
// sees either nothing or the whole file, and the name survives a crash:
// what backups and restores need to leave nothing half-written behind.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Reserve creates a new empty file in dir (os.CreateTemp's pattern) and
// returns its name, for a writer that opens the file by name (SQLite's
// VACUUM INTO).
func Reserve(dir, pattern string) (string, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return "", err
	}
	name := f.Name()
	if err := f.Close(); err != nil {
		_ = os.Remove(name)
		return "", err
	}
	return name, nil
}

// ErrNotEmpty is wrapped, with fs.ErrExist, by Place's error when dst
// exists and overwrite is off. The backups of both services wrap it too
// when a restore's target already holds data: one sentinel for "would
// replace what is there", whichever step found it.
var ErrNotEmpty = errors.New("the target is not empty")

// Place gives the finished, synced file tmp the name dst and makes the
// name durable (the directory is synced). With overwrite it is a rename.
// Without, it is a hard link, which fails rather than replace a dst that
// appeared meanwhile: the error then wraps ErrNotEmpty and fs.ErrExist,
// and tmp is kept.
func Place(tmp, dst string, overwrite bool) error {
	if overwrite {
		if err := os.Rename(tmp, dst); err != nil {
			return err
		}
		return SyncDir(filepath.Dir(dst))
	}
	switch err := os.Link(tmp, dst); {
	case errors.Is(err, fs.ErrExist):
		return fmt.Errorf("%w: %s appeared meanwhile: %w", ErrNotEmpty, dst, fs.ErrExist)
	case err != nil:
		// A file system without hard links: a rename, after one more look
		// (a file created in between the look and the rename would be
		// replaced; no portable call closes that window).
		if _, serr := os.Lstat(dst); serr == nil {
			return fmt.Errorf("%w: %s appeared meanwhile: %w", ErrNotEmpty, dst, fs.ErrExist)
		}
		if err := os.Rename(tmp, dst); err != nil {
			return err
		}
	default:
		if err := os.Remove(tmp); err != nil {
			return err
		}
	}
	return SyncDir(filepath.Dir(dst))
}

// SyncDir makes the names in dir durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}
