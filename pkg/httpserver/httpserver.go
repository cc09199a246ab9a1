// Package httpserver runs an http.Handler with the timeouts and the
// graceful shutdown both services need: slow headers are cut, idle
// connections are closed, but there is no WriteTimeout, because a streamed
// answer (SSE) may legitimately run for minutes.
package httpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// Options configure Serve. Zero values take the defaults beside each field.
type Options struct {
	ReadHeaderTimeout time.Duration // 10s
	IdleTimeout       time.Duration // 120s
	ShutdownTimeout   time.Duration // 10s: in-flight requests get this long to finish
	// Drain is how long the server keeps serving, listener open, after ctx
	// is done and before it shuts down (0: shut down at once). OnStop runs
	// when it begins (a readiness probe turns 503), so a gateway's health
	// check and an orchestrator take the instance out of rotation while
	// what still reaches it is served.
	Drain  time.Duration
	OnStop func()
}

func (o Options) withDefaults() Options {
	if o.ReadHeaderTimeout == 0 {
		o.ReadHeaderTimeout = 10 * time.Second
	}
	if o.IdleTimeout == 0 {
		o.IdleTimeout = 120 * time.Second
	}
	if o.ShutdownTimeout == 0 {
		o.ShutdownTimeout = 10 * time.Second
	}
	return o
}

// SignalContext returns a context cancelled on SIGINT or SIGTERM.
func SignalContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
}

// Listen opens a TCP listener on addr (":8080", "127.0.0.1:0").
func Listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	return ln, nil
}

type stoppingKey struct{}

// Stopping returns a channel that is closed when the server serving the
// request behind ctx begins to shut down; nil (never ready) outside Serve.
// Long-running handlers such as event streams select on it.
func Stopping(ctx context.Context) <-chan struct{} {
	ch, _ := ctx.Value(stoppingKey{}).(<-chan struct{})
	return ch
}

// Serve serves h on ln until ctx is done, then calls OnStop, keeps serving
// for Drain, and shuts down gracefully: new connections are refused,
// in-flight requests get ShutdownTimeout to finish (long streams are told
// by Stopping and end themselves), and whatever still runs after that is
// cut. It returns nil
// after a clean shutdown and the server's error otherwise.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, log *slog.Logger, opts Options) error {
	opts = opts.withDefaults()
	// Requests keep running through shutdown (their contexts are not
	// cancelled, so a database write completes); long streams watch
	// Stopping instead and end themselves with a last event.
	stopping := make(chan struct{})
	baseCtx := context.WithValue(context.WithoutCancel(ctx), stoppingKey{}, (<-chan struct{})(stopping))
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: opts.ReadHeaderTimeout,
		IdleTimeout:       opts.IdleTimeout,
		BaseContext:       func(net.Listener) context.Context { return baseCtx },
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	log.Info("listening", "addr", ln.Addr().String())

	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}

	if opts.OnStop != nil {
		opts.OnStop()
	}
	if opts.Drain > 0 {
		log.Info("draining", "for", opts.Drain.String())
		t := time.NewTimer(opts.Drain)
		select {
		case <-t.C:
		case err := <-errc:
			t.Stop()
			return fmt.Errorf("serve: %w", err)
		}
	}
	log.Info("shutting down", "timeout", opts.ShutdownTimeout.String())
	sctx, cancel := context.WithTimeout(context.Background(), opts.ShutdownTimeout)
	defer cancel()
	srv.RegisterOnShutdown(func() { close(stopping) })
	err := srv.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		log.Warn("shutdown timed out; closing remaining connections")
		err = srv.Close()
	}
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", serr)
	}
	if err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	log.Info("stopped")
	return nil
}
