package systemtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// servicePackage is the command the tests build and run.
const servicePackage = "github.com/carhub/backend/services/docqa/cmd/docqa-service"

var (
	binDir   string // removed by TestMain
	buildOne sync.Once
	binary   string
	buildErr error
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "docqa-systemtest-bin-*")
	if err != nil {
		fmt.Fprintln(os.Stderr, "systemtest:", err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// goTool finds the go command that runs these tests.
func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}

// mustBinary builds the real docqa-service once per test run (with -race
// when the tests have it) and returns its path.
func mustBinary(tb testing.TB) string {
	tb.Helper()
	buildOne.Do(func() {
		binary = filepath.Join(binDir, "docqa-service")
		args := []string{"build", "-o", binary}
		if raceEnabled {
			args = append(args, "-race")
		}
		args = append(args, servicePackage)
		out, err := exec.Command(goTool(), args...).CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	})
	if buildErr != nil {
		tb.Fatalf("build the service: %v", buildErr)
	}
	return binary
}

// process is a running docqa-service binary.
type process struct {
	URL string

	cmd    *exec.Cmd
	logs   *lockedBuffer
	killed bool          // by kill: its exit status is not checked
	done   chan struct{} // closed when the process has exited
	err    error         // Wait's error, valid after done
}

// lockedBuffer collects the process's output.
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

// tail is the end of the output, for failure messages.
func (l *lockedBuffer) tail() string {
	s := l.String()
	if len(s) > 8000 {
		s = "..." + s[len(s)-8000:]
	}
	return s
}

// startService runs the binary with env (DOCQA_ADDR is set to 127.0.0.1:0)
// and waits until it logs where it listens. The process is stopped with
// SIGTERM when the test ends, and must then exit cleanly without a data
// race report.
func startService(tb testing.TB, env map[string]string) *process {
	tb.Helper()
	bin := mustBinary(tb)
	cmd := exec.Command(bin)
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + os.Getenv("HOME"),
		"DOCQA_ADDR=127.0.0.1:0",
		// Race reports go to stderr; keep going so the test sees them all.
		"GORACE=halt_on_error=0",
	}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	p := &process{cmd: cmd, logs: &lockedBuffer{}, done: make(chan struct{})}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	cmd.Stderr = p.logs
	if err := cmd.Start(); err != nil {
		tb.Fatalf("start %s: %v", bin, err)
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
		_, _ = io.Copy(p.logs, stdout)
	}()
	go func() {
		<-copied // Wait closes the pipe: read it to the end first
		p.err = cmd.Wait()
		close(p.done)
	}()
	tb.Cleanup(func() { p.stop(tb) })

	select {
	case a := <-addr:
		p.URL = "http://" + a
	case <-p.done:
		tb.Fatalf("the service exited before listening: %v\n%s", p.err, p.logs.tail())
	case <-time.After(60 * time.Second):
		tb.Fatalf("the service did not listen within 60s\n%s", p.logs.tail())
	}
	return p
}

// stop ends the process with SIGTERM (graceful shutdown) and checks that
// it exited with status 0 and reported no data race. Calling it again
// does nothing.
func (p *process) stop(tb testing.TB) {
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
			tb.Errorf("the service did not stop within 30s of SIGTERM\n%s", p.logs.tail())
			return
		}
		if p.err != nil && !p.killed {
			tb.Errorf("the service exited with %v after SIGTERM\n%s", p.err, p.logs.tail())
		}
	}
	p.checkRaces(tb)
}

// kill ends the process with SIGKILL, as a crash or the OOM killer does,
// and waits until it is gone.
func (p *process) kill(tb testing.TB) {
	tb.Helper()
	p.killed = true
	if err := p.cmd.Process.Kill(); err != nil {
		tb.Fatalf("kill the service: %v", err)
	}
	<-p.done
}

// checkRaces fails the test when the race detector reported in the service.
func (p *process) checkRaces(tb testing.TB) {
	tb.Helper()
	if out := p.logs.String(); strings.Contains(out, "WARNING: DATA RACE") {
		tb.Errorf("the service reported a data race:\n%s", out)
	}
}

// exitErr reports how the process ended (nil while it runs).
func (p *process) exitErr() error {
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
