package httpapi_test

import (
	"encoding/json"
	"net/url"
	"testing"

	"github.com/golang-jwt/jwt/v5"
	"github.com/oauth2-proxy/mockoidc"

	"github.com/carhub/backend/services/fuel/internal/accounts"
	"github.com/carhub/backend/services/fuel/internal/store"
)

// claimsUser is a provider's user whose ID token claims are changed (a
// nil value removes a claim) and whose userinfo answer is info (nil: the
// MockUser's, which never says email_verified).
type claimsUser struct {
	*mockoidc.MockUser
	id   map[string]any
	info map[string]any
}

func (u claimsUser) Claims(scope []string, base *mockoidc.IDTokenClaims) (jwt.Claims, error) {
	c, err := u.MockUser.Claims(scope, base)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	m := jwt.MapClaims{}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for k, v := range u.id {
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
	}
	return m, nil
}

func (u claimsUser) Userinfo(scope []string) ([]byte, error) {
	if u.info == nil {
		return u.MockUser.Userinfo(scope)
	}
	return json.Marshal(u.info)
}

// jane is mockoidc's default user: jane.doe, jane.doe@example.com
// (verified), groups engineering and design; with changes.
func jane(change func(*mockoidc.MockUser)) *mockoidc.MockUser {
	u := mockoidc.DefaultUser()
	if change != nil {
		change(u)
	}
	return u
}

func TestOIDCAllowlist(t *testing.T) {
	unverified := func(u *mockoidc.MockUser) { u.EmailVerified = false }
	noName := func(u *mockoidc.MockUser) { u.PreferredUsername = "someone" }
	cases := []struct {
		name  string
		allow accounts.OIDCAllow
		user  mockoidc.User
		ok    bool
	}{
		{"nothing allowed", accounts.OIDCAllow{}, jane(nil), false},
		{"any", accounts.OIDCAllow{Any: true}, jane(nil), true},
		{"user by preferred_username, any case", accounts.OIDCAllow{Users: []string{"max", "Jane.Doe"}}, jane(nil), true},
		{"user by verified email, any case", accounts.OIDCAllow{Users: []string{"JANE.DOE@example.com"}}, jane(noName), true},
		{"user by unverified email", accounts.OIDCAllow{Users: []string{"jane.doe@example.com"}}, jane(func(u *mockoidc.MockUser) { noName(u); unverified(u) }), false},
		{"user not listed", accounts.OIDCAllow{Users: []string{"max", "max@example.com"}}, jane(nil), false},
		{"domain of a verified email", accounts.OIDCAllow{Domains: []string{"other.example", "EXAMPLE.com"}}, jane(nil), true},
		{"domain of an unverified email", accounts.OIDCAllow{Domains: []string{"example.com"}}, jane(unverified), false},
		{"subdomain", accounts.OIDCAllow{Domains: []string{"example.com"}}, jane(func(u *mockoidc.MockUser) { u.Email = "jane@mail.example.com" }), false},
		{"domain with a prefix", accounts.OIDCAllow{Domains: []string{"example.com"}}, jane(func(u *mockoidc.MockUser) { u.Email = "jane@badexample.com" }), false},
		{"email_verified as a string", accounts.OIDCAllow{Domains: []string{"example.com"}},
			claimsUser{MockUser: jane(nil), id: map[string]any{"email_verified": "true"}}, true},
		{"email_verified as the string false", accounts.OIDCAllow{Domains: []string{"example.com"}},
			claimsUser{MockUser: jane(nil), id: map[string]any{"email_verified": "false"}}, false},
		{"group", accounts.OIDCAllow{Groups: []string{"car-owners", "design"}}, jane(nil), true},
		{"group in another case", accounts.OIDCAllow{Groups: []string{"Design"}}, jane(nil), false},
		{"no listed group", accounts.OIDCAllow{Groups: []string{"car-owners"}}, jane(nil), false},
		{"group in another claim", accounts.OIDCAllow{Groups: []string{"car-owners"}, GroupsClaim: "roles"},
			claimsUser{MockUser: jane(nil), id: map[string]any{"roles": []any{"car-owners", 7}}}, true},
		{"groups claim of one string", accounts.OIDCAllow{Groups: []string{"car-owners"}},
			claimsUser{MockUser: jane(nil), id: map[string]any{"groups": "car-owners"}}, true},
		{"groups in the userinfo answer only", accounts.OIDCAllow{Groups: []string{"car-owners"}},
			claimsUser{MockUser: jane(nil), id: map[string]any{"groups": nil}, info: map[string]any{"sub": "1234567890", "groups": []string{"car-owners"}}}, true},
		{"userinfo about another subject", accounts.OIDCAllow{Groups: []string{"car-owners"}},
			claimsUser{MockUser: jane(nil), id: map[string]any{"groups": nil}, info: map[string]any{"sub": "someone-else", "groups": []string{"car-owners"}}}, false},
		{"any list matching", accounts.OIDCAllow{Users: []string{"max"}, Domains: []string{"other.example"}, Groups: []string{"design"}}, jane(nil), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := newOIDCEnvAllowing(t, store.SQLite, 0, tc.allow)
			env.provider.QueueUser(tc.user)
			v := env.signIn(t, browser(t))
			if !tc.ok {
				if v.Get("error") != "oidc_not_allowed" || len(v) != 1 {
					t.Fatalf("%v, want only error=oidc_not_allowed", v)
				}
				if n := env.userCount(t); n != 1 {
					t.Fatalf("%d users after a refused sign-in, want only root", n)
				}
				return
			}
			if v.Get("token") == "" {
				t.Fatalf("refused: %v", v)
			}
			if me := env.me(t, v.Get("token")); me["username"] != "jane.doe" && me["username"] != "someone" {
				t.Fatalf("me %v", me)
			}
		})
	}
}

// TestOIDCAllowlistAsksForGroups: with a group list the sign-in asks for
// the groups scope as well (mockoidc, as Dex and Authelia, puts the groups
// in only then); without one it does not.
func TestOIDCAllowlistAsksForGroups(t *testing.T) {
	for _, tc := range []struct {
		allow accounts.OIDCAllow
		scope string
	}{
		{accounts.OIDCAllow{Groups: []string{"g"}}, "openid profile email groups"},
		{accounts.OIDCAllow{Users: []string{"u"}}, "openid profile email"},
	} {
		env := newOIDCEnvAllowing(t, store.SQLite, 0, tc.allow)
		res := get(t, noFollow(t), env.url+"/api/auth/oidc/login")
		loc, err := url.Parse(res.Header.Get("Location"))
		if err != nil || loc.Query().Get("scope") != tc.scope {
			t.Errorf("%+v: scope %q, want %q", tc.allow, loc.Query().Get("scope"), tc.scope)
		}
	}
}

// TestOIDCAllowlistAppliesToExistingAccounts: every sign-in passes the
// allowlist, not only the first. Taken off the list, an account signs in
// no more (its sessions already issued live on until they end or are
// revoked); put back, it is the same account.
func TestOIDCAllowlistAppliesToExistingAccounts(t *testing.T) {
	for _, d := range dialects {
		t.Run(string(d), func(t *testing.T) {
			env := newOIDCEnvAllowing(t, d, 0, accounts.OIDCAllow{Groups: []string{"design"}})
			session := env.mustSignIn(t)
			id := env.me(t, session)["id"]

			// Out of the group at the provider.
			env.provider.QueueUser(jane(func(u *mockoidc.MockUser) { u.Groups = []string{"engineering"} }))
			if v := env.signIn(t, browser(t)); v.Get("error") != "oidc_not_allowed" {
				t.Fatalf("out of the group: %v, want error=oidc_not_allowed", v)
			}
			// Off the list in the configuration.
			env.serve(t, env.store, 0, accounts.OIDCAllow{Users: []string{"max"}})
			if v := env.signIn(t, browser(t)); v.Get("error") != "oidc_not_allowed" {
				t.Fatalf("off the list: %v, want error=oidc_not_allowed", v)
			}
			if me := env.me(t, session); me["id"] != id {
				t.Fatalf("the session issued before: %v", me)
			}
			env.serve(t, env.store, 0, accounts.OIDCAllow{Users: []string{"max", "jane.doe"}})
			if me := env.me(t, env.mustSignIn(t)); me["id"] != id {
				t.Fatalf("back on the list: %v, want the same account %v", me, id)
			}
			if n := env.userCount(t); n != 2 {
				t.Fatalf("%d users, want root and jane.doe", n)
			}
		})
	}
}
