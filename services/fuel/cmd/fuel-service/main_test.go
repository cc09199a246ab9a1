package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/carhub/backend/pkg/pgtest"
)

// logSink collects the service's log lines and reports the address of the
// "listening" line.
type logSink struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	addr  chan string
	found bool
}

func newLogSink() *logSink { return &logSink{addr: make(chan string, 1)} }

func (l *logSink) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(p)
	if !l.found {
		sc := bufio.NewScanner(bytes.NewReader(l.buf.Bytes()))
		for sc.Scan() {
			var line struct{ Msg, Addr string }
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "listening" {
				l.found = true
				l.addr <- line.Addr
				break
			}
		}
	}
	return len(p), nil
}

func (l *logSink) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// MustRun starts the whole service on 127.0.0.1:0 and returns its base URL;
// the service is stopped, and must stop cleanly, when the test ends.
func MustRun(t *testing.T, vars map[string]string) string {
	t.Helper()
	vars["FUEL_ADDR"] = "127.0.0.1:0"
	if _, ok := vars["SHUTDOWN_DRAIN"]; !ok {
		vars["SHUTDOWN_DRAIN"] = "0s" // stop at once; the drain has its own test
	}
	ctx, cancel := context.WithCancel(context.Background())
	logs := newLogSink()
	errc := make(chan error, 1)
	go func() { errc <- run(ctx, env(vars), logs) }()
	t.Cleanup(func() {
		cancel()
		if err := <-errc; err != nil {
			t.Errorf("run returned %v after shutdown", err)
		}
	})
	select {
	case addr := <-logs.addr:
		return "http://" + addr
	case err := <-errc:
		t.Fatalf("run ended before listening: %v\n%s", err, logs)
	case <-time.After(30 * time.Second):
		t.Fatalf("service did not start\n%s", logs)
	}
	return ""
}

func TestRunServes(t *testing.T) {
	tests := map[string]func(t *testing.T) map[string]string{
		"sqlite": func(t *testing.T) map[string]string {
			return map[string]string{"FUEL_SQLITE_PATH": filepath.Join(t.TempDir(), "new", "dir", "fuel.db")}
		},
		"postgres": func(t *testing.T) map[string]string {
			return map[string]string{"DATABASE_URL": pgtest.NewDatabase(t)}
		},
	}
	for name, vars := range tests {
		t.Run(name, func(t *testing.T) {
			base := MustRun(t, vars(t))
			get := func(path string) (int, string) {
				res, err := http.Get(base + path)
				if err != nil {
					t.Fatal(err)
				}
				defer res.Body.Close()
				b, _ := io.ReadAll(res.Body)
				return res.StatusCode, string(b)
			}
			if code, b := get("/health"); code != 200 || !strings.Contains(b, `"status":"ok"`) {
				t.Errorf("health: %d %s", code, b)
			}
			res, err := http.Post(base+"/api/vehicles", "application/json", strings.NewReader(`{"name":"Golf","fuel_type":"diesel"}`))
			if err != nil {
				t.Fatal(err)
			}
			created, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != 200 || res.Header.Get("X-Request-ID") == "" {
				t.Fatalf("create: %d %s (request id %q)", res.StatusCode, created, res.Header.Get("X-Request-ID"))
			}
			if code, b := get("/api/vehicles/1"); code != 200 || b != string(created) {
				t.Errorf("read-back: %d %s, want %s", code, b, created)
			}
			if code, b := get("/api/unknown"); code != 404 || !strings.Contains(b, `"NOT_FOUND"`) {
				t.Errorf("unknown route: %d %s", code, b)
			}
		})
	}
}

func TestRunConfigErrors(t *testing.T) {
	t.Run("bad CORS_ORIGINS", func(t *testing.T) {
		err := run(context.Background(), env(map[string]string{"CORS_ORIGINS": "not an origin"}), io.Discard)
		if err == nil || !strings.Contains(err.Error(), "CORS_ORIGINS") {
			t.Errorf("err = %v, want one naming CORS_ORIGINS", err)
		}
	})
	t.Run("bad TRUSTED_PROXIES", func(t *testing.T) {
		err := run(context.Background(), env(map[string]string{"TRUSTED_PROXIES": "10.0.0.0/8,caddy"}), io.Discard)
		if err == nil || !strings.Contains(err.Error(), "TRUSTED_PROXIES") || !strings.Contains(err.Error(), `"caddy"`) {
			t.Errorf("err = %v, want one naming TRUSTED_PROXIES and the item", err)
		}
	})
	t.Run("unreachable database, password masked in the log", func(t *testing.T) {
		logs := newLogSink()
		err := run(context.Background(), env(map[string]string{
			"DATABASE_URL": "postgres://fuel:s3cret-pw@127.0.0.1:1/fuel?sslmode=disable&connect_timeout=2",
			"FUEL_ADDR":    "127.0.0.1:0",
		}), logs)
		if err == nil {
			t.Fatal("run started without a database")
		}
		out := logs.String()
		if strings.Contains(out, "s3cret-pw") || strings.Contains(err.Error(), "s3cret-pw") {
			t.Errorf("password leaked: %v\n%s", err, out)
		}
		if !strings.Contains(out, `"DATABASE_URL":"postgres://fuel:`) || !strings.Contains(out, `@127.0.0.1:1/fuel?`) {
			t.Errorf("effective config not logged with the password masked:\n%s", out)
		}
	})
}
