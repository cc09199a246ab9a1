package pgtest

import (
	"context"
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
