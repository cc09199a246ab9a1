package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	healthy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/health" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(`{"status":"ok"}`))
	}))
	t.Cleanup(healthy.Close)
	sick := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte(`{"status":"unavailable"}`))
	}))
	t.Cleanup(sick.Close)
	_, healthyPort, _ := net.SplitHostPort(healthy.Listener.Addr().String())

	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		wantErr string
	}{
		{name: "url healthy", args: []string{"-url", healthy.URL + "/health"}},
		{name: "url unhealthy", args: []string{"-url", sick.URL + "/health"}, wantErr: "503"},
		{name: "wrong path", args: []string{"-url", healthy.URL + "/nope"}, wantErr: "404"},
		{name: "addr from env", args: []string{"-addr-env", "FUEL_ADDR", "-default-addr", ":1"},
			env: map[string]string{"FUEL_ADDR": ":" + healthyPort}},
		{name: "default addr", args: []string{"-addr-env", "FUEL_ADDR", "-default-addr", "0.0.0.0:" + healthyPort}},
		{name: "nothing to probe", args: nil, wantErr: "give -url"},
		{name: "bad listen address", args: []string{"-default-addr", "8082"}, wantErr: "listen address"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			err := run(context.Background(), tt.args, func(k string) string { return tt.env[k] }, &out)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("run: %v", err)
				}
				if !strings.Contains(out.String(), "200 OK") {
					t.Fatalf("output %q does not report 200 OK", out.String())
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("run error = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestURLFromListenAddr(t *testing.T) {
	tests := map[string]string{
		":8082":         "http://127.0.0.1:8082/health",
		"0.0.0.0:8082":  "http://127.0.0.1:8082/health",
		"[::]:8080":     "http://127.0.0.1:8080/health",
		"10.1.2.3:8080": "http://10.1.2.3:8080/health",
		"fuel:8082":     "http://fuel:8082/health",
	}
	for addr, want := range tests {
		got, err := urlFromListenAddr(addr, "/health")
		if err != nil || got != want {
			t.Errorf("urlFromListenAddr(%q) = %q, %v; want %q", addr, got, err, want)
		}
	}
}

func TestVersion(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-version"}, func(string) string { return "" }, &out); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.HasPrefix(got, "healthcheck dev (go") {
		t.Errorf("-version printed %q", got)
	}
}
