package httpserver

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"
)

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestServeFinishesInFlightRequestOnShutdown(t *testing.T) {
	ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	release := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-release
		_, _ = io.WriteString(w, "finished")
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, h, quietLog(), Options{ShutdownTimeout: 5 * time.Second}) }()

	type result struct {
		body string
		err  error
	}
	res := make(chan result, 1)
	go func() {
		resp, err := http.Get("http://" + ln.Addr().String())
		if err != nil {
			res <- result{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		res <- result{string(b), err}
	}()
	<-started
	cancel() // shutdown begins while the request is in flight
	// New connections are refused once shutdown has begun.
	deadline := time.Now().Add(2 * time.Second)
	for {
		c, err := (&http.Client{Timeout: 200 * time.Millisecond}).Get("http://" + ln.Addr().String())
		if err != nil {
			break
		}
		c.Body.Close()
		if time.Now().After(deadline) {
			t.Fatal("server still accepts new requests during shutdown")
		}
	}
	close(release)
	r := <-res
	if r.err != nil || r.body != "finished" {
		t.Fatalf("in-flight request: %q, %v", r.body, r.err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
}

func TestShutdownSignalsStreamsAndCutsStragglers(t *testing.T) {
	ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	sawShutdown := make(chan struct{})
	started := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		close(started)
		select { // a stream waits for its client or for shutdown
		case <-Stopping(r.Context()):
			if r.Context().Err() != nil {
				t.Error("the request context was cancelled before the handler finished")
			}
			close(sawShutdown)
		case <-r.Context().Done():
			t.Error("request cancelled instead of told about the shutdown")
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, h, quietLog(), Options{ShutdownTimeout: time.Second}) }()

	go func() {
		resp, err := http.Get("http://" + ln.Addr().String())
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
	<-started
	cancel()
	select {
	case <-sawShutdown:
	case <-time.After(5 * time.Second):
		t.Fatal("a streaming handler was not told about the shutdown")
	}
	if err := <-done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
}

func TestStoppingOutsideServeIsNil(t *testing.T) {
	if Stopping(context.Background()) != nil {
		t.Fatal("Stopping outside Serve should be nil")
	}
}

func TestListenReportsAddress(t *testing.T) {
	ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if _, err := Listen(ln.Addr().String()); err == nil {
		t.Fatal("a second listener on a taken port succeeded")
	}
}

// TestDrainKeepsServingThenCloses: after ctx ends, OnStop runs at once, new
// connections are still served for Drain, and then the listener closes.
func TestDrainKeepsServingThenCloses(t *testing.T) {
	ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "ok") })
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan time.Time, 1)
	const drain = 400 * time.Millisecond
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, ln, h, quietLog(), Options{Drain: drain, OnStop: func() { stopped <- time.Now() }})
	}()
	// A fresh connection per request: the drain must keep the listener open,
	// not only the connections kept alive.
	client := &http.Client{Timeout: time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	get := func() error {
		res, err := client.Get(url)
		if err != nil {
			return err
		}
		res.Body.Close()
		return nil
	}
	if err := get(); err != nil {
		t.Fatal(err)
	}
	cancel()
	var at time.Time
	select {
	case at = <-stopped:
	case <-time.After(time.Second):
		t.Fatal("OnStop was not called when ctx ended")
	}
	served := 0
	for time.Since(at) < drain-100*time.Millisecond {
		if err := get(); err != nil {
			t.Fatalf("request %s into the drain failed: %v", time.Since(at), err)
		}
		served++
		time.Sleep(20 * time.Millisecond)
	}
	if err := <-done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if d := time.Since(at); d < drain {
		t.Errorf("Serve returned %s after OnStop, before the drain of %s", d, drain)
	}
	if err := get(); err == nil {
		t.Error("the listener still accepts after the drain")
	}
	t.Logf("%d requests served during the drain", served)
}

func TestNoDrainStopsAtOnce(t *testing.T) {
	ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	called := false
	if err := Serve(ctx, ln, http.NotFoundHandler(), quietLog(), Options{OnStop: func() { called = true }}); err != nil {
		t.Fatal(err)
	}
	if !called || time.Since(start) > time.Second {
		t.Errorf("OnStop called: %v; Serve took %s", called, time.Since(start))
	}
}
