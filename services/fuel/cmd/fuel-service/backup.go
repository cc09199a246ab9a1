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
	"github.com/carhub/backend/services/fuel/internal/store"
)

// errPostgres answers backup and restore when DATABASE_URL is set: the
// data is PostgreSQL's, and PostgreSQL's own tools copy it consistently.
var errPostgres = errors.New("DATABASE_URL is set: the data lives in PostgreSQL, which this command does not copy; " +
	`use pg_dump --format=custom --file=fuel.dump "$DATABASE_URL" to back it up and ` +
	`pg_restore --clean --if-exists --no-owner --dbname="$DATABASE_URL" fuel.dump to restore it (see the README, "Backups")`)

// command runs a command other than serving, with the service's
// environment: "backup --to FILE [--force]" copies the SQLite database at
// FUEL_SQLITE_PATH while the service may be running, "restore --from FILE
// [--force]" puts such a copy at FUEL_SQLITE_PATH (empty unless --force;
// the service stopped).
func command(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	const usage = "usage: fuel-service backup --to FILE [--force] | fuel-service restore --from FILE [--force]"
	if len(args) == 0 || (args[0] != "backup" && args[0] != "restore") {
		return fmt.Errorf("unknown command %q; %s (no command: serve)", strings.Join(args, " "), usage)
	}
	name := args[0]
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	file := fs.String(map[string]string{"backup": "to", "restore": "from"}[name], "", "the backup file")
	force := fs.Bool("force", false, "backup: replace an existing FILE; restore: replace the database at FUEL_SQLITE_PATH")
	if err := fs.Parse(args[1:]); err != nil {
		return fmt.Errorf("%s: %w; %s", name, err, usage)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%s: unexpected argument %q; %s", name, fs.Arg(0), usage)
	}
	if *file == "" {
		flagName := map[string]string{"backup": "--to", "restore": "--from"}[name]
		return fmt.Errorf("%s: %s FILE is required; %s", name, flagName, usage)
	}

	var cfg Config
	if err := config.Load(getenv, &cfg); err != nil {
		return err
	}
	if cfg.DatabaseURL != "" {
		return fmt.Errorf("%s: %w", name, errPostgres)
	}
	log := logging.New(stdout, slog.LevelInfo)
	started := time.Now()
	if name == "backup" {
		info, err := store.BackupSQLite(ctx, cfg.SQLitePath, *file, *force)
		if err != nil {
			return fmt.Errorf("backup of FUEL_SQLITE_PATH %s: %w", cfg.SQLitePath, err)
		}
		log.Info("backup written", "from", cfg.SQLitePath, "to", *file, "bytes", info.Bytes,
			"vehicles", info.Vehicles, "refuels", info.Refuels, "migration", info.Migration,
			"took_ms", time.Since(started).Milliseconds())
		return nil
	}
	info, err := store.RestoreSQLite(ctx, *file, cfg.SQLitePath, *force)
	if err != nil {
		return fmt.Errorf("restore into FUEL_SQLITE_PATH %s: %w", cfg.SQLitePath, err)
	}
	log.Info("backup restored", "from", *file, "to", cfg.SQLitePath, "bytes", info.Bytes,
		"vehicles", info.Vehicles, "refuels", info.Refuels, "migration", info.Migration,
		"took_ms", time.Since(started).Milliseconds())
	return nil
}
