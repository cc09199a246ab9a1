package httpapi

import (
	"context"
	"errors"
	"net/http"

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

// createToken makes a personal access token (accounts.Logins.CreateToken
// says who may).
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
	made, err := a.logins.CreateToken(ctx, c.ClientIP(), id, caller, accounts.TokenRequest(req), a.now())
	if err != nil {
		ginx.Fail(c, accountsError(err))
		return
	}
	out := toTokenResponse(made.Token, 0)
	out.Token = made.Secret
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
