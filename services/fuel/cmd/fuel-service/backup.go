package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/carhub/backend/pkg/backupcli"
	"github.com/carhub/backend/pkg/config"
	"github.com/carhub/backend/services/fuel/internal/store"
)

// errPostgres answers backup and restore when DATABASE_URL is set: the
// data is PostgreSQL's, and PostgreSQL's own tools copy it consistently.
var errPostgres = errors.New("DATABASE_URL is set: the data lives in PostgreSQL, which this command does not copy; " +
	`use pg_dump --format=custom --file=fuel.dump "$DATABASE_URL" to back it up and ` +
	`pg_restore --clean --if-exists --no-owner --dbname="$DATABASE_URL" fuel.dump to restore it, ` +
	`and copy FUEL_FILES_DIR (the attachments) after the dump and back with it (see the README, "Backups")`)

// command runs a command other than serving, with the service's
// environment: "backup --to FILE [--force]" copies the SQLite database at
// FUEL_SQLITE_PATH, with the attachments' files in the same file, while
// the service may be running, "restore --from FILE
// [--force]" puts such a copy at FUEL_SQLITE_PATH (empty unless --force;
// the service stopped).
func command(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	// sqlitePath is FUEL_SQLITE_PATH and the attachments' directory, or
	// the reason there is none to copy.
	sqlitePath := func(op string) (string, string, error) {
		var cfg Config
		if err := config.Load(getenv, &cfg); err != nil {
			return "", "", err
		}
		if cfg.DatabaseURL != "" {
			return "", "", fmt.Errorf("%s: %w", op, errPostgres)
		}
		return cfg.SQLitePath, filesDir(cfg), nil
	}
	return backupcli.Command{
		Service: "fuel-service",
		Backup: func(ctx context.Context, file string, force bool) ([]any, error) {
			path, files, err := sqlitePath("backup")
			if err != nil {
				return nil, err
			}
			info, err := store.BackupSQLiteFiles(ctx, path, files, file, force)
			if err != nil {
				return nil, fmt.Errorf("backup of FUEL_SQLITE_PATH %s: %w", path, err)
			}
			return []any{"from", path, "to", file, "bytes", info.Bytes,
				"vehicles", info.Vehicles, "refuels", info.Refuels, "expenses", info.Expenses, "migration", info.Migration,
				"files_from", files, "attachments", info.Attachments, "attachment_bytes", info.AttachmentBytes,
				"attachments_deleted_meanwhile", info.AttachmentsGone}, nil
		},
		Restore: func(ctx context.Context, file string, force bool) ([]any, error) {
			path, files, err := sqlitePath("restore")
			if err != nil {
				return nil, err
			}
			info, err := store.RestoreSQLiteFiles(ctx, file, path, files, force)
			if err != nil {
				return nil, fmt.Errorf("restore into FUEL_SQLITE_PATH %s: %w", path, err)
			}
			return []any{"from", file, "to", path, "bytes", info.Bytes,
				"vehicles", info.Vehicles, "refuels", info.Refuels, "expenses", info.Expenses, "migration", info.Migration,
				"files_to", files, "attachments", info.Attachments, "attachment_bytes", info.AttachmentBytes,
				"files_removed", info.FilesRemoved}, nil
		},
	}.Run(ctx, args, stdout)
}
