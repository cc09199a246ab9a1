package deployment

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/moby/buildkit/frontend/dockerfile/parser"
)

// makeBuild is how `make build` builds one binary: its package and the
// build tags it passes (comma-separated, "" for none).
type makeBuild struct {
	pkg, tags string
}

// makeBuilds returns, per binary name, how `make build` builds it, read
// from the commands `make -n build` would run.
func makeBuilds(tb testing.TB) map[string]makeBuild {
	tb.Helper()
	cmd := exec.Command("make", "-n", "-B", "build", "GO=go")
	cmd.Dir = repoRoot(tb)
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("make -n build: %v\n%s", err, out)
	}
	builds := map[string]makeBuild{}
	re := regexp.MustCompile(`go build .*-o (?:\.\./)?bin/(\S+) (\S+)$`)
	for _, line := range strings.Split(string(out), "\n") {
		line = strings.TrimSpace(line)
		if m := re.FindStringSubmatch(line); m != nil {
			builds[m[1]] = makeBuild{pkg: m[2], tags: buildTags(line)}
		}
	}
	return builds
}

var tagsFlag = regexp.MustCompile(`\s-tags[= ]"?([^\s"]+)`)

// buildTags returns the -tags value of a go build command line.
func buildTags(line string) string {
	if m := tagsFlag.FindStringSubmatch(line); m != nil {
		return m[1]
	}
	return ""
}

// TestMakeBuildIsLeanAndStamped: every binary `make build` makes is static,
// stripped, without this machine's paths and stamped with the version.
func TestMakeBuildIsLeanAndStamped(t *testing.T) {
	cmd := exec.Command("make", "-n", "-B", "build", "GO=go", "VERSION=v1.2.3-test")
	cmd.Dir = repoRoot(t)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make -n build: %v\n%s", err, out)
	}
	n := 0
	for _, line := range strings.Split(string(out), "\n") {
		if !strings.Contains(line, " build ") || !strings.Contains(line, "-o bin/") && !strings.Contains(line, "-o ../bin/") ||
			strings.Contains(line, "bin/caddy") {
			continue
		}
		n++
		for _, want := range []string{"CGO_ENABLED=0", "-trimpath", "-buildvcs=true", `-ldflags "-s -w -X main.version=v1.2.3-test"`} {
			if !strings.Contains(line, want) {
				t.Errorf("%q lacks %s", line, want)
			}
		}
	}
	if n != 3 {
		t.Errorf("found %d builds of fuel-service, docqa-service and healthcheck in\n%s", n, out)
	}
}

// TestServicesLeaveOutNetTrace: the services are built without
// golang.org/x/net/trace. Its init registers debug pages that execute HTML
// templates, and a program that may call methods by name through reflection
// keeps every exported method of every type: 28 of docqa's 90 MB. gRPC leaves
// it out under grpcnotrace, go-grpc-middleware's retry (v2, which serves the
// v1 API the Milvus client calls: pkg/grpcmiddleware-v1) under retrynotrace.
func TestServicesLeaveOutNetTrace(t *testing.T) {
	builds := makeBuilds(t)
	for _, binary := range []string{"fuel-service", "docqa-service"} {
		mk := builds[binary]
		if mk.pkg == "" {
			t.Fatalf("make build does not build bin/%s (saw %v)", binary, builds)
		}
		cmd := exec.Command("go", "list", "-deps", "-tags", mk.tags, mk.pkg)
		cmd.Dir = repoRoot(t)
		cmd.Env = append(os.Environ(), "GOWORK=") // the workspace, as make build
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", mk.pkg, err)
		}
		deps := strings.Fields(string(out))
		if len(deps) < 100 || !slices.Contains(deps, "google.golang.org/grpc") {
			t.Fatalf("go list -deps %s listed %d packages, without gRPC", mk.pkg, len(deps))
		}
		if slices.Contains(deps, "golang.org/x/net/trace") {
			t.Errorf("bin/%s (tags %q) links golang.org/x/net/trace", binary, mk.tags)
		}
		// gen2brain/heic without its nodynamic tag dlopens libheif through
		// purego, which makes a CGO_ENABLED=0 binary dynamically linked.
		if slices.Contains(deps, "github.com/ebitengine/purego") {
			t.Errorf("bin/%s (tags %q) links purego: the binary is no longer static (add nodynamic)", binary, mk.tags)
		}
	}
}

// dockerBuild is what a Dockerfile's build stage runs to build one binary.
type dockerBuild struct {
	workdir, pkg, tags string
}

func mustParseDockerfile(tb testing.TB, name string) []instructions.Stage {
	tb.Helper()
	src, err := os.ReadFile(filepath.Join(repoRoot(tb), "deploy", name))
	if err != nil {
		tb.Fatal(err)
	}
	ast, err := parser.Parse(bytes.NewReader(src))
	if err != nil {
		tb.Fatalf("%s: %v", name, err)
	}
	stages, _, err := instructions.Parse(ast.AST, nil)
	if err != nil {
		tb.Fatalf("%s: %v", name, err)
	}
	if len(stages) < 2 {
		tb.Fatalf("%s: %d stages, want a build stage and a final one", name, len(stages))
	}
	return stages
}

func TestDockerfiles(t *testing.T) {
	builds := makeBuilds(t)
	for _, tt := range []struct {
		dockerfile, binary, port string
		// final is the final stage's base: distroless static, except for
		// docqa, whose OCR runs tesseract, a dynamically linked program.
		final string
	}{
		{"Dockerfile.fuel", "fuel-service", "8082", "gcr.io/distroless/static"},
		{"Dockerfile.docqa", "docqa-service", "8080", "debian:bookworm-slim"},
	} {
		t.Run(tt.dockerfile, func(t *testing.T) {
			mk := builds[tt.binary]
			if mk.pkg == "" {
				t.Fatalf("make build does not build bin/%s (saw %v)", tt.binary, builds)
			}
			stages := mustParseDockerfile(t, tt.dockerfile)
			build, final := stages[0], stages[len(stages)-1]

			// The build stage: static, and the same package as the Makefile.
			if !strings.HasPrefix(build.BaseName, "golang:1.26") {
				t.Errorf("build stage FROM %s, want golang:1.26", build.BaseName)
			}
			workdir, static := "/", false
			var got []dockerBuild
			re := regexp.MustCompile(`(?:^|&&\s*|;\s*)(?:\S+=\S+\s+)*go build .*-o /out/` + regexp.QuoteMeta(tt.binary) + ` (\S+)`)
			for _, cmd := range build.Commands {
				switch c := cmd.(type) {
				case *instructions.WorkdirCommand:
					workdir = c.Path
				case *instructions.EnvCommand:
					for _, kv := range c.Env {
						if kv.Key == "CGO_ENABLED" && kv.Value == "0" {
							static = true
						}
					}
				case *instructions.RunCommand:
					line := strings.Join(c.CmdLine, " ")
					if m := re.FindStringSubmatch(line); m != nil {
						got = append(got, dockerBuild{workdir: workdir, pkg: m[1], tags: buildTags(line)})
					}
				case *instructions.CopyCommand:
					for _, src := range c.SourcePaths {
						if strings.ContainsAny(src, "*?[") {
							continue
						}
						if _, err := os.Stat(filepath.Join(repoRoot(t), src)); err != nil {
							t.Errorf("COPY %s: not in the repository: %v", src, err)
						}
					}
				}
			}
			if !static {
				t.Error("the build stage does not set CGO_ENABLED=0")
			}
			if len(got) != 1 || got[0].workdir != "/src" || got[0].pkg != mk.pkg || got[0].tags != mk.tags {
				t.Errorf("Dockerfile builds %+v (workdir, package, tags), Makefile builds %s with tags %q from the repository root",
					got, mk.pkg, mk.tags)
			}

			// The final stage: small, non-root, health-checked, runs the binary.
			if !strings.HasPrefix(final.BaseName, tt.final) {
				t.Errorf("final stage FROM %s, want %s", final.BaseName, tt.final)
			}
			var user string
			var health *instructions.HealthCheckCommand
			var entry []string
			exposed := false
			for _, cmd := range final.Commands {
				switch c := cmd.(type) {
				case *instructions.UserCommand:
					user = c.User
				case *instructions.HealthCheckCommand:
					health = c
				case *instructions.EntrypointCommand:
					entry = c.CmdLine
				case *instructions.ExposeCommand:
					exposed = exposed || strings.Contains(strings.Join(c.Ports, " "), tt.port)
				}
			}
			if user == "" || user == "root" || strings.HasPrefix(user, "0") {
				t.Errorf("final stage USER %q, want a non-root user", user)
			}
			if health == nil || len(health.Health.Test) < 2 || health.Health.Test[0] != "CMD" ||
				!strings.HasSuffix(health.Health.Test[1], "/healthcheck") {
				t.Errorf("final stage HEALTHCHECK = %+v, want the healthcheck binary", health)
			}
			if len(entry) != 1 || filepath.Base(entry[0]) != tt.binary {
				t.Errorf("ENTRYPOINT %v, want the %s binary", entry, tt.binary)
			}
			if !exposed {
				t.Errorf("final stage does not EXPOSE %s", tt.port)
			}
		})
	}
}

// The images' probe is the tools module's healthcheck command, which the
// Dockerfiles build from its own files only.
func TestDockerfilesBuildTheHealthcheck(t *testing.T) {
	for _, name := range []string{"Dockerfile.fuel", "Dockerfile.docqa"} {
		stages := mustParseDockerfile(t, name)
		found := false
		for _, cmd := range stages[0].Commands {
			if c, ok := cmd.(*instructions.RunCommand); ok &&
				strings.Contains(strings.Join(c.CmdLine, " "), "go build -ldflags=\"-s -w -X main.version=$VERSION\" -o /out/healthcheck ./cmd/healthcheck") {
				found = true
			}
		}
		if !found {
			t.Errorf("%s does not build ./cmd/healthcheck of the tools module", name)
		}
	}
}
