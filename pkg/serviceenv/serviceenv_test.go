package serviceenv_test

import (
	"log/slog"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/carhub/backend/pkg/config"
	"github.com/carhub/backend/pkg/serviceenv"
)

// service is a config that embeds HTTP, as each service's does.
type service struct {
	Addr string `env:"ADDR" default:":1"`
	serviceenv.HTTP
}

func load(t *testing.T, env map[string]string) service {
	t.Helper()
	var c service
	if err := config.Load(func(k string) string { return env[k] }, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestDefaultsAreTheContracts(t *testing.T) {
	s, err := load(t, nil).Parse()
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"http://localhost:8081", "http://localhost:5173"}; !slices.Equal(s.Origins, want) {
		t.Errorf("origins %v, want %v", s.Origins, want)
	}
	if !slices.Contains(s.Proxies, netip.MustParsePrefix("127.0.0.0/8")) || !slices.Contains(s.Proxies, netip.MustParsePrefix("10.0.0.0/8")) {
		t.Errorf("proxies %v: loopback and the private ranges by default", s.Proxies)
	}
	if s.Drain != 5*time.Second || !s.Metrics || s.Pprof != "" {
		t.Errorf("drain %s, metrics %v", s.Drain, s.Metrics)
	}
}

func TestValues(t *testing.T) {
	s, err := load(t, map[string]string{
		"CORS_ORIGINS": "https://app.example.com", "TRUSTED_PROXIES": "none", "SHUTDOWN_DRAIN": "0s", "METRICS": "off",
		"PPROF_ADDR": "6060", "LOG_LEVEL": "WARN",
	}).Parse()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.Origins, []string{"https://app.example.com"}) || len(s.Proxies) != 0 || s.Drain != 0 || s.Metrics ||
		s.Pprof != "127.0.0.1:6060" || s.LogLevel != slog.LevelWarn {
		t.Errorf("settings %+v", s)
	}
}

// TestEveryBadVariableNamed: one start names each wrong variable, in order.
func TestEveryBadVariableNamed(t *testing.T) {
	_, err := load(t, map[string]string{
		"CORS_ORIGINS": "not an origin", "TRUSTED_PROXIES": "10.0.0.0/99", "SHUTDOWN_DRAIN": "-1s", "METRICS": "maybe",
		"PPROF_ADDR": "a:b:c", "LOG_LEVEL": "loud",
	}).Parse()
	if err == nil {
		t.Fatal("no error")
	}
	lines := strings.Split(err.Error(), "\n")
	want := []string{"CORS_ORIGINS:", "TRUSTED_PROXIES:", "SHUTDOWN_DRAIN: -1s must not be negative", "METRICS:", "PPROF_ADDR:", "LOG_LEVEL:"}
	if len(lines) != len(want) {
		t.Fatalf("error %q: want %d lines", err, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d = %q, want it to start with %q", i, lines[i], w)
		}
	}
}
