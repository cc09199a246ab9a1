// Package accounts holds the nouns of the fuel service's accounts: users,
// their login sessions and personal access tokens, the errors of the
// accounts, and the Store interface that the database layer implements
// (services/fuel/internal/store) and the HTTP routes use
// (services/fuel/internal/httpapi). Token kinds and scopes, identities and
// password hashing are shared with other services and stay in pkg/auth.
//
// Vehicle members stay fuel nouns (fuel.Member, fuel.Role,
// fuel.ErrMemberNotFound): a member is a vehicle's sharing, checked with
// the vehicle's ownership and answered with the vehicle's errors. Only the
// methods that share a vehicle with a user are part of Store here, since
// they name users and answer ErrUserNotFound.
package accounts

import (
	"errors"
	"time"

	"github.com/carhub/backend/pkg/auth"
)

// Session lifetimes (issue 13): a login session ends 30 days after its last
// use and 90 days after it began, whichever comes first.
const (
	SessionIdle    = 30 * 24 * time.Hour
	SessionMaxLife = 90 * 24 * time.Hour
)

// Errors of the accounts.
var (
	ErrUserNotFound    = errors.New("user not found")
	ErrUsernameTaken   = errors.New("username taken")
	ErrTokenNotFound   = errors.New("token not found")
	ErrInvalidToken    = errors.New("token unknown, expired or revoked")
	ErrAccountsClaimed = errors.New("an account with a password already exists")
)

// User is an account.
type User struct {
	ID           uint64
	Username     string
	PasswordHash string
	Admin        bool
	CreatedAt    time.Time
}

// Token is a login session or a personal access token, without its secret.
type Token struct {
	ID         uint64
	UserID     uint64
	Kind       auth.Kind
	Name       string
	Scope      auth.Scope
	CreatedAt  time.Time
	LastUsedAt time.Time
	// ExpiresAt is the absolute end; zero for a personal token that never
	// expires.
	ExpiresAt time.Time
}

// End is when t stops being valid at the latest, counting a session's idle
// limit from its last use; zero when it never ends.
func (t Token) End() time.Time {
	end := t.ExpiresAt
	if t.Kind == auth.KindSession {
		if idle := t.LastUsedAt.Add(SessionIdle); idle.Before(end) {
			end = idle
		}
	}
	return end
}
