package httpapi

import (
	"errors"
	"net/http"
	"net/netip"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/pkg/ginauth"
	"github.com/carhub/backend/pkg/ginx"
	"github.com/carhub/backend/services/fuel/internal/accounts"
)

// addressKey is what login attempts from ip are counted under: an IPv4
// address itself (also when written as IPv4-mapped IPv6), and an IPv6
// address's /64. One IPv6 subscriber or host is handed a whole /64 and may
// take any address in it, so counting single addresses would give each
// client 2^64 login budgets.
func addressKey(ip string) string {
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return ip // not an address (gin found none): counted as it is
	}
	a = a.Unmap().WithZone("")
	if a.Is4() {
		return a.String()
	}
	return netip.PrefixFrom(a, 64).Masked().String()
}

// allowPassword takes one password attempt (what: "login", "password
// change", ...) from the budgets of the client's address and of username,
// or returns the 429 to answer (or the database's error).
func (a *accountRoutes) allowPassword(c *gin.Context, what, username string) error {
	if err := a.takeAttempt(c, what, accounts.AttemptsByAddress, addressKey(c.ClientIP())); err != nil {
		return err
	}
	return a.takeAttempt(c, what, accounts.AttemptsByUsername, strings.ToLower(username))
}

// takeAttempt counts one attempt against a budget of LoginsPerMinute in
// the database, where every replica counts (proto-docs/auth-decisions.md,
// "Password attempts counted across replicas"): nil within it, else the
// 429 answer with its Retry-After.
func (a *accountRoutes) takeAttempt(c *gin.Context, what string, kind accounts.AttemptKind, key string) error {
	if a.opts.LoginsPerMinute <= 0 {
		return nil
	}
	ok, wait, err := a.opts.Accounts.TakeAttempt(c.Request.Context(), kind, key, a.opts.LoginsPerMinute)
	if err != nil {
		return err
	}
	if !ok {
		return ginauth.Exhausted(what, wait)
	}
	return nil
}

// checkPassword verifies the signed-in caller's password, after taking an
// attempt from the caller's budgets: nil when it matches, else the answer
// (429, 503, or 400 "current_password: does not match").
func (a *accountRoutes) checkPassword(c *gin.Context, what string, u accounts.User, password string) error {
	if err := a.allowPassword(c, what, u.Username); err != nil {
		return err
	}
	ok, err := a.passwords.Verify(c.Request.Context(), password, u.PasswordHash)
	if err != nil {
		return err
	}
	if !ok {
		return apperr.Invalid("current_password", "does not match")
	}
	return nil
}

type loginRequest struct {
	Username *string `json:"username"`
	Password *string `json:"password"`
}

type loginResponse struct {
	Token     string       `json:"token"`
	ExpiresAt string       `json:"expires_at"`
	User      userResponse `json:"user"`
}

// login checks a username and password. A wrong password and an unknown
// user get the same 401 after the same work (auth.Passwords.Verify);
// attempts are limited per username and per client address.
func (a *accountRoutes) login(c *gin.Context) {
	var req loginRequest
	if err := ginx.BindJSON(c, &req); err != nil {
		ginx.Fail(c, err)
		return
	}
	name, nameErr := requiredUsername(req.Username)
	var passwordErr error
	if req.Password == nil || *req.Password == "" {
		passwordErr = apperr.Invalid("password", "is required")
	}
	if err := apperr.Join(nameErr, passwordErr); err != nil {
		ginx.Fail(c, err)
		return
	}
	name = strings.ToLower(name)
	if err := a.allowPassword(c, "login", name); err != nil {
		ginx.Fail(c, err)
		return
	}
	ctx := c.Request.Context()
	u, err := a.opts.Accounts.UserByUsername(ctx, name)
	if err != nil && !errors.Is(err, accounts.ErrUserNotFound) {
		ginx.Fail(c, err)
		return
	}
	ok, err := a.passwords.Verify(ctx, *req.Password, u.PasswordHash) // "" for an unknown user
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	if !ok {
		ginx.Fail(c, apperr.New(apperr.Unauthorized, "wrong username or password"))
		return
	}
	token, hash := auth.NewToken(auth.KindSession)
	t := accounts.Token{UserID: u.ID, Kind: auth.KindSession, Name: "login", Scope: auth.ScopeWrite}
	if err := a.opts.Accounts.CreateToken(ctx, &t, hash); err != nil {
		ginx.Fail(c, err)
		return
	}
	c.JSON(http.StatusOK, loginResponse{
		Token: token, ExpiresAt: formatTime(t.End()),
		User: toUserResponse(u),
	})
}

type passwordRequest struct {
	CurrentPassword *string `json:"current_password"`
	NewPassword     *string `json:"new_password"`
	// RevokeTokens (default true) also revokes every personal access token
	// of the user.
	RevokeTokens *bool `json:"revoke_tokens"`
}

// changePassword sets the caller's password and ends the caller's other
// sessions and, unless revoke_tokens is false, every personal access
// token. Attempts count as logins (per user and per address).
func (a *accountRoutes) changePassword(c *gin.Context) {
	var req passwordRequest
	if err := ginx.BindJSON(c, &req); err != nil {
		ginx.Fail(c, err)
		return
	}
	var currentErr, newErr error
	if req.CurrentPassword == nil {
		currentErr = apperr.Invalid("current_password", "is required")
	}
	if req.NewPassword == nil {
		newErr = apperr.Invalid("new_password", "is required")
	} else if err := auth.CheckPassword(*req.NewPassword); err != nil {
		newErr = apperr.Invalid("new_password", "%s", err.Error())
	}
	if err := apperr.Join(currentErr, newErr); err != nil {
		ginx.Fail(c, err)
		return
	}
	id, _ := auth.FromContext(c.Request.Context())
	ctx := c.Request.Context()
	u, err := a.opts.Accounts.UserByUsername(ctx, id.Username)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	if err := a.checkPassword(c, "password change", u, *req.CurrentPassword); err != nil {
		ginx.Fail(c, err)
		return
	}
	hash, err := a.passwords.Hash(ctx, *req.NewPassword)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	revokeTokens := req.RevokeTokens == nil || *req.RevokeTokens
	err = a.opts.Accounts.SetPassword(ctx, u.ID, hash, id.TokenID, revokeTokens)
	a.tokens.purge()
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}
