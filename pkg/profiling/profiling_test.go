package profiling_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/carhub/backend/pkg/profiling"
)

func TestAddr(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", ""},
		{"6060", "127.0.0.1:6060"},
		{":6060", "127.0.0.1:6060"},
		{"0.0.0.0:6060", "0.0.0.0:6060"},
		{"[::1]:6060", "[::1]:6060"},
		{"10.0.0.5:7000", "10.0.0.5:7000"},
	} {
		got, err := profiling.Addr(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("Addr(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"host:", "a:b:c"} {
		if _, err := profiling.Addr(bad); err == nil || !strings.Contains(err.Error(), "PPROF_ADDR") {
			t.Errorf("Addr(%q) = %v, want an error naming PPROF_ADDR", bad, err)
		}
	}
}

func TestStartServesProfilesOnLoopbackAndStops(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	stop, err := profiling.Start(context.Background(), "", log)
	if err != nil {
		t.Fatal(err)
	}
	stop() // off: nothing to stop

	// Port 0: the kernel picks one; the profiler says where in its log.
	var logs strings.Builder
	stop, err = profiling.Start(context.Background(), ":0", slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(logs.String(), "addr=")
	if !ok || !strings.HasPrefix(after, "127.0.0.1:") {
		t.Fatalf("log %q: want a loopback address", logs.String())
	}
	url := "http://" + strings.Fields(after)[0] + "/debug/pprof/goroutine?debug=1"
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "goroutine profile:") {
		t.Errorf("GET %s = %d %.80q", url, resp.StatusCode, body)
	}
	stop()
	if _, err := http.Get(url); err == nil {
		t.Error("the profiler still answers after stop")
	}
}
