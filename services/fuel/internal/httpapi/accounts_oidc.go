package httpapi

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/gin-gonic/gin"
	"golang.org/x/oauth2"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/pkg/ginx"
	"github.com/carhub/backend/services/fuel/internal/accounts"
)

// OIDCOptions configure OIDC sign-in (proto-docs/auth-decisions.md, "OIDC
// sign-in"): the authorization code flow with PKCE, state and nonce.
type OIDCOptions struct {
	// Provider is the OpenID provider, discovered (oidc.NewProvider);
	// required.
	Provider *oidc.Provider
	// ClientID and ClientSecret are the client registered at the
	// provider; ID tokens must name ClientID as their audience.
	ClientID     string
	ClientSecret string
	// RedirectURL is the public URL of GET /api/auth/oidc/callback, as
	// registered at the provider. When it is https the flow's cookie is
	// Secure.
	RedirectURL string
	// Allow says who may sign in; its zero value lets no one in.
	Allow accounts.OIDCAllow
}

const (
	// oidcCookie holds a sign-in's state, nonce and PKCE verifier between
	// the login route and the callback, on the callback's path only.
	oidcCookie     = "carhub_oidc"
	oidcCookiePath = "/api/auth/oidc"
	// oidcFlowTime is how long a sign-in may take at the provider.
	oidcFlowTime = 10 * time.Minute
	// loginPage is the web client's page that reads the outcome from the
	// fragment: #token=...&expires_at=... or #error=<code>, each followed
	// by &client_state=... when the sign-in was started with one.
	loginPage = "/login"
)

// clientStatePattern is a client_state: a one-time value the web client
// makes, keeps in sessionStorage and expects back in the fragment, so
// that it takes a fragment only from a sign-in this browser started.
var clientStatePattern = regexp.MustCompile(`^[A-Za-z0-9_-]{16,128}$`)

// oidcFlow is a sign-in with an OpenID provider as HTTP: the state,
// nonce and PKCE verifier kept in a cookie between the login route and
// the callback, and the redirects. The protocol is
// accounts.OIDCProvider, who may sign in accounts.OIDC.
type oidcFlow struct {
	provider *accounts.OIDCProvider
	secure   bool
	log      *slog.Logger
}

func newOIDCFlow(opts OIDCOptions, store accounts.Store, now func() time.Time, log *slog.Logger) *oidcFlow {
	u, err := url.Parse(opts.RedirectURL)
	return &oidcFlow{
		provider: accounts.NewOIDCProvider(opts.Provider, opts.ClientID, opts.ClientSecret, opts.RedirectURL,
			accounts.NewOIDC(store, opts.Allow), now),
		secure: err == nil && u.Scheme == "https",
		log:    log,
	}
}

// flowCookie is what the flow's cookie holds between the login route and
// the callback: state.nonce.verifier.client_state (base64url values, so
// the dots are unambiguous; client_state may be empty).
type flowCookie struct {
	state, nonce, verifier, clientState string
}

func (fc flowCookie) String() string {
	return fc.state + "." + fc.nonce + "." + fc.verifier + "." + fc.clientState
}

// parseFlowCookie reads a flow cookie; false when it is missing or
// malformed.
func parseFlowCookie(v string) (flowCookie, bool) {
	parts := strings.Split(v, ".")
	if len(parts) != 4 || parts[0] == "" || parts[1] == "" || parts[2] == "" ||
		(parts[3] != "" && !clientStatePattern.MatchString(parts[3])) {
		return flowCookie{}, false
	}
	return flowCookie{state: parts[0], nonce: parts[1], verifier: parts[2], clientState: parts[3]}, true
}

// queryClientState reads the optional client_state of the login route.
func queryClientState(q url.Values) (string, error) {
	v, ok := q["client_state"]
	switch {
	case !ok:
		return "", nil
	case len(v) > 1:
		return "", apperr.Invalid("client_state", "must be given once")
	case !clientStatePattern.MatchString(v[0]):
		return "", apperr.Invalid("client_state", "must be 16 to 128 characters of A-Z, a-z, 0-9, - and _ (base64url)")
	}
	return v[0], nil
}

// refuse is a sign-in refused by the protocol: code goes to the web
// client, cause to the log.
func refuse(code string, cause error) *accounts.OIDCRefusal {
	return &accounts.OIDCRefusal{Code: code, Cause: cause}
}

func errNoOIDC() error { return apperr.New(apperr.NotFound, "OIDC sign-in is not configured") }

// oidcLogin starts a sign-in: a new state, nonce and PKCE verifier go into
// a short-lived cookie, and the browser to the provider.
func (a *accountRoutes) oidcLogin(c *gin.Context) {
	f := a.oidc
	if f == nil {
		ginx.Fail(c, errNoOIDC())
		return
	}
	clientState, err := queryClientState(c.Request.URL.Query())
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	fc := flowCookie{state: randomValue(), nonce: randomValue(), verifier: oauth2.GenerateVerifier(), clientState: clientState}
	f.setCookie(c, fc.String(), int(oidcFlowTime/time.Second))
	c.Header("Cache-Control", "no-store")
	c.Redirect(http.StatusFound, f.provider.AuthCodeURL(fc.state, fc.nonce, fc.verifier))
}

// oidcCallback ends a sign-in: the provider sends the browser back here
// with a code, which becomes a session token of this service, handed to
// the web client in the fragment of a redirect (a fragment reaches no
// server log). Every outcome goes to the login page.
func (a *accountRoutes) oidcCallback(c *gin.Context) {
	f := a.oidc
	if f == nil {
		ginx.Fail(c, errNoOIDC())
		return
	}
	// The cookie serves one callback, whatever its outcome.
	raw, _ := c.Cookie(oidcCookie)
	f.setCookie(c, "", -1)
	c.Header("Cache-Control", "no-store")
	ctx := c.Request.Context()
	fc, ok := parseFlowCookie(raw)
	// The client_state goes back with every outcome: the web client takes
	// the fragment only when it is the one this browser kept.
	var back string
	if fc.clientState != "" {
		back = "&client_state=" + url.QueryEscape(fc.clientState)
	}
	token, expires, err := a.signIn(c, fc, ok)
	if err != nil {
		var e *accounts.OIDCRefusal
		if !errors.As(err, &e) {
			e = refuse("oidc_account", err)
		}
		f.log.WarnContext(ctx, "oidc sign-in refused", "code", e.Code, "error", e.Cause.Error(), "client", c.ClientIP())
		c.Redirect(http.StatusSeeOther, loginPage+"#error="+e.Code+back)
		return
	}
	c.Redirect(http.StatusSeeOther, loginPage+"#token="+url.QueryEscape(token)+"&expires_at="+url.QueryEscape(expires)+back)
}

// signIn checks the callback against the cookie's state and has
// accounts.OIDCProvider exchange its code, verify the ID token and sign
// the user in. valid says whether a well-formed cookie came with the
// callback.
func (a *accountRoutes) signIn(c *gin.Context, fc flowCookie, valid bool) (token, expires string, err error) {
	f := a.oidc
	// Every callback counts against the login limit of its address, like
	// every password login.
	if err := a.logins.AllowAddress(c.Request.Context(), "login", c.ClientIP()); err != nil {
		var ex *accounts.AttemptsExhausted
		if errors.As(err, &ex) {
			return "", "", refuse("oidc_rate_limited", err)
		}
		return "", "", err
	}
	if !valid {
		return "", "", refuse("oidc_state", errors.New("no sign-in cookie, or a malformed one"))
	}
	if subtle.ConstantTimeCompare([]byte(c.Query("state")), []byte(fc.state)) != 1 {
		return "", "", refuse("oidc_state", errors.New("the state does not match the sign-in cookie"))
	}
	if e := c.Query("error"); e != "" {
		code := "oidc_provider"
		if e == "access_denied" {
			code = "oidc_denied"
		}
		return "", "", refuse(code, errors.New("the provider answered "+e+": "+c.Query("error_description")))
	}
	code := c.Query("code")
	if code == "" {
		return "", "", refuse("oidc_exchange", errors.New("no code in the callback"))
	}
	ctx := c.Request.Context()
	in, err := f.provider.SignIn(ctx, code, fc.verifier, fc.nonce)
	if err != nil {
		return "", "", err
	}
	f.log.InfoContext(ctx, "oidc sign-in", "user_id", in.User.ID, "username", in.User.Username, "created", in.Created, "allowed_by", in.AllowedBy)
	return in.Secret, formatTime(in.Token.End()), nil
}

func (f *oidcFlow) setCookie(c *gin.Context, value string, maxAge int) {
	http.SetCookie(c.Writer, &http.Cookie{
		Name: oidcCookie, Value: value, Path: oidcCookiePath, MaxAge: maxAge,
		HttpOnly: true, Secure: f.secure, SameSite: http.SameSiteLaxMode,
	})
}

// randomValue is 32 random bytes, base64url: a state or a nonce.
func randomValue() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}
