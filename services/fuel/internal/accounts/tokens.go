package accounts

import (
	"context"
	"strings"
	"time"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/pkg/auth"
)

// MaxTokenDays bounds a personal access token's expires_in_days (ten
// years).
const MaxTokenDays = 3650

// FreshSignIn is how recent the session of an account without a password
// (made by single sign-on) must be to create an access token: the sign-in
// stands in for the password such an account cannot give.
const FreshSignIn = 10 * time.Minute

// TokenRequest asks for a personal access token; a nil member was not
// given.
type TokenRequest struct {
	Name          *string
	Scope         *string
	ExpiresInDays *int
	// CurrentPassword is required of an account with a password.
	CurrentPassword *string
}

// NewToken is a personal access token just made: its secret, shown once,
// and its row.
type NewToken struct {
	Secret string
	Token  Token
}

// CreateToken makes a personal access token for the caller id, signed in
// with the token caller, from address at now. Only a login session may,
// and only with the account's password, or for an account without one a
// session signed in within FreshSignIn: a stolen session or token alone
// cannot mint a credential that outlives it.
//
// A token as caller is apperr FORBIDDEN; bad members are one
// INVALID_ARGUMENT naming each; the password check counts as an attempt
// of "token creation" (CheckPassword, so *AttemptsExhausted over a
// budget).
func (l *Logins) CreateToken(ctx context.Context, address string, id auth.Identity, caller Token, req TokenRequest, now time.Time) (NewToken, error) {
	if caller.Kind != auth.KindSession {
		return NewToken{}, apperr.New(apperr.Forbidden, "an access token cannot create access tokens: sign in to create one")
	}
	u, err := l.store.UserByUsername(ctx, id.Username)
	if err != nil {
		return NewToken{}, err
	}
	name := ""
	if req.Name != nil {
		name = strings.TrimSpace(*req.Name)
	}
	var errs []error
	if name == "" || len([]rune(name)) > 64 {
		errs = append(errs, apperr.Invalid("name", "is required, at most 64 characters"))
	}
	scope, ok := auth.Scope(""), false
	if req.Scope != nil {
		scope, ok = auth.ParseScope(*req.Scope)
	}
	if !ok {
		errs = append(errs, apperr.Invalid("scope", "must be read or write"))
	}
	if d := req.ExpiresInDays; d != nil && (*d < 1 || *d > MaxTokenDays) {
		errs = append(errs, apperr.Invalid("expires_in_days", "must be between 1 and %d", MaxTokenDays))
	}
	hasPassword := u.PasswordHash != ""
	if hasPassword && (req.CurrentPassword == nil || *req.CurrentPassword == "") {
		errs = append(errs, apperr.Invalid("current_password", "is required"))
	}
	if err := apperr.Join(errs...); err != nil {
		return NewToken{}, err
	}
	if hasPassword {
		if err := l.CheckPassword(ctx, "token creation", address, u, *req.CurrentPassword); err != nil {
			return NewToken{}, err
		}
	} else if now.Sub(caller.CreatedAt) > FreshSignIn {
		return NewToken{}, apperr.New(apperr.Forbidden, "sign in again to create an access token: an account without a password needs a sign-in of the last %d minutes", int(FreshSignIn.Minutes()))
	}
	t := Token{UserID: id.UserID, Kind: auth.KindToken, Name: name, Scope: scope}
	if req.ExpiresInDays != nil {
		t.ExpiresAt = now.Add(time.Duration(*req.ExpiresInDays) * 24 * time.Hour)
	}
	secret, hash := auth.NewToken(auth.KindToken)
	if err := l.store.CreateToken(ctx, &t, hash); err != nil {
		return NewToken{}, err
	}
	return NewToken{Secret: secret, Token: t}, nil
}
