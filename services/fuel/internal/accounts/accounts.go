// Package accounts holds the nouns of the fuel service's accounts: users,
// their login sessions and personal access tokens, the errors of the
// accounts, and the Store interface that the database layer implements
// (services/fuel/internal/store) and the HTTP routes use
// (services/fuel/internal/httpapi). Token kinds and scopes, identities and
// password hashing are shared with other services and stay in pkg/auth.
//
// It also holds the accounts' decisions, which know no HTTP: the
// password-attempt policy (Logins, logins.go, counting in the Store's
// Attempts), who may sign in with an OpenID provider and with which
// account (OIDC, oidc.go; the protocol itself is httpapi's), and the cache
// of verified tokens (TokenCache).
//
// Vehicle members stay fuel nouns (fuel.Member, fuel.Role,
// fuel.ErrMemberNotFound): a member is a vehicle's sharing, checked with
// the vehicle's ownership and answered with the vehicle's errors. Only the
// methods that share a vehicle with a user are part of Store here, since
// they name users and answer ErrUserNotFound.
package accounts

import (
	"context"
	"errors"
	"regexp"
	"time"

	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/services/fuel/internal/fuel"
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

// UsernamePattern is a username: letters, digits and . _ @ -, 1 to 64 of
// them.
var UsernamePattern = regexp.MustCompile(`^[\p{L}\p{N}._@-]{1,64}$`)

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

// Store keeps the accounts and their tokens, and counts password
// attempts. Methods return the errors named in their comments and other
// errors only for failures of the database.
type Store interface {
	Attempts

	// CreateUser stores a new account, its username trimmed;
	// ErrUsernameTaken when the name is taken in any case.
	CreateUser(ctx context.Context, username, passwordHash string, admin bool) (User, error)
	// UserByUsername returns the account of a username in any case;
	// ErrUserNotFound when there is none.
	UserByUsername(ctx context.Context, username string) (User, error)
	// Users returns every account by id.
	Users(ctx context.Context) ([]User, error)
	// DeleteUser deletes an account with its tokens, memberships and
	// vehicles; ErrUserNotFound when it does not exist.
	DeleteUser(ctx context.Context, id uint64) error
	// SetPassword changes a user's password hash and, in one transaction,
	// revokes the user's sessions other than keep and, with revokeTokens,
	// every personal access token of the user; ErrUserNotFound when the
	// user does not exist.
	SetPassword(ctx context.Context, userID uint64, passwordHash string, keep uint64, revokeTokens bool) error
	// CreateToken stores t with the hash of its secret and fills in its id
	// and times; a session ends SessionMaxLife after now.
	CreateToken(ctx context.Context, t *Token, hash []byte) error
	// VerifyToken returns the identity of the token whose secret hashes to
	// hash; ErrInvalidToken when it is unknown, expired or revoked.
	VerifyToken(ctx context.Context, hash []byte) (auth.Identity, error)
	// Tokens lists a user's sessions and personal tokens, newest first.
	Tokens(ctx context.Context, userID uint64) ([]Token, error)
	// RevokeToken deletes one of the user's tokens; ErrTokenNotFound when
	// the user has no token of that id.
	RevokeToken(ctx context.Context, userID, id uint64) error

	// Members returns the users a vehicle is shared with, by user id, for
	// the owner and the members (the user of ctx, as in fuel.Store);
	// fuel.ErrVehicleNotFound for anyone else.
	Members(ctx context.Context, vehicleID uint64) ([]fuel.Member, error)
	// SetMember shares a vehicle with a user as role, or changes the role
	// of a member. fuel.ErrVehicleNotFound for a vehicle the user of ctx
	// may not see, fuel.ErrForbidden for one they do not own, the error of
	// fuel.ParseMemberRole for a role other than viewer or editor, an
	// apperr.Invalid "user_id" error for the owner themselves,
	// ErrUserNotFound for an unknown user.
	SetMember(ctx context.Context, vehicleID, userID uint64, role fuel.Role) (fuel.Member, error)
	// RemoveMember ends the sharing of a vehicle with a user: only the
	// owner may (fuel.ErrVehicleNotFound, fuel.ErrForbidden as SetMember);
	// fuel.ErrMemberNotFound when the user is not a member.
	RemoveMember(ctx context.Context, vehicleID, userID uint64) error

	// OIDCUser returns the account linked to (issuer, subject) and whether
	// this call made it (named username, or a free variant of it); an
	// error wrapping ErrUsernameTaken when no variant of the name is free.
	OIDCUser(ctx context.Context, issuer, subject, username string) (User, bool, error)
}
