package accounts_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/carhub/backend/services/fuel/internal/accounts"
)

// claims reads the JSON object s as a token's claims.
func claims(s string) func(any) error {
	return func(v any) error { return json.Unmarshal([]byte(s), v) }
}

func refusal(tb testing.TB, err error) string {
	tb.Helper()
	if err == nil {
		return ""
	}
	var r *accounts.OIDCRefusal
	if !errors.As(err, &r) {
		tb.Fatalf("error %v is not an OIDCRefusal", err)
	}
	return r.Code
}

// TestOIDCAllowlist: which list lets a sign-in in, from the ID token's
// claims; an address counts only when verified.
func TestOIDCAllowlist(t *testing.T) {
	allow := accounts.OIDCAllow{Users: []string{" Ada ", "grace@example.org"}, Domains: []string{"Example.COM"}, Groups: []string{"cars"}, GroupsClaim: "roles"}
	for _, tc := range []struct {
		name, claims, by, code string
	}{
		{"a username in any case", `{"preferred_username":"ADA"}`, "users", ""},
		{"a verified address", `{"email":"Grace@example.org","email_verified":true}`, "users", ""},
		{"verified as a string", `{"email":"grace@example.org","email_verified":"true"}`, "users", ""},
		{"an unverified address", `{"email":"grace@example.org"}`, "", "oidc_not_allowed"},
		{"a verified domain", `{"email":"x@example.com","email_verified":true}`, "domains", ""},
		{"no subdomain", `{"email":"x@mail.example.com","email_verified":true}`, "", "oidc_not_allowed"},
		{"a group in a list", `{"roles":["other","cars"]}`, "groups", ""},
		{"a group alone", `{"roles":"cars"}`, "groups", ""},
		{"groups are exact", `{"roles":["Cars"]}`, "", "oidc_not_allowed"},
		{"another claim's groups", `{"groups":["cars"]}`, "", "oidc_not_allowed"},
		{"bad claims", `[]`, "", "oidc_id_token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, err := accounts.NewOIDC(newMemStore(), allow).SignIn(context.Background(), "https://idp", "s1", claims(tc.claims), nil)
			if code := refusal(t, err); code != tc.code || in.AllowedBy != tc.by {
				t.Errorf("by %q, refused %q; want %q, %q", in.AllowedBy, code, tc.by, tc.code)
			}
		})
	}
	if _, err := accounts.NewOIDC(newMemStore(), accounts.OIDCAllow{}).SignIn(context.Background(), "https://idp", "s1", claims(`{"preferred_username":"ada"}`), nil); refusal(t, err) != "oidc_not_allowed" {
		t.Errorf("the zero OIDCAllow let someone in: %v", err)
	}
}

// TestOIDCUserInfo: when the ID token lets no one in the userinfo answer
// is asked, and taken only about the same subject.
func TestOIDCUserInfo(t *testing.T) {
	o := accounts.NewOIDC(newMemStore(), accounts.OIDCAllow{Domains: []string{"example.com"}})
	info := func(subject, c string, err error) accounts.UserInfo {
		return func(context.Context) (string, func(any) error, error) { return subject, claims(c), err }
	}
	verified := `{"email":"x@example.com","email_verified":true}`
	for _, tc := range []struct {
		name     string
		userinfo accounts.UserInfo
		by, code string
	}{
		{"the userinfo lets in", info("s1", verified, nil), "domains (userinfo)", ""},
		{"another subject", info("s2", verified, nil), "", "oidc_not_allowed"},
		{"the endpoint fails", info("", "", errors.New("down")), "", "oidc_provider"},
		{"neither lets in", info("s1", `{"email":"x@example.org","email_verified":true}`, nil), "", "oidc_not_allowed"},
	} {
		in, err := o.SignIn(context.Background(), "https://idp", "s1", claims(`{"preferred_username":"x"}`), tc.userinfo)
		if code := refusal(t, err); code != tc.code || in.AllowedBy != tc.by {
			t.Errorf("%s: by %q, refused %q; want %q, %q", tc.name, in.AllowedBy, code, tc.by, tc.code)
		}
	}
}

// TestOIDCSignInAccount: the first sign-in makes the account, named by
// the provider's claims, and every sign-in opens a session of it.
func TestOIDCSignInAccount(t *testing.T) {
	st := newMemStore()
	o := accounts.NewOIDC(st, accounts.OIDCAllow{Any: true})
	ctx := context.Background()
	first, err := o.SignIn(ctx, "https://idp", "s1", claims(`{"preferred_username":"Ada Lovelace"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	again, err := o.SignIn(ctx, "https://idp", "s1", claims(`{"preferred_username":"someone else"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !first.Created || again.Created || first.User.ID != again.User.ID || first.User.Username != "Ada_Lovelace" {
		t.Errorf("first %+v, again %+v", first, again)
	}
	if again.Token.Name != "oidc" || again.Secret == "" || again.AllowedBy != "any" {
		t.Errorf("session %+v", again)
	}
}

// TestOIDCUsername: the preferred username, else the email, else a name
// made from the issuer and subject; only a username's characters.
func TestOIDCUsername(t *testing.T) {
	for _, tc := range []struct{ preferred, email, want string }{
		{"ada", "a@example.com", "ada"},
		{" Ada Lovelace ", "", "Ada_Lovelace"},
		{"", "grace@example.com", "grace@example.com"},
		{"...", "--", ""},
		{strings.Repeat("é", 70), "", strings.Repeat("é", 64)},
	} {
		got := accounts.OIDCUsername("https://idp", "s1", tc.preferred, tc.email)
		if tc.want == "" {
			if !strings.HasPrefix(got, "user-") || len(got) != len("user-")+10 || got != accounts.OIDCUsername("https://idp", "s1", "", "") {
				t.Errorf("%q %q: %q, want user- and 10 hex digits of the issuer and subject", tc.preferred, tc.email, got)
			}
			continue
		}
		if got != tc.want || !accounts.UsernamePattern.MatchString(got) {
			t.Errorf("%q %q: %q, want %q", tc.preferred, tc.email, got, tc.want)
		}
	}
}
