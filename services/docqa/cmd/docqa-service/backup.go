package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/carhub/backend/pkg/backupcli"
	"github.com/carhub/backend/pkg/config"
	"github.com/carhub/backend/services/docqa/internal/backup"
)

// errMilvus answers backup and restore when the vector store is Milvus: its
// data lives in Milvus's object storage, which Milvus's own backup tool
// copies consistently.
var errMilvus = errors.New("VECTOR_STORE=milvus: the vectors live in Milvus, which this command does not copy; " +
	"back the collection up with Milvus's backup tool (milvus-backup create -n NAME -c $MILVUS_COLLECTION, " +
	"restore with milvus-backup restore -n NAME -c $MILVUS_COLLECTION) and DOCQA_FILES_DIR, the originals, " +
	`with any file copy (see the README, "Backups")`)

// backupCommand runs, with the service's environment, "backup --to FILE
// [--force]": one archive of the embedded vector store (DOCQA_STORE_PATH)
// and the originals of its documents (DOCQA_FILES_DIR), taken while the
// service may be running; or "restore --from FILE [--force]": the
// archive's data into those two locations (empty unless --force; the
// service stopped).
func backupCommand(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	// paths are the embedded store's, or the reason there are none to copy.
	paths := func(op string) (backup.Paths, error) {
		var cfg serviceConfig
		if err := config.Load(getenv, &cfg); err != nil {
			return backup.Paths{}, err
		}
		switch strings.ToLower(cfg.VectorStore) {
		case "embedded", "":
		case "milvus":
			return backup.Paths{}, fmt.Errorf("%s: %w", op, errMilvus)
		default:
			return backup.Paths{}, fmt.Errorf("VECTOR_STORE: %q is neither embedded nor milvus", cfg.VectorStore)
		}
		return backup.Paths{Store: cfg.StorePath, Files: cfg.FilesDir}, nil
	}
	return backupcli.Command{
		Service: "docqa-service",
		Backup: func(ctx context.Context, file string, force bool) ([]any, error) {
			p, err := paths("backup")
			if err != nil {
				return nil, err
			}
			m, err := backup.Write(ctx, p, file, force)
			if err != nil {
				return nil, fmt.Errorf("backup of DOCQA_STORE_PATH %s and DOCQA_FILES_DIR %s: %w", p.Store, p.Files, err)
			}
			return []any{"to", file, "store", p.Store, "files", p.Files, "documents", m.Documents,
				"chunks", m.Chunks, "originals", len(m.Originals), "without_original", len(m.WithoutOriginal)}, nil
		},
		Restore: func(ctx context.Context, file string, force bool) ([]any, error) {
			p, err := paths("restore")
			if err != nil {
				return nil, err
			}
			m, err := backup.Restore(ctx, file, p, force)
			if err != nil {
				return nil, fmt.Errorf("restore into DOCQA_STORE_PATH %s and DOCQA_FILES_DIR %s: %w", p.Store, p.Files, err)
			}
			return []any{"from", file, "store", p.Store, "files", p.Files, "created_at", m.CreatedAt,
				"documents", m.Documents, "chunks", m.Chunks, "originals", len(m.Originals)}, nil
		},
	}.Run(ctx, args, stdout)
}
