package store

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// TestRunIdempotencyPurge runs the background purge with a short ticker:
// it deletes the expired keys while requests keep creating records, and
// returns once its context is cancelled.
func TestRunIdempotencyPurge(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		now := time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)
		clock := make(chan time.Time, 1)
		clock <- now
		s.Now = func() time.Time { t := <-clock; clock <- t; return t }
		for i := 0; i < 1100; i++ { // three purge batches
			k := fuel.IdempotencyKey{Key: fmt.Sprintf("key-%d", i), Method: "POST", Path: "/api/vehicles", RequestHash: "h"}
			if _, _, err := s.Once(ctx, k, func(fuel.Store) (fuel.StoredAnswer, error) {
				return fuel.StoredAnswer{Status: 200, Body: []byte("{}")}, nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		<-clock
		clock <- now.Add(fuel.IdempotencyTTL + time.Minute)

		purgeCtx, stop := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			s.RunIdempotencyPurge(purgeCtx, time.Millisecond, slog.New(slog.NewTextHandler(io.Discard, nil)))
		}()
		// Requests go on while the purge runs.
		for {
			v := fuel.Vehicle{Name: "during purge", FuelType: "diesel"}
			if err := s.CreateVehicle(ctx, &v); err != nil {
				t.Fatal(err)
			}
			n, err := s.CountRows(ctx, "idempotency_keys")
			if err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				break
			}
		}
		stop()
		<-done
	})
}
