// Command echoservice is the stand-in service of proctest's own tests: it
// listens on ECHO_ADDR, logs the "listening" line as pkg/httpserver does,
// answers every request with "ok", and exits 0 on SIGTERM.
package main

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ln, err := net.Listen("tcp", os.Getenv("ECHO_ADDR"))
	if err != nil {
		os.Exit(2)
	}
	_ = json.NewEncoder(os.Stdout).Encode(map[string]string{"msg": "listening", "addr": ln.Addr().String()})
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("ok")) })}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	go func() { <-ctx.Done(); _ = srv.Shutdown(context.Background()) }()
	if err := srv.Serve(ln); err != http.ErrServerClosed {
		os.Exit(3)
	}
}
