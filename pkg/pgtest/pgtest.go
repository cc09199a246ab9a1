// Package pgtest gives each test its own fresh PostgreSQL database on the
// server named by TEST_DATABASE_URL, dropped when the test ends. It knows
// nothing of any schema: callers apply their own migrations.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"strings"
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
	admin := os.Getenv(EnvVar)
	if admin == "" {
		tb.Fatalf("pgtest: %s is not set; point it at a PostgreSQL server whose user may create databases "+
			"(e.g. postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable) or run the tests through make test", EnvVar)
	}
	u, err := url.Parse(admin)
	if err != nil {
		tb.Fatalf("pgtest: %s is not a URL: %v", EnvVar, err)
	}
	name := "test_" + sanitize(tb.Name()) + "_" + randomSuffix(tb)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		tb.Fatalf("pgtest: connect to %s (%s): %v", EnvVar, u.Redacted(), err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		tb.Fatalf("pgtest: create database %s: %v", name, err)
	}
	tb.Cleanup(func() { drop(tb, admin, name) })

	dbURL := *u
	dbURL.Path = "/" + name
	return dbURL.String()
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
