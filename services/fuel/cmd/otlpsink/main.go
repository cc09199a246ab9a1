// Command otlpsink is an OTLP/HTTP trace receiver that reads every export
// and drops it, for measuring what tracing costs a service (make bench):
// the service exports as it would to a collector, and nothing else runs.
// GET /health answers 200; on SIGTERM or SIGINT it prints how many export
// requests and bytes it received, then exits. It is not a collector to
// deploy.
//
//	otlpsink -addr 127.0.0.1:4318
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/carhub/backend/pkg/tracing/otlptest"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:4318", "listen address")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := run(ctx, *addr, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "otlpsink:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, addr string, stdout io.Writer) error {
	var requests, bytes atomic.Int64
	traces := otlptest.Handler(nil) // reads, answers, keeps nothing
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	mux.HandleFunc("POST /v1/traces", func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		bytes.Add(max(r.ContentLength, 0))
		traces.ServeHTTP(w, r)
	})
	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 120 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServe() }()
	fmt.Fprintln(stdout, "otlpsink listening on", addr)
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := srv.Shutdown(sctx)
	fmt.Fprintf(stdout, "otlpsink received %d export requests, %d bytes\n", requests.Load(), bytes.Load())
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}
