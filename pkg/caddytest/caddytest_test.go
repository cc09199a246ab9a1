package caddytest

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

func TestRootIsTheRepositoryRoot(t *testing.T) {
	root := Root(t)
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	// This package sits at pkg/caddytest: the root is two levels up.
	if want := filepath.Dir(filepath.Dir(wd)); root != want {
		t.Fatalf("Root = %q, want %q", root, want)
	}
	for _, name := range []string{"Caddyfile", "go.work"} {
		if _, err := os.Stat(filepath.Join(root, name)); err != nil {
			t.Errorf("root lacks %s: %v", name, err)
		}
	}
}

// TestStartServesTheCaddyfile starts the real gateway with no services
// behind it: an unknown API path is Caddy's own JSON 404.
func TestStartServesTheCaddyfile(t *testing.T) {
	base := Start(t, "FUEL_UPSTREAM=127.0.0.1:1", "DOCQA_UPSTREAM=127.0.0.1:1", "WEB_ROOT="+t.TempDir())
	resp, err := http.Get(base + "/api/no-such-thing")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var body struct{ Code string }
	if resp.StatusCode != http.StatusNotFound || json.Unmarshal(b, &body) != nil || body.Code != "NOT_FOUND" {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
}

// The kernel hands out a random free port per listener, so a few hundred
// calls would repeat one (two thousand listeners here gave 263 repeats);
// FreeAddr never does.
func TestFreeAddrNeverRepeats(t *testing.T) {
	seen := map[string]bool{}
	for range 500 {
		a := FreeAddr(t)
		if seen[a] {
			t.Fatalf("%s handed out twice", a)
		}
		seen[a] = true
	}
}
