package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/cenkalti/backoff/v5"
	"github.com/coreos/go-oidc/v3/oidc"

	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/services/fuel/internal/accounts"
	"github.com/carhub/backend/services/fuel/internal/httpapi"
	"github.com/carhub/backend/services/fuel/internal/store"
)

// authOptions reads the accounts' configuration and, in local mode, makes
// the first administrator from AUTH_ADMIN_USERNAME and AUTH_ADMIN_PASSWORD
// when no account has a password yet (it takes over the built-in user,
// and with it what was made with accounts off).
func authOptions(ctx context.Context, cfg Config, st *store.Store, log *slog.Logger) (httpapi.AuthOptions, error) {
	mode, err := auth.ParseMode(cfg.AuthMode)
	if err != nil {
		return httpapi.AuthOptions{}, err
	}
	if cfg.AuthLoginsPerMinute < 0 {
		return httpapi.AuthOptions{}, fmt.Errorf("AUTH_LOGINS_PER_MINUTE must not be negative, got %d", cfg.AuthLoginsPerMinute)
	}
	if cfg.AuthTokenCache < 0 || cfg.AuthTokenCache > time.Minute {
		return httpapi.AuthOptions{}, fmt.Errorf("AUTH_TOKEN_CACHE must be from 0s to 1m (a revoked token must be refused within a minute), got %s", cfg.AuthTokenCache)
	}
	if cfg.AuthPasswordConcurrency < 0 {
		return httpapi.AuthOptions{}, fmt.Errorf("AUTH_PASSWORD_CONCURRENCY must not be negative, got %d", cfg.AuthPasswordConcurrency)
	}
	// The process's one bound on argon2id work: the first administrator's
	// hash below and every route's go through it.
	passwords := auth.NewPasswords(cfg.AuthPasswordConcurrency, 0)
	opts := httpapi.AuthOptions{
		Mode: mode, Accounts: st, LoginsPerMinute: cfg.AuthLoginsPerMinute, TokenCacheTTL: cfg.AuthTokenCache,
		Passwords: passwords,
	}
	if mode != auth.ModeLocal {
		return opts, nil
	}
	if len(cfg.AuthIdentitySecret) < auth.MinSecretBytes {
		return opts, fmt.Errorf("AUTH_IDENTITY_SECRET must be at least %d bytes with AUTH_MODE=local (for example: openssl rand -base64 48)", auth.MinSecretBytes)
	}
	opts.IdentitySecret = []byte(cfg.AuthIdentitySecret)
	if cfg.AuthAdminUsername == "" && cfg.AuthAdminPassword == "" {
		return opts, nil
	}
	if cfg.AuthAdminUsername == "" || cfg.AuthAdminPassword == "" {
		return opts, errors.New("AUTH_ADMIN_USERNAME and AUTH_ADMIN_PASSWORD go together")
	}
	if err := auth.CheckPassword(cfg.AuthAdminPassword); err != nil {
		return opts, fmt.Errorf("AUTH_ADMIN_PASSWORD: %w", err)
	}
	hash, err := passwords.Hash(ctx, cfg.AuthAdminPassword)
	if err != nil {
		return opts, err
	}
	switch u, err := st.ClaimBuiltinUser(ctx, cfg.AuthAdminUsername, hash); {
	case err == nil:
		log.Info("first administrator made", "username", u.Username)
	case errors.Is(err, accounts.ErrAccountsClaimed):
		// Accounts exist: the variables only matter on the first start.
	default:
		return opts, fmt.Errorf("AUTH_ADMIN_USERNAME: %w", err)
	}
	return opts, nil
}

// OIDCConfig is the configuration of OIDC sign-in (proto-docs/
// proto-docs/auth-decisions.md, "OIDC sign-in"): the four variables together, or none.
type OIDCConfig struct {
	// Issuer is the OpenID provider's issuer URL, discovered at start-up.
	Issuer       string `env:"AUTH_OIDC_ISSUER"`
	ClientID     string `env:"AUTH_OIDC_CLIENT_ID"`
	ClientSecret string `env:"AUTH_OIDC_CLIENT_SECRET" secret:"true"`
	// RedirectURL is the public URL of the callback, as registered at the
	// provider: https://cars.example/api/auth/oidc/callback.
	RedirectURL string `env:"AUTH_OIDC_REDIRECT_URL"`
	// DiscoveryTimeout bounds the retries of the discovery at start-up
	// (a provider started with the service may answer late).
	DiscoveryTimeout time.Duration `env:"AUTH_OIDC_DISCOVERY_TIMEOUT" default:"30s"`
	// Who may sign in (accounts.OIDCAllow): one of the lists, or AllowAny
	// to let everyone the provider knows make an account. Neither is a
	// start-up error: pointed at a public provider, anyone could spend the
	// operator's model credit.
	AllowedUsers   []string `env:"AUTH_OIDC_ALLOWED_USERS"`   // preferred usernames, verified e-mails
	AllowedDomains []string `env:"AUTH_OIDC_ALLOWED_DOMAINS"` // domains of verified e-mails
	AllowedGroups  []string `env:"AUTH_OIDC_ALLOWED_GROUPS"`  // values of GroupsClaim
	GroupsClaim    string   `env:"AUTH_OIDC_GROUPS_CLAIM" default:"groups"`
	AllowAny       bool     `env:"AUTH_OIDC_ALLOW_ANY"`
}

// allowVariables are the variables that say who may sign in.
const allowVariables = "AUTH_OIDC_ALLOWED_USERS, AUTH_OIDC_ALLOWED_DOMAINS, AUTH_OIDC_ALLOWED_GROUPS"

// domainPattern is an e-mail domain as AUTH_OIDC_ALLOWED_DOMAINS takes it:
// lower-case labels of letters, digits and inner hyphens (IDNs in their
// xn-- form).
var domainPattern = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$`)

// oidcAllow checks who may sign in: a list, or AUTH_OIDC_ALLOW_ANY=true,
// not both and not neither.
func oidcAllow(oc OIDCConfig) (accounts.OIDCAllow, error) {
	allow := accounts.OIDCAllow{Any: oc.AllowAny, Users: oc.AllowedUsers, Groups: oc.AllowedGroups, GroupsClaim: oc.GroupsClaim}
	lists := len(oc.AllowedUsers) + len(oc.AllowedDomains) + len(oc.AllowedGroups)
	switch {
	case oc.AllowAny && lists > 0:
		return allow, fmt.Errorf("AUTH_OIDC_ALLOW_ANY=true lets everyone in: set it or %s, not both", allowVariables)
	case !oc.AllowAny && lists == 0:
		return allow, errors.New("AUTH_OIDC_ALLOWED_USERS, AUTH_OIDC_ALLOWED_DOMAINS or AUTH_OIDC_ALLOWED_GROUPS is required with AUTH_OIDC_ISSUER " +
			"(who may sign in and make an account); AUTH_OIDC_ALLOW_ANY=true lets everyone the provider knows in")
	case len(oc.AllowedGroups) > 0 && strings.TrimSpace(oc.GroupsClaim) == "":
		return allow, errors.New("AUTH_OIDC_GROUPS_CLAIM must name a claim with AUTH_OIDC_ALLOWED_GROUPS")
	}
	for _, d := range oc.AllowedDomains {
		d = strings.ToLower(d)
		if !domainPattern.MatchString(d) {
			return allow, fmt.Errorf("AUTH_OIDC_ALLOWED_DOMAINS: %q is not a domain (write example.com, without @)", d)
		}
		allow.Domains = append(allow.Domains, d)
	}
	return allow, nil
}

// oidcCallbackPath is the path fuel-service serves the callback on.
const oidcCallbackPath = "/api/auth/oidc/callback"

// oidcHTTPTimeout bounds each request to the provider made outside a
// client's request: the discovery and the fetches of its keys.
const oidcHTTPTimeout = 10 * time.Second

// oidcOptions checks the OIDC configuration and discovers the provider,
// retrying with exponential backoff for up to DiscoveryTimeout; nil when
// no AUTH_OIDC_* variable is set.
func oidcOptions(ctx context.Context, oc OIDCConfig, mode auth.Mode, log *slog.Logger) (*httpapi.OIDCOptions, error) {
	vars := []struct{ name, value string }{
		{"AUTH_OIDC_ISSUER", oc.Issuer},
		{"AUTH_OIDC_CLIENT_ID", oc.ClientID},
		{"AUTH_OIDC_CLIENT_SECRET", oc.ClientSecret},
		{"AUTH_OIDC_REDIRECT_URL", oc.RedirectURL},
	}
	var set, unset []string
	for _, v := range vars {
		if v.value == "" {
			unset = append(unset, v.name)
		} else {
			set = append(set, v.name)
		}
	}
	if len(set) == 0 {
		if len(oc.AllowedUsers)+len(oc.AllowedDomains)+len(oc.AllowedGroups) > 0 || oc.AllowAny {
			return nil, fmt.Errorf("%s and AUTH_OIDC_ALLOW_ANY need AUTH_OIDC_ISSUER (OIDC sign-in is not configured)", allowVariables)
		}
		return nil, nil
	}
	if len(unset) > 0 {
		return nil, fmt.Errorf("%s is required with %s (OIDC sign-in needs all four AUTH_OIDC_ISSUER, AUTH_OIDC_CLIENT_ID, AUTH_OIDC_CLIENT_SECRET, AUTH_OIDC_REDIRECT_URL)",
			strings.Join(unset, ", "), strings.Join(set, ", "))
	}
	if mode != auth.ModeLocal {
		return nil, fmt.Errorf("AUTH_OIDC_ISSUER needs AUTH_MODE=local, got AUTH_MODE=%s", mode)
	}
	if err := checkHTTPURL(oc.Issuer); err != nil {
		return nil, fmt.Errorf("AUTH_OIDC_ISSUER: %w", err)
	}
	if err := checkHTTPURL(oc.RedirectURL); err != nil {
		return nil, fmt.Errorf("AUTH_OIDC_REDIRECT_URL: %w", err)
	}
	if u, _ := url.Parse(oc.RedirectURL); u.Path != oidcCallbackPath || u.RawQuery != "" {
		return nil, fmt.Errorf("AUTH_OIDC_REDIRECT_URL: the path must be %s without a query, got %q", oidcCallbackPath, oc.RedirectURL)
	}
	if oc.DiscoveryTimeout <= 0 {
		return nil, fmt.Errorf("AUTH_OIDC_DISCOVERY_TIMEOUT must be positive, got %s", oc.DiscoveryTimeout)
	}
	allow, err := oidcAllow(oc)
	if err != nil {
		return nil, err
	}
	// The provider keeps this context's client for fetching its keys.
	pctx := oidc.ClientContext(ctx, &http.Client{Timeout: oidcHTTPTimeout})
	provider, err := backoff.Retry(ctx, func() (*oidc.Provider, error) {
		return oidc.NewProvider(pctx, oc.Issuer)
	},
		backoff.WithBackOff(backoff.NewExponentialBackOff()),
		backoff.WithMaxElapsedTime(oc.DiscoveryTimeout),
		backoff.WithNotify(func(err error, next time.Duration) {
			log.Warn("oidc discovery failed, retrying", "issuer", oc.Issuer, "error", err.Error(), "retry_in", next)
		}),
	)
	if err != nil {
		return nil, fmt.Errorf("AUTH_OIDC_ISSUER: discovery of %s: %w", oc.Issuer, err)
	}
	log.Info("oidc sign-in on", "issuer", oc.Issuer, "redirect_url", oc.RedirectURL)
	return &httpapi.OIDCOptions{Provider: provider, ClientID: oc.ClientID, ClientSecret: oc.ClientSecret, RedirectURL: oc.RedirectURL, Allow: allow}, nil
}

// checkHTTPURL accepts an absolute http or https URL.
func checkHTTPURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return err
	}
	if (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("must be an absolute http or https URL, got %q", s)
	}
	return nil
}
