package httpapi

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/pkg/ginauth"
	"github.com/carhub/backend/pkg/ginx"
	"github.com/carhub/backend/services/fuel/internal/accounts"
)

func (a *accountRoutes) logout(c *gin.Context) {
	id, _ := auth.FromContext(c.Request.Context())
	err := a.opts.Accounts.RevokeToken(c.Request.Context(), id.UserID, id.TokenID)
	a.tokens.Purge()
	if err != nil && !errors.Is(err, accounts.ErrTokenNotFound) {
		ginx.Fail(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}

type tokenRequest struct {
	Name          *string `json:"name"`
	Scope         *string `json:"scope"`
	ExpiresInDays *int    `json:"expires_in_days"`
	// CurrentPassword is required of an account with a password.
	CurrentPassword *string `json:"current_password"`
}

type tokenResponse struct {
	ID         uint64  `json:"id"`
	Kind       string  `json:"kind"`
	Name       string  `json:"name"`
	Scope      string  `json:"scope"`
	CreatedAt  string  `json:"created_at"`
	LastUsedAt string  `json:"last_used_at"`
	ExpiresAt  *string `json:"expires_at"`
	// Current marks the token of the request that lists them.
	Current bool `json:"current"`
	// Token is the secret, in the answer that creates it only.
	Token string `json:"token,omitempty"`
}

func toTokenResponse(t accounts.Token, current uint64) tokenResponse {
	out := tokenResponse{
		ID: t.ID, Kind: string(t.Kind), Name: t.Name, Scope: string(t.Scope),
		CreatedAt: formatTime(t.CreatedAt), LastUsedAt: formatTime(t.LastUsedAt), Current: t.ID == current,
	}
	if end := t.End(); !end.IsZero() {
		s := formatTime(end)
		out.ExpiresAt = &s
	}
	return out
}

// maxTokenDays bounds expires_in_days (ten years).
const maxTokenDays = 3650

// freshSignIn is how recent the session of an account without a password
// (made by single sign-on) must be to create an access token: the sign-in
// stands in for the password such an account cannot give.
const freshSignIn = 10 * time.Minute

// currentToken returns the row of the token the request came with.
func (a *accountRoutes) currentToken(ctx context.Context, id auth.Identity) (accounts.Token, error) {
	ts, err := a.opts.Accounts.Tokens(ctx, id.UserID)
	if err != nil {
		return accounts.Token{}, err
	}
	for _, t := range ts {
		if t.ID == id.TokenID {
			return t, nil
		}
	}
	return accounts.Token{}, ginauth.ErrUnauthorized() // revoked since it was verified
}

// createToken makes a personal access token. Only a login session may,
// and only with the account's password, or for an account without one a
// session signed in within freshSignIn: a stolen session or token alone
// cannot mint a credential that outlives it.
func (a *accountRoutes) createToken(c *gin.Context) {
	var req tokenRequest
	if err := ginx.BindJSON(c, &req); err != nil {
		ginx.Fail(c, err)
		return
	}
	ctx := c.Request.Context()
	id, _ := auth.FromContext(ctx)
	caller, err := a.currentToken(ctx, id)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	if caller.Kind != auth.KindSession {
		ginx.Fail(c, apperr.New(apperr.Forbidden, "an access token cannot create access tokens: sign in to create one"))
		return
	}
	u, err := a.opts.Accounts.UserByUsername(ctx, id.Username)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	var errs []error
	if req.Name == nil || strings.TrimSpace(*req.Name) == "" || len([]rune(strings.TrimSpace(*req.Name))) > 64 {
		errs = append(errs, apperr.Invalid("name", "is required, at most 64 characters"))
	}
	scope, ok := auth.Scope(""), false
	if req.Scope != nil {
		scope, ok = auth.ParseScope(*req.Scope)
	}
	if !ok {
		errs = append(errs, apperr.Invalid("scope", "must be read or write"))
	}
	if d := req.ExpiresInDays; d != nil && (*d < 1 || *d > maxTokenDays) {
		errs = append(errs, apperr.Invalid("expires_in_days", "must be between 1 and %d", maxTokenDays))
	}
	hasPassword := u.PasswordHash != ""
	if hasPassword && (req.CurrentPassword == nil || *req.CurrentPassword == "") {
		errs = append(errs, apperr.Invalid("current_password", "is required"))
	}
	if err := apperr.Join(errs...); err != nil {
		ginx.Fail(c, err)
		return
	}
	if hasPassword {
		err = accountsError(a.logins.CheckPassword(ctx, "token creation", c.ClientIP(), u, *req.CurrentPassword))
	} else if a.now().Sub(caller.CreatedAt) > freshSignIn {
		err = apperr.New(apperr.Forbidden, "sign in again to create an access token: an account without a password needs a sign-in of the last %d minutes", int(freshSignIn.Minutes()))
	}
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	t := accounts.Token{UserID: id.UserID, Kind: auth.KindToken, Name: strings.TrimSpace(*req.Name), Scope: scope}
	if req.ExpiresInDays != nil {
		t.ExpiresAt = a.now().Add(time.Duration(*req.ExpiresInDays) * 24 * time.Hour)
	}
	token, hash := auth.NewToken(auth.KindToken)
	if err := a.opts.Accounts.CreateToken(ctx, &t, hash); err != nil {
		ginx.Fail(c, err)
		return
	}
	out := toTokenResponse(t, 0)
	out.Token = token
	c.JSON(http.StatusOK, out)
}

func (a *accountRoutes) listTokens(c *gin.Context) {
	id, _ := auth.FromContext(c.Request.Context())
	ts, err := a.opts.Accounts.Tokens(c.Request.Context(), id.UserID)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	out := make([]tokenResponse, len(ts))
	for i, t := range ts {
		out[i] = toTokenResponse(t, id.TokenID)
	}
	c.JSON(http.StatusOK, out)
}

func (a *accountRoutes) revokeToken(c *gin.Context) {
	tid, err := pathID(c)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	id, _ := auth.FromContext(c.Request.Context())
	err = a.opts.Accounts.RevokeToken(c.Request.Context(), id.UserID, tid)
	a.tokens.Purge()
	if errors.Is(err, accounts.ErrTokenNotFound) {
		ginx.Fail(c, apperr.New(apperr.NotFound, "token %d not found", tid))
		return
	}
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}
