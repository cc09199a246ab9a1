// Package caddytest runs the repository's Caddyfile with the Caddy binary
// the Makefile builds (bin/caddy, or CADDY_BIN), so tests can put the real
// gateway in front of real services.
package caddytest

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// Root returns the repository root: the nearest directory at or above the
// working directory that holds the Caddyfile.
func Root(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "Caddyfile")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("caddytest: no Caddyfile in any directory above the test")
		}
		dir = parent
	}
}

// Binary returns the path of the Caddy binary: CADDY_BIN, or bin/caddy at
// the repository root. A missing binary fails the test (make test builds it).
func Binary(tb testing.TB) string {
	tb.Helper()
	bin := os.Getenv("CADDY_BIN")
	if bin == "" {
		bin = filepath.Join(Root(tb), "bin", "caddy")
	}
	if _, err := os.Stat(bin); err != nil {
		tb.Fatalf("caddytest: Caddy binary %s missing (run `make bin/caddy`, or set CADDY_BIN): %v", bin, err)
	}
	return bin
}

// FreeAddr returns a loopback host:port no one listens on now, and never
// the same one twice in a process. The kernel picks a port at random for
// each listener, so two calls in a row can name the same one: a Caddy
// given it for its site and for its metrics listener binds both, and the
// site's requests reach the metrics listener.
func FreeAddr(tb testing.TB) string {
	tb.Helper()
	for {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			tb.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		if _, given := handedOut.LoadOrStore(addr, true); !given {
			return addr
		}
	}
}

// handedOut holds every address FreeAddr returned.
var handedOut sync.Map

// Start runs `caddy run` on the repository's Caddyfile on a free loopback
// port (or on env's LISTEN_ADDRESS=http://host:port, for a test that must
// tell a service the gateway's address before it starts; its metrics
// listener, METRICS_LISTEN, on another port unless env sets it), with env
// (NAME=value) added to the environment, and returns its base URL once it
// accepts connections. Caddy is stopped when the test ends.
func Start(tb testing.TB, env ...string) string {
	tb.Helper()
	addr := FreeAddr(tb)
	for _, e := range env {
		if a, ok := strings.CutPrefix(e, "LISTEN_ADDRESS=http://"); ok {
			addr = a
		}
	}

	// Caddy's internal metrics listener gets a free port of its own unless
	// the test names one: tests run several gateways at once.
	if !slices.ContainsFunc(env, func(e string) bool { return strings.HasPrefix(e, "METRICS_LISTEN=") }) {
		env = append(slices.Clip(env), "METRICS_LISTEN="+FreeAddr(tb))
	}

	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, Binary(tb), "run", "--config", "Caddyfile", "--adapter", "caddyfile")
	cmd.Dir = Root(tb)
	cmd.Env = append(os.Environ(), append([]string{"LISTEN_ADDRESS=http://" + addr}, env...)...)
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
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

	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case err := <-exited:
			tb.Fatalf("caddytest: caddy exited before serving: %v\n%s", err, logs.String())
		default:
		}
		if conn, err := net.Dial("tcp", addr); err == nil {
			conn.Close()
			return "http://" + addr
		}
		if time.Now().After(deadline) {
			tb.Fatalf("caddytest: caddy does not accept connections on %s:\n%s", addr, logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}
