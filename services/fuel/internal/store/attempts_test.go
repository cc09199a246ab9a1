package store

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/carhub/backend/services/fuel/internal/accounts"
)

// TestTakeAttempt counts attempts per kind and key in the database: three
// of a limit of three pass, the fourth is refused with the wait until one
// would fit; another key or kind has its own budget; the next window still
// weighs the previous one; the purge keeps the rows that count and
// deletes the rest.
func TestTakeAttempt(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		now := time.Date(2026, 3, 1, 8, 0, 10, 0, time.UTC)
		s.Now = func() time.Time { return now }
		take := func(kind accounts.AttemptKind, key string) (bool, time.Duration) {
			t.Helper()
			ok, wait, err := s.TakeAttempt(ctx, kind, key, 3)
			if err != nil {
				t.Fatal(err)
			}
			return ok, wait
		}
		for i := range 3 {
			if ok, _ := take(accounts.AttemptsByUsername, "ann"); !ok {
				t.Fatalf("attempt %d refused", i+1)
			}
		}
		if ok, wait := take(accounts.AttemptsByUsername, "ann"); ok || wait != 80*time.Second {
			t.Fatalf("fourth attempt: %v %s, want refused for 1m20s", ok, wait)
		}
		if ok, _ := take(accounts.AttemptsByUsername, "bob"); !ok {
			t.Fatal("another username refused")
		}
		if ok, _ := take(accounts.AttemptsByAddress, "ann"); !ok {
			t.Fatal("an address with the username's text refused")
		}
		// 50 s on, the next window: ann's 4 weigh 4*(50/60) > 2.
		now = now.Add(50 * time.Second)
		if ok, _ := take(accounts.AttemptsByUsername, "ann"); ok {
			t.Fatal("ann's attempt right after the window turned was allowed")
		}
		if n, err := s.CountRows(ctx, "password_attempts"); err != nil || n != 4 {
			t.Fatalf("%d rows (%v), want ann's two, bob's and the address's", n, err)
		}
		// Past the window after ann's first: only the second counts.
		n, err := s.PurgePasswordAttempts(ctx, now.Add(time.Minute))
		if err != nil || n != 3 {
			t.Fatalf("purged %d (%v), want the first window's 3 rows", n, err)
		}
		if n, err := s.PurgePasswordAttempts(ctx, now); err != nil || n != 0 {
			t.Fatalf("purged %d (%v) while the window counts", n, err)
		}
	})
}

// BenchmarkTakeAttempt is the statement each budget of a password attempt
// costs: an upsert of one key's row (updated after the first) and of a
// new key each time (inserted).
//
//	go test -run '^$' -bench TakeAttempt ./services/fuel/internal/store/
func BenchmarkTakeAttempt(b *testing.B) {
	for _, d := range []Dialect{Postgres, SQLite} {
		s := MustOpen(b, d)
		ctx := context.Background()
		b.Run(string(d)+"/same-key", func(b *testing.B) {
			for b.Loop() {
				if _, _, err := s.TakeAttempt(ctx, accounts.AttemptsByUsername, "root", 1<<30); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(string(d)+"/new-key", func(b *testing.B) {
			i := 0
			for b.Loop() {
				i++
				if _, _, err := s.TakeAttempt(ctx, accounts.AttemptsByAddress, "198.51."+strconv.Itoa(i), 1<<30); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
