// Command healthcheck asks a service's health endpoint whether it is up and
// exits 0 when it answers 2xx, 1 otherwise. It is the HEALTHCHECK of the
// distroless service images (which have no shell, curl or wget) and the
// readiness probe of `make run`.
//
//	healthcheck -url http://127.0.0.1:8082/health
//	healthcheck -addr-env FUEL_ADDR -default-addr :8082 -path /health
//
// With -addr-env the listen address is read from that variable (as the
// service reads it), so the probe follows a port changed by configuration.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"time"
)

// version is stamped at build: -ldflags "-X main.version=$(git describe)".
var version = "dev"

func main() {
	if err := run(context.Background(), os.Args[1:], os.Getenv, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "healthcheck:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	fs := flag.NewFlagSet("healthcheck", flag.ContinueOnError)
	url := fs.String("url", "", "health URL to GET (overrides -addr-env)")
	addrEnv := fs.String("addr-env", "", "environment variable holding the service's listen address")
	defaultAddr := fs.String("default-addr", "", "listen address when -addr-env is unset or empty")
	path := fs.String("path", "/health", "health path, with -addr-env")
	timeout := fs.Duration("timeout", 3*time.Second, "how long to wait for the answer")
	showVersion := fs.Bool("version", false, "print the version and exit")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *showVersion {
		_, err := fmt.Fprintf(stdout, "healthcheck %s (%s)\n", version, runtime.Version())
		return err
	}

	target := *url
	if target == "" {
		addr := *defaultAddr
		if *addrEnv != "" && getenv(*addrEnv) != "" {
			addr = getenv(*addrEnv)
		}
		if addr == "" {
			return errors.New("give -url, or -addr-env / -default-addr")
		}
		u, err := urlFromListenAddr(addr, *path)
		if err != nil {
			return err
		}
		target = u
	}

	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return fmt.Errorf("bad URL %q: %w", target, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("%s answered %s: %s", target, resp.Status, body)
	}
	fmt.Fprintf(stdout, "%s %s\n", target, resp.Status)
	return nil
}

// urlFromListenAddr turns a listen address (":8082", "0.0.0.0:8082",
// "[::]:8080", "10.0.0.5:8082") into a URL on an address that reaches it:
// an unspecified host becomes the loopback address.
func urlFromListenAddr(addr, path string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("listen address %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port) + path, nil
}
