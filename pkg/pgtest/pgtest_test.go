package pgtest

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestNewDatabaseIsFreshAndDropped(t *testing.T) {
	var first string
	t.Run("create", func(t *testing.T) {
		first = NewDatabase(t)
		second := NewDatabase(t)
		if first == second {
			t.Fatalf("two calls gave the same database %s", first)
		}
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, first)
		if err != nil {
			t.Fatalf("connect to new database: %v", err)
		}
		defer conn.Close(ctx)
		var tables int
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'").Scan(&tables); err != nil {
			t.Fatal(err)
		}
		if tables != 0 {
			t.Fatalf("new database has %d tables, want 0", tables)
		}
		if _, err := conn.Exec(ctx, "CREATE TABLE t (id int)"); err != nil {
			t.Fatalf("create table in new database: %v", err)
		}
	})
	// The subtest's cleanup has run: the database must be gone.
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, first)
	if err == nil {
		conn.Close(ctx)
		t.Fatalf("database %s still exists after cleanup", first)
	}
}

func TestSanitize(t *testing.T) {
	tests := map[string]string{
		"TestX/sub_case#01": "testx_sub_case_01",
		"Ünïcode":           "_n_code",
	}
	for in, want := range tests {
		if got := sanitize(in); got != want {
			t.Errorf("sanitize(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestNewDatabaseFromCopiesTheTemplate: every database starts as what
// prepare made, prepare runs once per template, the copies are
// independent, and a template of a newer digest drops the older one.
func TestNewDatabaseFromCopiesTheTemplate(t *testing.T) {
	ctx := context.Background()
	family := "pgtest_tmpl_" + randomSuffix(t) + "_"
	prepared := 0
	prepare := func(ctx context.Context, url string) error {
		prepared++
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, "CREATE TABLE t (id int); INSERT INTO t VALUES (1)")
		return err
	}
	count := func(url string) int {
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		var n int
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	first := NewDatabaseFrom(t, family+"a", prepare)
	second := NewDatabaseFrom(t, family+"a", prepare)
	if prepared != 1 {
		t.Errorf("prepare ran %d times for one template, want 1", prepared)
	}
	conn, err := pgx.Connect(ctx, first)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "INSERT INTO t VALUES (2)"); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	if n, m := count(first), count(second); n != 2 || m != 1 {
		t.Errorf("rows: %d in the written copy (want 2), %d in the other (want 1)", n, m)
	}

	_ = NewDatabaseFrom(t, family+"b", prepare)
	admin, err := pgx.Connect(ctx, os.Getenv(EnvVar))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	var names []string
	rows, err := admin.Query(ctx, "SELECT datname FROM pg_database WHERE datname LIKE $1 || '%' ORDER BY datname", family)
	if err != nil {
		t.Fatal(err)
	}
	if names, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
		t.Fatal(err)
	}
	if len(names) != 1 || names[0] != family+"b" {
		t.Errorf("templates of the family after a newer one: %v, want only %sb", names, family)
	}
	t.Cleanup(func() {
		conn, err := pgx.Connect(ctx, os.Getenv(EnvVar))
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close(ctx)
		id := pgx.Identifier{family + "b"}.Sanitize()
		_, _ = conn.Exec(ctx, "ALTER DATABASE "+id+" IS_TEMPLATE false")
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+id); err != nil {
			t.Error(err)
		}
	})
}
