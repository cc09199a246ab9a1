package main

import (
	"context"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunWithOIDC(t *testing.T) {
	m, _ := startProvider(t, 0)
	vars := map[string]string{
		"FUEL_SQLITE_PATH": filepath.Join(t.TempDir(), "fuel.db"), "AUTH_MODE": "local",
		"AUTH_IDENTITY_SECRET": strings.Repeat("s", 32), "AUTH_OIDC_ISSUER": m.Issuer(), "AUTH_OIDC_CLIENT_ID": m.ClientID,
		"AUTH_OIDC_CLIENT_SECRET": m.ClientSecret, "AUTH_OIDC_REDIRECT_URL": "http://127.0.0.1:1/api/auth/oidc/callback",
	}
	// Without an allowlist the service does not start: everyone the
	// provider knows could sign up.
	err := run(context.Background(), env(vars), io.Discard)
	if err == nil || !strings.Contains(err.Error(), "AUTH_OIDC_ALLOWED_USERS, AUTH_OIDC_ALLOWED_DOMAINS or AUTH_OIDC_ALLOWED_GROUPS is required") {
		t.Fatalf("OIDC without an allowlist: %v", err)
	}
	vars["AUTH_OIDC_ALLOWED_DOMAINS"] = "example.com"
	base := MustRun(t, vars)
	res, err := http.Get(base + "/api/auth/config")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if string(b) != `{"mode":"local","oidc":true}` {
		t.Fatalf("config %s", b)
	}
}
