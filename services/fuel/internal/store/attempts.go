package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/carhub/backend/services/fuel/internal/accounts"
)

// windowSeconds is accounts.AttemptWindow in whole seconds.
const windowSeconds = int64(accounts.AttemptWindow / time.Second)

// TakeAttempt implements accounts.Attempts with one statement: an upsert
// of the current window's row that returns its count with the previous
// window's. It is atomic on both databases (PostgreSQL's ON CONFLICT
// takes the row lock; SQLite has one writer), so attempts spread over
// several instances are all counted.
func (q *queries) TakeAttempt(ctx context.Context, kind accounts.AttemptKind, key string, limit int) (bool, time.Duration, error) {
	now := q.now()
	start := now.Unix() - now.Unix()%windowSeconds
	sum := sha256.Sum256([]byte(key))
	h := hex.EncodeToString(sum[:])
	var prev, cur int64
	err := q.write.WithContext(ctx).Raw(`INSERT INTO password_attempts (kind, key_hash, window_start, attempts) VALUES (?, ?, ?, 1)
		ON CONFLICT (kind, key_hash, window_start) DO UPDATE SET attempts = password_attempts.attempts + 1
		RETURNING COALESCE((SELECT p.attempts FROM password_attempts p WHERE p.kind = ? AND p.key_hash = ? AND p.window_start = ?), 0), attempts`,
		kind, h, start, kind, h, start-windowSeconds).Row().Scan(&prev, &cur)
	if err != nil {
		return false, 0, fmt.Errorf("count password attempt: %w", err)
	}
	ok, wait := accounts.AttemptAllowed(prev, cur, now.Sub(time.Unix(start, 0)), limit)
	return ok, wait, nil
}

// PurgePasswordAttempts deletes the counts that no longer count at
// before (a window counts until the end of the window after it), in small
// batches, and returns how many rows it deleted.
func (s *Store) PurgePasswordAttempts(ctx context.Context, before time.Time) (int64, error) {
	return s.purge(ctx, "password attempts", `DELETE FROM password_attempts WHERE (kind, key_hash, window_start) IN
		(SELECT kind, key_hash, window_start FROM password_attempts WHERE window_start <= ? LIMIT ?)`, before.Unix()-2*windowSeconds)
}
