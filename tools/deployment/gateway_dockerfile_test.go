package deployment

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/moby/buildkit/frontend/dockerfile/instructions"
)

// The gateway image builds the web client as `make build` does, Caddy as
// `make bin/caddy` does, and runs that Caddy on the repository's Caddyfile
// with WEB_ROOT at the client's build.
func TestGatewayDockerfile(t *testing.T) {
	caddyPkg := makeBuilds(t)["caddy"].pkg
	if caddyPkg == "" {
		t.Fatal("make build does not build bin/caddy")
	}
	stages := mustParseDockerfile(t, "Dockerfile.gateway")
	if len(stages) != 3 {
		t.Fatalf("%d stages, want web (Node), build (Go) and the final one", len(stages))
	}
	web, build, final := stages[0], stages[1], stages[2]

	if !strings.HasPrefix(web.BaseName, "node:22") {
		t.Errorf("web stage FROM %s, want node:22 (the client is built on Node.js 22 LTS)", web.BaseName)
	}
	var webDir string
	var webRuns []string
	for _, cmd := range web.Commands {
		switch c := cmd.(type) {
		case *instructions.WorkdirCommand:
			webDir = c.Path
		case *instructions.RunCommand:
			webRuns = append(webRuns, strings.Join(c.CmdLine, " "))
		}
	}
	if !strings.HasSuffix(webDir, "/services/web") {
		t.Errorf("web stage WORKDIR %q, want the client's directory", webDir)
	}
	if len(webRuns) != 2 || !strings.HasPrefix(webRuns[0], "npm ci") || webRuns[1] != "npm run build" {
		t.Errorf("web stage runs %q, want npm ci then npm run build", webRuns)
	}

	if !strings.HasPrefix(build.BaseName, "golang:1.26") {
		t.Errorf("build stage FROM %s, want golang:1.26", build.BaseName)
	}
	builtCaddy := false
	for _, cmd := range build.Commands {
		if c, ok := cmd.(*instructions.RunCommand); ok {
			line := strings.Join(c.CmdLine, " ")
			if strings.HasPrefix(line, "cd tools && GOWORK=off go build ") && strings.HasSuffix(line, "-o /out/caddy "+caddyPkg) {
				builtCaddy = true
			}
		}
	}
	if !builtCaddy {
		t.Errorf("the build stage does not build %s in the tools module with GOWORK=off", caddyPkg)
	}

	if !strings.HasPrefix(final.BaseName, "gcr.io/distroless/static") {
		t.Errorf("final stage FROM %s, want distroless static", final.BaseName)
	}
	env := map[string]string{}
	copies := map[string]string{} // destination -> source (stage:path)
	var user string
	var health *instructions.HealthCheckCommand
	var entry, command []string
	for _, stage := range stages {
		for _, cmd := range stage.Commands {
			c, ok := cmd.(*instructions.CopyCommand)
			if !ok || c.From != "" {
				continue
			}
			for _, src := range c.SourcePaths {
				if _, err := os.Stat(filepath.Join(repoRoot(t), src)); err != nil {
					t.Errorf("COPY %s: not in the repository: %v", src, err)
				}
			}
		}
	}
	for _, cmd := range final.Commands {
		switch c := cmd.(type) {
		case *instructions.EnvCommand:
			for _, kv := range c.Env {
				env[kv.Key] = kv.Value
			}
		case *instructions.CopyCommand:
			for _, src := range c.SourcePaths {
				copies[c.DestPath] = c.From + ":" + src
			}
		case *instructions.UserCommand:
			user = c.User
		case *instructions.HealthCheckCommand:
			health = c
		case *instructions.EntrypointCommand:
			entry = c.CmdLine
		case *instructions.CmdCommand:
			command = c.CmdLine
		}
	}
	if got := copies["/etc/caddy/Caddyfile"]; got != ":Caddyfile" {
		t.Errorf("/etc/caddy/Caddyfile comes from %q, want the repository's Caddyfile", got)
	}
	if env["WEB_ROOT"] == "" || copies[env["WEB_ROOT"]] != "web:"+path.Join(webDir, "dist") {
		t.Errorf("WEB_ROOT %q holds %q, want the web stage's dist", env["WEB_ROOT"], copies[env["WEB_ROOT"]])
	}
	for _, dir := range []string{env["XDG_DATA_HOME"], env["XDG_CONFIG_HOME"]} {
		if dir == "" || copies[dir] == "" {
			t.Errorf("Caddy's storage %q (XDG_DATA_HOME, XDG_CONFIG_HOME) is not made in the image for its user", dir)
		}
	}
	if user == "" || user == "root" || strings.HasPrefix(user, "0") {
		t.Errorf("final stage USER %q, want a non-root user", user)
	}
	if health == nil || len(health.Health.Test) < 2 || health.Health.Test[0] != "CMD" ||
		!strings.HasSuffix(health.Health.Test[1], "/healthcheck") || !slices.Contains(health.Health.Test, "LISTEN_ADDRESS") {
		t.Errorf("final stage HEALTHCHECK = %+v, want the healthcheck binary on LISTEN_ADDRESS", health)
	}
	run := append(slices.Clone(entry), command...)
	if len(entry) != 1 || filepath.Base(entry[0]) != "caddy" || !slices.Equal(run[1:], []string{"run", "--config", "/etc/caddy/Caddyfile", "--adapter", "caddyfile"}) {
		t.Errorf("the image runs %v, want caddy run on /etc/caddy/Caddyfile", run)
	}
}
