// Command otlpsink is an OTLP/HTTP trace receiver that reads every export
// and drops it, for measuring what tracing costs a service (make bench):
// the service exports as it would to a collector, and nothing else runs.
// It shares the machine's CPUs with the service it measures, so it does as
// little as an OTLP/HTTP receiver can: it reads the body without keeping
// or decoding it and answers the empty (all accepted) export
// response, which the exporter reads as success.
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
	srv := &http.Server{Addr: addr, Handler: handler(&requests, &bytes), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 120 * time.Second}
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
	fmt.Fprintf(stdout, "otlpsink received %d export requests, %d bytes (as sent: compressed if the exporter compresses)\n", requests.Load(), bytes.Load())
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// handler answers GET /health and POST /v1/traces, counting the exports
// it takes and their bytes.
func handler(requests, bytes *atomic.Int64) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	mux.HandleFunc("POST /v1/traces", func(w http.ResponseWriter, r *http.Request) {
		if ct := r.Header.Get("Content-Type"); ct != "application/x-protobuf" {
			http.Error(w, "Content-Type must be application/x-protobuf, got "+ct, http.StatusUnsupportedMediaType)
			return
		}
		n, err := io.Copy(io.Discard, r.Body) // io.Discard reads into pooled buffers
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		requests.Add(1)
		bytes.Add(n)
		// An empty ExportTraceServiceResponse is zero bytes of protobuf.
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.WriteHeader(http.StatusOK)
	})
	return mux
}
