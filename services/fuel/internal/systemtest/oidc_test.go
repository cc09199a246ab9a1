package systemtest

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/oauth2-proxy/mockoidc"

	"github.com/carhub/backend/pkg/caddytest"
)

// TestOIDCThroughCaddy signs in with an OpenID provider (mockoidc: real
// discovery, JWKS and signed ID tokens) the way a browser does, through
// the real gateway: /api/auth/oidc/login, the provider, the callback on
// the gateway's public address, the token in the /login fragment; that
// token then works on both services through Caddy, and a second sign-in
// of the same subject is the same user.
func TestOIDCThroughCaddy(t *testing.T) {
	provider, err := mockoidc.NewServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := provider.Start(ln, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = provider.Shutdown() })

	secret := strings.Repeat("o", 40)
	gwAddr := caddytest.FreeAddr(t)
	fuel := startService(t, map[string]string{
		"FUEL_SQLITE_PATH":        t.TempDir() + "/fuel.db",
		"AUTH_MODE":               "local",
		"AUTH_IDENTITY_SECRET":    secret,
		"AUTH_OIDC_ISSUER":        provider.Issuer(),
		"AUTH_OIDC_CLIENT_ID":     provider.ClientID,
		"AUTH_OIDC_CLIENT_SECRET": provider.ClientSecret,
		"AUTH_OIDC_REDIRECT_URL":  "http://" + gwAddr + "/api/auth/oidc/callback",
		// mockoidc's default user is jane.doe@example.com, verified.
		"AUTH_OIDC_ALLOWED_DOMAINS": "example.com",
	})
	docqa := startDocqaLocal(t, secret)
	gw := caddytest.Start(t,
		"LISTEN_ADDRESS=http://"+gwAddr,
		"FUEL_UPSTREAM="+strings.TrimPrefix(fuel.URL, "http://"),
		"DOCQA_UPSTREAM="+strings.TrimPrefix(docqa.URL, "http://"),
		"WEB_ROOT="+t.TempDir(),
		"AUTH_MODE=local",
	)

	res, err := http.Get(gw + "/api/auth/config")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if string(b) != `{"mode":"local","oidc":true}` {
		t.Fatalf("config through Caddy: %s", b)
	}

	// signIn follows the redirects as a browser does, with its own cookie
	// jar, and stops at the web client's /login, whose fragment it reads.
	signIn := func() string {
		t.Helper()
		jar, _ := cookiejar.New(nil)
		var hops []string
		client := &http.Client{Jar: jar, CheckRedirect: func(req *http.Request, via []*http.Request) error {
			hops = append(hops, req.URL.Host+req.URL.Path)
			if req.URL.Path == "/login" {
				return http.ErrUseLastResponse
			}
			return nil
		}}
		res, err := client.Get(gw + "/api/auth/oidc/login")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		loc, err := url.Parse(res.Header.Get("Location"))
		if err != nil || res.StatusCode != http.StatusSeeOther || loc.Path != "/login" {
			t.Fatalf("sign-in ended with %d at %q", res.StatusCode, res.Header.Get("Location"))
		}
		// The callback came back through the gateway, not straight to fuel.
		if !strings.Contains(strings.Join(hops, " "), gwAddr+"/api/auth/oidc/callback") {
			t.Fatalf("the provider did not send the browser to the gateway's callback: %v", hops)
		}
		frag, err := url.ParseQuery(loc.Fragment)
		if err != nil || frag.Get("token") == "" || frag.Get("error") != "" {
			t.Fatalf("fragment %q", loc.Fragment)
		}
		return frag.Get("token")
	}
	me := func(token string) (id float64, name string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, gw+"/api/auth/me", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var u struct {
			ID       float64 `json:"id"`
			Username string  `json:"username"`
		}
		if res.StatusCode != http.StatusOK || json.NewDecoder(res.Body).Decode(&u) != nil {
			t.Fatalf("me: %d", res.StatusCode)
		}
		return u.ID, u.Username
	}

	token := signIn()
	id, name := me(token)
	if name != mockoidc.DefaultUser().PreferredUsername {
		t.Fatalf("signed in as %q, want the provider's preferred_username %q", name, mockoidc.DefaultUser().PreferredUsername)
	}
	// docqa, behind forward_auth, takes the same token. Caddy admits
	// docqa once its PDF engine is up: its own 503 until then is waited out.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
		req, _ := http.NewRequest(http.MethodGet, gw+"/api/documents", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		res, err = http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ = io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusServiceUnavailable || time.Now().After(deadline) {
			break
		}
	}
	if res.StatusCode != http.StatusOK || string(b) != "[]" {
		t.Fatalf("docqa with the OIDC session: %d %s", res.StatusCode, b)
	}
	if again, _ := me(signIn()); again != id {
		t.Fatalf("second sign-in of the same subject is user %v, the first was %v", again, id)
	}
}
