package accounts

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
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

// OIDCRefusal is a refused sign-in with an OpenID provider: Code goes to
// the web client (oidc_not_allowed, oidc_provider, oidc_id_token,
// oidc_account, and the protocol's codes of internal/httpapi), Cause to
// the log only.
type OIDCRefusal struct {
	Code  string
	Cause error
}

func (e *OIDCRefusal) Error() string { return e.Code + ": " + e.Cause.Error() }

func refuse(code string, cause error) *OIDCRefusal { return &OIDCRefusal{Code: code, Cause: cause} }

// OIDCClaims is what the allowlist and the account's name are taken from:
// claims of the ID token or of the userinfo answer.
type OIDCClaims struct {
	PreferredUsername string
	Email             string
	EmailVerified     bool
	Groups            []string
}

// UserInfo asks the provider's userinfo endpoint for the signed-in user:
// the subject it is about and its claims (an oidc.UserInfo's Claims).
type UserInfo func(ctx context.Context) (subject string, claims func(any) error, err error)

// OIDC signs in the users an OpenID provider vouches for, once the
// protocol (OIDCProvider: the code exchange, the ID token's signature,
// audience and nonce; the state is internal/httpapi's) is done: the
// allowlist, the account linked to the issuer and subject, and a session.
type OIDC struct {
	store Store
	allow allowlist
}

// NewOIDC returns the sign-in of the users allow lets in, their accounts
// in store.
func NewOIDC(store Store, allow OIDCAllow) *OIDC {
	return &OIDC{store: store, allow: newAllowlist(allow)}
}

// OIDCSignIn is a sign-in's session, whether it made the account, and
// which list let it in (for the log).
type OIDCSignIn struct {
	Session
	Created   bool
	AllowedBy string
}

// SignIn checks the verified ID token of (issuer, subject), whose claims
// idClaims reads, against the allowlist, finds or makes the user linked
// to issuer and subject, and opens a session. userinfo, nil when the
// provider has no userinfo endpoint, is asked only when the ID token's
// claims let no one in. Every error is an *OIDCRefusal.
func (o *OIDC) SignIn(ctx context.Context, issuer, subject string, idClaims func(any) error, userinfo UserInfo) (OIDCSignIn, error) {
	id, err := readClaims(idClaims, o.allow.groupsClaim)
	if err != nil {
		return OIDCSignIn{}, refuse("oidc_id_token", err)
	}
	// Every sign-in, not only the first, passes the allowlist: taking
	// someone off it, or out of the group at the provider, ends their
	// sign-ins (proto-docs/auth-decisions.md).
	by, err := o.admit(ctx, subject, id, userinfo)
	if err != nil {
		return OIDCSignIn{}, err
	}
	name := OIDCUsername(issuer, subject, id.PreferredUsername, id.Email)
	u, created, err := o.store.OIDCUser(ctx, issuer, subject, name)
	if err != nil {
		return OIDCSignIn{}, refuse("oidc_account", err)
	}
	s, err := OpenSession(ctx, o.store, u, "oidc")
	if err != nil {
		return OIDCSignIn{}, refuse("oidc_account", err)
	}
	return OIDCSignIn{Session: s, Created: created, AllowedBy: by}, nil
}

// admit checks a sign-in against the allowlist and says which list let it
// in. The ID token's claims are looked at first; when they let no one in,
// the provider's userinfo answer (some providers, Authelia by default, put
// the email and the groups only there), whose subject must be the ID
// token's (OpenID Connect Core 1.0, 5.3.2). A refusal is oidc_not_allowed.
func (o *OIDC) admit(ctx context.Context, subject string, id OIDCClaims, userinfo UserInfo) (string, error) {
	if by := o.allow.matches(id); by != "" {
		return by, nil
	}
	refusal := func(id OIDCClaims, where string) error {
		return refuse("oidc_not_allowed", fmt.Errorf("subject %q (preferred_username %q, email %q, verified %t, %d groups, by %s) is on no allowed list",
			subject, id.PreferredUsername, id.Email, id.EmailVerified, len(id.Groups), where))
	}
	if userinfo == nil {
		return "", refusal(id, "the ID token")
	}
	infoSubject, claims, err := userinfo(ctx)
	if err != nil {
		return "", refuse("oidc_provider", fmt.Errorf("the ID token's claims are on no allowed list, and the userinfo endpoint failed: %w", err))
	}
	if infoSubject != subject {
		return "", refuse("oidc_not_allowed", errors.New("the ID token's claims are on no allowed list, and the userinfo answer is about another subject"))
	}
	uid, err := readClaims(claims, o.allow.groupsClaim)
	if err != nil {
		return "", refuse("oidc_provider", fmt.Errorf("userinfo: %w", err))
	}
	if by := o.allow.matches(uid); by != "" {
		return by + " (userinfo)", nil
	}
	return "", refusal(uid, "the ID token and userinfo")
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

// matches is the list that lets id in: "any", "users", "domains" or
// "groups"; "" when none does.
func (al allowlist) matches(id OIDCClaims) string {
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

// readClaims reads claims (an ID token's or a userinfo answer's Claims);
// the groups from groupsClaim, unless it is "".
func readClaims(claims func(any) error, groupsClaim string) (OIDCClaims, error) {
	var c struct {
		PreferredUsername string          `json:"preferred_username"`
		Email             string          `json:"email"`
		EmailVerified     json.RawMessage `json:"email_verified"`
	}
	if err := claims(&c); err != nil {
		return OIDCClaims{}, err
	}
	id := OIDCClaims{PreferredUsername: c.PreferredUsername, Email: c.Email, EmailVerified: claimTrue(c.EmailVerified)}
	if groupsClaim != "" {
		var all map[string]json.RawMessage
		if err := claims(&all); err != nil {
			return OIDCClaims{}, err
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

// OIDCUsername is the name asked for a new OIDC account: the provider's
// preferred_username, else its email, else one made from the issuer and
// subject; characters a username may not hold (UsernamePattern) become
// "_".
func OIDCUsername(issuer, subject, preferred, email string) string {
	for _, s := range []string{preferred, email} {
		if name := cleanUsername(s); name != "" {
			return name
		}
	}
	sum := sha256.Sum256([]byte(issuer + "\x00" + subject))
	return "user-" + hex.EncodeToString(sum[:5])
}

// cleanUsername maps s onto UsernamePattern's characters, cut to 64; ""
// when nothing but separators is left.
func cleanUsername(s string) string {
	r := []rune(strings.TrimSpace(s))
	for i, c := range r {
		if !unicode.IsLetter(c) && !unicode.IsNumber(c) && !strings.ContainsRune("._@-", c) {
			r[i] = '_'
		}
	}
	if len(r) > 64 {
		r = r[:64]
	}
	name := string(r)
	if strings.Trim(name, "._@-") == "" {
		return ""
	}
	return name
}
