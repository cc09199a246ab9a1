package embedded

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// ErrInUse is wrapped by EnsureUnused's error when another connection (a
// running docqa-service) has the store's database open.
var ErrInUse = errors.New("the vector store is in use")

// Snapshot writes a consistent copy of the database of the store kept
// under dir to dst, an absent or empty file, while a docqa-service may be
// writing the store. The copy is SQLite's VACUUM INTO on a read-only
// connection of its own: it reads one snapshot (in WAL mode a reader and
// the writer never wait for each other), so the copy holds exactly the
// transactions committed before it began, each document with all its
// chunks or not at all. A file copy would not: it can catch a page
// half-written or miss what is still in the -wal file.
func Snapshot(ctx context.Context, dir, dst string) error {
	path := filepath.Join(dir, DBName)
	if st, err := os.Stat(path); err != nil {
		return fmt.Errorf("no embedded vector store to back up: %w", err)
	} else if !st.Mode().IsRegular() {
		return fmt.Errorf("no embedded vector store to back up: %s is not a file", path)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, "VACUUM INTO ?", dst); err != nil {
		return fmt.Errorf("copy %s: %w", path, err)
	}
	return nil
}

// Contents is what a database file holds: the MD5s of its documents
// (sorted, each once however many owners hold a copy: the copies share
// one original) and its number of chunks.
type Contents struct {
	Documents []string
	Chunks    int
}

// ReadContents lists the documents and counts the chunks of the database
// file at path (a store's vectors.db or a Snapshot), reading one snapshot
// on a read-only connection: a running service may be writing the file.
func ReadContents(ctx context.Context, path string) (Contents, error) {
	if _, err := os.Stat(path); err != nil {
		return Contents{}, err
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		return Contents{}, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return Contents{}, err
	}
	defer tx.Rollback()
	var c Contents
	rows, err := tx.QueryContext(ctx, `SELECT DISTINCT md5 FROM documents`)
	if err != nil {
		return Contents{}, fmt.Errorf("%s: %w", path, err)
	}
	defer rows.Close()
	for rows.Next() {
		var md5 string
		if err := rows.Scan(&md5); err != nil {
			return Contents{}, err
		}
		c.Documents = append(c.Documents, md5)
	}
	if err := rows.Err(); err != nil {
		return Contents{}, fmt.Errorf("%s: %w", path, err)
	}
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM chunks`).Scan(&c.Chunks); err != nil {
		return Contents{}, fmt.Errorf("%s: %w", path, err)
	}
	slices.Sort(c.Documents)
	return c, nil
}

// EnsureUnused returns an error wrapping ErrInUse when another process has
// the database of the store kept under dir open. Switching a database out
// of WAL mode needs every other connection closed, so that is the test;
// the switch also folds the -wal file into the database and removes it
// and the -shm file. No database (or a file that is none) is no error.
// Only for a store about to be replaced: Open switches it back to WAL.
func EnsureUnused(ctx context.Context, dir string) error {
	path := filepath.Join(dir, DBName)
	if _, err := os.Lstat(path); err != nil {
		return nil
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(1000)")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	var mode string
	err = db.QueryRowContext(ctx, "PRAGMA journal_mode=DELETE").Scan(&mode)
	var coded interface{ Code() int }
	if errors.As(err, &coded) {
		if code := coded.Code() & 0xff; code == 5 || code == 6 { // SQLITE_BUSY, SQLITE_LOCKED
			return fmt.Errorf("%s: %w by another process (is docqa-service running on it?): stop it first", path, ErrInUse)
		}
	}
	return nil
}
