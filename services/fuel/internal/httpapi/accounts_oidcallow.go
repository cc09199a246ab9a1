package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/oauth2"
)

// OIDCAllow says who may sign in with the OpenID provider (proto-docs/
// auth-decisions.md, "CSV cells, single sign-on sign-ups and the
// sign-in's return"): everyone the provider knows (Any), or whoever one of
// the lists names. Every sign-in is checked, the first (which makes the
// account) and every later one. The zero value lets no one in.
type OIDCAllow struct {
	// Any lets everyone the provider knows sign in and so make an account.
	Any bool
	// Users are preferred usernames and e-mail addresses, in any case; an
	// address matches only an email the provider says is verified.
	Users []string
	// Domains are e-mail domains, in any case, matched exactly (no
	// subdomains) against the domain of a verified email.
	Domains []string
	// Groups are matched exactly against the values of the GroupsClaim
	// claim (a list of strings, or one string).
	Groups []string
	// GroupsClaim is the claim that holds the groups; "" means "groups".
	GroupsClaim string
}

// allowlist is an OIDCAllow ready to match: lower-cased sets.
type allowlist struct {
	any                    bool
	users, domains, groups map[string]bool
	// groupsClaim is "" without Groups: the claim is then not read.
	groupsClaim string
}

func newAllowlist(o OIDCAllow) allowlist {
	set := func(items []string, lower bool) map[string]bool {
		m := make(map[string]bool, len(items))
		for _, s := range items {
			if s = strings.TrimSpace(s); lower {
				s = strings.ToLower(s)
			}
			if s != "" {
				m[s] = true
			}
		}
		return m
	}
	al := allowlist{any: o.Any, users: set(o.Users, true), domains: set(o.Domains, true), groups: set(o.Groups, false)}
	if len(al.groups) > 0 {
		al.groupsClaim = o.GroupsClaim
		if al.groupsClaim == "" {
			al.groupsClaim = "groups"
		}
	}
	return al
}

// identity is what the allowlist and the account's name are taken from:
// claims of the ID token or of the userinfo answer.
type identity struct {
	PreferredUsername string
	Email             string
	EmailVerified     bool
	Groups            []string
}

// readIdentity reads an identity with claims (an ID token's or a userinfo
// answer's Claims); the groups from groupsClaim, unless it is "".
func readIdentity(claims func(any) error, groupsClaim string) (identity, error) {
	var c struct {
		PreferredUsername string          `json:"preferred_username"`
		Email             string          `json:"email"`
		EmailVerified     json.RawMessage `json:"email_verified"`
	}
	if err := claims(&c); err != nil {
		return identity{}, err
	}
	id := identity{PreferredUsername: c.PreferredUsername, Email: c.Email, EmailVerified: claimTrue(c.EmailVerified)}
	if groupsClaim != "" {
		var all map[string]json.RawMessage
		if err := claims(&all); err != nil {
			return identity{}, err
		}
		id.Groups = claimStrings(all[groupsClaim])
	}
	return id, nil
}

// claimTrue reads a boolean claim: true, or "true" as some providers
// (Amazon Cognito) send it.
func claimTrue(raw json.RawMessage) bool {
	var b bool
	if json.Unmarshal(raw, &b) == nil {
		return b
	}
	var s string
	return json.Unmarshal(raw, &s) == nil && strings.EqualFold(s, "true")
}

// claimStrings reads a claim that is a list of strings (other items are
// skipped) or one string.
func claimStrings(raw json.RawMessage) []string {
	var list []any
	if json.Unmarshal(raw, &list) == nil {
		var out []string
		for _, v := range list {
			if s, ok := v.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	var s string
	if json.Unmarshal(raw, &s) == nil && s != "" {
		return []string{s}
	}
	return nil
}

// matches is the list that lets id in: "any", "users", "domains" or
// "groups"; "" when none does.
func (al allowlist) matches(id identity) string {
	if al.any {
		return "any"
	}
	if name := strings.ToLower(strings.TrimSpace(id.PreferredUsername)); name != "" && al.users[name] {
		return "users"
	}
	// An address a provider has not verified could be anyone's: a public
	// provider lets its users type any.
	if email := strings.ToLower(strings.TrimSpace(id.Email)); email != "" && id.EmailVerified {
		if al.users[email] {
			return "users"
		}
		if at := strings.LastIndexByte(email, '@'); at > 0 && al.domains[email[at+1:]] {
			return "domains"
		}
	}
	for _, g := range id.Groups {
		if al.groups[g] {
			return "groups"
		}
	}
	return ""
}

// admit checks a sign-in against the allowlist and says which list let it
// in. The ID token's claims are looked at first; when they let no one in,
// the provider's userinfo answer (some providers, Authelia by default, put
// the email and the groups only there), whose subject must be the ID
// token's (OpenID Connect Core 1.0, 5.3.2). A refusal is oidc_not_allowed.
func (f *oidcFlow) admit(ctx context.Context, tok *oauth2.Token, subject string, id identity) (string, error) {
	if by := f.allow.matches(id); by != "" {
		return by, nil
	}
	refusal := func(id identity, where string) error {
		return refuse("oidc_not_allowed", fmt.Errorf("subject %q (preferred_username %q, email %q, verified %t, %d groups, by %s) is on no allowed list",
			subject, id.PreferredUsername, id.Email, id.EmailVerified, len(id.Groups), where))
	}
	if f.provider.UserInfoEndpoint() == "" {
		return "", refusal(id, "the ID token")
	}
	info, err := f.provider.UserInfo(ctx, f.config.TokenSource(ctx, tok))
	if err != nil {
		return "", refuse("oidc_provider", fmt.Errorf("the ID token's claims are on no allowed list, and the userinfo endpoint failed: %w", err))
	}
	if info.Subject != subject {
		return "", refuse("oidc_not_allowed", errors.New("the ID token's claims are on no allowed list, and the userinfo answer is about another subject"))
	}
	uid, err := readIdentity(info.Claims, f.allow.groupsClaim)
	if err != nil {
		return "", refuse("oidc_provider", fmt.Errorf("userinfo: %w", err))
	}
	if by := f.allow.matches(uid); by != "" {
		return by + " (userinfo)", nil
	}
	return "", refusal(uid, "the ID token and userinfo")
}
