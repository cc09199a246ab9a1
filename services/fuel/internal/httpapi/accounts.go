package httpapi

import (
	"errors"
	"log/slog"
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

// AuthOptions configure accounts (proto-docs/auth-decisions.md).
type AuthOptions struct {
	// Mode off (the zero value acts as off): every request acts as the
	// built-in user. Local: every /api request but login and config needs a
	// valid bearer token.
	Mode auth.Mode
	// Accounts is the store of users and tokens; required in local mode.
	Accounts accounts.Store
	// IdentitySecret signs the identity GET /auth/verify hands the gateway
	// for docqa-service.
	IdentitySecret []byte
	// LoginsPerMinute bounds the password attempts (logins, password
	// changes, the password check of a token's creation, all counted
	// together, so that a guesser gains nothing by spreading guesses over
	// routes) per username and per client address (0: no limit). They
	// are counted in Accounts (accounts.Attempts), which every instance
	// on one database shares.
	LoginsPerMinute int
	// Passwords bounds the argon2id work running at once; the process's
	// one bound (nil: a bound of this API's own, auth.NewPasswords(0, 0)).
	Passwords *auth.Passwords
	// OIDC, when set, offers sign-in with an OpenID provider (local mode
	// only).
	OIDC *OIDCOptions
	// TokenCacheTTL is how long a verified token's identity is reused
	// without a database lookup (0: every request looks it up). Another
	// instance's revocation takes effect here within it.
	TokenCacheTTL time.Duration
}

// accountRoutes serves the account routes.
type accountRoutes struct {
	opts      AuthOptions
	passwords *auth.Passwords
	logins    *accounts.Logins
	now       func() time.Time
	// oidc is nil without OIDC sign-in.
	oidc *oidcFlow
	// tokens is nil without a TokenCacheTTL.
	tokens *accounts.TokenCache
}

func newAccountRoutes(opts AuthOptions, now func() time.Time, log *slog.Logger) *accountRoutes {
	if opts.Mode == "" {
		opts.Mode = auth.ModeOff
	}
	a := &accountRoutes{
		opts:      opts,
		passwords: opts.Passwords,
		now:       now,
		tokens:    accounts.NewTokenCache(opts.TokenCacheTTL, now),
	}
	if a.passwords == nil {
		a.passwords = auth.NewPasswords(0, 0)
	}
	a.logins = accounts.NewLogins(opts.Accounts, a.passwords, opts.LoginsPerMinute)
	if opts.Mode == auth.ModeLocal && opts.OIDC != nil {
		a.oidc = newOIDCFlow(*opts.OIDC, opts.Accounts, now, log)
	}
	return a
}

// register adds the account routes. api is the authenticated /api group.
func (a *accountRoutes) register(r gin.IRouter, api gin.IRouter, limit gin.HandlerFunc) {
	r.GET("/api/auth/config", limit, a.config)
	// For Caddy's forward_auth in front of docqa-service; not routed to the
	// public (the Caddyfile answers 404 for it).
	r.GET("/auth/verify", a.authenticate, a.verify)
	api.GET("/auth/me", a.me)
	if a.opts.Mode != auth.ModeLocal {
		return
	}
	r.POST("/api/auth/login", limit, a.login)
	r.GET("/api/auth/oidc/login", a.oidcLogin)
	r.GET("/api/auth/oidc/callback", a.oidcCallback)
	api.POST("/auth/logout", a.logout)
	api.POST("/auth/tokens", a.createToken)
	api.GET("/auth/tokens", a.listTokens)
	api.DELETE("/auth/tokens/:id", a.revokeToken)
	api.PUT("/users/me/password", a.changePassword)
	api.GET("/vehicles/:id/members", a.listMembers)
	api.POST("/vehicles/:id/members", a.addMember)
	api.PUT("/vehicles/:id/members/:user_id", a.setMember)
	api.DELETE("/vehicles/:id/members/:user_id", a.removeMember)
	admin := api.Group("/users", ginauth.RequireAdmin())
	admin.POST("", a.createUser)
	admin.GET("", a.listUsers)
	admin.DELETE("/:id", a.deleteUser)
}

// authenticate sets the identity a request acts for: the built-in user
// with accounts off, else the owner of a valid bearer token (401 without).
func (a *accountRoutes) authenticate(c *gin.Context) {
	id := auth.Builtin()
	if a.opts.Mode == auth.ModeLocal {
		token := auth.BearerToken(c.GetHeader("Authorization"))
		if _, ok := auth.ParseToken(token); !ok {
			ginx.Fail(c, ginauth.ErrUnauthorized())
			return
		}
		var err error
		id, err = a.tokens.Verify(c.Request.Context(), auth.HashToken(token), a.opts.Accounts.VerifyToken)
		if errors.Is(err, accounts.ErrInvalidToken) {
			ginx.Fail(c, ginauth.ErrUnauthorized())
			return
		}
		if err != nil {
			ginx.Fail(c, err)
			return
		}
	}
	c.Request = c.Request.WithContext(auth.WithIdentity(c.Request.Context(), id))
	c.Next()
}

type authConfigResponse struct {
	Mode auth.Mode `json:"mode"`
	OIDC bool      `json:"oidc"`
}

func (a *accountRoutes) config(c *gin.Context) {
	c.JSON(http.StatusOK, authConfigResponse{Mode: a.opts.Mode, OIDC: a.oidc != nil})
}

func (a *accountRoutes) verify(c *gin.Context) {
	id, _ := auth.FromContext(c.Request.Context())
	c.Header(auth.HeaderIdentity, auth.Sign(a.opts.IdentitySecret, id, a.now()))
	c.Status(http.StatusOK)
}

type userResponse struct {
	ID       uint64 `json:"id"`
	Username string `json:"username"`
	IsAdmin  bool   `json:"is_admin"`
	// HasPassword is false for an account made by single sign-on (and for
	// the built-in user with accounts off): it has no password to change.
	HasPassword bool `json:"has_password"`
}

func toUserResponse(u accounts.User) userResponse {
	return userResponse{ID: u.ID, Username: u.Username, IsAdmin: u.Admin, HasPassword: u.PasswordHash != ""}
}

func (a *accountRoutes) me(c *gin.Context) {
	id, _ := auth.FromContext(c.Request.Context())
	if a.opts.Mode != auth.ModeLocal {
		c.JSON(http.StatusOK, userResponse{ID: id.UserID, Username: id.Username, IsAdmin: id.Admin})
		return
	}
	u, err := a.opts.Accounts.UserByUsername(c.Request.Context(), id.Username)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	c.JSON(http.StatusOK, toUserResponse(u))
}

// accountsError is the answer to an error of the accounts' use cases:
// a password attempt over its budget is a 429 with its Retry-After.
func accountsError(err error) error {
	var ex *accounts.AttemptsExhausted
	if errors.As(err, &ex) {
		return ginauth.Exhausted(ex.What, ex.RetryAfter)
	}
	return err
}

// requiredUsername is the username member of a body that names an
// account, without surrounding spaces: present and not blank.
func requiredUsername(s *string) (string, error) {
	if s == nil || strings.TrimSpace(*s) == "" {
		return "", apperr.Invalid("username", "is required")
	}
	return strings.TrimSpace(*s), nil
}
