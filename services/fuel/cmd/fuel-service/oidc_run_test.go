package main

import (
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunWithOIDC(t *testing.T) {
	m, _ := startProvider(t, 0)
	base := MustRun(t, map[string]string{
		"FUEL_SQLITE_PATH": filepath.Join(t.TempDir(), "fuel.db"), "AUTH_MODE": "local",
		"AUTH_IDENTITY_SECRET": strings.Repeat("s", 32), "AUTH_OIDC_ISSUER": m.Issuer(), "AUTH_OIDC_CLIENT_ID": m.ClientID,
		"AUTH_OIDC_CLIENT_SECRET": m.ClientSecret, "AUTH_OIDC_REDIRECT_URL": "http://127.0.0.1:1/api/auth/oidc/callback",
	})
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
