package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"

	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/services/fuel/internal/accounts"
)

// lastUsedEvery: last_used_at is written at most this often per token,
// so verifying a token is a read, not a write, on nearly every request.
const lastUsedEvery = time.Minute

const userColumns = "id, username, password_hash, is_admin, "

func (q *queries) scanUser(row interface{ Scan(...any) error }) (accounts.User, error) {
	var u accounts.User
	err := row.Scan(&u.ID, &u.Username, &u.PasswordHash, &u.Admin, (*timestamp)(&u.CreatedAt))
	u.CreatedAt = u.CreatedAt.UTC()
	return u, err
}

// CreateUser stores a new account. The username is trimmed; a username
// taken in any case is accounts.ErrUsernameTaken.
func (q *queries) CreateUser(ctx context.Context, username, passwordHash string, admin bool) (accounts.User, error) {
	u := accounts.User{Username: strings.TrimSpace(username), PasswordHash: passwordHash, Admin: admin, CreatedAt: q.now()}
	// The unique index on lower(username) decides, also between concurrent
	// writers: a conflicting insert returns no id.
	err := q.write.WithContext(ctx).Raw("INSERT INTO users (username, password_hash, is_admin, created_at) VALUES (?, ?, ?, ?) "+
		"ON CONFLICT DO NOTHING RETURNING id", u.Username, u.PasswordHash, u.Admin, u.CreatedAt).Scan(&u.ID).Error
	if err != nil {
		return accounts.User{}, fmt.Errorf("create user: %w", err)
	}
	if u.ID == 0 {
		return accounts.User{}, accounts.ErrUsernameTaken
	}
	return u, nil
}

// usernameTaken reports whether another user than except has name in any
// case (the claim of the built-in user renames it: the writer's lock on
// SQLite and the unique index on PostgreSQL keep two claims apart).
func (q *queries) usernameTaken(h *gorm.DB, name string, except uint64) (bool, error) {
	var n int64
	err := h.Raw("SELECT count(*) FROM users WHERE lower(username) = lower(?) AND id <> ?", name, except).Scan(&n).Error
	return n > 0, err
}

// UserByUsername returns the account of a username in any case.
func (q *queries) UserByUsername(ctx context.Context, username string) (accounts.User, error) {
	u, err := q.scanUser(q.read.WithContext(ctx).Raw("SELECT "+userColumns+timeColumn(q.dialect, "created_at")+
		" FROM users WHERE lower(username) = lower(?)", strings.TrimSpace(username)).Row())
	if errors.Is(err, sql.ErrNoRows) {
		return accounts.User{}, accounts.ErrUserNotFound
	}
	if err != nil {
		return accounts.User{}, fmt.Errorf("get user: %w", err)
	}
	return u, nil
}

// Users returns every account by id.
func (q *queries) Users(ctx context.Context) ([]accounts.User, error) {
	rows, err := q.read.WithContext(ctx).Raw("SELECT " + userColumns + timeColumn(q.dialect, "created_at") + " FROM users ORDER BY id").Rows()
	if err != nil {
		return nil, fmt.Errorf("list users: %w", err)
	}
	defer rows.Close()
	out := []accounts.User{}
	for rows.Next() {
		u, err := q.scanUser(rows)
		if err != nil {
			return nil, fmt.Errorf("list users: %w", err)
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// DeleteUser deletes an account and, by the foreign keys, its tokens, its
// memberships and its vehicles with their refuels and members (on SQLite
// the vehicles by a trigger: see migration 0005).
func (q *queries) DeleteUser(ctx context.Context, id uint64) error {
	if !storable(id) {
		return accounts.ErrUserNotFound
	}
	res := q.write.WithContext(ctx).Exec("DELETE FROM users WHERE id = ?", id)
	if res.Error != nil {
		return fmt.Errorf("delete user %d: %w", id, res.Error)
	}
	if res.RowsAffected == 0 {
		return accounts.ErrUserNotFound
	}
	return nil
}

// ClaimBuiltinUser makes the built-in user (who owns what was made with
// AUTH_MODE=off) the first administrator, with this username and password
// hash, when no account has a password yet; else accounts.ErrAccountsClaimed.
func (q *queries) ClaimBuiltinUser(ctx context.Context, username, passwordHash string) (accounts.User, error) {
	var u accounts.User
	err := q.write.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var n int64
		if err := tx.Raw("SELECT count(*) FROM users WHERE password_hash <> ''").Scan(&n).Error; err != nil {
			return err
		}
		if n > 0 {
			return accounts.ErrAccountsClaimed
		}
		name := strings.TrimSpace(username)
		if taken, err := q.usernameTaken(tx, name, auth.BuiltinUserID); err != nil || taken {
			if taken {
				return accounts.ErrUsernameTaken
			}
			return err
		}
		res := tx.Exec("UPDATE users SET username = ?, password_hash = ?, is_admin = ? WHERE id = ?", name, passwordHash, true, auth.BuiltinUserID)
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected != 1 {
			return accounts.ErrUserNotFound
		}
		var err error
		u, err = q.scanUser(tx.Raw("SELECT "+userColumns+timeColumn(q.dialect, "created_at")+" FROM users WHERE id = ?", auth.BuiltinUserID).Row())
		return err
	})
	if err != nil && !errors.Is(err, accounts.ErrAccountsClaimed) && !errors.Is(err, accounts.ErrUsernameTaken) {
		return accounts.User{}, fmt.Errorf("claim the built-in user: %w", err)
	}
	return u, err
}

// SetPassword changes a user's password hash and, in one transaction,
// revokes the user's sessions other than keep (the one that asked) and,
// with revokeTokens, every personal access token of the user (keep too,
// when it is one).
func (q *queries) SetPassword(ctx context.Context, userID uint64, passwordHash string, keep uint64, revokeTokens bool) error {
	return q.write.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		res := tx.Exec("UPDATE users SET password_hash = ? WHERE id = ?", passwordHash, userID)
		if res.Error != nil {
			return fmt.Errorf("set password: %w", res.Error)
		}
		if res.RowsAffected == 0 {
			return accounts.ErrUserNotFound
		}
		if err := tx.Exec("DELETE FROM auth_tokens WHERE user_id = ? AND ((kind = ? AND id <> ?) OR (kind = ? AND ?))",
			userID, string(auth.KindSession), keep, string(auth.KindToken), revokeTokens).Error; err != nil {
			return fmt.Errorf("revoke sessions: %w", err)
		}
		return nil
	})
}

// CreateToken stores t with the hash of its secret and fills in its id and
// times. A session ends accounts.SessionMaxLife after now; a personal token at
// t.ExpiresAt (zero: never).
func (q *queries) CreateToken(ctx context.Context, t *accounts.Token, hash []byte) error {
	now := q.now()
	t.CreatedAt, t.LastUsedAt = now, now
	if t.Kind == auth.KindSession {
		t.ExpiresAt = now.Add(accounts.SessionMaxLife)
	}
	var expires any
	if !t.ExpiresAt.IsZero() {
		expires = t.ExpiresAt
	}
	err := q.write.WithContext(ctx).Raw("INSERT INTO auth_tokens (user_id, kind, name, scope, token_hash, created_at, last_used_at, expires_at) "+
		"VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id", t.UserID, string(t.Kind), t.Name, string(t.Scope), hash, now, now, expires).Scan(&t.ID).Error
	if err != nil {
		return fmt.Errorf("create token: %w", err)
	}
	return nil
}

const tokenColumns = "t.id, t.user_id, t.kind, t.name, t.scope, "

func (q *queries) tokenTimes() string {
	return timeColumn(q.dialect, "t.created_at") + ", " + timeColumn(q.dialect, "t.last_used_at") + ", " + timeColumn(q.dialect, "t.expires_at")
}

func scanToken(row interface{ Scan(...any) error }, extra ...any) (accounts.Token, error) {
	var t accounts.Token
	var expires sql.Null[timestamp]
	err := row.Scan(append([]any{&t.ID, &t.UserID, &t.Kind, &t.Name, &t.Scope, (*timestamp)(&t.CreatedAt), (*timestamp)(&t.LastUsedAt), &expires}, extra...)...)
	t.CreatedAt, t.LastUsedAt = t.CreatedAt.UTC(), t.LastUsedAt.UTC()
	if expires.Valid {
		t.ExpiresAt = time.Time(expires.V).UTC()
	}
	return t, err
}

// VerifyToken returns the identity of the token whose hash is given, if it
// exists and has not ended at now; else accounts.ErrInvalidToken. The row is found
// by its hash (unique index) and the hashes compared again in constant
// time. Its last use is recorded at most once a minute.
func (q *queries) VerifyToken(ctx context.Context, hash []byte) (auth.Identity, error) {
	now := q.now()
	var stored []byte
	var u accounts.User
	t, err := scanToken(q.read.WithContext(ctx).Raw("SELECT "+tokenColumns+q.tokenTimes()+", t.token_hash, u.username, u.is_admin "+
		"FROM auth_tokens t JOIN users u ON u.id = t.user_id WHERE t.token_hash = ?", hash).Row(), &stored, &u.Username, &u.Admin)
	if errors.Is(err, sql.ErrNoRows) {
		return auth.Identity{}, accounts.ErrInvalidToken
	}
	if err != nil {
		return auth.Identity{}, fmt.Errorf("verify token: %w", err)
	}
	if !auth.HashesEqual(stored, hash) {
		return auth.Identity{}, accounts.ErrInvalidToken
	}
	if end := t.End(); !end.IsZero() && !now.Before(end) {
		return auth.Identity{}, accounts.ErrInvalidToken
	}
	if now.Sub(t.LastUsedAt) >= lastUsedEvery {
		if err := q.write.WithContext(ctx).Exec("UPDATE auth_tokens SET last_used_at = ? WHERE id = ?", now, t.ID).Error; err != nil {
			return auth.Identity{}, fmt.Errorf("record token use: %w", err)
		}
	}
	return auth.Identity{UserID: t.UserID, Username: u.Username, Admin: u.Admin, Scope: t.Scope, TokenID: t.ID}, nil
}

// Tokens lists a user's sessions and personal tokens, newest first.
func (q *queries) Tokens(ctx context.Context, userID uint64) ([]accounts.Token, error) {
	rows, err := q.read.WithContext(ctx).Raw("SELECT "+tokenColumns+q.tokenTimes()+" FROM auth_tokens t WHERE t.user_id = ? ORDER BY t.id DESC", userID).Rows()
	if err != nil {
		return nil, fmt.Errorf("list tokens: %w", err)
	}
	defer rows.Close()
	out := []accounts.Token{}
	for rows.Next() {
		t, err := scanToken(rows)
		if err != nil {
			return nil, fmt.Errorf("list tokens: %w", err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// RevokeToken deletes one of the user's tokens; another user's token is
// accounts.ErrTokenNotFound, as if it did not exist.
func (q *queries) RevokeToken(ctx context.Context, userID, id uint64) error {
	if !storable(id) {
		return accounts.ErrTokenNotFound
	}
	res := q.write.WithContext(ctx).Exec("DELETE FROM auth_tokens WHERE id = ? AND user_id = ?", id, userID)
	if res.Error != nil {
		return fmt.Errorf("revoke token %d: %w", id, res.Error)
	}
	if res.RowsAffected == 0 {
		return accounts.ErrTokenNotFound
	}
	return nil
}

// PurgeExpiredTokens deletes the tokens that ended before now.
func (q *queries) PurgeExpiredTokens(ctx context.Context) (int64, error) {
	now := q.now()
	res := q.write.WithContext(ctx).Exec("DELETE FROM auth_tokens WHERE (expires_at IS NOT NULL AND expires_at <= ?) OR (kind = ? AND last_used_at <= ?)",
		now, string(auth.KindSession), now.Add(-accounts.SessionIdle))
	if res.Error != nil {
		return 0, fmt.Errorf("purge tokens: %w", res.Error)
	}
	return res.RowsAffected, nil
}
