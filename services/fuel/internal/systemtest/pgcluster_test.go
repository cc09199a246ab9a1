package systemtest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/carhub/backend/pkg/caddytest"
)

// cluster is a private PostgreSQL server that a test may stop and start:
// the shared server of TEST_DATABASE_URL must not be restarted under the
// other tests. It is made from the installed binaries, as
// deploy/scripts/pg-throwaway.sh does for the whole test run.
type cluster struct {
	bin  string // directory of initdb, pg_ctl
	dir  string // owned by the server's user; data/ and the socket live here
	port int
	// asOwner runs a command as the cluster's owner: postgres when we are
	// root (initdb refuses root), ourselves otherwise.
	asOwner func(name string, args ...string) *exec.Cmd
}

// pgBinDir finds initdb and pg_ctl: pg_config --bindir, the Debian layout
// (newest version first), then PATH.
func pgBinDir() (string, error) {
	ok := func(dir string) bool {
		for _, name := range []string{"initdb", "pg_ctl"} {
			if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || fi.IsDir() {
				return false
			}
		}
		return true
	}
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		if dir := strings.TrimSpace(string(out)); ok(dir) {
			return dir, nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int { return versionOf(b) - versionOf(a) })
	for _, dir := range dirs {
		if ok(dir) {
			return dir, nil
		}
	}
	if p, err := exec.LookPath("pg_ctl"); err == nil && ok(filepath.Dir(p)) {
		return filepath.Dir(p), nil
	}
	return "", fmt.Errorf("no PostgreSQL server binaries (initdb, pg_ctl): not via pg_config --bindir, " +
		"not under /usr/lib/postgresql/*/bin, not on PATH; install the postgresql server package")
}

// versionOf reads the major version of /usr/lib/postgresql/<v>/bin.
func versionOf(dir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return v
}

// startCluster creates and starts a throwaway cluster on a free port; it is
// stopped and removed when the test ends. Missing binaries fail the test:
// CI installs them, so this test never passes by being skipped.
func startCluster(t *testing.T) *cluster {
	t.Helper()
	bin, err := pgBinDir()
	if err != nil {
		t.Fatal(err)
	}
	c := &cluster{bin: bin}
	var uid, gid = -1, -1
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("running as root, and initdb refuses root, but there is no postgres user to own the cluster: %v", err)
		}
		uid, _ = strconv.Atoi(u.Uid)
		gid, _ = strconv.Atoi(u.Gid)
		c.asOwner = func(name string, args ...string) *exec.Cmd {
			if _, err := exec.LookPath("runuser"); err == nil {
				return exec.Command("runuser", append([]string{"-u", "postgres", "--", name}, args...)...)
			}
			quoted := make([]string, 0, len(args)+1)
			for _, a := range append([]string{name}, args...) {
				quoted = append(quoted, "'"+strings.ReplaceAll(a, "'", `'\''`)+"'")
			}
			return exec.Command("su", "postgres", "-s", "/bin/sh", "-c", strings.Join(quoted, " "))
		}
	} else {
		c.asOwner = exec.Command
	}
	// Not t.TempDir: its parents are private to us, and the postgres user
	// must be able to reach the directory.
	c.dir, err = os.MkdirTemp("", "fuel-systemtest-pg-*")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(c.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if uid >= 0 {
		if err := os.Chown(c.dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		_ = c.asOwner(filepath.Join(c.bin, "pg_ctl"), "-D", c.data(), "-m", "immediate", "-w", "stop").Run()
		os.RemoveAll(c.dir)
	})

	var initErr error
	for _, locale := range []string{"C.UTF-8", "C"} {
		out, err := c.asOwner(filepath.Join(bin, "initdb"), "-D", c.data(), "-U", "postgres",
			"--auth=trust", "--no-sync", "--encoding=UTF8", "--locale="+locale).CombinedOutput()
		if err == nil {
			initErr = nil
			break
		}
		initErr = fmt.Errorf("initdb: %v\n%s", err, out)
		_ = os.RemoveAll(c.data())
	}
	if initErr != nil {
		t.Fatal(initErr)
	}
	// A free port can be taken between the probe and the server's bind:
	// try a few.
	for attempt := 0; ; attempt++ {
		c.port = freePort(t)
		err := c.start()
		if err == nil {
			break
		}
		if attempt == 4 {
			t.Fatalf("the throwaway PostgreSQL did not start: %v", err)
		}
	}
	return c
}

func (c *cluster) data() string { return filepath.Join(c.dir, "data") }

// start starts the server and waits until it accepts connections.
func (c *cluster) start() error {
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=off "+
		"-c synchronous_commit=off -c full_page_writes=off", c.port, c.dir)
	out, err := c.asOwner(filepath.Join(c.bin, "pg_ctl"), "-D", c.data(), "-w", "-t", "60",
		"-l", filepath.Join(c.dir, "server.log"), "-o", opts, "start").CombinedOutput()
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(c.dir, "server.log"))
		return fmt.Errorf("pg_ctl start: %v\n%s\nserver.log:\n%s", err, out, log)
	}
	return nil
}

// stop shuts the server down in fast mode: open sessions are ended and
// their transactions rolled back, as when an operator restarts it.
func (c *cluster) stop() error {
	out, err := c.asOwner(filepath.Join(c.bin, "pg_ctl"), "-D", c.data(), "-m", "fast", "-w", "-t", "60", "stop").CombinedOutput()
	if err != nil {
		return fmt.Errorf("pg_ctl stop: %v\n%s", err, out)
	}
	return nil
}

// url is the DSN of database name on the cluster.
func (c *cluster) url(name string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", c.port, name)
}

// createDatabase creates an empty database and returns its DSN.
func (c *cluster) createDatabase(t *testing.T, name string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.url("postgres"))
	if err != nil {
		t.Fatalf("connect to the throwaway cluster: %v", err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		t.Fatalf("create database %s: %v", name, err)
	}
	return c.url(name)
}

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago, and
// never one it returned before (caddytest.FreeAddr).
func freePort(t *testing.T) int {
	t.Helper()
	_, port, err := net.SplitHostPort(caddytest.FreeAddr(t))
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(port)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
