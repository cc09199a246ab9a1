package deploycheck

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/dotenv"
)

// knownEnv returns what each image's configuration reads, by the
// Dockerfile that builds it.
func knownEnv(tb testing.TB) map[string]envNames {
	tb.Helper()
	caddyfile, err := os.ReadFile(filepath.Join(repoRoot(tb), "Caddyfile"))
	if err != nil {
		tb.Fatal(err)
	}
	return map[string]envNames{
		"deploy/Dockerfile.fuel":    configEnv(tb, services[0].cmd),
		"deploy/Dockerfile.docqa":   configEnv(tb, services[1].cmd),
		"deploy/Dockerfile.gateway": caddyEnv(tb, string(caddyfile)),
	}
}

// docker-compose.yml gives each of our images only variables it reads.
func TestComposeEnvIsRead(t *testing.T) {
	known := knownEnv(t)
	root := repoRoot(t)
	// No environment of the caller: the file's own defaults apply.
	opts, err := cli.NewProjectOptions([]string{filepath.Join(root, "docker-compose.yml")},
		cli.WithWorkingDirectory(root), cli.WithEnv(nil), cli.WithName("carhub"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := opts.LoadProject(context.Background())
	if err != nil {
		t.Fatalf("loading docker-compose.yml: %v", err)
	}
	ours := 0
	for _, s := range p.Services {
		if s.Build == nil {
			continue
		}
		k, ok := known[s.Build.Dockerfile]
		if !ok {
			t.Errorf("%s: built from %s, whose configuration is not known here", s.Name, s.Build.Dockerfile)
			continue
		}
		ours++
		for name := range s.Environment {
			if !k.reads(name) {
				t.Errorf("docker-compose.yml %s: %s is set, but its configuration does not read it", s.Name, name)
			}
		}
	}
	if ours != len(known) {
		t.Errorf("%d services built from our Dockerfiles, want %d", ours, len(known))
	}
}

// Each deploy/*.env.example sets only variables its component reads.
func TestEnvExamplesAreRead(t *testing.T) {
	known := knownEnv(t)
	matches, err := filepath.Glob(filepath.Join(repoRoot(t), "deploy", "*.env.example"))
	if err != nil {
		t.Fatal(err)
	}
	of := map[string]string{
		"fuel.env.example":  "deploy/Dockerfile.fuel",
		"docqa.env.example": "deploy/Dockerfile.docqa",
		"caddy.env.example": "deploy/Dockerfile.gateway",
	}
	if len(matches) != len(of) {
		t.Errorf("deploy/*.env.example: %v, want %d files", matches, len(of))
	}
	for _, path := range matches {
		k, ok := known[of[filepath.Base(path)]]
		if !ok {
			t.Errorf("%s: no component known for it", path)
			continue
		}
		vars, err := dotenv.Read(path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if len(vars) == 0 {
			t.Errorf("%s sets nothing", path)
		}
		for name := range vars {
			if !k.reads(name) {
				t.Errorf("%s: %s is set, but its configuration does not read it", filepath.Base(path), name)
			}
		}
	}
}
