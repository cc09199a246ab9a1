package accounts

import (
	"context"
	"crypto/subtle"
	"errors"
	"net/http"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

// exchangeTime bounds the code exchange and the key fetch of a sign-in.
const exchangeTime = 15 * time.Second

// OIDCProvider is the protocol of a sign-in with an OpenID provider
// (proto-docs/auth-decisions.md, "OIDC sign-in"): the authorization code
// flow with PKCE, state and nonce. It makes the provider's login URL,
// exchanges the code the provider sends back, and verifies the ID token
// (signature, issuer, audience, expiry, nonce), then leaves who may sign
// in, and with which account, to OIDC. Keeping the state, nonce and
// verifier between the two steps (a cookie) is the caller's.
type OIDCProvider struct {
	config   oauth2.Config
	provider *oidc.Provider
	verifier *oidc.IDTokenVerifier
	signIn   *OIDC
}

// NewOIDCProvider returns the flow with provider for the client clientID
// (its secret clientSecret), whose callback the provider sends the
// browser to is redirectURL; signIn decides who gets in. now is the
// clock the ID token's expiry is checked against.
func NewOIDCProvider(provider *oidc.Provider, clientID, clientSecret, redirectURL string, signIn *OIDC, now func() time.Time) *OIDCProvider {
	scopes := []string{oidc.ScopeOpenID, "profile", "email"}
	if len(signIn.allow.groups) > 0 {
		// Providers that need it (Dex, Authelia, Okta) then put the
		// groups in; the others ignore a scope they do not know (OpenID
		// Connect Core 1.0, 3.1.2.1).
		scopes = append(scopes, "groups")
	}
	return &OIDCProvider{
		config: oauth2.Config{
			ClientID: clientID, ClientSecret: clientSecret, RedirectURL: redirectURL,
			Endpoint: provider.Endpoint(),
			Scopes:   scopes,
		},
		provider: provider,
		verifier: provider.Verifier(&oidc.Config{ClientID: clientID, Now: now}),
		signIn:   signIn,
	}
}

// AuthCodeURL is the provider's login page for a sign-in with state,
// nonce and the PKCE verifier (sent as its S256 challenge).
func (p *OIDCProvider) AuthCodeURL(state, nonce, verifier string) string {
	return p.config.AuthCodeURL(state, oidc.Nonce(nonce), oauth2.S256ChallengeOption(verifier))
}

// SignIn exchanges the code of a callback with the sign-in's PKCE
// verifier, verifies the ID token and that it carries the sign-in's
// nonce, and has OIDC.SignIn check the allowlist and open a session.
// Every refusal is an *OIDCRefusal.
func (p *OIDCProvider) SignIn(ctx context.Context, code, verifier, nonce string) (OIDCSignIn, error) {
	ctx, cancel := context.WithTimeout(ctx, exchangeTime)
	defer cancel()
	tok, err := p.config.Exchange(ctx, code, oauth2.VerifierOption(verifier))
	if err != nil {
		return OIDCSignIn{}, refuse("oidc_exchange", exchangeCause(err))
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return OIDCSignIn{}, refuse("oidc_id_token", errors.New("the token response has no id_token"))
	}
	idToken, err := p.verifier.Verify(ctx, raw)
	if err != nil {
		return OIDCSignIn{}, refuse("oidc_id_token", err)
	}
	if subtle.ConstantTimeCompare([]byte(idToken.Nonce), []byte(nonce)) != 1 {
		return OIDCSignIn{}, refuse("oidc_nonce", errors.New("the ID token's nonce does not match the sign-in cookie"))
	}
	var userinfo UserInfo
	if p.provider.UserInfoEndpoint() != "" {
		userinfo = func(ctx context.Context) (string, func(any) error, error) {
			info, err := p.provider.UserInfo(ctx, p.config.TokenSource(ctx, tok))
			if err != nil {
				return "", nil, err
			}
			return info.Subject, info.Claims, nil
		}
	}
	return p.signIn.SignIn(ctx, idToken.Issuer, idToken.Subject, idToken.Claims, userinfo)
}

// exchangeCause is what the log says of a failed code exchange: the
// provider's error code and description, never its response body.
func exchangeCause(err error) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		status := 0
		if re.Response != nil {
			status = re.Response.StatusCode
		}
		return errors.New("token endpoint answered " + http.StatusText(status) + ": " + re.ErrorCode + " " + re.ErrorDescription)
	}
	return err
}
