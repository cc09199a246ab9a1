package proctest

import (
	"io"
	"net/http"
	"testing"
)

const echo = "github.com/carhub/backend/pkg/proctest/testdata/echoservice"

func TestMain(m *testing.M) { Main(m) }

func TestStartServesAndStopsCleanly(t *testing.T) {
	p := Start(t, echo, "ECHO_ADDR", nil)
	resp, err := http.Get(p.URL)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "ok" {
		t.Fatalf("answer %q", b)
	}
	if err := p.ExitErr(); err != nil {
		t.Fatalf("ExitErr while running = %v", err)
	}
	p.Stop(t)
	if err := p.ExitErr(); err == nil || err.Error() != "exited with status 0" {
		t.Fatalf("ExitErr after Stop = %v", err)
	}
}

func TestKill(t *testing.T) {
	p := Start(t, echo, "ECHO_ADDR", nil)
	p.Kill(t)
	if err := p.ExitErr(); err == nil || err.Error() == "exited with status 0" {
		t.Fatalf("ExitErr after Kill = %v, want the signal", err)
	}
	if _, err := http.Get(p.URL); err == nil {
		t.Fatal("the killed process still answers")
	}
}

func TestBinaryBuiltOnce(t *testing.T) {
	if a, b := Binary(t, echo), Binary(t, echo); a != b {
		t.Fatalf("two builds: %s, %s", a, b)
	}
}
