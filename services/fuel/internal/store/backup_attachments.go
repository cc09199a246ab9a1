package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/carhub/backend/services/fuel/internal/filestore"
)

// packedFiles counts the attachment files of a backup or a restore.
type packedFiles struct {
	// Attachments and AttachmentBytes count the files the backup holds.
	Attachments, AttachmentBytes int64
	// AttachmentsGone counts attachments a backup left out because their
	// file was gone: deleted (with its file) after the copy's snapshot was
	// taken, while the service ran on.
	AttachmentsGone int64
	// FilesRemoved counts the files a restore removed: those of the
	// database it replaced.
	FilesRemoved int
}

// backupFilesTable holds, in a backup file only, the bytes of each
// attachment's file by key. A restore takes them out and drops it.
const backupFilesTable = "backup_attachment_files"

func hasTable(ctx context.Context, db *sql.DB, name string) (bool, error) {
	var n int
	err := db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", name).Scan(&n)
	return n > 0, err
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// packFiles copies into the database copy at tmp the file of every
// attachment it records, from filesDir, checked against its SHA-256. An
// attachment whose file is gone was deleted after the copy's snapshot: it
// is deleted from the copy too and counted. The copy's list of files to
// remove is emptied: a restore brings back only files it records.
func packFiles(ctx context.Context, tmp, filesDir string) (packedFiles, error) {
	var out packedFiles
	db, err := sql.Open("sqlite", "file:"+tmp)
	if err != nil {
		return out, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if ok, err := hasTable(ctx, db, "attachments"); err != nil || !ok {
		return out, err // a database older than attachments
	}
	files, err := filestore.Open(filesDir)
	if err != nil {
		return out, err
	}
	type attachment struct {
		id       int64
		key, sum string
	}
	var all []attachment
	rows, err := db.QueryContext(ctx, "SELECT id, file_key, sha256 FROM attachments ORDER BY id")
	if err != nil {
		return out, err
	}
	for rows.Next() {
		var a attachment
		if err := rows.Scan(&a.id, &a.key, &a.sum); err != nil {
			rows.Close()
			return out, err
		}
		all = append(all, a)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return out, err
	}

	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return out, err
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	if _, err := tx.ExecContext(ctx, "CREATE TABLE "+backupFilesTable+" (file_key TEXT PRIMARY KEY, data BLOB NOT NULL)"); err != nil {
		return out, err
	}
	for _, a := range all {
		data, err := files.ReadFile(a.key)
		if errors.Is(err, filestore.ErrNotFound) {
			if _, err := tx.ExecContext(ctx, "DELETE FROM attachments WHERE id = ?", a.id); err != nil {
				return out, err
			}
			out.AttachmentsGone++
			continue
		}
		if err != nil {
			return out, fmt.Errorf("attachment %d: read its file: %w", a.id, err)
		}
		if got := sha256Hex(data); got != a.sum {
			return out, fmt.Errorf("attachment %d: its file %s has SHA-256 %s, not the recorded %s: it is damaged, nothing was backed up",
				a.id, a.key, got, a.sum)
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO "+backupFilesTable+" (file_key, data) VALUES (?, ?)", a.key, data); err != nil {
			return out, err
		}
		out.Attachments++
		out.AttachmentBytes += int64(len(data))
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM deleted_attachment_files"); err != nil {
		return out, err
	}
	return out, tx.Commit()
}

// checkPackedFiles checks, before a restore touches anything, that the
// backup at tmp holds the file of every attachment it records, each with
// its recorded SHA-256 and a key of the file store.
func checkPackedFiles(ctx context.Context, tmp string) (packedFiles, error) {
	var out packedFiles
	db, err := sql.Open("sqlite", "file:"+tmp+"?mode=ro")
	if err != nil {
		return out, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if ok, err := hasTable(ctx, db, "attachments"); err != nil || !ok {
		return out, err
	}
	packed, err := hasTable(ctx, db, backupFilesTable)
	if err != nil {
		return out, err
	}
	var n int64
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM attachments").Scan(&n); err != nil {
		return out, err
	}
	if !packed {
		if n > 0 {
			return out, fmt.Errorf("it records %d attachments but holds none of their files", n)
		}
		return out, nil
	}
	rows, err := db.QueryContext(ctx, "SELECT a.id, a.file_key, a.sha256, f.data FROM attachments a LEFT JOIN "+
		backupFilesTable+" f ON f.file_key = a.file_key ORDER BY a.id")
	if err != nil {
		return out, err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id       int64
			key, sum string
			data     []byte
		)
		if err := rows.Scan(&id, &key, &sum, &data); err != nil {
			return out, err
		}
		switch {
		case !filestore.ValidKey(key):
			return out, fmt.Errorf("attachment %d: %q is no file key", id, key)
		case data == nil:
			return out, fmt.Errorf("attachment %d: the backup holds no file for it", id)
		case sha256Hex(data) != sum:
			return out, fmt.Errorf("attachment %d: its file in the backup does not match its SHA-256 (damaged)", id)
		}
		out.Attachments++
		out.AttachmentBytes += int64(len(data))
	}
	return out, rows.Err()
}

// unpackFiles writes the files of the backup at tmp (checked by
// checkPackedFiles) into filesDir, each whole under its key, then takes
// them out of tmp, which becomes a plain database again.
func unpackFiles(ctx context.Context, tmp, filesDir string) (*filestore.Store, error) {
	files, err := filestore.Open(filesDir)
	if err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", "file:"+tmp)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if ok, err := hasTable(ctx, db, backupFilesTable); err != nil || !ok {
		return files, err
	}
	rows, err := db.QueryContext(ctx, "SELECT file_key, data FROM "+backupFilesTable)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var (
			key  string
			data []byte
		)
		if err := rows.Scan(&key, &data); err != nil {
			rows.Close()
			return nil, err
		}
		if err := files.PutAs(key, "", data); err != nil {
			rows.Close()
			return nil, err
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if _, err := db.ExecContext(ctx, "DROP TABLE "+backupFilesTable); err != nil {
		return nil, err
	}
	if _, err := db.ExecContext(ctx, "VACUUM"); err != nil {
		return nil, err
	}
	if err := db.Close(); err != nil {
		return nil, err
	}
	return files, syncFile(tmp)
}

// sweepFiles removes the files of files that the database at path does
// not record.
func sweepFiles(ctx context.Context, path string, files *filestore.Store) (int, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return 0, err
	}
	defer db.Close()
	keep := map[string]bool{}
	if ok, err := hasTable(ctx, db, "attachments"); err != nil {
		return 0, err
	} else if ok {
		rows, err := db.QueryContext(ctx, "SELECT file_key FROM attachments")
		if err != nil {
			return 0, err
		}
		for rows.Next() {
			var k string
			if err := rows.Scan(&k); err != nil {
				rows.Close()
				return 0, err
			}
			keep[k] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return 0, err
		}
	}
	return files.Sweep(keep)
}
