// Package pgtest gives each test its own fresh PostgreSQL database on the
// server named by TEST_DATABASE_URL, dropped when the test ends. It knows
// nothing of any schema: callers apply their own migrations.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvVar names the server the databases are created on, e.g.
// postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable.
const EnvVar = "TEST_DATABASE_URL"

// NewDatabase creates a uniquely named empty database on the server of
// TEST_DATABASE_URL and returns its DSN; the database is dropped (its
// connections terminated) in tb.Cleanup. Without TEST_DATABASE_URL, or
// when the server cannot be reached, the test fails: PostgreSQL tests
// never pass by being skipped.
func NewDatabase(tb testing.TB) string {
	tb.Helper()
	return newDatabase(tb, "")
}

// NewDatabaseFrom is NewDatabase for a database that starts as a copy of
// the template database named template, which prepare fills (migrations,
// say): a copy is made by the server in a tenth of a second, where
// applying a schema's migrations to each new database took two to three
// times as long.
//
// The template is made once per server: by the first test process that
// asks for it (prepare runs on an empty database, under an advisory lock
// so that processes running at once make it once, and then the database
// becomes the template under its name), and found by every later process
// and run. So template must change whenever what prepare makes may: name
// it after a digest of the migrations. prepare must close its
// connections before it returns. Templates whose name shares template's
// prefix up to its last '_' (older digests) are dropped when a new one is
// made.
func NewDatabaseFrom(tb testing.TB, template string, prepare func(ctx context.Context, url string) error) string {
	tb.Helper()
	admin, u := adminURL(tb)
	t := templateOf(template)
	t.once.Do(func() { t.err = ensureTemplate(admin, u, template, prepare) })
	if t.err != nil {
		tb.Fatalf("pgtest: template database %s: %v", template, t.err)
	}
	return newDatabase(tb, template)
}

// templates are the templates this process has made sure of.
var templates sync.Map // name -> *templateState

type templateState struct {
	once sync.Once
	err  error
}

func templateOf(name string) *templateState {
	t, _ := templates.LoadOrStore(name, &templateState{})
	return t.(*templateState)
}

func adminURL(tb testing.TB) (string, *url.URL) {
	tb.Helper()
	admin := os.Getenv(EnvVar)
	if admin == "" {
		tb.Fatalf("pgtest: %s is not set; point it at a PostgreSQL server whose user may create databases "+
			"(e.g. postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable) or run the tests through make test", EnvVar)
	}
	u, err := url.Parse(admin)
	if err != nil {
		tb.Fatalf("pgtest: %s is not a URL: %v", EnvVar, err)
	}
	return admin, u
}

// newDatabase creates the test's database, a copy of template when it is
// not "".
func newDatabase(tb testing.TB, template string) string {
	tb.Helper()
	admin, u := adminURL(tb)
	name := "test_" + sanitize(tb.Name()) + "_" + randomSuffix(tb)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		tb.Fatalf("pgtest: connect to %s (%s): %v", EnvVar, u.Redacted(), err)
	}
	defer conn.Close(context.Background())
	create := "CREATE DATABASE " + pgx.Identifier{name}.Sanitize()
	if template != "" {
		create += " TEMPLATE " + pgx.Identifier{template}.Sanitize()
	}
	if _, err := conn.Exec(ctx, create); err != nil {
		tb.Fatalf("pgtest: create database %s: %v", name, err)
	}
	tb.Cleanup(func() { drop(tb, admin, name) })
	return databaseURL(u, name)
}

func databaseURL(u *url.URL, name string) string {
	dbURL := *u
	dbURL.Path = "/" + name
	return dbURL.String()
}

// ensureTemplate makes the template database name unless the server has
// it already.
func ensureTemplate(admin string, u *url.URL, name string, prepare func(ctx context.Context, url string) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return fmt.Errorf("connect to %s (%s): %w", EnvVar, u.Redacted(), err)
	}
	defer conn.Close(context.Background())
	isTemplate := func() (bool, error) {
		var ok bool
		err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1 AND datistemplate)", name).Scan(&ok)
		return ok, err
	}
	if ok, err := isTemplate(); err != nil || ok {
		return err
	}
	// A session lock, held until this connection closes: another process
	// making the same template waits here, then finds it made.
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock(hashtextextended($1, 0))", "pgtest template "+name); err != nil {
		return err
	}
	if ok, err := isTemplate(); err != nil || ok {
		return err
	}
	building := pgx.Identifier{name + "_building"}.Sanitize()
	for _, q := range []string{"DROP DATABASE IF EXISTS " + building + " WITH (FORCE)", "CREATE DATABASE " + building} {
		if _, err := conn.Exec(ctx, q); err != nil {
			return err
		}
	}
	if err := prepare(ctx, databaseURL(u, name+"_building")); err != nil {
		_, _ = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+building+" WITH (FORCE)")
		return fmt.Errorf("prepare: %w", err)
	}
	// A backend of prepare's closed connections may still be ending; a
	// database with connections can be neither renamed nor copied.
	if _, err := conn.Exec(ctx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", name+"_building"); err != nil {
		return err
	}
	var rename error
	for range 50 {
		if _, rename = conn.Exec(ctx, "ALTER DATABASE "+building+" RENAME TO "+pgx.Identifier{name}.Sanitize()); rename == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if rename != nil {
		return rename
	}
	if _, err := conn.Exec(ctx, "ALTER DATABASE "+pgx.Identifier{name}.Sanitize()+" IS_TEMPLATE true"); err != nil {
		return err
	}
	dropOlderTemplates(ctx, conn, name)
	return nil
}

// dropOlderTemplates drops the templates named as name up to its last
// '_' but for what follows (an older digest): a server used for many runs
// keeps one template per family. One still in use by another process is
// left for a later run.
func dropOlderTemplates(ctx context.Context, conn *pgx.Conn, name string) {
	i := strings.LastIndexByte(name, '_')
	if i <= 0 {
		return
	}
	rows, err := conn.Query(ctx, "SELECT datname FROM pg_database WHERE datistemplate AND datname <> $1 AND left(datname, $2) = $3",
		name, i+1, name[:i+1])
	if err != nil {
		return
	}
	older, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return
	}
	for _, o := range older {
		id := pgx.Identifier{o}.Sanitize()
		if _, err := conn.Exec(ctx, "ALTER DATABASE "+id+" IS_TEMPLATE false"); err == nil {
			_, _ = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+id)
		}
	}
}

func drop(tb testing.TB, admin, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		tb.Errorf("pgtest: drop %s: connect: %v", name, err)
		return
	}
	defer conn.Close(context.Background())
	// WITH (FORCE) ends connections the test left open (PostgreSQL 13+).
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
		tb.Errorf("pgtest: drop database %s: %v", name, err)
	}
}

// sanitize keeps a readable, identifier-safe part of the test name.
func sanitize(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
		if b.Len() >= 40 {
			break
		}
	}
	return b.String()
}

func randomSuffix(tb testing.TB) string {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		tb.Fatalf("pgtest: random name: %v", err)
	}
	return hex.EncodeToString(b[:])
}
