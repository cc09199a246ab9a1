package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/oauth2-proxy/mockoidc"

	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/pkg/config"
	"github.com/carhub/backend/services/fuel/internal/accounts"
)

const testRedirect = "https://cars.example/api/auth/oidc/callback"

func TestOIDCConfigFromTheEnvironment(t *testing.T) {
	secretFile := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secretFile, []byte("from-a-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{
		"AUTH_OIDC_ISSUER": "https://id.example", "AUTH_OIDC_CLIENT_ID": "fuel",
		"AUTH_OIDC_CLIENT_SECRET_FILE": secretFile, "AUTH_OIDC_REDIRECT_URL": testRedirect,
		"AUTH_OIDC_ALLOWED_USERS": "ann@example.com, bob", "AUTH_OIDC_ALLOWED_DOMAINS": "example.com",
		"AUTH_OIDC_ALLOWED_GROUPS": "car-owners",
	}
	var oc OIDCConfig
	if err := config.Load(func(k string) string { return env[k] }, &oc); err != nil {
		t.Fatal(err)
	}
	want := OIDCConfig{
		Issuer: "https://id.example", ClientID: "fuel", ClientSecret: "from-a-file", RedirectURL: testRedirect, DiscoveryTimeout: 30 * time.Second,
		AllowedUsers: []string{"ann@example.com", "bob"}, AllowedDomains: []string{"example.com"}, AllowedGroups: []string{"car-owners"},
		GroupsClaim: "groups",
	}
	if !reflect.DeepEqual(oc, want) {
		t.Fatalf("loaded %+v, want %+v", oc, want)
	}
	if attrs := fmt.Sprint(config.Attrs(oc)...); strings.Contains(attrs, "from-a-file") {
		t.Fatalf("the start-up log shows the client secret: %s", attrs)
	}
}

func TestOIDCOptionsRefuseHalfAConfiguration(t *testing.T) {
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	full := OIDCConfig{Issuer: "https://id.example", ClientID: "fuel", ClientSecret: "s", RedirectURL: testRedirect, DiscoveryTimeout: time.Second, AllowAny: true}
	with := func(change func(*OIDCConfig)) OIDCConfig { c := full; change(&c); return c }
	for _, c := range []struct {
		oc   OIDCConfig
		mode auth.Mode
		want string
	}{
		{with(func(c *OIDCConfig) { c.ClientSecret = "" }), auth.ModeLocal, "AUTH_OIDC_CLIENT_SECRET is required with AUTH_OIDC_ISSUER, AUTH_OIDC_CLIENT_ID, AUTH_OIDC_REDIRECT_URL"},
		{OIDCConfig{ClientID: "fuel"}, auth.ModeLocal, "AUTH_OIDC_ISSUER, AUTH_OIDC_CLIENT_SECRET, AUTH_OIDC_REDIRECT_URL is required with AUTH_OIDC_CLIENT_ID"},
		{with(func(c *OIDCConfig) { c.RedirectURL = "" }), auth.ModeLocal, "AUTH_OIDC_REDIRECT_URL is required"},
		{full, auth.ModeOff, "AUTH_OIDC_ISSUER needs AUTH_MODE=local"},
		{with(func(c *OIDCConfig) { c.Issuer = "id.example" }), auth.ModeLocal, "AUTH_OIDC_ISSUER: must be an absolute"},
		{with(func(c *OIDCConfig) { c.RedirectURL = "/api/auth/oidc/callback" }), auth.ModeLocal, "AUTH_OIDC_REDIRECT_URL: must be an absolute"},
		{with(func(c *OIDCConfig) { c.RedirectURL = "https://cars.example/callback" }), auth.ModeLocal, "AUTH_OIDC_REDIRECT_URL: the path must be /api/auth/oidc/callback"},
		{with(func(c *OIDCConfig) { c.DiscoveryTimeout = 0 }), auth.ModeLocal, "AUTH_OIDC_DISCOVERY_TIMEOUT"},
		// Who may sign in: a list or AUTH_OIDC_ALLOW_ANY, not neither and
		// not both.
		{with(func(c *OIDCConfig) { c.AllowAny = false }), auth.ModeLocal,
			"AUTH_OIDC_ALLOWED_USERS, AUTH_OIDC_ALLOWED_DOMAINS or AUTH_OIDC_ALLOWED_GROUPS is required with AUTH_OIDC_ISSUER"},
		{with(func(c *OIDCConfig) { c.AllowedGroups = []string{"g"} }), auth.ModeLocal, "AUTH_OIDC_ALLOW_ANY=true lets everyone in: set it or"},
		{with(func(c *OIDCConfig) { c.AllowAny, c.AllowedDomains = false, []string{"@example.com"} }), auth.ModeLocal,
			`AUTH_OIDC_ALLOWED_DOMAINS: "@example.com" is not a domain`},
		{with(func(c *OIDCConfig) { c.AllowAny, c.AllowedDomains = false, []string{"example.com", "exa mple.com"} }), auth.ModeLocal,
			`AUTH_OIDC_ALLOWED_DOMAINS: "exa mple.com" is not a domain`},
		{with(func(c *OIDCConfig) { c.AllowAny, c.AllowedGroups, c.GroupsClaim = false, []string{"g"}, " " }), auth.ModeLocal,
			"AUTH_OIDC_GROUPS_CLAIM must name a claim"},
		{OIDCConfig{AllowedUsers: []string{"ann"}}, auth.ModeLocal, "AUTH_OIDC_ALLOWED_USERS, AUTH_OIDC_ALLOWED_DOMAINS, AUTH_OIDC_ALLOWED_GROUPS and AUTH_OIDC_ALLOW_ANY need AUTH_OIDC_ISSUER"},
		{OIDCConfig{AllowAny: true}, auth.ModeLocal, "need AUTH_OIDC_ISSUER"},
	} {
		if _, err := oidcOptions(ctx, c.oc, c.mode, log); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v %s: %v, want an error with %q", c.oc, c.mode, err, c.want)
		}
	}
	if opts, err := oidcOptions(ctx, OIDCConfig{DiscoveryTimeout: time.Second}, auth.ModeOff, log); opts != nil || err != nil {
		t.Fatalf("no OIDC variable: %v %v, want none and no error", opts, err)
	}
}

// startProvider runs an in-process OpenID provider whose discovery
// document answers 503 the first failures times.
func startProvider(t *testing.T, failures int32) (*mockoidc.MockOIDC, *atomic.Int32) {
	t.Helper()
	m, err := mockoidc.NewServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	var asked atomic.Int32
	if err := m.AddMiddleware(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == mockoidc.DiscoveryEndpoint && asked.Add(1) <= failures {
				http.Error(w, "starting", http.StatusServiceUnavailable)
				return
			}
			next.ServeHTTP(w, r)
		})
	}); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Start(ln, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Shutdown() })
	return m, &asked
}

func TestOIDCDiscoveryRetries(t *testing.T) {
	m, asked := startProvider(t, 2)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	oc := OIDCConfig{Issuer: m.Issuer(), ClientID: m.ClientID, ClientSecret: m.ClientSecret, RedirectURL: testRedirect, DiscoveryTimeout: time.Minute,
		AllowedUsers: []string{"ann"}, AllowedDomains: []string{"Example.COM"}, AllowedGroups: []string{"car-owners"}, GroupsClaim: "roles"}
	opts, err := oidcOptions(context.Background(), oc, auth.ModeLocal, log)
	if err != nil {
		t.Fatal(err)
	}
	if n := asked.Load(); n != 3 {
		t.Fatalf("discovery asked %d times, want 2 failures and a success", n)
	}
	if opts.Provider.Endpoint().AuthURL != m.AuthorizationEndpoint() || opts.ClientID != m.ClientID || opts.ClientSecret != m.ClientSecret || opts.RedirectURL != testRedirect {
		t.Fatalf("options %+v, endpoint %+v", opts, opts.Provider.Endpoint())
	}
	wantAllow := accounts.OIDCAllow{Users: []string{"ann"}, Domains: []string{"example.com"}, Groups: []string{"car-owners"}, GroupsClaim: "roles"}
	if !reflect.DeepEqual(opts.Allow, wantAllow) {
		t.Fatalf("allow %+v, want %+v", opts.Allow, wantAllow)
	}
}

func TestOIDCDiscoveryGivesUp(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	m, asked := startProvider(t, 1<<30)
	oc := OIDCConfig{Issuer: m.Issuer(), ClientID: "c", ClientSecret: "s", RedirectURL: testRedirect, DiscoveryTimeout: time.Second, AllowAny: true}
	_, err := oidcOptions(context.Background(), oc, auth.ModeLocal, log)
	if err == nil || !strings.Contains(err.Error(), "AUTH_OIDC_ISSUER: discovery of "+m.Issuer()) {
		t.Fatalf("a provider that never answers: %v", err)
	}
	if asked.Load() < 2 {
		t.Fatalf("discovery asked %d times, want retries", asked.Load())
	}
	// A cancelled start-up stops retrying.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	oc.DiscoveryTimeout = time.Hour
	if _, err := oidcOptions(ctx, oc, auth.ModeLocal, log); err == nil {
		t.Fatal("a cancelled start-up discovered a provider")
	}
}
