package httpapi_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/golang-jwt/jwt/v5"
	"github.com/oauth2-proxy/mockoidc"

	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/services/fuel/internal/accounts"
	"github.com/carhub/backend/services/fuel/internal/httpapi"
	"github.com/carhub/backend/services/fuel/internal/store"
)

// oidcEnv is fuel-service with OIDC sign-in against an in-process OpenID
// provider (mockoidc: real HTTP, discovery, JWKS, RS256-signed ID tokens,
// PKCE checked at its token endpoint).
type oidcEnv struct {
	*server
	provider *mockoidc.MockOIDC
	// deny makes the provider's authorization endpoint answer
	// error=access_denied, as when the user declines.
	deny atomic.Bool
	// now is the store's clock: tokens' expiry is exact.
	now time.Time
	// discovered is the provider as fuel-service sees it.
	discovered *oidc.Provider
}

// newOIDCEnv is fuel-service letting everyone the provider knows sign in.
func newOIDCEnv(tb testing.TB, d store.Dialect, loginsPerMinute int) *oidcEnv {
	return newOIDCEnvAllowing(tb, d, loginsPerMinute, accounts.OIDCAllow{Any: true})
}

// providerKey is the signing key of every test's provider, made once:
// a 2048-bit RSA key takes a good part of a second to make under the race
// detector, and no test tells two providers apart by their keys (each
// has its own issuer URL, client id and secret).
var providerKey = sync.OnceValues(func() (*rsa.PrivateKey, error) { return rsa.GenerateKey(rand.Reader, 2048) })

func newOIDCEnvAllowing(tb testing.TB, d store.Dialect, loginsPerMinute int, allow accounts.OIDCAllow) *oidcEnv {
	tb.Helper()
	env := &oidcEnv{now: time.Date(2026, 11, 24, 20, 0, 0, 0, time.UTC)}
	key, err := providerKey()
	if err != nil {
		tb.Fatal(err)
	}
	m, err := mockoidc.NewServer(key)
	if err != nil {
		tb.Fatal(err)
	}
	if err := m.AddMiddleware(env.denyMiddleware); err != nil {
		tb.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	if err := m.Start(ln, nil); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = m.Shutdown() })
	env.provider = m

	st := mustStore(tb, d)
	st.Now = func() time.Time { return env.now }
	hash, err := rootPasswordHash()
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := st.ClaimBuiltinUser(context.Background(), "root", hash); err != nil {
		tb.Fatal(err)
	}
	if env.discovered, err = oidc.NewProvider(context.Background(), m.Issuer()); err != nil {
		tb.Fatal(err)
	}
	env.serve(tb, st, loginsPerMinute, allow)
	return env
}

// serve starts fuel's handler on st with allow: a restart with another
// configuration when env already has a server.
func (env *oidcEnv) serve(tb testing.TB, st *store.Store, loginsPerMinute int, allow accounts.OIDCAllow) {
	tb.Helper()
	// The callback URL must be known before the handler is made.
	ts := httptest.NewUnstartedServer(nil)
	ts.Config.Handler = httpapi.New(slog.New(slog.NewTextHandler(io.Discard, nil)), st, httpapi.Options{Auth: httpapi.AuthOptions{
		Mode: auth.ModeLocal, Accounts: st, IdentitySecret: testSecret, LoginsPerMinute: loginsPerMinute,
		OIDC: &httpapi.OIDCOptions{
			Provider: env.discovered, ClientID: env.provider.ClientID, ClientSecret: env.provider.ClientSecret,
			RedirectURL: "http://" + ts.Listener.Addr().String() + "/api/auth/oidc/callback",
			Allow:       allow,
		},
	}})
	ts.Start()
	tb.Cleanup(ts.Close)
	env.server = &server{tb: tb, url: ts.URL, store: st}
}

func (env *oidcEnv) denyMiddleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != mockoidc.AuthorizationEndpoint || !env.deny.Load() {
			next.ServeHTTP(w, r)
			return
		}
		back, _ := url.Parse(r.URL.Query().Get("redirect_uri"))
		back.RawQuery = url.Values{"error": {"access_denied"}, "state": {r.URL.Query().Get("state")}}.Encode()
		http.Redirect(w, r, back.String(), http.StatusFound)
	})
}

// browser is a client with a cookie jar that follows redirects, as a
// browser does, and stops at the web client's login page.
func browser(tb testing.TB) *http.Client {
	tb.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		tb.Fatal(err)
	}
	return &http.Client{Jar: jar, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if req.URL.Path == "/login" {
			return http.ErrUseLastResponse
		}
		return nil
	}}
}

// noFollow is a client with a cookie jar that follows no redirect.
func noFollow(tb testing.TB) *http.Client {
	c := browser(tb)
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return c
}

// outcome is what the callback hands the web client: the fragment of its
// redirect to /login.
func outcome(tb testing.TB, res *http.Response) url.Values {
	tb.Helper()
	loc, err := url.Parse(res.Header.Get("Location"))
	if res.StatusCode != http.StatusSeeOther || err != nil || loc.Path != "/login" || loc.RawQuery != "" {
		tb.Fatalf("callback answered %d Location %q, want 303 to /login#...", res.StatusCode, res.Header.Get("Location"))
	}
	v, err := url.ParseQuery(loc.EscapedFragment())
	if err != nil {
		tb.Fatalf("fragment %q: %v", loc.EscapedFragment(), err)
	}
	return v
}

// signIn runs the whole flow in a browser: login -> provider -> callback.
func (env *oidcEnv) signIn(tb testing.TB, c *http.Client) url.Values {
	tb.Helper()
	return env.signInWith(tb, c, "")
}

// signInWith is signIn with a query (without "?") on the login route.
func (env *oidcEnv) signInWith(tb testing.TB, c *http.Client, query string) url.Values {
	tb.Helper()
	login := env.url + "/api/auth/oidc/login"
	if query != "" {
		login += "?" + query
	}
	res, err := c.Get(login)
	if err != nil {
		tb.Fatal(err)
	}
	res.Body.Close()
	if res.Request.URL.Path != "/api/auth/oidc/callback" {
		tb.Fatalf("the flow ended at %s, want the callback", res.Request.URL)
	}
	return outcome(tb, res)
}

// mustSignIn signs in and returns the session token, checked against its
// expiry: a session's idle limit after now, as POST /api/auth/login says.
func (env *oidcEnv) mustSignIn(tb testing.TB) string {
	tb.Helper()
	v := env.signIn(tb, browser(tb))
	if v.Get("error") != "" || len(v) != 2 {
		tb.Fatalf("sign-in refused: %v", v)
	}
	if _, ok := auth.ParseToken(v.Get("token")); !ok || !strings.HasPrefix(v.Get("token"), "chs_") {
		tb.Fatalf("token %q is no session token", v.Get("token"))
	}
	if want := env.now.Add(accounts.SessionIdle).Format(time.RFC3339Nano); v.Get("expires_at") != want {
		tb.Fatalf("expires_at %q, want %q", v.Get("expires_at"), want)
	}
	return v.Get("token")
}

func (env *oidcEnv) me(tb testing.TB, token string) map[string]any {
	tb.Helper()
	res := env.as(token, "GET", "/api/auth/me", "")
	if res.status != 200 {
		tb.Fatalf("me: %d %s", res.status, res.body)
	}
	return object(tb, res.body)
}

func (env *oidcEnv) userCount(tb testing.TB) int {
	tb.Helper()
	us, err := env.store.Users(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	return len(us)
}

func TestOIDCSignInEndToEnd(t *testing.T) {
	for _, d := range dialects {
		t.Run(string(d), func(t *testing.T) {
			env := newOIDCEnv(t, d, 0)
			if got := string(env.must(200, "GET", "/api/auth/config", "").body); got != `{"mode":"local","oidc":true}` {
				t.Fatalf("config %s", got)
			}
			jane := env.mustSignIn(t) // mockoidc's default user: jane.doe, subject 1234567890
			me := env.me(t, jane)
			if me["username"] != "jane.doe" || me["is_admin"] != false || literal(me["id"]) != "2" || me["has_password"] != false {
				t.Fatalf("me %v, want the new user 2 jane.doe, no admin, no password", me)
			}
			created := env.as(jane, "POST", "/api/vehicles", `{"name":"Jane's car","fuel_type":"gasoline"}`)
			if created.status != 200 {
				t.Fatalf("create vehicle: %d %s", created.status, created.body)
			}
			if list := env.as(jane, "GET", "/api/vehicles", ""); list.status != 200 || !strings.Contains(string(list.body), `"Jane's car"`) {
				t.Fatalf("vehicles: %d %s", list.status, list.body)
			}
			// The same subject again: the same user, another session.
			again := env.mustSignIn(t)
			if again == jane || literal(env.me(t, again)["id"]) != "2" {
				t.Fatalf("second sign-in: %v", env.me(t, again))
			}
			// Another subject: another user, who sees none of Jane's.
			env.provider.QueueUser(&mockoidc.MockUser{Subject: "other-subject", PreferredUsername: "max", Email: "max@example.com"})
			other := env.mustSignIn(t)
			if me := env.me(t, other); me["username"] != "max" || literal(me["id"]) != "3" {
				t.Fatalf("other subject: %v, want the new user 3 max", me)
			}
			if list := env.as(other, "GET", "/api/vehicles", ""); list.status != 200 || string(list.body) != "[]" {
				t.Fatalf("max's vehicles: %d %s", list.status, list.body)
			}
			// The session is an ordinary one: logout ends it.
			if res := env.as(jane, "POST", "/api/auth/logout", ""); res.status != 204 {
				t.Fatalf("logout: %d %s", res.status, res.body)
			}
			wantStatus(t, "after logout", env.as(jane, "GET", "/api/auth/me", ""), 401, "UNAUTHORIZED")
			if n := env.userCount(t); n != 3 {
				t.Fatalf("%d users, want root, jane.doe and max", n)
			}
		})
	}
}

func TestOIDCLoginRedirectsWithStateNonceAndPKCE(t *testing.T) {
	env := newOIDCEnv(t, store.SQLite, 0)
	c := noFollow(t)
	res, err := c.Get(env.url + "/api/auth/oidc/login")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusFound {
		t.Fatalf("login: %d, want 302", res.StatusCode)
	}
	loc, err := url.Parse(res.Header.Get("Location"))
	if err != nil || loc.Scheme+"://"+loc.Host+loc.Path != env.provider.AuthorizationEndpoint() {
		t.Fatalf("Location %q, want the provider's authorization endpoint %s", res.Header.Get("Location"), env.provider.AuthorizationEndpoint())
	}
	q := loc.Query()
	for k, want := range map[string]string{
		"response_type": "code", "client_id": env.provider.ClientID, "scope": "openid profile email",
		"redirect_uri": env.url + "/api/auth/oidc/callback", "code_challenge_method": "S256",
	} {
		if q.Get(k) != want {
			t.Errorf("%s = %q, want %q", k, q.Get(k), want)
		}
	}
	cookies := res.Cookies()
	if len(cookies) != 1 {
		t.Fatalf("cookies %v, want one", cookies)
	}
	ck := cookies[0]
	if ck.Name != "carhub_oidc" || ck.Path != "/api/auth/oidc" || ck.MaxAge != 600 || !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode || ck.Secure {
		t.Fatalf("cookie %+v: want carhub_oidc, path /api/auth/oidc, 600 s, HttpOnly, Lax, not Secure over http", ck)
	}
	parts := strings.Split(ck.Value, ".")
	if len(parts) != 4 || parts[3] != "" {
		t.Fatalf("cookie value %q: want state.nonce.verifier. (no client_state)", ck.Value)
	}
	if q.Get("state") != parts[0] || q.Get("nonce") != parts[1] || len(parts[0]) != 43 || len(parts[1]) != 43 {
		t.Fatalf("state %q nonce %q, cookie %q", q.Get("state"), q.Get("nonce"), ck.Value)
	}
	sum := sha256.Sum256([]byte(parts[2]))
	if want := base64.RawURLEncoding.EncodeToString(sum[:]); q.Get("code_challenge") != want {
		t.Fatalf("code_challenge %q, want S256 of the cookie's verifier %q", q.Get("code_challenge"), want)
	}
	// A second login starts afresh.
	res2, err := c.Get(env.url + "/api/auth/oidc/login")
	if err != nil {
		t.Fatal(err)
	}
	res2.Body.Close()
	if loc2, _ := url.Parse(res2.Header.Get("Location")); loc2.Query().Get("state") == q.Get("state") {
		t.Fatal("two logins got the same state")
	}
}

func TestOIDCCookieIsSecureBehindHTTPS(t *testing.T) {
	env := newOIDCEnv(t, store.SQLite, 0)
	h := httpapi.New(slog.New(slog.NewTextHandler(io.Discard, nil)), env.store, httpapi.Options{Auth: httpapi.AuthOptions{
		Mode: auth.ModeLocal, Accounts: env.store, IdentitySecret: testSecret,
		OIDC: &httpapi.OIDCOptions{Provider: env.discovered, ClientID: "c", ClientSecret: "s", RedirectURL: "https://cars.example/api/auth/oidc/callback"},
	}})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/auth/oidc/login", nil))
	cookies := rec.Result().Cookies()
	if rec.Code != 302 || len(cookies) != 1 || !cookies[0].Secure {
		t.Fatalf("%d %v: want a Secure cookie", rec.Code, cookies)
	}
}

// toCallback runs the flow up to the provider's redirect back to fuel and
// returns that callback URL without requesting it.
func (env *oidcEnv) toCallback(tb testing.TB, c *http.Client) *url.URL {
	tb.Helper()
	res, err := c.Get(env.url + "/api/auth/oidc/login")
	if err != nil {
		tb.Fatal(err)
	}
	res.Body.Close()
	res, err = c.Get(res.Header.Get("Location"))
	if err != nil {
		tb.Fatal(err)
	}
	res.Body.Close()
	cb, err := url.Parse(res.Header.Get("Location"))
	if res.StatusCode != http.StatusFound || err != nil || cb.Path != "/api/auth/oidc/callback" {
		tb.Fatalf("provider answered %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	return cb
}

func get(tb testing.TB, c *http.Client, u string) *http.Response {
	tb.Helper()
	res, err := c.Get(u)
	if err != nil {
		tb.Fatal(err)
	}
	res.Body.Close()
	return res
}

func TestOIDCStateIsChecked(t *testing.T) {
	env := newOIDCEnv(t, store.SQLite, 0)
	c := noFollow(t)
	cb := env.toCallback(t, c)
	good := cb.Query().Get("state")

	tampered := *cb
	q := cb.Query()
	q.Set("state", good[:len(good)-1]+"A")
	if good[len(good)-1] == 'A' {
		q.Set("state", good[:len(good)-1]+"B")
	}
	tampered.RawQuery = q.Encode()
	if v := outcome(t, get(t, c, tampered.String())); v.Get("error") != "oidc_state" || len(v) != 1 {
		t.Fatalf("tampered state: %v, want only error=oidc_state", v)
	}
	// The refused callback used the cookie up: the right state no longer
	// signs in either.
	if v := outcome(t, get(t, c, cb.String())); v.Get("error") != "oidc_state" {
		t.Fatalf("callback after a refused one: %v, want error=oidc_state", v)
	}
	// A callback from a browser that did not start the sign-in (login
	// CSRF) has no cookie.
	cb2 := env.toCallback(t, noFollow(t))
	if v := outcome(t, get(t, noFollow(t), cb2.String())); v.Get("error") != "oidc_state" {
		t.Fatalf("callback without the cookie: %v, want error=oidc_state", v)
	}
	if n := env.userCount(t); n != 1 {
		t.Fatalf("%d users after refused callbacks, want only root", n)
	}
}

func TestOIDCCallbackCanBeUsedOnce(t *testing.T) {
	env := newOIDCEnv(t, store.SQLite, 0)
	c := noFollow(t)
	cb := env.toCallback(t, c)
	if v := outcome(t, get(t, c, cb.String())); v.Get("token") == "" {
		t.Fatalf("first callback: %v", v)
	}
	if v := outcome(t, get(t, c, cb.String())); v.Get("error") != "oidc_state" {
		t.Fatalf("replayed callback: %v, want error=oidc_state", v)
	}
}

// tamperedUser is a provider's user whose ID token claims are changed
// before the provider signs them: the signature is valid, the content not.
type tamperedUser struct {
	*mockoidc.MockUser
	tamper func(*mockoidc.IDTokenClaims)
}

func (u tamperedUser) Claims(scope []string, c *mockoidc.IDTokenClaims) (jwt.Claims, error) {
	u.tamper(c)
	return u.MockUser.Claims(scope, c)
}

func TestOIDCRefusals(t *testing.T) {
	cases := []struct {
		name  string
		setup func(env *oidcEnv)
		code  string
	}{
		{"wrong nonce", func(env *oidcEnv) {
			env.provider.QueueUser(tamperedUser{mockoidc.DefaultUser(), func(c *mockoidc.IDTokenClaims) { c.Nonce = "not-the-nonce" }})
		}, "oidc_nonce"},
		{"no nonce", func(env *oidcEnv) {
			env.provider.QueueUser(tamperedUser{mockoidc.DefaultUser(), func(c *mockoidc.IDTokenClaims) { c.Nonce = "" }})
		}, "oidc_nonce"},
		{"wrong audience", func(env *oidcEnv) {
			env.provider.QueueUser(tamperedUser{mockoidc.DefaultUser(), func(c *mockoidc.IDTokenClaims) { c.Audience = jwt.ClaimStrings{"another-client"} }})
		}, "oidc_id_token"},
		{"wrong issuer", func(env *oidcEnv) {
			env.provider.QueueUser(tamperedUser{mockoidc.DefaultUser(), func(c *mockoidc.IDTokenClaims) { c.Issuer = "https://evil.example" }})
		}, "oidc_id_token"},
		{"expired", func(env *oidcEnv) {
			env.provider.QueueUser(tamperedUser{mockoidc.DefaultUser(), func(c *mockoidc.IDTokenClaims) {
				c.ExpiresAt = jwt.NewNumericDate(c.IssuedAt.Add(-time.Hour))
			}})
		}, "oidc_id_token"},
		{"denied by the user", func(env *oidcEnv) { env.deny.Store(true) }, "oidc_denied"},
		{"token endpoint error", func(env *oidcEnv) {
			// Twice: oauth2 tries the client's credentials in the header,
			// then in the body.
			for range 2 {
				env.provider.QueueError(&mockoidc.ServerError{Code: 400, Error: "invalid_grant", Description: "no"})
			}
		}, "oidc_exchange"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := newOIDCEnv(t, store.SQLite, 0)
			c := noFollow(t)
			// The error queue applies to the next provider request: queue
			// it once the browser is on its way back.
			if tc.code == "oidc_exchange" {
				cb := env.toCallback(t, c)
				tc.setup(env)
				if v := outcome(t, get(t, c, cb.String())); v.Get("error") != tc.code || len(v) != 1 {
					t.Fatalf("%v, want only error=%s", v, tc.code)
				}
			} else {
				tc.setup(env)
				if v := env.signIn(t, browser(t)); v.Get("error") != tc.code || len(v) != 1 {
					t.Fatalf("%v, want only error=%s", v, tc.code)
				}
			}
			if n := env.userCount(t); n != 1 {
				t.Fatalf("%d users after a refused sign-in, want only root", n)
			}
		})
	}
}

func TestOIDCNeverLinksALocalAccountByName(t *testing.T) {
	for _, d := range dialects {
		t.Run(string(d), func(t *testing.T) {
			env := newOIDCEnv(t, d, 0)
			hash, err := auth.HashPassword("jane-password")
			if err != nil {
				t.Fatal(err)
			}
			local, err := env.store.CreateUser(context.Background(), "Jane.Doe", hash, false)
			if err != nil {
				t.Fatal(err)
			}
			me := env.me(t, env.mustSignIn(t))
			if me["username"] != "jane.doe-2" || literal(me["id"]) == literal(float64(local.ID)) {
				t.Fatalf("OIDC user %v, want a new account jane.doe-2 beside local %d", me, local.ID)
			}
			// The local account is unchanged and still signs in with its
			// password.
			if me := env.me(t, env.login("jane.doe", "jane-password")); me["username"] != "Jane.Doe" || literal(me["id"]) != literal(float64(local.ID)) {
				t.Fatalf("local login: %v", me)
			}
			// The OIDC account is found by its subject again, not its name.
			if me2 := env.me(t, env.mustSignIn(t)); me2["id"] != me["id"] {
				t.Fatalf("second sign-in %v, want %v", me2, me)
			}
		})
	}
}

func TestOIDCUsernames(t *testing.T) {
	env := newOIDCEnv(t, store.SQLite, 0)
	generated := sha256.Sum256([]byte(env.provider.Issuer() + "\x00sub-none"))
	cases := []struct {
		user *mockoidc.MockUser
		want string
	}{
		{&mockoidc.MockUser{Subject: "sub-pref", PreferredUsername: "Ann Smith", Email: "ann@example.com"}, "Ann_Smith"},
		{&mockoidc.MockUser{Subject: "sub-mail", Email: "ann@example.com"}, "ann@example.com"},
		{&mockoidc.MockUser{Subject: "sub-junk", PreferredUsername: " _-_ ", Email: "bob@example.com"}, "bob@example.com"},
		{&mockoidc.MockUser{Subject: "sub-long", PreferredUsername: strings.Repeat("x", 70)}, strings.Repeat("x", 64)},
		{&mockoidc.MockUser{Subject: "sub-none"}, "user-" + hex.EncodeToString(generated[:5])},
	}
	for _, tc := range cases {
		env.provider.QueueUser(tc.user)
		if got := env.me(t, env.mustSignIn(t))["username"]; got != tc.want {
			t.Errorf("subject %s: username %v, want %q", tc.user.Subject, got, tc.want)
		}
	}
}

func TestOIDCCallbacksAreLimitedPerAddress(t *testing.T) {
	env := newOIDCEnv(t, store.SQLite, 2)
	env.mustSignIn(t)
	env.mustSignIn(t)
	if v := env.signIn(t, browser(t)); v.Get("error") != "oidc_rate_limited" {
		t.Fatalf("third callback in a minute: %v, want error=oidc_rate_limited", v)
	}
	// Password logins from the address share the limit.
	wantStatus(t, "password login", env.do("POST", "/api/auth/login", `{"username":"root","password":"root-password"}`), 429, "RESOURCE_EXHAUSTED")
}

func TestOIDCRoutesWithoutOIDC(t *testing.T) {
	s := authServer(t, store.SQLite, 0)
	wantStatus(t, "login", s.do("GET", "/api/auth/oidc/login", ""), 404, "NOT_FOUND")
	wantStatus(t, "callback", s.do("GET", "/api/auth/oidc/callback?code=x&state=y", ""), 404, "NOT_FOUND")
}

// TestOIDCClientStateComesBack: a client_state given to the login route
// comes back after the token and expiry, or after the error, in the
// fragment of the callback's redirect; without one the fragment has none.
func TestOIDCClientStateComesBack(t *testing.T) {
	env := newOIDCEnv(t, store.SQLite, 0)
	for _, cs := range []string{"abcdefghijklmnop", "Zq3_-x9" + strings.Repeat("A", 121)} {
		c := browser(t)
		res := get(t, c, env.url+"/api/auth/oidc/login?client_state="+cs)
		loc := res.Header.Get("Location")
		if !strings.HasPrefix(loc, "/login#token=") || !strings.HasSuffix(loc, "&client_state="+cs) {
			t.Fatalf("Location %q, want /login#token=...&expires_at=...&client_state=%s", loc, cs)
		}
		v := outcome(t, res)
		if v.Get("client_state") != cs || len(v) != 3 {
			t.Fatalf("fragment %v", v)
		}
		if me := env.me(t, v.Get("token")); me["username"] != "jane.doe" {
			t.Fatalf("me %v", me)
		}
	}
	// A refusal carries it too.
	env.deny.Store(true)
	if v := env.signInWith(t, browser(t), "client_state=abcdefghijklmnop"); v.Get("error") != "oidc_denied" || v.Get("client_state") != "abcdefghijklmnop" || len(v) != 2 {
		t.Fatalf("refused with client_state: %v", v)
	}
	env.deny.Store(false)
	if v := env.signIn(t, browser(t)); v.Has("client_state") || v.Get("token") == "" {
		t.Fatalf("without client_state: %v", v)
	}
	// The cookie keeps it beside state, nonce and verifier.
	res := get(t, noFollow(t), env.url+"/api/auth/oidc/login?client_state=abcdefghijklmnop")
	if cookies := res.Cookies(); len(cookies) != 1 || !strings.HasSuffix(cookies[0].Value, ".abcdefghijklmnop") || strings.Count(cookies[0].Value, ".") != 3 {
		t.Fatalf("cookies %v", cookies)
	}
}

func TestOIDCClientStateIsChecked(t *testing.T) {
	env := newOIDCEnv(t, store.SQLite, 0)
	for _, q := range []string{
		"client_state=",
		"client_state=" + strings.Repeat("a", 15),
		"client_state=" + strings.Repeat("a", 129),
		"client_state=abcdefghijklmnop.q",
		"client_state=abcdefghijklmnop%2Bq",
		"client_state=abcdefghijklmnop%3D",
		"client_state=abcdefghijklmnop%26token%3Dx",
		"client_state=abcdefghijklmnop&client_state=abcdefghijklmnop",
	} {
		res := env.do("GET", "/api/auth/oidc/login?"+q, "")
		errorBody(t, res, 400, "INVALID_ARGUMENT", "client_state")
		if res.header.Get("Set-Cookie") != "" {
			t.Errorf("%s: a refused login set a cookie", q)
		}
	}
	// A cookie whose client_state is not one the login route takes (it is
	// not signed) is a malformed cookie: refused, and nothing of it echoed.
	cb := env.toCallback(t, noFollow(t))
	c := noFollow(t)
	req, err := http.NewRequest("GET", cb.String(), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.AddCookie(&http.Cookie{Name: "carhub_oidc", Value: cb.Query().Get("state") + ".n.v.x&token=forged"})
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if loc := res.Header.Get("Location"); loc != "/login#error=oidc_state" {
		t.Fatalf("forged cookie: Location %q, want /login#error=oidc_state alone", loc)
	}
}
