package deployment

import (
	"context"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"
)

func repoRoot(tb testing.TB) string {
	tb.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		tb.Fatal(err)
	}
	return root
}

// mustLoadCompose loads docker-compose.yml as `docker compose` would, with
// env as the only environment (defaults in the file apply otherwise).
func mustLoadCompose(tb testing.TB, env ...string) *types.Project {
	tb.Helper()
	root := repoRoot(tb)
	opts, err := cli.NewProjectOptions([]string{filepath.Join(root, "docker-compose.yml")},
		cli.WithWorkingDirectory(root),
		cli.WithEnv(env),
		cli.WithName("carhub"),
	)
	if err != nil {
		tb.Fatal(err)
	}
	p, err := opts.LoadProject(context.Background())
	if err != nil {
		tb.Fatalf("loading docker-compose.yml: %v", err)
	}
	return p
}

func mustService(tb testing.TB, p *types.Project, name string) types.ServiceConfig {
	tb.Helper()
	s, err := p.GetService(name)
	if err != nil {
		tb.Fatalf("service %s: %v", name, err)
	}
	return s
}

func env(s types.ServiceConfig, name string) string {
	if v := s.Environment[name]; v != nil {
		return *v
	}
	return ""
}

func TestComposeServices(t *testing.T) {
	p := mustLoadCompose(t)
	got := p.ServiceNames()
	sort.Strings(got)
	want := []string{"caddy", "docqa-service", "etcd", "fuel-service", "milvus", "minio", "postgres"}
	if !slices.Equal(got, want) {
		t.Fatalf("services = %v, want %v", got, want)
	}
	for _, name := range want {
		s := mustService(t, p, name)
		if s.HealthCheck == nil || s.HealthCheck.Disable || len(s.HealthCheck.Test) < 2 {
			t.Errorf("%s: no health check", name)
		}
		if s.Restart == "" {
			t.Errorf("%s: no restart policy", name)
		}
	}
	// Our services are checked on their readiness route: /health would keep
	// a draining instance "healthy" (proto-docs/operations-decisions.md).
	for _, name := range []string{"fuel-service", "docqa-service"} {
		test := mustService(t, p, name).HealthCheck.Test
		if !slices.Contains(test, "/readyz") {
			t.Errorf("%s: health check %v does not ask /readyz", name, test)
		}
	}
}

func TestComposeStartOrderFollowsHealth(t *testing.T) {
	p := mustLoadCompose(t)
	want := map[string][]string{
		"milvus":        {"etcd", "minio"},
		"fuel-service":  {"postgres"},
		"docqa-service": {"milvus"},
		"caddy":         {"docqa-service", "fuel-service"},
	}
	for _, s := range p.Services {
		var deps []string
		for dep, cond := range s.DependsOn {
			deps = append(deps, dep)
			if cond.Condition != types.ServiceConditionHealthy {
				t.Errorf("%s waits for %s with condition %q, want %q", s.Name, dep, cond.Condition, types.ServiceConditionHealthy)
			}
		}
		sort.Strings(deps)
		if !slices.Equal(deps, want[s.Name]) {
			t.Errorf("%s depends on %v, want %v", s.Name, deps, want[s.Name])
		}
	}
}

// Each service can be deployed alone: what it pulls in is its own backing
// store and nothing of the other service.
func TestComposeEachServiceAlone(t *testing.T) {
	p := mustLoadCompose(t)
	closure := func(name string) []string {
		seen := map[string]bool{}
		var visit func(string)
		visit = func(n string) {
			if seen[n] {
				return
			}
			seen[n] = true
			for dep := range mustService(t, p, n).DependsOn {
				visit(dep)
			}
		}
		visit(name)
		var out []string
		for n := range seen {
			out = append(out, n)
		}
		sort.Strings(out)
		return out
	}
	if got := closure("fuel-service"); !slices.Equal(got, []string{"fuel-service", "postgres"}) {
		t.Errorf("fuel-service alone starts %v", got)
	}
	if got := closure("docqa-service"); !slices.Equal(got, []string{"docqa-service", "etcd", "milvus", "minio"}) {
		t.Errorf("docqa-service alone starts %v", got)
	}
}

func TestComposeWiring(t *testing.T) {
	for _, tt := range []struct {
		name string
		env  []string
		user string
		pass string
		db   string
	}{
		{name: "defaults", user: "carhub", pass: "carhub", db: "fuel"},
		{name: "overridden", env: []string{"POSTGRES_USER=u1", "POSTGRES_PASSWORD=s3cret", "POSTGRES_DB=fueldb"}, user: "u1", pass: "s3cret", db: "fueldb"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := mustLoadCompose(t, tt.env...)
			pg := mustService(t, p, "postgres")
			if env(pg, "POSTGRES_USER") != tt.user || env(pg, "POSTGRES_PASSWORD") != tt.pass || env(pg, "POSTGRES_DB") != tt.db {
				t.Fatalf("postgres env = %v", pg.Environment)
			}
			wantVolume(t, pg, "/var/lib/postgresql/data")

			fuel := mustService(t, p, "fuel-service")
			u, err := url.Parse(env(fuel, "DATABASE_URL"))
			if err != nil {
				t.Fatalf("DATABASE_URL: %v", err)
			}
			pass, _ := u.User.Password()
			if u.Scheme != "postgres" || u.Host != "postgres:5432" || u.User.Username() != tt.user || pass != tt.pass || u.Path != "/"+tt.db {
				t.Errorf("fuel DATABASE_URL = %s, does not name the postgres service and its credentials", u.Redacted())
			}
			if fuel.Build == nil || fuel.Build.Dockerfile != "deploy/Dockerfile.fuel" {
				t.Errorf("fuel-service build = %+v", fuel.Build)
			}

			docqa := mustService(t, p, "docqa-service")
			if env(docqa, "VECTOR_STORE") != "milvus" {
				t.Errorf("docqa VECTOR_STORE = %q, want milvus", env(docqa, "VECTOR_STORE"))
			}
			if host, port, _ := net.SplitHostPort(env(docqa, "MILVUS_ADDRESS")); host != "milvus" || port != "19530" {
				t.Errorf("docqa MILVUS_ADDRESS = %q, want the milvus service on 19530", env(docqa, "MILVUS_ADDRESS"))
			}
			if docqa.Build == nil || docqa.Build.Dockerfile != "deploy/Dockerfile.docqa" {
				t.Errorf("docqa-service build = %+v", docqa.Build)
			}

			milvus := mustService(t, p, "milvus")
			if !strings.HasPrefix(milvus.Image, "milvusdb/milvus:v2.4.") {
				t.Errorf("milvus image %q is not of the 2.4 line the SDK speaks", milvus.Image)
			}
			if env(milvus, "ETCD_ENDPOINTS") != "etcd:2379" || env(milvus, "MINIO_ADDRESS") != "minio:9000" {
				t.Errorf("milvus env = %v", milvus.Environment)
			}
			if img := mustService(t, p, "etcd").Image; !strings.HasPrefix(img, "quay.io/coreos/etcd:v3.5.") {
				t.Errorf("etcd image %q", img)
			}
			minio := mustService(t, p, "minio")
			if env(minio, "MINIO_ACCESS_KEY") != env(milvus, "MINIO_ACCESS_KEY_ID") || env(minio, "MINIO_SECRET_KEY") != env(milvus, "MINIO_SECRET_ACCESS_KEY") {
				t.Errorf("milvus does not use minio's keys")
			}

			// Caddy reaches each service on the port the service listens on.
			caddy := mustService(t, p, "caddy")
			for upstream, svc := range map[string]types.ServiceConfig{"FUEL_UPSTREAM": fuel, "DOCQA_UPSTREAM": docqa} {
				addrVar := map[string]string{"FUEL_UPSTREAM": "FUEL_ADDR", "DOCQA_UPSTREAM": "DOCQA_ADDR"}[upstream]
				_, listenPort, _ := net.SplitHostPort(env(svc, addrVar))
				host, port, _ := net.SplitHostPort(env(caddy, upstream))
				if host != svc.Name || port != listenPort || port == "" {
					t.Errorf("caddy %s = %q, but %s listens on %q", upstream, env(caddy, upstream), svc.Name, env(svc, addrVar))
				}
			}
			if _, port, _ := net.SplitHostPort(env(caddy, "LISTEN_ADDRESS")); len(caddy.Ports) != 1 || caddy.Ports[0].Target != mustPort(t, port) {
				t.Errorf("caddy publishes %+v, listens on %q", caddy.Ports, env(caddy, "LISTEN_ADDRESS"))
			}
			// The gateway image holds the Caddyfile and the web client's
			// build: nothing of the working tree is mounted.
			if caddy.Build == nil || caddy.Build.Dockerfile != "deploy/Dockerfile.gateway" {
				t.Errorf("caddy build = %+v, want deploy/Dockerfile.gateway", caddy.Build)
			}
			for _, v := range caddy.Volumes {
				if v.Type == types.VolumeTypeBind {
					t.Errorf("caddy mounts %s from the working tree at %s", v.Source, v.Target)
				}
			}
			wantVolume(t, caddy, "/data")
		})
	}
}

func wantVolume(tb testing.TB, s types.ServiceConfig, target string) {
	tb.Helper()
	for _, v := range s.Volumes {
		if v.Target == target && v.Type == types.VolumeTypeVolume {
			return
		}
	}
	tb.Errorf("%s: no named volume at %s", s.Name, target)
}

func mustPort(tb testing.TB, s string) uint32 {
	tb.Helper()
	n, err := strconv.ParseUint(s, 10, 16)
	if err != nil {
		tb.Fatalf("port %q: %v", s, err)
	}
	return uint32(n)
}

// The env examples name every variable the compose file and README promise.
func TestEnvExamples(t *testing.T) {
	want := map[string][]string{
		"fuel.env.example": {"FUEL_ADDR", "DATABASE_URL", "FUEL_SQLITE_PATH", "CORS_ORIGINS"},
		"docqa.env.example": {"DOCQA_ADDR", "VECTOR_STORE", "MILVUS_ADDRESS", "MILVUS_USERNAME", "MILVUS_PASSWORD",
			"MILVUS_DATABASE", "MILVUS_COLLECTION", "DOCQA_STORE_PATH", "DOCQA_DATA_DIR", "EMBEDDING_BASE_URL",
			"EMBEDDING_API_KEY", "EMBEDDING_MODEL", "CHAT_BASE_URL", "CHAT_API_KEY", "CHAT_MODEL", "CORS_ORIGINS"},
		"caddy.env.example": {"LISTEN_ADDRESS", "FUEL_UPSTREAM", "DOCQA_UPSTREAM"},
	}
	for file, names := range want {
		src, err := os.ReadFile(filepath.Join(repoRoot(t), "deploy", file))
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			if !strings.Contains(string(src), "\n"+n+"=") {
				t.Errorf("deploy/%s does not set %s", file, n)
			}
		}
	}
}
