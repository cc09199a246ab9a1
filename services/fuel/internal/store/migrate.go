package store

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"gorm.io/gorm"
)

//go:embed migrations/postgres/*.sql migrations/sqlite/*.sql
var migrations embed.FS

// migrationLockKey serialises the migrations of several instances that
// start at once against one PostgreSQL database.
const migrationLockKey = 0x6675656d // "fuem"

// migration is one versioned SQL file, named NNNN_what.sql.
type migration struct {
	version int
	name    string
	sql     string
}

// loadMigrations returns the migrations of dialect d in version order.
func loadMigrations(d Dialect) ([]migration, error) {
	dir := path.Join("migrations", string(d))
	entries, err := fs.ReadDir(migrations, dir)
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, e := range entries {
		prefix, _, ok := strings.Cut(e.Name(), "_")
		version, err := strconv.Atoi(prefix)
		if !ok || err != nil || version < 1 {
			return nil, fmt.Errorf("migration %s: name must start with a positive version and '_'", e.Name())
		}
		b, err := fs.ReadFile(migrations, path.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: version, name: e.Name(), sql: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	for i := 1; i < len(out); i++ {
		if out[i].version == out[i-1].version {
			return nil, fmt.Errorf("migrations %s and %s share a version", out[i-1].name, out[i].name)
		}
	}
	return out, nil
}

// MigrationsDigest is a digest of the migrations of dialect d, their names
// and their SQL: two builds with the same digest make the same schema.
// Tests name a migrated template database after it (storetest).
func MigrationsDigest(d Dialect) (string, error) {
	all, err := loadMigrations(d)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, m := range all {
		fmt.Fprintf(h, "%s\x00%d\x00%s\x00", m.name, len(m.sql), m.sql)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// migrate applies, in one transaction, every migration not yet recorded in
// schema_migrations, and records it.
func (s *Store) migrate(ctx context.Context) error {
	all, err := loadMigrations(s.dialect)
	if err != nil {
		return fmt.Errorf("load migrations: %w", err)
	}
	timeType := "timestamptz"
	if s.dialect == SQLite {
		timeType = "DATETIME"
	}
	return s.write.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if s.dialect == Postgres {
			if err := tx.Exec("SELECT pg_advisory_xact_lock(?)", migrationLockKey).Error; err != nil {
				return fmt.Errorf("lock migrations: %w", err)
			}
		}
		if err := tx.Exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
			version    bigint PRIMARY KEY,
			name       text NOT NULL,
			applied_at ` + timeType + ` NOT NULL)`).Error; err != nil {
			return fmt.Errorf("create schema_migrations: %w", err)
		}
		var applied []int
		if err := tx.Raw("SELECT version FROM schema_migrations").Scan(&applied).Error; err != nil {
			return fmt.Errorf("read schema_migrations: %w", err)
		}
		done := make(map[int]bool, len(applied))
		for _, v := range applied {
			done[v] = true
		}
		for _, m := range all {
			if done[m.version] {
				continue
			}
			if err := tx.Exec(m.sql).Error; err != nil {
				return fmt.Errorf("apply migration %s: %w", m.name, err)
			}
			if err := tx.Exec("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
				m.version, m.name, s.now()).Error; err != nil {
				return fmt.Errorf("record migration %s: %w", m.name, err)
			}
		}
		return nil
	})
}

// CheckMigrations returns an error unless schema_migrations records every
// migration this binary carries: the readiness check, which fails when the
// database was replaced under the running service by an older one.
func (s *Store) CheckMigrations(ctx context.Context) error {
	all, err := loadMigrations(s.dialect)
	if err != nil {
		return err
	}
	var versions []int
	if err := s.read.WithContext(ctx).Raw("SELECT version FROM schema_migrations").Scan(&versions).Error; err != nil {
		return fmt.Errorf("read schema_migrations: %w", err)
	}
	applied := make(map[int]bool, len(versions))
	for _, v := range versions {
		applied[v] = true
	}
	for _, m := range all {
		if !applied[m.version] {
			return fmt.Errorf("migration %s is not applied", m.name)
		}
	}
	return nil
}
