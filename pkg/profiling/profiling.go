// Package profiling serves Go's profiler (net/http/pprof) on an address of
// its own when PPROF_ADDR is set: off by default, on loopback unless the
// address names another host, and never on the service's own port, so the
// gateway (which routes only to that port) cannot reach it.
package profiling

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// Addr is where the profiler listens for the value of PPROF_ADDR: "" is
// off; a port alone ("6060" or ":6060") is that port on 127.0.0.1; an
// address with a host is used as it is (0.0.0.0:6060 for every interface).
func Addr(v string) (string, error) {
	if v == "" {
		return "", nil
	}
	if _, _, err := net.SplitHostPort(v); err != nil {
		v = ":" + v
	}
	host, port, err := net.SplitHostPort(v)
	if err != nil || port == "" {
		return "", fmt.Errorf("PPROF_ADDR: %q is neither a port nor host:port", v)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}

// Handler serves the profiles under /debug/pprof/, on a mux of its own
// (http.DefaultServeMux is never used).
func Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}

// Start serves Handler on the address PPROF_ADDR names (nothing when it is
// empty) until ctx ends or stop is called. It fails at once when the
// address cannot be listened on.
func Start(ctx context.Context, pprofAddr string, log *slog.Logger) (stop func(), err error) {
	addr, err := Addr(pprofAddr)
	if err != nil || addr == "" {
		return func() {}, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("PPROF_ADDR: %w", err)
	}
	// A CPU profile or trace runs for its ?seconds=: no write timeout.
	srv := &http.Server{Handler: Handler(), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("profiler stopped", "err", err)
		}
	}()
	log.Warn("profiler listening (PPROF_ADDR): keep it off any public network", "addr", ln.Addr().String())
	stopCtx, cancel := context.WithCancel(ctx)
	go func() {
		<-stopCtx.Done()
		_ = srv.Close()
	}()
	return func() { cancel(); <-done }, nil
}
