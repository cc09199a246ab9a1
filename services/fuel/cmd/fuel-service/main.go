// Command fuel-service serves the fuel-logging API: vehicles, refuel
// records and statistics, on PostgreSQL (DATABASE_URL) or, without it, on
// an embedded SQLite file.
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/carhub/backend/pkg/config"
	"github.com/carhub/backend/pkg/cors"
	"github.com/carhub/backend/pkg/httpserver"
	"github.com/carhub/backend/pkg/logging"
	"github.com/carhub/backend/services/fuel/internal/httpapi"
	"github.com/carhub/backend/services/fuel/internal/store"
)

// Config is read from the environment only.
type Config struct {
	Addr        string `env:"FUEL_ADDR" default:":8082"`
	DatabaseURL string `env:"DATABASE_URL" secret:"true"` // PostgreSQL URL; empty: embedded SQLite
	SQLitePath  string `env:"FUEL_SQLITE_PATH" default:"var/fuel.db"`
	CORSOrigins string `env:"CORS_ORIGINS"`
	// PurgeInterval is how often expired idempotency keys are deleted.
	PurgeInterval time.Duration `env:"FUEL_IDEMPOTENCY_PURGE_INTERVAL" default:"10m"`
}

func main() {
	ctx, stop := httpserver.SignalContext(context.Background())
	err := run(ctx, os.Getenv, os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "fuel-service:", err)
		os.Exit(1)
	}
}

// run starts the service and serves until ctx is done.
func run(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
	log := logging.New(stdout, slog.LevelInfo)
	var cfg Config
	if err := config.Load(getenv, &cfg); err != nil {
		return err
	}
	log.Info("config", config.Attrs(cfg)...)
	if cfg.PurgeInterval <= 0 {
		return fmt.Errorf("FUEL_IDEMPOTENCY_PURGE_INTERVAL must be positive, got %s", cfg.PurgeInterval)
	}
	origins, err := cors.ParseOrigins(cfg.CORSOrigins)
	if err != nil {
		return err
	}

	var st *store.Store
	if cfg.DatabaseURL != "" {
		st, err = store.OpenPostgres(ctx, cfg.DatabaseURL)
	} else {
		st, err = store.OpenSQLite(ctx, cfg.SQLitePath)
	}
	if err != nil {
		return err
	}
	defer st.Close()
	log.Info("database ready", "dialect", st.Dialect())

	ln, err := httpserver.Listen(cfg.Addr)
	if err != nil {
		return err
	}
	// Expired idempotency keys are purged in the background; the purge
	// stops, and is waited for, before the store closes.
	purgeCtx, stopPurge := context.WithCancel(ctx)
	purged := make(chan struct{})
	go func() {
		defer close(purged)
		st.RunIdempotencyPurge(purgeCtx, cfg.PurgeInterval, log)
	}()
	defer func() {
		stopPurge()
		<-purged
	}()

	h := httpapi.New(log, st, httpapi.Options{CORSOrigins: origins})
	return httpserver.Serve(ctx, ln, h, log, httpserver.Options{})
}
