package deploycheck

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/carhub/backend/tools/internal/loopback"
)

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

// The gateway's probes ask what Caddy serves: bin/caddy runs the rendered
// ConfigMap's Caddyfile with the Deployment's environment, its two
// listeners moved to free loopback ports and WEB_ROOT to a directory
// standing in for the image's build, and every probe must answer 2xx on
// the port it names.
func TestGatewayProbesAreServed(t *testing.T) {
	b := mustRenderBase(t)
	c := mustContainer(t, b.deployments[gateway])
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "Caddyfile"), []byte(mustCaddyfile(t, b)), 0o600); err != nil {
		t.Fatal(err)
	}
	webRoot := filepath.Join(dir, "srv")
	if err := os.MkdirAll(webRoot, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(webRoot, "index.html"), []byte("<!doctype html><title>CarHub</title>"), 0o600); err != nil {
		t.Fatal(err)
	}

	// Container port -> where this Caddy listens for it.
	local := map[int32]string{}
	env := envOf(t, c)
	for name, format := range map[string]string{"LISTEN_ADDRESS": "http://%s", "METRICS_LISTEN": "%s"} {
		port := listenPort(t, env[name])
		local[port] = loopback.FreeAddr(t)
		env[name] = fmt.Sprintf(format, local[port])
	}
	env["WEB_ROOT"] = webRoot

	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, mustCaddy(t), "run", "--config", filepath.Join(dir, "Caddyfile"), "--adapter", "caddyfile")
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + dir, "XDG_DATA_HOME=" + filepath.Join(dir, "data"), "XDG_CONFIG_HOME=" + filepath.Join(dir, "config")}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("caddy output:\n%s", logs.String())
		}
	})

	probes := map[string]*corev1.Probe{"liveness": c.LivenessProbe, "readiness": c.ReadinessProbe, "startup": c.StartupProbe}
	for kind, p := range probes {
		if p == nil {
			continue
		}
		if p.HTTPGet == nil {
			t.Errorf("%s probe is not an HTTP GET", kind)
			continue
		}
		addr := local[portNumber(t, c, p.HTTPGet.Port)]
		if addr == "" {
			t.Errorf("%s probe on port %s, on which the gateway does not listen", kind, p.HTTPGet.Port.String())
			continue
		}
		url := "http://" + addr + p.HTTPGet.Path
		var status int
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			resp, err := http.Get(url)
			if err != nil {
				continue
			}
			resp.Body.Close()
			status = resp.StatusCode
			break
		}
		if status < 200 || status > 299 {
			t.Errorf("%s probe: GET %s answered %d, want 2xx", kind, url, status)
		}
	}
}
