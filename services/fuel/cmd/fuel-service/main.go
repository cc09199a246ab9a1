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
	"path/filepath"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/carhub/backend/pkg/buildinfo"
	"github.com/carhub/backend/pkg/config"
	"github.com/carhub/backend/pkg/ginprobes"
	"github.com/carhub/backend/pkg/httpserver"
	"github.com/carhub/backend/pkg/logging"
	"github.com/carhub/backend/pkg/metrics"
	"github.com/carhub/backend/pkg/profiling"
	"github.com/carhub/backend/pkg/serviceenv"
	"github.com/carhub/backend/pkg/tracing"
	"github.com/carhub/backend/services/fuel/internal/filestore"
	"github.com/carhub/backend/services/fuel/internal/httpapi"
	"github.com/carhub/backend/services/fuel/internal/store"
)

// Config is read from the environment only.
type Config struct {
	Addr        string `env:"FUEL_ADDR" default:":8082"`
	DatabaseURL string `env:"DATABASE_URL" secret:"true"` // PostgreSQL URL; empty: embedded SQLite
	SQLitePath  string `env:"FUEL_SQLITE_PATH" default:"var/fuel.db"`
	// SQLiteSync is when SQLite syncs its commits to disk: normal (at
	// checkpoints; a power cut may lose the last commits) or full (every
	// commit, at half the rate of writes).
	SQLiteSync string `env:"FUEL_SQLITE_SYNC" default:"normal"`
	// FilesDir keeps the files of attachments; empty: an attachments
	// directory beside FUEL_SQLITE_PATH (var/attachments), on PostgreSQL too.
	FilesDir string `env:"FUEL_FILES_DIR"`
	// CORS_ORIGINS, TRUSTED_PROXIES (whose address login attempts are
	// counted under), SHUTDOWN_DRAIN, METRICS: as every service reads them.
	serviceenv.HTTP
	// PurgeInterval is how often expired idempotency keys are deleted.
	PurgeInterval time.Duration `env:"FUEL_IDEMPOTENCY_PURGE_INTERVAL" default:"10m"`
	// Accounts (proto-docs/auth-decisions.md): off (everyone is the
	// built-in user) or local (bearer tokens).
	AuthMode string `env:"AUTH_MODE" default:"off"`
	// AuthIdentitySecret signs the identity handed to docqa-service through
	// the gateway (the same value in docqa's environment); local mode only.
	AuthIdentitySecret string `env:"AUTH_IDENTITY_SECRET" secret:"true"`
	// The first administrator, made when no account has a password yet.
	AuthAdminUsername string `env:"AUTH_ADMIN_USERNAME"`
	AuthAdminPassword string `env:"AUTH_ADMIN_PASSWORD" secret:"true"`
	// AuthLoginsPerMinute bounds password attempts (logins, password
	// changes, token creations) per username and per client address
	// (0: no limit).
	AuthLoginsPerMinute int `env:"AUTH_LOGINS_PER_MINUTE" default:"10"`
	// AuthPasswordConcurrency bounds the argon2id hashes and checks
	// running at once in the process, 19 MiB each (0: one per core,
	// GOMAXPROCS); past it, after a second's wait, 503 with Retry-After.
	AuthPasswordConcurrency int `env:"AUTH_PASSWORD_CONCURRENCY" default:"0"`
	// AuthTokenCache is how long a verified token is trusted without a
	// database lookup; a revocation on another instance takes effect within
	// it (0s: look every token up).
	AuthTokenCache time.Duration `env:"AUTH_TOKEN_CACHE" default:"10s"`
	// OIDC sign-in (AUTH_OIDC_*), local mode only.
	OIDC OIDCConfig
	// Notifications (NOTIFY_*, SMTP_URL, PUBLIC_URL, WEBHOOK_ALLOW_PRIVATE,
	// VAPID_*): notifications.go.
	Notify NotifyConfig
}

// version is stamped at build: -ldflags "-X main.version=$(git describe)".
var version = "dev"

func main() {
	if buildinfo.IsVersionFlag(os.Args[1:]) {
		fmt.Println(buildinfo.Read("fuel-service", version))
		return
	}
	ctx, stop := httpserver.SignalContext(context.Background())
	var err error
	if len(os.Args) > 1 { // backup, restore: see command
		err = command(ctx, os.Args[1:], os.Getenv, os.Stdout)
	} else {
		err = run(ctx, os.Getenv, os.Stdout)
	}
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "fuel-service:", err)
		os.Exit(1)
	}
}

// run starts the service and serves until ctx is done.
func run(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
	var cfg Config
	if err := config.Load(getenv, &cfg); err != nil {
		return err
	}
	web, err := cfg.HTTP.Parse()
	if err != nil {
		return err
	}
	// Buffered: a line for every request, written out in batches
	// (logging.NewBuffered); stop, deferred first, writes out the last.
	log, stopLog := logging.NewBuffered(stdout, web.LogLevel)
	defer func() { _ = stopLog() }()
	build := buildinfo.Read("fuel-service", version)
	log.Info("config", append([]any{"version", build.Version, "revision", build.Revision}, config.Attrs(cfg)...)...)
	if cfg.PurgeInterval <= 0 {
		return fmt.Errorf("FUEL_IDEMPOTENCY_PURGE_INTERVAL must be positive, got %s", cfg.PurgeInterval)
	}
	// Before the store and the handler: they ask whether tracing is on.
	stopTracing, err := tracing.Init(ctx, getenv, "fuel-service", log)
	if err != nil {
		return err
	}
	defer stopTracing()
	stopProfiler, err := profiling.Start(ctx, web.Pprof, log)
	if err != nil {
		return err
	}
	defer stopProfiler()

	var st *store.Store
	if cfg.DatabaseURL != "" {
		st, err = store.OpenPostgres(ctx, cfg.DatabaseURL)
	} else {
		switch cfg.SQLiteSync {
		case "normal":
			st, err = store.OpenSQLite(ctx, cfg.SQLitePath)
		case "full":
			st, err = store.OpenSQLiteDurable(ctx, cfg.SQLitePath)
		default:
			err = fmt.Errorf("FUEL_SQLITE_SYNC: %q is neither normal nor full", cfg.SQLiteSync)
		}
	}
	if err != nil {
		return err
	}
	defer st.Close()
	log.Info("database ready", "dialect", st.Dialect())
	files, err := openFiles(ctx, cfg, st, log)
	if err != nil {
		return err
	}

	// Reminders are evaluated in the background, stopped (and their
	// deliveries released) before the store closes.
	notes, err := notificationService(ctx, cfg.Notify, st, log)
	if err != nil {
		return err
	}
	defer startNotifications(ctx, notes, cfg.Notify.Interval)()

	ln, err := httpserver.Listen(cfg.Addr)
	if err != nil {
		return err
	}
	// Expired idempotency keys and password attempts are purged in the
	// background; the purge stops, and is waited for, before the store
	// closes.
	purgeCtx, stopPurge := context.WithCancel(ctx)
	purged := make(chan struct{})
	go func() {
		defer close(purged)
		st.RunPurge(purgeCtx, cfg.PurgeInterval, log)
	}()
	defer func() {
		stopPurge()
		<-purged
	}()

	authOpts, err := authOptions(ctx, cfg, st, log)
	if err != nil {
		return err
	}
	if authOpts.OIDC, err = oidcOptions(ctx, cfg.OIDC, authOpts.Mode, log); err != nil {
		return err
	}
	opts := httpapi.Options{CORSOrigins: web.Origins, TrustedProxies: web.Proxies, Probes: readiness(st), Auth: authOpts, Files: files,
		Notifications: notes}
	if web.Metrics {
		opts.Metrics = metrics.NewRegistry()
		if err := registerPools(opts.Metrics, st); err != nil {
			return err
		}
		if err := build.Register(opts.Metrics); err != nil {
			return fmt.Errorf("metrics: %w", err)
		}
	}
	h := httpapi.New(log, st, opts)
	return httpserver.Serve(ctx, ln, h, log, httpserver.Options{Drain: web.Drain, OnStop: opts.Probes.Drain})
}

// filesDir is where the files of attachments live: FUEL_FILES_DIR, or
// beside the SQLite file.
func filesDir(cfg Config) string {
	if cfg.FilesDir != "" {
		return cfg.FilesDir
	}
	return filepath.Join(filepath.Dir(cfg.SQLitePath), "attachments")
}

// openFiles opens the file store of attachments and removes the files
// whose attachments were deleted while no process could (a crash between
// the delete and the removal). A file it cannot remove stays listed and
// is only logged: it costs space, not correctness.
func openFiles(ctx context.Context, cfg Config, st *store.Store, log *slog.Logger) (*filestore.Store, error) {
	files, err := filestore.Open(filesDir(cfg))
	if err != nil {
		return nil, err
	}
	n, err := files.Purge(ctx, st)
	if err != nil {
		log.Warn("remove the files of deleted attachments", "err", err)
	}
	log.Info("attachment files ready", "dir", files.Dir(), "removed", n)
	return files, nil
}

// readiness is the service's /readyz: the database answers and its schema
// has every migration this binary carries. Open applied them, so the
// second check only fails when the database was replaced under the running
// service (a restore of an older dump).
func readiness(st *store.Store) *ginprobes.Probes {
	return ginprobes.New(
		ginprobes.Check{Name: "database", Run: st.Ping},
		ginprobes.Check{Name: "migrations", Run: st.CheckMigrations},
	)
}

// registerPools adds the store's connection pools to the metrics
// ("postgres", or "sqlite_writer" and "sqlite_readers").
func registerPools(reg *prometheus.Registry, st *store.Store) error {
	for name, db := range st.Pools() {
		if err := metrics.RegisterDB(reg, name, db); err != nil {
			return fmt.Errorf("metrics: database pool %s: %w", name, err)
		}
	}
	return nil
}
