package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"gorm.io/gorm"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// Once implements fuel.Store. Keys are scoped to the caller
// (auth.UserID): another user's equal key is another key. The key row is inserted first, inside the
// transaction that creates the record: a concurrent request with the same
// key waits on the primary key until this transaction ends, then finds the
// stored answer (PostgreSQL), or runs after it (SQLite's one writer).
// create gets the queries bound to the transaction (withTx): its reads
// see its own uncommitted writes, and none of its statements can reach a
// pool.
func (q *queries) Once(ctx context.Context, k fuel.IdempotencyKey, create func(tx fuel.Store) (fuel.StoredAnswer, error)) (fuel.StoredAnswer, bool, error) {
	var (
		out      fuel.StoredAnswer
		replayed bool
	)
	err := q.write.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		now := q.now()
		uid := auth.UserID(ctx)
		// An expired answer counts as absent, whether or not the purge
		// has removed it yet.
		if err := tx.Exec("DELETE FROM idempotency_keys WHERE user_id = ? AND idem_key = ? AND method = ? AND path = ? AND created_at < ?",
			uid, k.Key, k.Method, k.Path, now.Add(-fuel.IdempotencyTTL)).Error; err != nil {
			return fmt.Errorf("expire idempotency key: %w", err)
		}
		claim := tx.Exec(`INSERT INTO idempotency_keys (user_id, idem_key, method, path, request_hash, status, body, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (user_id, idem_key, method, path) DO NOTHING`,
			uid, k.Key, k.Method, k.Path, k.RequestHash, 200, []byte{}, now)
		if claim.Error != nil {
			return fmt.Errorf("claim idempotency key: %w", claim.Error)
		}
		if claim.RowsAffected == 0 {
			var hash string
			err := tx.Raw("SELECT request_hash, status, body FROM idempotency_keys WHERE user_id = ? AND idem_key = ? AND method = ? AND path = ?",
				uid, k.Key, k.Method, k.Path).Row().Scan(&hash, &out.Status, &out.Body)
			if err != nil {
				return fmt.Errorf("read idempotency key: %w", err)
			}
			if hash != k.RequestHash {
				return apperr.Invalid("Idempotency-Key", "was already used with a different request body")
			}
			replayed = true
			return nil
		}
		a, err := create(q.withTx(tx))
		if err != nil {
			return err
		}
		if a.Status < 200 || a.Status > 299 {
			return fmt.Errorf("idempotent create answered %d: only 2xx answers are stored", a.Status)
		}
		if err := tx.Exec("UPDATE idempotency_keys SET status = ?, body = ? WHERE user_id = ? AND idem_key = ? AND method = ? AND path = ?",
			a.Status, a.Body, uid, k.Key, k.Method, k.Path).Error; err != nil {
			return fmt.Errorf("store idempotent answer: %w", err)
		}
		out = a
		return nil
	})
	if err != nil {
		return fuel.StoredAnswer{}, false, err
	}
	return out, replayed, nil
}

// purgeBatch bounds the rows one purge statement deletes, so that it holds
// locks (and SQLite's one writer) only briefly.
const purgeBatch = 500

// PurgeIdempotencyKeys deletes the stored answers created before before,
// in small batches, and returns how many it deleted.
func (s *Store) PurgeIdempotencyKeys(ctx context.Context, before time.Time) (int64, error) {
	return s.purge(ctx, "idempotency keys", `DELETE FROM idempotency_keys WHERE (user_id, idem_key, method, path) IN
		(SELECT user_id, idem_key, method, path FROM idempotency_keys WHERE created_at < ? LIMIT ?)`, before)
}

// purge runs stmt, a DELETE of at most its last argument's rows (filled
// in with purgeBatch) matching before, until it deletes fewer, and returns
// how many rows it deleted.
func (s *Store) purge(ctx context.Context, what, stmt string, before any) (int64, error) {
	var total int64
	for {
		res := s.write.WithContext(ctx).Exec(stmt, before, purgeBatch)
		if res.Error != nil {
			return total, fmt.Errorf("purge %s: %w", what, res.Error)
		}
		total += res.RowsAffected
		if res.RowsAffected < purgeBatch {
			return total, nil
		}
	}
}

// RunPurge deletes, every interval until ctx is done, the expired
// idempotency keys and the counts of password attempts whose windows no
// longer count. Run it in its own goroutine: requests never wait for it
// beyond one small batch.
func (s *Store) RunPurge(ctx context.Context, every time.Duration, log *slog.Logger) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now := s.now()
		for _, p := range []struct {
			what string
			run  func(context.Context, time.Time) (int64, error)
			at   time.Time
		}{
			{"idempotency keys", s.PurgeIdempotencyKeys, now.Add(-fuel.IdempotencyTTL)},
			{"password attempts", s.PurgePasswordAttempts, now},
		} {
			n, err := p.run(ctx, p.at)
			switch {
			case err != nil && !errors.Is(err, context.Canceled):
				log.Error("purge "+p.what, "err", err)
			case n > 0:
				log.Info("purged "+p.what, "deleted", n)
			}
		}
	}
}
