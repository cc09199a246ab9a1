package notify

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestForbidden(t *testing.T) {
	tests := []struct {
		ip  string
		why string // "" when allowed
	}{
		{"127.0.0.1", "loopback"},
		{"127.255.0.9", "loopback"},
		{"::1", "loopback"},
		{"::ffff:127.0.0.1", "loopback"},
		{"10.1.2.3", "private"},
		{"172.16.0.1", "private"},
		{"172.31.255.255", "private"},
		{"192.168.1.1", "private"},
		{"::ffff:192.168.1.1", "private"},
		{"fd00::1", "private"},
		{"fd00:ec2::254", "private"},
		{"fc00::1", "private"},
		{"169.254.169.254", "link-local"},
		{"fe80::1", "link-local"},
		{"0.0.0.0", "unspecified"},
		{"::", "unspecified"},
		{"224.0.0.1", "link-local"},
		{"239.1.2.3", "multicast"},
		{"ff02::1", "link-local"},
		{"ff0e::1", "multicast"},
		{"0.1.2.3", "\"this network\""},
		{"100.64.0.1", "shared (carrier-grade NAT)"},
		{"100.100.100.200", "shared (carrier-grade NAT)"},
		{"198.18.0.1", "benchmarking"},
		{"255.255.255.255", "reserved"},
		{"::7f00:1", "IPv4-compatible"},
		{"fec0::1", "site-local"},
		{"64:ff9b::7f00:1", "loopback (embedded in IPv6)"},
		{"64:ff9b::a00:1", "private (embedded in IPv6)"},
		{"2002:a9fe:a9fe::1", "link-local (embedded in IPv6)"},
		{"8.8.8.8", ""},
		{"93.184.216.34", ""},
		{"172.32.0.1", ""},
		{"100.128.0.1", ""},
		{"2606:4700:4700::1111", ""},
		{"64:ff9b::808:808", ""},
		{"2002:808:808::1", ""},
	}
	for _, tt := range tests {
		if got := forbidden(netip.MustParseAddr(tt.ip)); got != tt.why {
			t.Errorf("forbidden(%s) = %q, want %q", tt.ip, got, tt.why)
		}
	}
}

// fakeDNS answers CheckURL's look-ups for the duration of a test.
func fakeDNS(tb testing.TB, names map[string][]string) {
	tb.Helper()
	old := lookupNetIP
	lookupNetIP = func(_ context.Context, _, host string) ([]netip.Addr, error) {
		addrs, ok := names[host]
		if !ok {
			return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
		}
		var ips []netip.Addr
		for _, a := range addrs {
			ips = append(ips, netip.MustParseAddr(a))
		}
		return ips, nil
	}
	tb.Cleanup(func() { lookupNetIP = old })
}

func TestCheckURL(t *testing.T) {
	fakeDNS(t, map[string][]string{
		"ntfy.example.org":     {"93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"},
		"rebind.example.org":   {"93.184.216.34", "10.0.0.5"},
		"internal.example.org": {"192.168.1.20"},
		"metadata.example.org": {"169.254.169.254"},
	})
	tests := []struct {
		url       string
		forbidden bool // wraps ErrForbiddenAddress
		ok        bool // allowed without allowPrivate
		okPrivate bool // allowed with allowPrivate
	}{
		{url: "https://ntfy.example.org/topic", ok: true, okPrivate: true},
		{url: "https://93.184.216.34/hook", ok: true, okPrivate: true},
		{url: "http://[2606:4700:4700::1111]:8080/x", ok: true, okPrivate: true},
		{url: "http://127.0.0.1/", forbidden: true, okPrivate: true},
		{url: "http://127.0.0.1:5432/", forbidden: true, okPrivate: true},
		{url: "http://[::1]/", forbidden: true, okPrivate: true},
		{url: "http://10.0.0.1/", forbidden: true, okPrivate: true},
		{url: "http://192.168.1.1/", forbidden: true, okPrivate: true},
		{url: "http://169.254.169.254/latest/meta-data/", forbidden: true, okPrivate: true},
		{url: "http://[fd00::1]/", forbidden: true, okPrivate: true},
		{url: "http://[::ffff:127.0.0.1]/", forbidden: true, okPrivate: true},
		{url: "http://[fe80::1%25eth0]/", forbidden: true, okPrivate: true},
		{url: "http://0.0.0.0/", forbidden: true, okPrivate: true},
		{url: "http://localhost:8080/", forbidden: true, okPrivate: true},
		{url: "http://LOCALHOST./", forbidden: true, okPrivate: true},
		{url: "http://api.localhost/", forbidden: true, okPrivate: true},
		{url: "http://2130706433/", forbidden: true, okPrivate: true},
		{url: "http://0x7f.1/", forbidden: true, okPrivate: true},
		{url: "http://0177.0.0.1/", forbidden: true, okPrivate: true},
		{url: "http://127.1/", forbidden: true, okPrivate: true},
		{url: "https://rebind.example.org/", forbidden: true, okPrivate: true},
		{url: "https://internal.example.org/", forbidden: true, okPrivate: true},
		{url: "https://metadata.example.org/", forbidden: true, okPrivate: true},
		{url: "https://unknown.example.org/", okPrivate: true},
		{url: "ftp://ntfy.example.org/"},
		{url: "file:///etc/passwd"},
		{url: "gopher://127.0.0.1:6379/_FLUSHALL"},
		{url: "javascript:alert(1)"},
		{url: "https://"},
		{url: "ntfy.example.org/topic"},
		{url: ""},
		{url: "http://ntfy.example.org:port/"},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			err := CheckURL(context.Background(), tt.url, false)
			if (err == nil) != tt.ok {
				t.Errorf("CheckURL(allowPrivate=false) = %v, want ok %v", err, tt.ok)
			}
			if errors.Is(err, ErrForbiddenAddress) != tt.forbidden {
				t.Errorf("errors.Is(%v, ErrForbiddenAddress) = %v, want %v", err, !tt.forbidden, tt.forbidden)
			}
			if err != nil && !Permanent(err) {
				t.Errorf("Permanent(%v) = false", err)
			}
			if err := CheckURL(context.Background(), tt.url, true); (err == nil) != tt.okPrivate {
				t.Errorf("CheckURL(allowPrivate=true) = %v, want ok %v", err, tt.okPrivate)
			}
		})
	}
}

func TestCheckURLNeverRepeatsTheURL(t *testing.T) {
	fakeDNS(t, map[string][]string{"internal.example.org": {"10.0.0.1"}})
	for _, u := range []string{
		"https://user:PASSWORD@internal.example.org/SECRET-TOPIC",
		"http://127.0.0.1/SECRET-TOPIC?token=PASSWORD",
		"http://[::1/SECRET-TOPIC",
		"ftp://user:PASSWORD@example.org/SECRET-TOPIC",
	} {
		err := CheckURL(context.Background(), u, false)
		if err == nil {
			t.Fatalf("CheckURL(%q) = nil", u)
		}
		if s := err.Error(); strings.Contains(s, "PASSWORD") || strings.Contains(s, "SECRET") {
			t.Errorf("CheckURL(%q) = %q repeats a secret", u, s)
		}
	}
}

func FuzzCheckURL(f *testing.F) {
	for _, s := range []string{"https://ntfy.sh/topic", "http://127.0.0.1/", "http://[::ffff:10.0.0.1]/", "http://0x7f.1/", "http://localhost./"} {
		f.Add(s)
	}
	fakeDNS(f, map[string][]string{})
	f.Fuzz(func(t *testing.T, raw string) {
		err := CheckURL(context.Background(), raw, false)
		if err != nil {
			return
		}
		// Whatever passed is http(s) to a public IP literal: names do not
		// resolve here.
		u, perr := parseTarget(raw)
		if perr != nil {
			t.Fatalf("CheckURL accepted %q, which parseTarget refuses: %v", raw, perr)
		}
		ip, aerr := netip.ParseAddr(u.Hostname())
		if aerr != nil || forbidden(ip) != "" {
			t.Fatalf("CheckURL accepted %q (host %q)", raw, u.Hostname())
		}
	})
}

func TestNewHTTPClientChecksTheDialledAddress(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	t.Cleanup(srv.Close)
	byName := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1) // resolved by the dialler, not CheckURL

	for _, u := range []string{srv.URL, byName} {
		resp, err := NewHTTPClient(false, 5*time.Second).Get(u)
		if err == nil {
			resp.Body.Close()
			t.Fatalf("NewHTTPClient(false) reached %s", u)
		}
		if !errors.Is(err, ErrForbiddenAddress) {
			t.Errorf("GET %s: err = %v, want ErrForbiddenAddress", u, err)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the server was reached %d times", n)
	}
	for _, u := range []string{srv.URL, byName} {
		resp, err := NewHTTPClient(true, 5*time.Second).Get(u)
		if err != nil {
			t.Fatalf("NewHTTPClient(true): GET %s: %v", u, err)
		}
		resp.Body.Close()
	}
	if n := hits.Load(); n != 2 {
		t.Errorf("the server was reached %d times, want 2", n)
	}
}

func TestNewHTTPClientUsesNoProxyWhenGuarding(t *testing.T) {
	t.Setenv("HTTP_PROXY", "http://93.184.216.34:3128")
	guarded := NewHTTPClient(false, time.Second).Transport.(*http.Transport)
	if guarded.Proxy != nil {
		t.Error("the guarded client uses a proxy, behind which the address cannot be checked")
	}
	if open := NewHTTPClient(true, time.Second).Transport.(*http.Transport); open.Proxy == nil {
		t.Error("the client that allows private addresses ignores the proxy settings")
	}
}
