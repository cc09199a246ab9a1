package tracing

import (
	"context"
	"log/slog"
	"net/url"
	"time"
)

// flushTimeout bounds the flush of the last spans when a service stops.
const flushTimeout = 5 * time.Second

// Init is Setup for a service's run: it says in the log whether tracing is
// on (and where spans go) and returns stop, which flushes the spans still
// buffered (at most 5 s) and logs a failure to. Call it before building
// the handler, the store and the clients, and defer stop.
func Init(ctx context.Context, getenv func(string) string, service string, log *slog.Logger) (stop func(), err error) {
	shutdown, err := Setup(ctx, getenv, service)
	if err != nil {
		return nil, err
	}
	if !Enabled() {
		log.Info("tracing off")
		return func() {}, nil
	}
	endpoint, _ := exporterEndpoint(getenv)
	if u, err := url.Parse(endpoint); err == nil {
		endpoint = u.Redacted()
	}
	log.Info("tracing on", "endpoint", endpoint, "protocol", protocolOf(getenv))
	return func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), flushTimeout)
		defer cancel()
		if err := shutdown(ctx); err != nil {
			log.Warn("tracing: the last spans were not all exported", "error", err)
		}
	}, nil
}

func protocolOf(getenv func(string) string) string {
	if p := firstSet(getenv, EnvTracesProtocol, EnvProtocol); p != "" {
		return p
	}
	return protocolHTTP
}
