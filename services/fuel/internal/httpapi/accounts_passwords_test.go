package httpapi_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/pkg/auth/authtest"
	"github.com/carhub/backend/pkg/ginx"
	"github.com/carhub/backend/services/fuel/internal/accounts"
	"github.com/carhub/backend/services/fuel/internal/httpapi"
	"github.com/carhub/backend/services/fuel/internal/store"
)

// from sends a JSON request as token from client address addr, which the
// server believes when it trusts the loopback proxy's X-Forwarded-For.
func (s *server) from(addr, token, method, path, body string) response {
	s.tb.Helper()
	c := *s
	c.token = token
	return c.mustSend(method, path, body, map[string]string{"X-Forwarded-For": addr})
}

// userWithSession makes an account (password "<name>-password"; none for
// an empty hash, as single sign-on makes them) and a login session of it
// straight in the store, so that no login takes from the budgets.
func userWithSession(t *testing.T, st *store.Store, name string, withPassword bool) string {
	t.Helper()
	ctx := context.Background()
	var u accounts.User
	var err error
	if withPassword {
		hash, herr := auth.HashPassword(name + "-password")
		if herr != nil {
			t.Fatal(herr)
		}
		u, err = st.CreateUser(ctx, name, hash, false)
	} else {
		u, _, err = st.OIDCUser(ctx, "https://idp.example", "subject-"+name, name)
	}
	if err != nil {
		t.Fatal(err)
	}
	return sessionOf(t, st, u.ID)
}

// sessionOf makes a login session of a user straight in the store, created
// at the store's now.
func sessionOf(t *testing.T, st *store.Store, userID uint64) string {
	t.Helper()
	token, hash := auth.NewToken(auth.KindSession)
	if err := st.CreateToken(context.Background(), &accounts.Token{UserID: userID, Kind: auth.KindSession, Name: "login", Scope: auth.ScopeWrite}, hash); err != nil {
		t.Fatal(err)
	}
	return token
}

func wantRetryAfter(t *testing.T, what string, res response) {
	t.Helper()
	if ra := res.header.Get("Retry-After"); ra == "" || ra == "0" {
		t.Fatalf("%s: Retry-After %q", what, ra)
	}
}

// TestPasswordAttemptsAreLimited: a password change and the password
// check of a token's creation take from the login's budgets, per user and
// per client address: past AUTH_LOGINS_PER_MINUTE attempts, 429 with
// Retry-After, whichever route the attempts came through.
func TestPasswordAttemptsAreLimited(t *testing.T) {
	loopback, err := ginx.ParseTrustedProxies("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dialects {
		t.Run(string(d), func(t *testing.T) {
			s := authServerWith(t, d, func(o *httpapi.Options, _ *store.Store) {
				o.TrustedProxies = loopback
				o.Auth.LoginsPerMinute = 3
			})
			const wrongChange = `{"current_password":"wrong-password","new_password":"new-password"}`

			// Per user: three wrong guesses from three addresses, then
			// even the right password is refused, by every route.
			ann := userWithSession(t, s.store, "ann", true)
			for _, addr := range []string{"198.51.100.1", "198.51.100.2", "198.51.100.3"} {
				wantStatus(t, "ann's wrong change from "+addr, s.from(addr, ann, "PUT", "/api/users/me/password", wrongChange), 400, "INVALID_ARGUMENT")
			}
			res := s.from("198.51.100.4", ann, "PUT", "/api/users/me/password", `{"current_password":"ann-password","new_password":"new-password"}`)
			wantStatus(t, "ann's fourth change", res, 429, "RESOURCE_EXHAUSTED")
			wantRetryAfter(t, "ann's fourth change", res)
			wantStatus(t, "ann's login after three wrong changes", s.from("198.51.100.5", "", "POST", "/api/auth/login", `{"username":"ann","password":"ann-password"}`), 429, "RESOURCE_EXHAUSTED")
			wantStatus(t, "ann's token after three wrong changes", s.from("198.51.100.6", ann, "POST", "/api/auth/tokens", `{"name":"t","scope":"read","current_password":"ann-password"}`), 429, "RESOURCE_EXHAUSTED")

			// Per address: three users guess from one address; a fourth
			// user is refused there and not elsewhere.
			const addr = "203.0.113.9"
			wantStatus(t, "bob's wrong change", s.from(addr, userWithSession(t, s.store, "bob", true), "PUT", "/api/users/me/password", wrongChange), 400, "INVALID_ARGUMENT")
			wantStatus(t, "carol's wrong token check", s.from(addr, userWithSession(t, s.store, "carol", true), "POST", "/api/auth/tokens", `{"name":"t","scope":"read","current_password":"wrong-password"}`), 400, "INVALID_ARGUMENT")
			wantStatus(t, "a wrong login", s.from(addr, "", "POST", "/api/auth/login", `{"username":"dave","password":"wrong-password"}`), 401, "UNAUTHORIZED")
			eve := userWithSession(t, s.store, "eve", true)
			res = s.from(addr, eve, "PUT", "/api/users/me/password", `{"current_password":"eve-password","new_password":"new-password"}`)
			wantStatus(t, "eve's change from the busy address", res, 429, "RESOURCE_EXHAUSTED")
			wantRetryAfter(t, "eve's change from the busy address", res)
			wantStatus(t, "eve's token from the busy address", s.from(addr, eve, "POST", "/api/auth/tokens", `{"name":"t","scope":"read","current_password":"eve-password"}`), 429, "RESOURCE_EXHAUSTED")
			wantStatus(t, "eve's change from another address", s.from("203.0.113.10", eve, "PUT", "/api/users/me/password", `{"current_password":"eve-password","new_password":"new-password"}`), 204, "")
		})
	}
}

// TestPasswordWorkIsBounded: with every slot of the process's bound on
// argon2id held, each route that hashes or checks a password (a login, of
// an unknown user too, a password change, a token's creation, a user's)
// waits its short time and answers 503 UNAVAILABLE with Retry-After;
// once a slot is free they work again.
func TestPasswordWorkIsBounded(t *testing.T) {
	for _, d := range dialects {
		t.Run(string(d), func(t *testing.T) {
			pw := auth.NewPasswords(2, time.Millisecond)
			s := authServerWith(t, d, func(o *httpapi.Options, _ *store.Store) { o.Auth.Passwords = pw })
			root := s.login("root", "root-password")
			release := authtest.HoldPasswordSlots(t, pw, 2)
			for _, tc := range []struct{ name, token, method, path, body string }{
				{"login", "", "POST", "/api/auth/login", `{"username":"root","password":"root-password"}`},
				{"login of an unknown user", "", "POST", "/api/auth/login", `{"username":"nobody","password":"root-password"}`},
				{"password change", root, "PUT", "/api/users/me/password", `{"current_password":"root-password","new_password":"new-password"}`},
				{"token creation", root, "POST", "/api/auth/tokens", `{"name":"t","scope":"read","current_password":"root-password"}`},
				{"user creation", root, "POST", "/api/users", `{"username":"ann","password":"ann-password"}`},
			} {
				res := s.as(tc.token, tc.method, tc.path, tc.body)
				wantStatus(t, tc.name+" with every slot held", res, 503, "UNAVAILABLE")
				wantRetryAfter(t, tc.name, res)
			}
			release()
			s.login("root", "root-password")
			wantStatus(t, "user creation with a free slot", s.as(root, "POST", "/api/users", `{"username":"ann","password":"ann-password"}`), 201, "")
		})
	}
}

// TestTokenCreationNeedsThePassword: a personal access token is made by a
// login session only, with the account's password; an account without
// one (single sign-on) needs a session of the last 10 minutes instead.
func TestTokenCreationNeedsThePassword(t *testing.T) {
	for _, d := range dialects {
		t.Run(string(d), func(t *testing.T) {
			clk := &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
			s := authServerWith(t, d, func(o *httpapi.Options, st *store.Store) {
				o.Now, st.Now = clk.now, clk.now
			})
			root := s.login("root", "root-password")
			for _, tc := range []struct{ name, body, want string }{
				{"no current_password", `{"name":"t","scope":"read"}`, "current_password: is required"},
				{"an empty one", `{"name":"t","scope":"read","current_password":""}`, "current_password: is required"},
				{"a wrong one", `{"name":"t","scope":"read","current_password":"wrong-password"}`, "current_password: does not match"},
			} {
				res := s.as(root, "POST", "/api/auth/tokens", tc.body)
				wantStatus(t, tc.name, res, 400, "INVALID_ARGUMENT")
				if msg, _ := object(t, res.body)["message"].(string); msg != tc.want {
					t.Errorf("%s: message %q, want %q", tc.name, msg, tc.want)
				}
			}
			res := s.as(root, "POST", "/api/auth/tokens", `{"name":"t","scope":"write","current_password":"root-password"}`)
			wantStatus(t, "the right password", res, 200, "")
			pat, _ := object(t, res.body)["token"].(string)
			res = s.as(pat, "POST", "/api/auth/tokens", `{"name":"t2","scope":"write","current_password":"root-password"}`)
			wantStatus(t, "a personal token mints one", res, 403, "FORBIDDEN")

			// Single sign-on: the session's age decides.
			sso := userWithSession(t, s.store, "sso", false)
			clk.advance(10 * time.Minute)
			res = s.as(sso, "POST", "/api/auth/tokens", `{"name":"t","scope":"write"}`)
			wantStatus(t, "a session 10 minutes old", res, 200, "")
			ssoPAT, _ := object(t, res.body)["token"].(string)
			clk.advance(time.Second)
			res = s.as(sso, "POST", "/api/auth/tokens", `{"name":"t","scope":"write"}`)
			wantStatus(t, "a session older than 10 minutes", res, 403, "FORBIDDEN")
			if msg, _ := object(t, res.body)["message"].(string); !strings.Contains(msg, "sign in again") {
				t.Errorf("stale session: message %q does not say to sign in again", msg)
			}
			wantStatus(t, "a single sign-on account's personal token", s.as(ssoPAT, "POST", "/api/auth/tokens", `{"name":"t","scope":"write"}`), 403, "FORBIDDEN")
			if n := len(array(t, s.as(sso, "GET", "/api/auth/tokens", "").body)); n != 2 {
				t.Errorf("the single sign-on account has %d tokens, want its session and one personal token", n)
			}
		})
	}
}

// TestPasswordChangeRevokesTokens: a password change revokes the user's
// personal access tokens unless revoke_tokens is false, ends the other
// sessions either way, and keeps the caller's session; a token this
// instance has cached is refused at once.
func TestPasswordChangeRevokesTokens(t *testing.T) {
	for _, d := range dialects {
		t.Run(string(d), func(t *testing.T) {
			s := authServerWith(t, d, func(o *httpapi.Options, _ *store.Store) { o.Auth.TokenCacheTTL = time.Minute })
			password := "root-password"
			for _, tc := range []struct {
				name       string
				revoke     string // the member revoke_tokens as sent ("" for none)
				patOutlive bool
			}{
				{"by default", "", false},
				{"revoke_tokens true", `,"revoke_tokens":true`, false},
				{"revoke_tokens false", `,"revoke_tokens":false`, true},
			} {
				session, other := s.login("root", password), s.login("root", password)
				res := s.as(session, "POST", "/api/auth/tokens", `{"name":"script","scope":"read","current_password":"`+password+`"}`)
				wantStatus(t, tc.name+": create a token", res, 200, "")
				pat, _ := object(t, res.body)["token"].(string)
				wantStatus(t, tc.name+": the token before", s.as(pat, "GET", "/api/vehicles", ""), 200, "")
				next := password + "x"
				wantStatus(t, tc.name+": change", s.as(session, "PUT", "/api/users/me/password",
					`{"current_password":"`+password+`","new_password":"`+next+`"`+tc.revoke+`}`), 204, "")
				password = next
				want := 401
				if tc.patOutlive {
					want = 200
				}
				wantStatus(t, tc.name+": the token after", s.as(pat, "GET", "/api/vehicles", ""), want, "")
				wantStatus(t, tc.name+": the caller's session", s.as(session, "GET", "/api/vehicles", ""), 200, "")
				wantStatus(t, tc.name+": another session", s.as(other, "GET", "/api/vehicles", ""), 401, "UNAUTHORIZED")
			}
		})
	}
}
