package deployment

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/moby/patternmatcher"
	"github.com/moby/patternmatcher/ignorefile"
)

// mustIgnore reads the .dockerignore BuildKit uses beside a Dockerfile.
func mustIgnore(tb testing.TB, dockerfile string) *patternmatcher.PatternMatcher {
	tb.Helper()
	f, err := os.Open(filepath.Join(repoRoot(tb), "deploy", dockerfile+".dockerignore"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	patterns, err := ignorefile.ReadAll(f)
	if err != nil {
		tb.Fatal(err)
	}
	pm, err := patternmatcher.New(patterns)
	if err != nil {
		tb.Fatal(err)
	}
	return pm
}

// Whatever a Dockerfile copies from the build context is in the context:
// every file under each COPY source passes its .dockerignore, except the
// directories a build makes (node_modules, dist) and the client's
// end-to-end tests.
func TestDockerignoreKeepsWhatIsCopied(t *testing.T) {
	root := repoRoot(t)
	for _, name := range []string{"Dockerfile.fuel", "Dockerfile.docqa", "Dockerfile.gateway"} {
		t.Run(name, func(t *testing.T) {
			pm := mustIgnore(t, name)
			for _, stage := range mustParseDockerfile(t, name) {
				for _, cmd := range stage.Commands {
					c, ok := cmd.(*instructions.CopyCommand)
					if !ok || c.From != "" {
						continue
					}
					for _, src := range c.SourcePaths {
						if strings.ContainsAny(src, "*?[") {
							continue // optional files (go.work.sum*)
						}
						src = strings.TrimSuffix(src, "/")
						err := filepath.WalkDir(filepath.Join(root, src), func(path string, d fs.DirEntry, err error) error {
							if err != nil {
								return err
							}
							rel, _ := filepath.Rel(root, path)
							if d.IsDir() {
								switch d.Name() {
								case "node_modules", "dist", "dev-dist", "e2e", "var":
									return filepath.SkipDir
								}
								return nil
							}
							if excluded, err := pm.MatchesOrParentMatches(filepath.ToSlash(rel)); err != nil || excluded {
								t.Errorf("COPY %s: %s is left out of the build context (err %v)", src, rel, err)
							}
							return nil
						})
						if err != nil {
							t.Errorf("COPY %s: %v", src, err)
						}
					}
				}
			}
		})
	}
}

// The gateway's context leaves out what a local build made: the image
// installs and builds the client itself.
func TestGatewayContextLeavesOutLocalBuilds(t *testing.T) {
	pm := mustIgnore(t, "Dockerfile.gateway")
	for _, p := range []string{"services/web/node_modules/vite/package.json", "services/web/dist/index.html", "bin/caddy", "services/fuel/go.mod"} {
		if excluded, err := pm.MatchesOrParentMatches(p); err != nil || !excluded {
			t.Errorf("%s is in the gateway's build context", p)
		}
	}
}
