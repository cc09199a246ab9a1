package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/carhub/backend/pkg/atomicfile"
	"github.com/carhub/backend/services/fuel/internal/filestore"
)

// ErrNotEmpty is wrapped by RestoreSQLite's error when the target already
// holds a database and replacing it was not asked for, and by
// BackupSQLite's when the destination file exists (atomicfile's sentinel:
// the same error whichever step found the target taken).
var ErrNotEmpty = atomicfile.ErrNotEmpty

// ErrInUse is wrapped by RestoreSQLite's error when a process (a running
// fuel-service) has the database it would replace open.
var ErrInUse = errors.New("the database is in use")

// BackupInfo describes a copy of the SQLite database: its size in bytes,
// its rows, and the newest migration it records.
type BackupInfo struct {
	Bytes     int64
	Vehicles  int64
	Refuels   int64
	Expenses  int64
	Migration int
	packedFiles
}

// sqliteCompanions are the files SQLite keeps beside a database: a stale
// one beside a restored database would be read as part of it.
var sqliteCompanions = []string{"-wal", "-shm", "-journal"}

// BackupSQLite writes a consistent copy of the SQLite database at path to
// dst while fuel-service goes on reading and writing it. The copy is made
// by SQLite's VACUUM INTO on a read-only connection of this process: it
// reads one snapshot (in WAL mode a reader never waits for a writer, nor
// does a writer wait for it), so the copy holds exactly the transactions
// committed before it began. A file copy would not: it can catch a page
// half-written or miss what is still in the -wal file.
//
// The copy is written beside dst under a temporary name, synced, checked
// (integrity_check, a fuel database whose migrations this binary knows)
// and only then named dst, so dst is either absent or a whole, checked
// backup. An existing dst is an error wrapping ErrNotEmpty unless
// overwrite.
func BackupSQLite(ctx context.Context, path, dst string, overwrite bool) (BackupInfo, error) {
	return BackupSQLiteFiles(ctx, path, "", dst, overwrite)
}

// BackupSQLiteFiles is BackupSQLite with the files of the attachments the
// copy records, read from filesDir ("" for none), in the backup file
// itself (packFiles).
func BackupSQLiteFiles(ctx context.Context, path, filesDir, dst string, overwrite bool) (BackupInfo, error) {
	st, err := os.Stat(path)
	if err != nil {
		return BackupInfo{}, fmt.Errorf("no database to back up: %w", err)
	} else if !st.Mode().IsRegular() {
		return BackupInfo{}, fmt.Errorf("no database to back up: %s is not a file", path)
	}
	for _, suffix := range append([]string{""}, sqliteCompanions...) {
		if other, err := os.Stat(dst); err == nil && os.SameFile(other, st) ||
			filepath.Clean(dst) == filepath.Clean(path+suffix) {
			return BackupInfo{}, fmt.Errorf("the backup %s would replace the database it copies: write it elsewhere", dst)
		}
	}
	if _, err := os.Lstat(dst); err == nil && !overwrite {
		return BackupInfo{}, fmt.Errorf("%s exists (%w): choose another name or pass --force to replace it", dst, ErrNotEmpty)
	}
	dir := filepath.Dir(dst)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return BackupInfo{}, fmt.Errorf("create the backup's directory: %w", err)
	}
	tmp, err := atomicfile.Reserve(dir, "."+filepath.Base(dst)+".tmp-*")
	if err != nil {
		return BackupInfo{}, err
	}
	defer os.Remove(tmp) // gone already once it is dst

	src, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		return BackupInfo{}, fmt.Errorf("open %s: %w", path, err)
	}
	defer src.Close()
	src.SetMaxOpenConns(1)
	if _, err := src.ExecContext(ctx, "VACUUM INTO ?", tmp); err != nil {
		return BackupInfo{}, fmt.Errorf("copy %s: %w", path, err)
	}
	var packed packedFiles
	if filesDir != "" {
		if packed, err = packFiles(ctx, tmp, filesDir); err != nil {
			return BackupInfo{}, err
		}
	}
	if err := syncFile(tmp); err != nil {
		return BackupInfo{}, err
	}
	info, err := checkCopy(ctx, tmp)
	if err != nil {
		return BackupInfo{}, fmt.Errorf("the copy of %s does not hold: %w", path, err)
	}
	info.packedFiles = packed
	if err := atomicfile.Place(tmp, dst, overwrite); err != nil {
		return BackupInfo{}, err
	}
	return info, nil
}

// RestoreSQLite makes the backup from the SQLite database at path. The
// backup is copied beside path under a temporary name, synced and checked
// as BackupSQLite checks it before anything at path is touched; a backup
// that does not hold (truncated, damaged, not a fuel database, written by a
// newer fuel-service) is an error and leaves path as it was.
//
// A path that holds a database (or the -wal, -shm or -journal file of
// one) is refused with an error wrapping ErrNotEmpty, unless replace. Even
// then a database that another process has open (fuel-service is running
// on it) is refused with an error wrapping ErrInUse: SQLite's switch out
// of WAL mode needs every other connection closed, so it is the test.
// The checked copy is then renamed to path, so path holds either the old
// database or the whole backup. Migrations newer than the backup are
// applied by fuel-service when it starts.
func RestoreSQLite(ctx context.Context, from, path string, replace bool) (BackupInfo, error) {
	return RestoreSQLiteFiles(ctx, from, path, "", replace)
}

// RestoreSQLiteFiles is RestoreSQLite that also puts the attachment files
// the backup holds into filesDir ("" for none): each checked against the
// SHA-256 its row records before any is written, and written before the
// database is placed (unpackFiles). Once the database is in place, the
// files of filesDir that it does not record (those of the database it
// replaced) are removed.
func RestoreSQLiteFiles(ctx context.Context, from, path, filesDir string, replace bool) (BackupInfo, error) {
	if st, err := os.Stat(from); err != nil {
		return BackupInfo{}, fmt.Errorf("no backup to restore: %w", err)
	} else if !st.Mode().IsRegular() {
		return BackupInfo{}, fmt.Errorf("no backup to restore: %s is not a file", from)
	}
	occupied, err := occupiedBy(path)
	if err != nil {
		return BackupInfo{}, err
	}
	if len(occupied) > 0 && !replace {
		return BackupInfo{}, fmt.Errorf("%s already holds a database (%s; %w): restore fills an empty location only; "+
			"pass --force to replace it", path, strings.Join(occupied, ", "), ErrNotEmpty)
	}

	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return BackupInfo{}, fmt.Errorf("create the database's directory: %w", err)
	}
	tmp, err := atomicfile.Reserve(dir, "."+filepath.Base(path)+".restore-*")
	if err != nil {
		return BackupInfo{}, err
	}
	defer os.Remove(tmp) // gone already once it is path
	if err := copyFile(from, tmp); err != nil {
		return BackupInfo{}, err
	}
	info, err := checkCopy(ctx, tmp)
	if err != nil {
		return BackupInfo{}, fmt.Errorf("backup %s is not usable, nothing was restored: %w", from, err)
	}
	if filesDir != "" {
		if info.packedFiles, err = checkPackedFiles(ctx, tmp); err != nil {
			return BackupInfo{}, fmt.Errorf("backup %s is not usable, nothing was restored: %w", from, err)
		}
	}

	if len(occupied) > 0 {
		if err := releaseOld(ctx, path); err != nil {
			return BackupInfo{}, err
		}
	}
	var files *filestore.Store
	if filesDir != "" {
		if files, err = unpackFiles(ctx, tmp, filesDir); err != nil {
			return BackupInfo{}, err
		}
	}
	if err := atomicfile.Place(tmp, path, replace); err != nil {
		return BackupInfo{}, err
	}
	if files != nil {
		if info.FilesRemoved, err = sweepFiles(ctx, path, files); err != nil {
			return info, fmt.Errorf("the database is restored; removing the files it does not record: %w", err)
		}
	}
	return info, nil
}

// occupiedBy lists which of path and its companions exist.
func occupiedBy(path string) ([]string, error) {
	var found []string
	for _, suffix := range append([]string{""}, sqliteCompanions...) {
		_, err := os.Lstat(path + suffix)
		switch {
		case err == nil:
			found = append(found, filepath.Base(path+suffix))
		case !errors.Is(err, fs.ErrNotExist):
			return nil, err
		}
	}
	return found, nil
}

// releaseOld makes sure no process has the database at path open, folds
// its -wal file into it (journal_mode=DELETE, which also removes the -wal
// and -shm files), and removes companions left without a database.
// A file at path that is no database at all is simply replaced.
func releaseOld(ctx context.Context, path string) error {
	if _, err := os.Lstat(path); err == nil {
		db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(1000)")
		if err != nil {
			return err
		}
		db.SetMaxOpenConns(1)
		var mode string
		err = db.QueryRowContext(ctx, "PRAGMA journal_mode=DELETE").Scan(&mode)
		_ = db.Close()
		if busy(err) {
			return fmt.Errorf("%s: %w by another process (is fuel-service running on it?): stop it, then restore", path, ErrInUse)
		}
	}
	for _, suffix := range sqliteCompanions {
		if err := os.Remove(path + suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove the old %s: %w", filepath.Base(path+suffix), err)
		}
	}
	return nil
}

// busy reports whether err is SQLite's SQLITE_BUSY or SQLITE_LOCKED (the
// primary result code, whichever driver answered).
func busy(err error) bool {
	var coded interface{ Code() int }
	if !errors.As(err, &coded) {
		return false
	}
	code := coded.Code() & 0xff
	return code == 5 || code == 6
}

// checkCopy opens the database file at path read-only and checks it whole:
// SQLite's integrity_check, a schema_migrations table whose every version
// is one this binary carries, and the vehicles and refuels tables.
func checkCopy(ctx context.Context, path string) (BackupInfo, error) {
	st, err := os.Stat(path)
	if err != nil {
		return BackupInfo{}, err
	}
	info := BackupInfo{Bytes: st.Size()}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return BackupInfo{}, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)

	rows, err := db.QueryContext(ctx, "PRAGMA integrity_check")
	if err != nil {
		return BackupInfo{}, fmt.Errorf("not an SQLite database, or damaged: %w", err)
	}
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			rows.Close()
			return BackupInfo{}, err
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return BackupInfo{}, fmt.Errorf("not an SQLite database, or damaged: %w", err)
	}
	if len(problems) > 0 {
		return BackupInfo{}, fmt.Errorf("integrity check failed: %s", strings.Join(problems[:min(len(problems), 5)], "; "))
	}

	known, err := loadMigrations(SQLite)
	if err != nil {
		return BackupInfo{}, err
	}
	carried := make(map[int]bool, len(known))
	for _, m := range known {
		carried[m.version] = true
	}
	rows, err = db.QueryContext(ctx, "SELECT version FROM schema_migrations")
	if err != nil {
		return BackupInfo{}, fmt.Errorf("not a fuel-service database: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			return BackupInfo{}, err
		}
		if !carried[v] {
			return BackupInfo{}, fmt.Errorf("it records migration %d, which this fuel-service does not know: restore it with the fuel-service that made it", v)
		}
		info.Migration = max(info.Migration, v)
	}
	if err := rows.Err(); err != nil {
		return BackupInfo{}, err
	}
	if info.Migration == 0 {
		return BackupInfo{}, errors.New("not a fuel-service database: no migration is recorded")
	}
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM vehicles").Scan(&info.Vehicles); err != nil {
		return BackupInfo{}, fmt.Errorf("not a fuel-service database: %w", err)
	}
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM refuels").Scan(&info.Refuels); err != nil {
		return BackupInfo{}, fmt.Errorf("not a fuel-service database: %w", err)
	}
	// A backup made before the expenses (migration 10) has none; the
	// migration adds their table when the restored database is opened.
	if info.Migration >= expensesMigration {
		if err := db.QueryRowContext(ctx, "SELECT count(*) FROM expenses").Scan(&info.Expenses); err != nil {
			return BackupInfo{}, fmt.Errorf("not a fuel-service database: %w", err)
		}
	}
	return info, nil
}

// expensesMigration is the version of the migration that adds the
// expenses table.
const expensesMigration = 10

// copyFile copies src over the existing file dst and syncs it.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close()
		return fmt.Errorf("copy %s: %w", src, err)
	}
	if err := out.Sync(); err != nil {
		_ = out.Close()
		return err
	}
	return out.Close()
}

func syncFile(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}
