// Package store implements fuel.Store with GORM on PostgreSQL (numeric
// columns) and on embedded SQLite (pure Go, decimals as exact text). Each
// dialect has its own versioned SQL migrations, embedded in the binary,
// applied at start-up and recorded in schema_migrations.
//
// Every statement runs on one of two GORM handles, read and write (see
// queries): on PostgreSQL both are the pool; on SQLite read is a pool of
// read-only connections and write the one writer connection; in the store
// that Once hands to its create function both are Once's transaction.
//
// A file per concern: store.go opens the databases and holds what every
// query shares; access.go the rules of who sees and writes a vehicle's
// records; one file per resource with its row type and CRUD (vehicles.go,
// members.go, refuels.go, expenses.go, reminders.go, attachments.go,
// preferences.go, notifications.go, accounts.go, oidc.go, attempts.go);
// statistics.go, monthly.go and cost_statistics.go the statistics;
// currency.go the change of the home currency of every record;
// importexport.go the import and export every kind of record shares;
// idempotency.go Once; pgread.go the PostgreSQL fast path (pgx without
// GORM); timestamp.go and fixed.go reading stored times and amounts;
// tracing.go the spans of every statement; migrate.go the migrations;
// backup.go and backup_attachments.go backup and restore;
// sqlite_checkpoint.go SQLite's WAL checkpoints.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"time"

	pgxdecimal "github.com/jackc/pgx-shopspring-decimal"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/libtnb/sqlite"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/carhub/backend/services/fuel/internal/accounts"
	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// Dialect names the database behind a Store.
type Dialect string

// The two dialects.
const (
	Postgres Dialect = "postgres"
	SQLite   Dialect = "sqlite"
)

// defaultLockKey is the PostgreSQL advisory lock (with the owner as its
// second key) that serialises the writers that change which of an
// owner's vehicles is the default. The partial unique
// index already forbids two defaults; the lock makes concurrent switches
// wait for each other instead of failing on that index.
const defaultLockKey = 0x6675656c // "fuel"

// Store is the GORM implementation of fuel.Store. It owns the connection
// pools; its fuel.Store methods are those of the queries it embeds, which
// run on the pools' handles. The Now field (of queries) is the clock for
// created_at and updated_at; tests replace it.
type Store struct {
	queries
	// pools are the database/sql pools under the handles, closed by
	// Close: one on PostgreSQL, the readers and the writer on SQLite.
	pools []*sql.DB
	// wal keeps SQLite's write-ahead log from growing without bound
	// (nil on PostgreSQL).
	wal *checkpointer
}

// queries implements fuel.Store on two handles. Reads run on read, writes
// and read-modify-write transactions on write. A queries made by withTx
// has its transaction as both handles, and no other way to the database.
type queries struct {
	read, write *gorm.DB
	dialect     Dialect

	// Now is the clock for created_at / updated_at.
	Now func() time.Time

	// pg is the PostgreSQL pool under read, for the reads pgread.go runs
	// through pgx itself; nil on SQLite and in a transaction's queries.
	pg *sql.DB
	// spans traces those reads (nil: tracing off).
	spans *spans

	// afterConvert, when set (by tests), runs after each record a change
	// of currency converts, with their count so far; its error fails the
	// change.
	afterConvert func(n int) error

	// exportRows and importRows, when not 0 (SetPageSizes, for tests),
	// replace exportPage and importBatch.
	exportRows, importRows int
}

var (
	_ fuel.Store     = (*Store)(nil)
	_ fuel.Store     = (*queries)(nil)
	_ accounts.Store = (*Store)(nil)
)

// withTx returns the queries that run every statement in tx.
func (q *queries) withTx(tx *gorm.DB) *queries {
	return &queries{read: tx, write: tx, dialect: q.dialect, Now: q.Now, afterConvert: q.afterConvert,
		exportRows: q.exportRows, importRows: q.importRows}
}

// SetPageSizes makes the exports read export records per statement and
// the imports insert insert rows per statement, instead of exportPage and
// importBatch (0 keeps that default). It is for tests that cross several
// pages with a few records instead of thousands; call it before the store
// is in use. Production code never calls it.
func (s *Store) SetPageSizes(export, insert int) { s.exportRows, s.importRows = export, insert }

// OpenPostgres connects to the PostgreSQL database at dsn and applies the
// pending migrations. Reads and writes share one pool.
func OpenPostgres(ctx context.Context, dsn string) (*Store, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("open postgres: %w", err)
	}
	// Decimals are sent in numeric's binary form by pgx-shopspring-decimal:
	// without it pgx took each one's driver.Value (a string), parsed it
	// back and built an error on the way, 7 % of a POST refuel's CPU.
	pool := stdlib.OpenDB(*cfg, stdlib.OptionAfterConnect(func(_ context.Context, c *pgx.Conn) error {
		pgxdecimal.Register(c.TypeMap())
		return nil
	}))
	sp := newSpans()
	db, err := gorm.Open(postgres.New(postgres.Config{Conn: pool}), gormConfigFor(sp))
	if err != nil {
		_ = pool.Close()
		return nil, fmt.Errorf("open postgres: %w", err)
	}
	pool.SetMaxOpenConns(32)
	pool.SetMaxIdleConns(32)
	pool.SetConnMaxIdleTime(5 * time.Minute)
	s := &Store{queries: queries{read: db, write: db, dialect: Postgres, Now: time.Now, pg: pool, spans: sp}, pools: []*sql.DB{pool}}
	if err := s.migrate(ctx); err != nil {
		_ = s.Close()
		return nil, err
	}
	return s, nil
}

// OpenSQLite opens (creating it and its directory when absent) the SQLite
// database file at path and applies the pending migrations.
//
// The database runs in WAL mode with one writer connection and a pool of
// read-only connections: reads run in parallel with each other and with
// the write in progress, each on the last committed state, while writes
// stay serialised on the one writer, as SQLite serialises them anyway
// (so writers never meet SQLITE_BUSY, and the default-vehicle rule and the
// idempotency keys hold without row locks). Foreign keys are enforced.
//
// A commit is written to the WAL and synced to disk at checkpoints, not at
// every commit (SQLite's synchronous=NORMAL, its advice for WAL): an
// application crash loses nothing, a power cut or an operating-system
// crash may lose the last commits but never corrupts the file. The sync
// per commit (FULL, SQLite's default) halved POST refuel's rate; see
// OpenSQLiteDurable (proto-docs/fuel-decisions.md, "Hot paths").
func OpenSQLite(ctx context.Context, path string) (*Store, error) {
	return openSQLite(ctx, path, "NORMAL")
}

// OpenSQLiteDurable is OpenSQLite syncing every commit to disk before it
// is answered (synchronous=FULL): nothing acknowledged is lost to a power
// cut, at half the rate of writes (FUEL_SQLITE_SYNC=full).
func OpenSQLiteDurable(ctx context.Context, path string) (*Store, error) {
	return openSQLite(ctx, path, "FULL")
}

func openSQLite(ctx context.Context, path, synchronous string) (*Store, error) {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("create sqlite directory: %w", err)
		}
	}
	// The SQLite driver runs each _pragma on every new connection. WAL
	// is recorded in the file by the writer, which connects first (gorm
	// pings on open). _txlock=immediate makes the writer's transactions
	// take SQLite's write lock at BEGIN, so a second process writing the
	// same file makes them wait (busy_timeout) rather than fail half-way.
	// Readers refuse writes (query_only), so a write sent to the read
	// handle fails at once instead of racing the writer.
	file := "file:" + path + "?" + sqliteTimeParams + "&_pragma=busy_timeout(" + strconv.Itoa(busyTimeoutMS) + ")"
	write, err := gorm.Open(sqlite.Open(file+"&_pragma=journal_mode(WAL)&_pragma=synchronous("+synchronous+")&_pragma=foreign_keys(1)"+
		"&_pragma=journal_size_limit("+strconv.FormatInt(walLimit, 10)+")&_txlock=immediate"), sqliteGormConfig())
	if err != nil {
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	writer, err := write.DB()
	if err != nil {
		return nil, err
	}
	writer.SetMaxOpenConns(1)
	writer.SetMaxIdleConns(1)
	s := &Store{queries: queries{write: write, dialect: SQLite, Now: time.Now}, pools: []*sql.DB{writer}}
	if err := s.migrate(ctx); err != nil {
		_ = s.Close()
		return nil, err
	}

	read, err := gorm.Open(sqlite.Open(file+"&_pragma=query_only(1)"), sqliteGormConfig())
	if err != nil {
		_ = s.Close()
		return nil, fmt.Errorf("open sqlite %s for reading: %w", path, err)
	}
	readers, err := read.DB()
	if err != nil {
		_ = s.Close()
		return nil, err
	}
	// Reads are CPU work in pure-Go SQLite: one connection per CPU. More
	// cost more CPU per read (4 readers on 2 CPUs: about 15 % more per list
	// of 100 refuels), as their calls into SQLite contend for its mutexes.
	n := max(2, runtime.GOMAXPROCS(0))
	readers.SetMaxOpenConns(n)
	readers.SetMaxIdleConns(n)
	s.read, s.pools = read, append(s.pools, readers)
	s.wal = startCheckpointer(writer, path+"-wal")
	return s, nil
}

func gormConfig() *gorm.Config { return gormConfigFor(newSpans()) }

// gormConfigFor is the configuration of a handle whose statements sp puts
// in spans (nil: tracing off).
func gormConfigFor(sp *spans) *gorm.Config {
	return &gorm.Config{
		Logger:                 logger.Discard,
		TranslateError:         true,
		SkipDefaultTransaction: true,         // single statements need no BEGIN/COMMIT
		Plugins:                sp.plugins(), // spans, when tracing is on
	}
}

// sqliteGormConfig is gormConfig with GORM's prepared statements: SQLite
// compiles each statement into a program, and the insert of a refuel
// (foreign keys, checks, three indexes) was half of a POST's CPU in
// compiling and freeing it (proto-docs/fuel-decisions.md, "Hot paths").
// The driver keeps a prepared statement's program and resets it for the
// next call. At most sqliteStatements are kept per handle, the least
// recently used closed first; SQLite recompiles a kept one by itself after
// a schema change.
func sqliteGormConfig() *gorm.Config {
	c := gormConfig()
	c.PrepareStmt, c.PrepareStmtMaxSize = true, sqliteStatements
	return c
}

// sqliteStatements bounds the prepared statements each SQLite handle keeps:
// the statements the service runs are fewer (a list's IN of n ids is one
// statement per n).
const sqliteStatements = 256

// Dialect says which database the store uses.
func (s *Store) Dialect() Dialect { return s.dialect }

// Close closes the database connections.
func (s *Store) Close() error {
	s.wal.close()
	var errs []error
	for _, p := range s.pools {
		errs = append(errs, p.Close())
	}
	return errors.Join(errs...)
}

// Pools returns the store's database/sql pools by name, for the pool
// metrics: "postgres", or "sqlite_writer" and "sqlite_readers".
func (s *Store) Pools() map[string]*sql.DB {
	if s.dialect == Postgres {
		return map[string]*sql.DB{"postgres": s.pools[0]}
	}
	m := map[string]*sql.DB{"sqlite_writer": s.pools[0]}
	if len(s.pools) > 1 {
		m["sqlite_readers"] = s.pools[1]
	}
	return m
}

// Ping implements fuel.Store: the read handle answers a statement.
func (q *queries) Ping(ctx context.Context) error {
	var one int
	return q.read.WithContext(ctx).Raw("SELECT 1").Row().Scan(&one)
}

func (q *queries) now() time.Time { return fuel.NormalizeTime(q.Now()) }

// storable reports whether id can be a row id: ids above MaxInt64 are
// well-formed in the API but no bigint column holds them.
func storable(id uint64) bool { return id >= 1 && id <= math.MaxInt64 }

// lockClause locks the selected row for the rest of the transaction on
// PostgreSQL. SQLite needs none: its transactions that write run on the
// one writer connection, one after the other.
func (q *queries) lockClause(lock bool) string {
	if lock && q.dialect == Postgres {
		return " FOR UPDATE"
	}
	return ""
}

// snapshot is the transaction of a read that runs several statements: one
// read-only REPEATABLE READ snapshot on PostgreSQL. An SQLite transaction
// reads one snapshot anyway (WAL: the state at its first read).
func (q *queries) snapshot() *sql.TxOptions {
	if q.dialect == Postgres {
		return &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
	}
	return nil
}

// CountRows returns the number of rows of table; for tests and tools.
func (q *queries) CountRows(ctx context.Context, table string) (int64, error) {
	switch table {
	case "vehicles", "refuels", "expenses", "idempotency_keys", "vehicle_members", "password_attempts", "reminders":
	default:
		return 0, fmt.Errorf("count rows: unknown table %q", table)
	}
	var n int64
	err := q.read.WithContext(ctx).Raw("SELECT count(*) FROM " + table).Row().Scan(&n)
	return n, err
}

// sqliteTimeParams are the SQLite driver's time settings, written out
// rather than left to the GORM dialector's defaults: times are written in
// the layout parseSQLiteTime reads first ("sqlite": 2006-01-02
// 15:04:05.999999999-07:00), and only columns declared DATETIME are read as
// times. _texttotime would also try every undeclared text value (the
// statistics' packed column, each CAST(… AS TEXT)) against a dozen time
// layouts: 40 % of the statistics of 10 000 records.
const sqliteTimeParams = "_time_format=sqlite&_texttotime=0&_inttotime=0"

// page adds a LIMIT and OFFSET to query (limit 0: no limit), in the form
// each dialect takes.
func (q *queries) page(query string, args []any, limit, offset int) (string, []any) {
	switch {
	case limit > 0:
		query += " LIMIT ? OFFSET ?"
		args = append(args, limit, offset)
	case offset > 0:
		// SQLite needs a LIMIT before OFFSET; -1 is none there, and
		// PostgreSQL takes LIMIT ALL.
		if q.dialect == SQLite {
			query += " LIMIT -1 OFFSET ?"
		} else {
			query += " LIMIT ALL OFFSET ?"
		}
		args = append(args, offset)
	}
	return query, args
}
