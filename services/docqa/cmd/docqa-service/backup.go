package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/carhub/backend/pkg/config"
	"github.com/carhub/backend/pkg/logging"
	"github.com/carhub/backend/services/docqa/internal/backup"
)

// errMilvus answers backup and restore when the vector store is Milvus: its
// data lives in Milvus's object storage, which Milvus's own backup tool
// copies consistently.
var errMilvus = errors.New("VECTOR_STORE=milvus: the vectors live in Milvus, which this command does not copy; " +
	"back the collection up with Milvus's backup tool (milvus-backup create -n NAME -c $MILVUS_COLLECTION, " +
	"restore with milvus-backup restore -n NAME -c $MILVUS_COLLECTION) and DOCQA_FILES_DIR, the originals, " +
	`with any file copy (see the README, "Backups")`)

// isBackupCommand reports whether args name a command of backupCommand.
func isBackupCommand(args []string) bool {
	return len(args) > 0 && (args[0] == "backup" || args[0] == "restore")
}

// backupCommand runs, with the service's environment, "backup --to FILE
// [--force]": one archive of the embedded vector store (DOCQA_STORE_PATH)
// and the originals of its documents (DOCQA_FILES_DIR), taken while the
// service may be running; or "restore --from FILE [--force]": the
// archive's data into those two locations (empty unless --force; the
// service stopped).
func backupCommand(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	const usage = "usage: docqa-service backup --to FILE [--force] | docqa-service restore --from FILE [--force]"
	if !isBackupCommand(args) {
		return fmt.Errorf("unknown command %q; %s", strings.Join(args, " "), usage)
	}
	name := args[0]
	flagName := map[string]string{"backup": "to", "restore": "from"}[name]
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	file := fs.String(flagName, "", "the archive")
	force := fs.Bool("force", false, "backup: replace an existing FILE; restore: replace what DOCQA_STORE_PATH and DOCQA_FILES_DIR hold")
	if err := fs.Parse(args[1:]); err != nil {
		return fmt.Errorf("%s: %w; %s", name, err, usage)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%s: unexpected argument %q; %s", name, fs.Arg(0), usage)
	}
	if *file == "" {
		return fmt.Errorf("%s: --%s FILE is required; %s", name, flagName, usage)
	}

	var cfg serviceConfig
	if err := config.Load(getenv, &cfg); err != nil {
		return err
	}
	switch strings.ToLower(cfg.VectorStore) {
	case "embedded", "":
	case "milvus":
		return fmt.Errorf("%s: %w", name, errMilvus)
	default:
		return fmt.Errorf("VECTOR_STORE: %q is neither embedded nor milvus", cfg.VectorStore)
	}
	paths := backup.Paths{Store: cfg.StorePath, Files: cfg.FilesDir}
	log := logging.New(stdout, slog.LevelInfo)
	started := time.Now()
	if name == "backup" {
		m, err := backup.Write(ctx, paths, *file, *force)
		if err != nil {
			return fmt.Errorf("backup of DOCQA_STORE_PATH %s and DOCQA_FILES_DIR %s: %w", paths.Store, paths.Files, err)
		}
		log.Info("backup written", "to", *file, "store", paths.Store, "files", paths.Files, "documents", m.Documents,
			"chunks", m.Chunks, "originals", len(m.Originals), "without_original", len(m.WithoutOriginal),
			"took_ms", time.Since(started).Milliseconds())
		return nil
	}
	m, err := backup.Restore(ctx, *file, paths, *force)
	if err != nil {
		return fmt.Errorf("restore into DOCQA_STORE_PATH %s and DOCQA_FILES_DIR %s: %w", paths.Store, paths.Files, err)
	}
	log.Info("backup restored", "from", *file, "store", paths.Store, "files", paths.Files, "created_at", m.CreatedAt,
		"documents", m.Documents, "chunks", m.Chunks, "originals", len(m.Originals),
		"took_ms", time.Since(started).Milliseconds())
	return nil
}
