// Package proctest builds a service's command and runs it as a separate
// process for system tests: started on 127.0.0.1:0 through the service's
// address variable, ready once it logs where it listens (the "listening"
// line of pkg/httpserver), stopped with SIGTERM and expected to exit 0
// without a data race report, or killed with SIGKILL as a crash would.
//
// A test package that uses it calls Main from its TestMain, which removes
// the built binaries when the tests end.
package proctest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	mu       sync.Mutex
	binDir   string
	binaries = map[string]*build{}
)

type build struct {
	once sync.Once
	path string
	err  error
}

// Main runs the tests and removes the binaries they built.
func Main(m *testing.M) {
	code := m.Run()
	mu.Lock()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	mu.Unlock()
	os.Exit(code)
}

// Binary builds the command pkg (an import path) once per test run, with
// -race when the tests run with it, and returns the binary's path.
func Binary(tb testing.TB, pkg string) string {
	tb.Helper()
	mu.Lock()
	if binDir == "" {
		dir, err := os.MkdirTemp("", "proctest-bin-*")
		if err != nil {
			mu.Unlock()
			tb.Fatal(err)
		}
		binDir = dir
	}
	b := binaries[pkg]
	if b == nil {
		b = &build{path: filepath.Join(binDir, path.Base(pkg))}
		binaries[pkg] = b
	}
	mu.Unlock()

	b.once.Do(func() {
		args := []string{"build", "-o", b.path}
		if RaceEnabled {
			args = append(args, "-race")
		}
		args = append(args, pkg)
		out, err := exec.Command(goTool(), args...).CombinedOutput()
		if err != nil {
			b.err = fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	})
	if b.err != nil {
		tb.Fatalf("proctest: build %s: %v", pkg, b.err)
	}
	return b.path
}

// goTool finds the go command that runs these tests: the PATH's, else the
// one of $GOROOT.
func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(os.Getenv("GOROOT"), "bin", "go")
}

// Process is a running service binary.
type Process struct {
	URL string // http://127.0.0.1:port

	cmd    *exec.Cmd
	logs   lockedBuffer
	killed bool          // by Kill: its exit status is not checked
	done   chan struct{} // closed when the process has exited
	err    error         // Wait's error, valid after done
}

// Start runs the command pkg with env, its listen address variable addrEnv
// set to 127.0.0.1:0 and SHUTDOWN_DRAIN to 0 unless env sets it, and waits until it logs where it listens. The process
// is stopped (Stop) when the test ends.
func Start(tb testing.TB, pkg, addrEnv string, env map[string]string) *Process {
	tb.Helper()
	bin := Binary(tb, pkg)
	cmd := exec.Command(bin)
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + os.Getenv("HOME"),
		addrEnv + "=127.0.0.1:0",
		// Race reports go to stderr; keep going so the test sees them all.
		"GORACE=halt_on_error=0",
		// No drain before stopping (env may set one): a test has no
		// gateway to take the instance out of rotation.
		"SHUTDOWN_DRAIN=0s",
	}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	p := &Process{cmd: cmd, done: make(chan struct{})}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	cmd.Stderr = &p.logs
	if err := cmd.Start(); err != nil {
		tb.Fatalf("proctest: start %s: %v", bin, err)
	}
	addr := make(chan string, 1)
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		sent := false
		for sc.Scan() {
			line := sc.Bytes()
			p.logs.Write(line)
			p.logs.Write([]byte{'\n'})
			if sent {
				continue
			}
			var rec struct{ Msg, Addr string }
			if json.Unmarshal(line, &rec) == nil && rec.Msg == "listening" && rec.Addr != "" {
				addr <- rec.Addr
				sent = true
			}
		}
		_, _ = io.Copy(&p.logs, stdout)
	}()
	go func() {
		<-copied // Wait closes the pipe: read it to the end first
		p.err = cmd.Wait()
		close(p.done)
	}()
	tb.Cleanup(func() { p.Stop(tb) })

	select {
	case a := <-addr:
		p.URL = "http://" + a
	case <-p.done:
		tb.Fatalf("proctest: %s exited before listening: %v\n%s", path.Base(pkg), p.err, p.Logs())
	case <-time.After(60 * time.Second):
		tb.Fatalf("proctest: %s did not listen within 60s\n%s", path.Base(pkg), p.Logs())
	}
	return p
}

// Stop ends the process with SIGTERM (graceful shutdown) and fails the test
// unless it exits with status 0 within 30 s; it also fails the test when the
// race detector reported in the process. Calling it again does nothing more.
func (p *Process) Stop(tb testing.TB) {
	tb.Helper()
	select {
	case <-p.done:
	default:
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(30 * time.Second):
			_ = p.cmd.Process.Kill()
			<-p.done
			tb.Errorf("proctest: the service did not stop within 30s of SIGTERM\n%s", p.Logs())
			return
		}
		if p.err != nil && !p.killed {
			tb.Errorf("proctest: the service exited with %v after SIGTERM\n%s", p.err, p.Logs())
		}
	}
	if out := p.logs.String(); strings.Contains(out, "WARNING: DATA RACE") {
		tb.Errorf("proctest: the service reported a data race:\n%s", out)
	}
}

// Kill ends the process with SIGKILL, as a crash or the OOM killer does,
// and waits until it is gone.
func (p *Process) Kill(tb testing.TB) {
	tb.Helper()
	p.killed = true
	if err := p.cmd.Process.Kill(); err != nil {
		tb.Fatalf("proctest: kill the service: %v", err)
	}
	<-p.done
}

// ExitErr reports how the process ended; nil while it runs.
func (p *Process) ExitErr() error {
	select {
	case <-p.done:
		if p.err == nil {
			return errors.New("exited with status 0")
		}
		return p.err
	default:
		return nil
	}
}

// Logs is the end of what the process printed, for failure messages.
func (p *Process) Logs() string {
	s := p.logs.String()
	if len(s) > 8000 {
		s = "..." + s[len(s)-8000:]
	}
	return s
}

// lockedBuffer collects the process's output from two goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
