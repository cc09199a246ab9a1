package ingest

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/services/docqa/internal/docqa"
)

// ImportResult answers POST /api/documents/import.
type ImportResult struct {
	Documents []Result        `json:"documents"`
	Failed    []ImportFailure `json:"failed"`
}

// ImportFailure names a file of the data directory that was not ingested
// and why (an error for the HTTP layer's error map).
type ImportFailure struct {
	FileName string // path relative to the data directory, slash-separated
	Err      error
}

// Import ingests every *.pdf (any case) under the data directory into the
// shared library (docqa.SharedOwner), recursively, de-duplicated like uploads, one file after the other under
// the ticket t (from Admit). Files are opened through an os.Root, so neither
// a symbolic link nor a ".." can reach outside the directory: such a file is
// reported as failed. Symbolic links to directories are not followed. A
// missing data directory imports nothing.
func (p *Pipeline) Import(ctx context.Context, t *Ticket) (ImportResult, error) {
	// The data directory is the operator's shared library: its documents
	// are read by every user, and de-duplicated against the library only.
	ctx = docqa.AsReader(ctx, docqa.SharedOwner)
	res := ImportResult{Documents: []Result{}, Failed: []ImportFailure{}}
	root, err := os.OpenRoot(p.cfg.DataDir)
	if errors.Is(err, fs.ErrNotExist) {
		p.cfg.Log.WarnContext(ctx, "data directory does not exist; nothing to import", "dir", p.cfg.DataDir)
		return res, nil
	}
	if err != nil {
		return res, err
	}
	defer root.Close()

	var names []string
	err = fs.WalkDir(root.FS(), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			if name == "." {
				return err
			}
			res.Failed = append(res.Failed, ImportFailure{FileName: name, Err: apperr.Invalid("file", "cannot be read: %v", err)})
			return nil
		}
		if d.IsDir() || !strings.EqualFold(path.Ext(name), ".pdf") {
			return nil
		}
		names = append(names, name)
		return nil
	})
	if err != nil {
		return res, err
	}

	for _, name := range names {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		r, err := p.importFile(ctx, t, root, name)
		if err != nil {
			if ctx.Err() != nil {
				return res, ctx.Err()
			}
			res.Failed = append(res.Failed, ImportFailure{FileName: name, Err: err})
			continue
		}
		res.Documents = append(res.Documents, r)
	}
	return res, nil
}

func (p *Pipeline) importFile(ctx context.Context, t *Ticket, root *os.Root, name string) (Result, error) {
	f, err := root.Open(name)
	if err != nil {
		return Result{}, apperr.InvalidCause(err, "file", "cannot be opened inside the data directory")
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Result{}, err
	}
	if !st.Mode().IsRegular() {
		return Result{}, apperr.Invalid("file", "is not a regular file")
	}
	up, err := p.Receive(f, path.Base(name))
	if err != nil {
		return Result{}, err
	}
	defer up.Close()
	return p.Process(ctx, t, up, nil)
}
