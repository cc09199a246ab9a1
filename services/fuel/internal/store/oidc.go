package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"gorm.io/gorm"

	"github.com/carhub/backend/services/fuel/internal/accounts"
)

// maxUsernameRunes is the schema's limit on users.username.
const maxUsernameRunes = 64

// numberedUsernames is how many numbered names (ann-2 .. ann-9) an OIDC
// account tries after the one it asked for before a random suffix.
const numberedUsernames = 8

// randomUsernames is how many random suffixes are tried after those.
const randomUsernames = 4

// OIDCUser returns the account linked to (issuer, subject), the identity
// an OpenID provider vouches for, and whether this call made it. The first
// sign-in makes an account without a password and not an administrator,
// named username or, when that name is taken in any case (by a local
// account too: a provider's claim never takes over an existing account),
// username-2 .. username-9, then username with a random suffix. The
// unique indexes decide between concurrent first sign-ins of one subject:
// one inserts, the others find its row.
func (q *queries) OIDCUser(ctx context.Context, issuer, subject, username string) (accounts.User, bool, error) {
	if issuer == "" || subject == "" {
		return accounts.User{}, false, errors.New("oidc user: issuer and subject are required")
	}
	u, err := q.userByOIDC(q.read.WithContext(ctx), issuer, subject)
	if err == nil || !errors.Is(err, accounts.ErrUserNotFound) {
		return u, false, err
	}
	base := strings.TrimSpace(username)
	if base == "" {
		base = "user"
	}
	for i := range 1 + numberedUsernames + randomUsernames {
		name, err := usernameCandidate(base, i)
		if err != nil {
			return accounts.User{}, false, err
		}
		u := accounts.User{Username: name, CreatedAt: q.now()}
		err = q.write.WithContext(ctx).Raw("INSERT INTO users (username, password_hash, is_admin, oidc_issuer, oidc_subject, created_at) "+
			"VALUES (?, '', ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING id", u.Username, false, issuer, subject, u.CreatedAt).Scan(&u.ID).Error
		if err != nil {
			return accounts.User{}, false, fmt.Errorf("create oidc user: %w", err)
		}
		if u.ID != 0 {
			return u, true, nil
		}
		// Either the name is taken or a concurrent sign-in of the same
		// subject won: its row is then committed (the writer's lock on
		// SQLite, the unique index's wait on PostgreSQL).
		switch u, err := q.userByOIDC(q.write.WithContext(ctx), issuer, subject); {
		case err == nil:
			return u, false, nil
		case !errors.Is(err, accounts.ErrUserNotFound):
			return accounts.User{}, false, err
		}
	}
	return accounts.User{}, false, fmt.Errorf("create oidc user %q: %w", base, accounts.ErrUsernameTaken)
}

// userByOIDC returns the account linked to (issuer, subject).
func (q *queries) userByOIDC(h *gorm.DB, issuer, subject string) (accounts.User, error) {
	u, err := q.scanUser(h.Raw("SELECT "+userColumns+timeColumn(q.dialect, "created_at")+
		" FROM users WHERE oidc_issuer = ? AND oidc_subject = ?", issuer, subject).Row())
	if errors.Is(err, sql.ErrNoRows) {
		return accounts.User{}, accounts.ErrUserNotFound
	}
	if err != nil {
		return accounts.User{}, fmt.Errorf("get oidc user: %w", err)
	}
	return u, nil
}

// usernameCandidate is the i-th name tried for base: base itself, then
// base-2 .. base-9, then base and 8 random hex digits; base is cut so that
// the name stays within the schema's 64 characters.
func usernameCandidate(base string, i int) (string, error) {
	suffix := ""
	switch {
	case i == 0:
	case i <= numberedUsernames:
		suffix = "-" + strconv.Itoa(i+1)
	default:
		b := make([]byte, 4)
		if _, err := rand.Read(b); err != nil {
			return "", err
		}
		suffix = "-" + hex.EncodeToString(b)
	}
	r := []rune(base)
	if limit := maxUsernameRunes - len(suffix); len(r) > limit {
		r = r[:limit]
	}
	return strings.TrimSpace(string(r)) + suffix, nil
}
