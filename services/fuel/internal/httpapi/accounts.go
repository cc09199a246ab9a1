package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/netip"
	"regexp"
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
	// together) per username and per client address (0: no limit).
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
	opts AuthOptions
	// byUsername and byAddress count every password attempt: a login, a
	// password change, the check of a token's creation (one budget, so
	// that a guesser gains nothing by spreading guesses over routes).
	byUsername *ginauth.Limiter
	byAddress  *ginauth.Limiter
	passwords  *auth.Passwords
	now        func() time.Time
	// oidc is nil without OIDC sign-in.
	oidc *oidcFlow
	// tokens is nil without a TokenCacheTTL.
	tokens *tokenCache
}

func newAccountRoutes(opts AuthOptions, now func() time.Time, log *slog.Logger) *accountRoutes {
	if opts.Mode == "" {
		opts.Mode = auth.ModeOff
	}
	a := &accountRoutes{
		opts:       opts,
		byUsername: ginauth.NewLimiter(opts.LoginsPerMinute, time.Minute, opts.LoginsPerMinute),
		byAddress:  ginauth.NewLimiter(opts.LoginsPerMinute, time.Minute, opts.LoginsPerMinute),
		passwords:  opts.Passwords,
		now:        now,
		tokens:     newTokenCache(opts.TokenCacheTTL, now),
	}
	if a.passwords == nil {
		a.passwords = auth.NewPasswords(0, 0)
	}
	if opts.Mode == auth.ModeLocal && opts.OIDC != nil {
		a.oidc = newOIDCFlow(*opts.OIDC, now, log)
	}
	return a
}

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
// or returns the 429 to answer.
func (a *accountRoutes) allowPassword(c *gin.Context, what, username string) error {
	if ok, wait := a.byAddress.Allow(addressKey(c.ClientIP())); !ok {
		return ginauth.Exhausted(what, wait)
	}
	if ok, wait := a.byUsername.Allow(strings.ToLower(username)); !ok {
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
		id, err = a.tokens.verify(c.Request.Context(), auth.HashToken(token), a.opts.Accounts.VerifyToken)
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

type loginRequest struct {
	Username *string `json:"username"`
	Password *string `json:"password"`
}

type loginResponse struct {
	Token     string       `json:"token"`
	ExpiresAt string       `json:"expires_at"`
	User      userResponse `json:"user"`
}

// requiredUsername is the username member of a body that names an
// account, without surrounding spaces: present and not blank.
func requiredUsername(s *string) (string, error) {
	if s == nil || strings.TrimSpace(*s) == "" {
		return "", apperr.Invalid("username", "is required")
	}
	return strings.TrimSpace(*s), nil
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

func (a *accountRoutes) logout(c *gin.Context) {
	id, _ := auth.FromContext(c.Request.Context())
	err := a.opts.Accounts.RevokeToken(c.Request.Context(), id.UserID, id.TokenID)
	a.tokens.purge()
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
		err = a.checkPassword(c, "token creation", u, *req.CurrentPassword)
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
	a.tokens.purge()
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

type createUserRequest struct {
	Username *string `json:"username"`
	Password *string `json:"password"`
	IsAdmin  bool    `json:"is_admin"`
}

// usernamePattern: letters, digits and . _ @ -, 1 to 64 of them.
var usernamePattern = regexp.MustCompile(`^[\p{L}\p{N}._@-]{1,64}$`)

func (a *accountRoutes) createUser(c *gin.Context) {
	var req createUserRequest
	if err := ginx.BindJSON(c, &req); err != nil {
		ginx.Fail(c, err)
		return
	}
	var nameErr, passwordErr error
	if req.Username == nil || !usernamePattern.MatchString(strings.TrimSpace(*req.Username)) {
		nameErr = apperr.Invalid("username", "must be 1 to 64 letters, digits or . _ @ -")
	}
	if req.Password == nil {
		passwordErr = apperr.Invalid("password", "is required")
	} else if err := auth.CheckPassword(*req.Password); err != nil {
		passwordErr = apperr.Invalid("password", "%s", err.Error())
	}
	if err := apperr.Join(nameErr, passwordErr); err != nil {
		ginx.Fail(c, err)
		return
	}
	hash, err := a.passwords.Hash(c.Request.Context(), *req.Password)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	u, err := a.opts.Accounts.CreateUser(c.Request.Context(), *req.Username, hash, req.IsAdmin)
	if errors.Is(err, accounts.ErrUsernameTaken) {
		ginx.Fail(c, apperr.New(apperr.Conflict, "username: %q is taken", strings.TrimSpace(*req.Username)))
		return
	}
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	c.JSON(http.StatusCreated, toUserResponse(u))
}

func (a *accountRoutes) listUsers(c *gin.Context) {
	us, err := a.opts.Accounts.Users(c.Request.Context())
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	out := make([]userResponse, len(us))
	for i, u := range us {
		out[i] = toUserResponse(u)
	}
	c.JSON(http.StatusOK, out)
}

func (a *accountRoutes) deleteUser(c *gin.Context) {
	uid, err := pathID(c)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	id, _ := auth.FromContext(c.Request.Context())
	if uid == id.UserID {
		ginx.Fail(c, apperr.Invalid("id", "an administrator cannot delete their own account"))
		return
	}
	err = a.opts.Accounts.DeleteUser(c.Request.Context(), uid)
	a.tokens.purge()
	if errors.Is(err, accounts.ErrUserNotFound) {
		ginx.Fail(c, apperr.New(apperr.NotFound, "user %d not found", uid))
		return
	}
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}
