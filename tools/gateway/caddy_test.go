package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/carhub/backend/tools/internal/loopback"
)

// repoRoot is the repository root, two levels above this package.
func repoRoot(tb testing.TB) string {
	tb.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "Caddyfile")); err != nil {
		tb.Fatalf("no Caddyfile at the repository root %s: %v", root, err)
	}
	return root
}

// mustCaddy returns the Caddy binary the Makefile builds (CADDY_BIN overrides).
func mustCaddy(tb testing.TB) string {
	tb.Helper()
	bin := os.Getenv("CADDY_BIN")
	if bin == "" {
		bin = filepath.Join(repoRoot(tb), "bin", "caddy")
	}
	if _, err := os.Stat(bin); err != nil {
		tb.Fatalf("Caddy binary %s missing (run `make bin/caddy` or set CADDY_BIN): %v", bin, err)
	}
	return bin
}

// caddyCmd runs bin/caddy with args in the repository root and env added to
// the environment; it returns the combined output and the error.
func caddyCmd(tb testing.TB, env []string, args ...string) (string, error) {
	tb.Helper()
	cmd := exec.Command(mustCaddy(tb), args...)
	cmd.Dir = repoRoot(tb)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestCaddyfileValid(t *testing.T) {
	tests := []struct {
		name string
		env  []string
	}{
		{name: "defaults"},
		{name: "compose addresses", env: []string{
			"LISTEN_ADDRESS=:80", "FUEL_UPSTREAM=fuel-service:8082", "DOCQA_UPSTREAM=docqa-service:8080", "WEB_ROOT=/srv",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := caddyCmd(t, tt.env, "validate", "--config", "Caddyfile", "--adapter", "caddyfile")
			if err != nil {
				t.Fatalf("caddy validate: %v\n%s", err, out)
			}
			if !strings.Contains(out, "Valid configuration") {
				t.Fatalf("caddy validate did not say the configuration is valid:\n%s", out)
			}
		})
	}
}

func TestCaddyfileFormatted(t *testing.T) {
	out, err := caddyCmd(t, nil, "fmt", "--diff", "Caddyfile")
	if err != nil {
		t.Fatalf("Caddyfile is not formatted (run `make fmt`): %v\n%s", err, out)
	}
	// Belt and braces: formatting the file must give back the same bytes.
	src, err := os.ReadFile(filepath.Join(repoRoot(t), "Caddyfile"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(mustCaddy(t), "fmt", "-")
	cmd.Stdin = bytes.NewReader(src)
	formatted, err := cmd.Output()
	if err != nil {
		t.Fatalf("caddy fmt -: %v", err)
	}
	if !bytes.Equal(formatted, src) {
		t.Fatal("caddy fmt changes the Caddyfile (run `make fmt`)")
	}
}

// startCaddy runs `bin/caddy run` on the repository's Caddyfile with env and
// returns its base URL once it answers; the process is stopped at cleanup.
func startCaddy(tb testing.TB, env ...string) string {
	tb.Helper()
	addr := loopback.FreeAddr(tb)
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, mustCaddy(tb), "run", "--config", "Caddyfile", "--adapter", "caddyfile")
	cmd.Dir = repoRoot(tb)
	// Its own metrics listener too, so that it never meets a running gateway's.
	cmd.Env = append(os.Environ(), append([]string{"LISTEN_ADDRESS=http://" + addr, "METRICS_LISTEN=" + loopback.FreeAddr(tb)}, env...)...)
	var logs bytes.Buffer
	cmd.Stdout = &logs
	cmd.Stderr = &logs
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Start(); err != nil {
		cancel()
		tb.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	tb.Cleanup(func() {
		cancel()
		<-exited
		if tb.Failed() {
			tb.Logf("caddy log:\n%s", logs.String())
		}
	})

	// Wait until Caddy accepts connections (or fail if it exits first).
	for i := 0; ; i++ {
		select {
		case err := <-exited:
			tb.Fatalf("caddy exited before serving: %v\n%s", err, logs.String())
		default:
		}
		conn, err := net.Dial("tcp", addr)
		if err == nil {
			conn.Close()
			return "http://" + addr
		}
		if i > 600 {
			tb.Fatalf("caddy does not accept connections on %s:\n%s", addr, logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// hostPort is the host:port of a test server's URL.
func hostPort(url string) string {
	return strings.TrimPrefix(url, "http://")
}

// TestCaddyfileHealthChecks reads the adapted JSON configuration: every
// reverse proxy checks its upstream's /health actively, and the retry window
// lets a restarting service come back without failing requests.
func TestCaddyfileHealthChecks(t *testing.T) {
	out, err := caddyCmd(t, nil, "adapt", "--config", "Caddyfile", "--adapter", "caddyfile")
	if err != nil {
		t.Fatalf("caddy adapt: %v\n%s", err, out)
	}
	var cfg any
	if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &cfg); err != nil {
		t.Fatalf("adapted config is not JSON: %v", err)
	}
	var proxies []map[string]any
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if v["handler"] == "reverse_proxy" {
				proxies = append(proxies, v)
			}
			for _, c := range v {
				walk(c)
			}
		case []any:
			for _, c := range v {
				walk(c)
			}
		}
	}
	walk(cfg)
	if len(proxies) != 4 {
		t.Fatalf("found %d reverse proxies, want 4 (fuel, documents, receipts, chat)", len(proxies))
	}
	for _, p := range proxies {
		hc, _ := p["health_checks"].(map[string]any)
		active, _ := hc["active"].(map[string]any)
		if active["uri"] != "/readyz" || active["interval"] == nil {
			t.Errorf("reverse proxy %v: active health check = %v, want uri /readyz with an interval", p["upstreams"], active)
		}
		lb, _ := p["load_balancing"].(map[string]any)
		if lb["try_duration"] == nil {
			t.Errorf("reverse proxy %v: no try_duration", p["upstreams"])
		}
	}
}
