package accounts

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"time"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/pkg/auth"
)

// Logins is the password-attempt policy (proto-docs/auth-decisions.md,
// "Password attempts counted across replicas"): every password attempt,
// a login, a password change or the password check of a token's
// creation, all counted together so that a guesser gains nothing by
// spreading guesses over routes, takes one attempt from the budget of the
// client's address and one from the username's, each of PerMinute
// attempts per AttemptWindow, counted in the Store that every instance on
// one database shares. It knows no HTTP: internal/httpapi passes the
// client's address and answers *AttemptsExhausted as 429.
type Logins struct {
	store     Store
	passwords *auth.Passwords
	perMinute int
}

// NewLogins returns the policy over store; perMinute <= 0 means no limit.
// passwords bounds the argon2id work running at once.
func NewLogins(store Store, passwords *auth.Passwords, perMinute int) *Logins {
	return &Logins{store: store, passwords: passwords, perMinute: perMinute}
}

// AttemptsExhausted is the refusal of an attempt over its budget: what
// was attempted ("login", "password change", ...) and how long until one
// more attempt would fit.
type AttemptsExhausted struct {
	What       string
	RetryAfter time.Duration
}

func (e *AttemptsExhausted) Error() string {
	return e.What + ": too many attempts, retry after " + e.RetryAfter.String()
}

// AddressKey is what attempts from the client address ip are counted
// under: an IPv4 address itself (also when written as IPv4-mapped IPv6),
// and an IPv6 address's /64. One IPv6 subscriber or host is handed a
// whole /64 and may take any address in it, so counting single addresses
// would give each client 2^64 login budgets.
func AddressKey(ip string) string {
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return ip // not an address (the caller found none): counted as it is
	}
	a = a.Unmap().WithZone("")
	if a.Is4() {
		return a.String()
	}
	return netip.PrefixFrom(a, 64).Masked().String()
}

// Allow takes one attempt of what from the budgets of the client address
// and of username (in any case): nil within both, else *AttemptsExhausted
// (or the store's error).
func (l *Logins) Allow(ctx context.Context, what, address, username string) error {
	if err := l.AllowAddress(ctx, what, address); err != nil {
		return err
	}
	return l.take(ctx, what, AttemptsByUsername, strings.ToLower(username))
}

// AllowAddress takes one attempt of what from the budget of the client
// address only: a sign-in with an OpenID provider names no username
// before it succeeds.
func (l *Logins) AllowAddress(ctx context.Context, what, address string) error {
	return l.take(ctx, what, AttemptsByAddress, AddressKey(address))
}

func (l *Logins) take(ctx context.Context, what string, kind AttemptKind, key string) error {
	if l.perMinute <= 0 {
		return nil
	}
	ok, wait, err := l.store.TakeAttempt(ctx, kind, key, l.perMinute)
	if err != nil {
		return err
	}
	if !ok {
		return &AttemptsExhausted{What: what, RetryAfter: wait}
	}
	return nil
}

// CheckPassword verifies the password of u, a signed-in caller at
// address, after taking an attempt of what from the caller's budgets: nil
// when it matches, else *AttemptsExhausted, auth's error when the
// password work is over its bound, or apperr INVALID_ARGUMENT
// "current_password: does not match".
func (l *Logins) CheckPassword(ctx context.Context, what, address string, u User, password string) error {
	if err := l.Allow(ctx, what, address, u.Username); err != nil {
		return err
	}
	ok, err := l.passwords.Verify(ctx, password, u.PasswordHash)
	if err != nil {
		return err
	}
	if !ok {
		return apperr.Invalid("current_password", "does not match")
	}
	return nil
}

// Session is a new login session: its secret, its row and its user.
type Session struct {
	Secret string
	Token  Token
	User   User
}

// ErrWrongPassword answers a login whose username or password is wrong,
// without saying which.
var ErrWrongPassword = apperr.New(apperr.Unauthorized, "wrong username or password")

// Login checks username (lower-cased) and password from address and
// opens a session. A wrong password and an unknown user get the same
// ErrWrongPassword after the same work (auth.Passwords.Verify of an empty
// hash); *AttemptsExhausted over a budget.
func (l *Logins) Login(ctx context.Context, address, username, password string) (Session, error) {
	username = strings.ToLower(username)
	if err := l.Allow(ctx, "login", address, username); err != nil {
		return Session{}, err
	}
	u, err := l.store.UserByUsername(ctx, username)
	if err != nil && !errors.Is(err, ErrUserNotFound) {
		return Session{}, err
	}
	ok, err := l.passwords.Verify(ctx, password, u.PasswordHash) // "" for an unknown user
	if err != nil {
		return Session{}, err
	}
	if !ok {
		return Session{}, ErrWrongPassword
	}
	return OpenSession(ctx, l.store, u, "login")
}

// OpenSession stores a new login session of u named name.
func OpenSession(ctx context.Context, store Store, u User, name string) (Session, error) {
	secret, hash := auth.NewToken(auth.KindSession)
	t := Token{UserID: u.ID, Kind: auth.KindSession, Name: name, Scope: auth.ScopeWrite}
	if err := store.CreateToken(ctx, &t, hash); err != nil {
		return Session{}, err
	}
	return Session{Secret: secret, Token: t, User: u}, nil
}

// ChangePassword sets the password of the caller id (at address) to next
// once current matches (CheckPassword, counted as an attempt), and ends
// the caller's other sessions and, with revokeTokens, every personal
// access token. next must have passed auth.CheckPassword.
func (l *Logins) ChangePassword(ctx context.Context, address string, id auth.Identity, current, next string, revokeTokens bool) error {
	u, err := l.store.UserByUsername(ctx, id.Username)
	if err != nil {
		return err
	}
	if err := l.CheckPassword(ctx, "password change", address, u, current); err != nil {
		return err
	}
	hash, err := l.passwords.Hash(ctx, next)
	if err != nil {
		return err
	}
	return l.store.SetPassword(ctx, u.ID, hash, id.TokenID, revokeTokens)
}
