// Package backupcli is the command line that every service's backup and
// restore share: "SERVICE backup --to FILE [--force]" and "SERVICE restore
// --from FILE [--force]", parsed, refused and reported in one way. What is
// copied, and from where, is the service's (Command.Backup and Restore).
package backupcli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/carhub/backend/pkg/logging"
)

// Is reports whether args (the program's arguments without its name) ask
// for a backup or a restore.
func Is(args []string) bool {
	return len(args) > 0 && (args[0] == "backup" || args[0] == "restore")
}

// Command is one service's backup and restore. Each function gets the file
// named on the command line and --force (backup: replace an existing file;
// restore: replace the service's data, which is refused otherwise), and
// returns what its log line says of the copy, as slog's key-value pairs.
type Command struct {
	// Service names the binary in the usage and the errors.
	Service string
	Backup  func(ctx context.Context, file string, force bool) ([]any, error)
	Restore func(ctx context.Context, file string, force bool) ([]any, error)
}

// Usage is the command line's one-line help.
func (c Command) Usage() string {
	return fmt.Sprintf("usage: %[1]s backup --to FILE [--force] | %[1]s restore --from FILE [--force]", c.Service)
}

// Run parses args, runs the backup or the restore and writes one JSON log
// line to stdout when it is done: "backup written" or "backup restored",
// with the pairs the service returned and the time it took.
func (c Command) Run(ctx context.Context, args []string, stdout io.Writer) error {
	if !Is(args) {
		return fmt.Errorf("unknown command %q; %s (no command: serve)", strings.Join(args, " "), c.Usage())
	}
	name := args[0]
	fileFlag, do, done := "to", c.Backup, "backup written"
	if name == "restore" {
		fileFlag, do, done = "from", c.Restore, "backup restored"
	}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	file := fs.String(fileFlag, "", "the backup file")
	force := fs.Bool("force", false, "backup: replace an existing FILE; restore: replace the service's data")
	if err := fs.Parse(args[1:]); err != nil {
		return fmt.Errorf("%s: %w; %s", name, err, c.Usage())
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%s: unexpected argument %q; %s", name, fs.Arg(0), c.Usage())
	}
	if *file == "" {
		return fmt.Errorf("%s: --%s FILE is required; %s", name, fileFlag, c.Usage())
	}
	started := time.Now()
	attrs, err := do(ctx, *file, *force)
	if err != nil {
		return err
	}
	attrs = append(attrs, "took_ms", time.Since(started).Milliseconds())
	logging.New(stdout, slog.LevelInfo).Info(done, attrs...)
	return nil
}
