package ginx

import (
	"encoding/json"
	"net/http/httptest"
	"net/netip"
	"reflect"
	"strings"
	"testing"
)

func TestParseTrustedProxies(t *testing.T) {
	prefixes := func(ss ...string) []netip.Prefix {
		out := []netip.Prefix{}
		for _, s := range ss {
			out = append(out, netip.MustParsePrefix(s))
		}
		return out
	}
	for _, tc := range []struct {
		in   string
		want []netip.Prefix
	}{
		{"", prefixes("127.0.0.0/8", "::1/128", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7")},
		{DefaultTrustedProxies, prefixes("127.0.0.0/8", "::1/128", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7")},
		{"10.1.2.3", prefixes("10.1.2.3/32")},
		{" 2001:db8::7 , 10.42.0.0/16 ", prefixes("2001:db8::7/128", "10.42.0.0/16")},
		{"10.1.2.3/8", prefixes("10.0.0.0/8")}, // the prefix, as the operator meant it
		{"none", prefixes()},
		{" none ", prefixes()},
	} {
		got, err := ParseTrustedProxies(tc.in)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseTrustedProxies(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for in, naming := range map[string]string{
		" , ":               `" , "`,
		"10.0.0.0/8,caddy":  `"caddy"`,
		"10.0.0.0/33":       `"10.0.0.0/33"`,
		"fe80::1%eth0":      `"fe80::1%eth0"`,
		"none,10.0.0.0/8":   `"none"`,
		"192.168.1.300/24":  `"192.168.1.300/24"`,
		"10.0.0.1-10.0.0.9": `"10.0.0.1-10.0.0.9"`,
	} {
		_, err := ParseTrustedProxies(in)
		if err == nil || !strings.Contains(err.Error(), "TRUSTED_PROXIES") || !strings.Contains(err.Error(), naming) {
			t.Errorf("ParseTrustedProxies(%q) error %v; want one naming TRUSTED_PROXIES and %s", in, err, naming)
		}
	}
}

// TestClientAddress: the address a request is counted and logged under is
// X-Forwarded-For's only when a trusted proxy sent it.
func TestClientAddress(t *testing.T) {
	defaults, err := ParseTrustedProxies(DefaultTrustedProxies)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		proxies []netip.Prefix
		peer    string
		headers map[string]string
		want    string
	}{
		{"a direct client's forged header is ignored", defaults, "203.0.113.9:4000", map[string]string{"X-Forwarded-For": "198.51.100.7"}, "203.0.113.9"},
		{"a direct client's X-Real-IP is ignored", defaults, "203.0.113.9:4000", map[string]string{"X-Real-IP": "198.51.100.7"}, "203.0.113.9"},
		{"the gateway's header is believed", defaults, "127.0.0.1:4000", map[string]string{"X-Forwarded-For": "198.51.100.7"}, "198.51.100.7"},
		{"a client on the LAN, through the gateway", defaults, "10.0.3.4:4000", map[string]string{"X-Forwarded-For": "192.168.1.20"}, "192.168.1.20"},
		{"the first untrusted address from the right", defaults, "[::1]:4000", map[string]string{"X-Forwarded-For": "198.51.100.1, 198.51.100.7, 10.0.0.5"}, "198.51.100.7"},
		{"X-Real-IP is not read, even from the gateway", defaults, "127.0.0.1:4000", map[string]string{"X-Real-IP": "198.51.100.7"}, "127.0.0.1"},
		{"an unparsable header leaves the gateway's address", defaults, "127.0.0.1:4000", map[string]string{"X-Forwarded-For": "nonsense", "X-Real-IP": "198.51.100.7"}, "127.0.0.1"},
		{"none trusts no one", []netip.Prefix{}, "127.0.0.1:4000", map[string]string{"X-Forwarded-For": "198.51.100.7"}, "127.0.0.1"},
		{"the zero Options trust no one", nil, "10.0.0.2:4000", map[string]string{"X-Forwarded-For": "198.51.100.7"}, "10.0.0.2"},
		{"a single trusted address", []netip.Prefix{netip.MustParsePrefix("10.0.0.2/32")}, "10.0.0.2:4000", map[string]string{"X-Forwarded-For": "198.51.100.7"}, "198.51.100.7"},
		{"next to the single trusted address", []netip.Prefix{netip.MustParsePrefix("10.0.0.2/32")}, "10.0.0.3:4000", map[string]string{"X-Forwarded-For": "198.51.100.7"}, "10.0.0.3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, logs := newTestEngine(t, Options{TrustedProxies: tc.proxies})
			req := httptest.NewRequest("GET", "/api/ok", nil)
			req.RemoteAddr = tc.peer
			for k, v := range tc.headers {
				req.Header.Set(k, v)
			}
			rec := httptest.NewRecorder()
			e.ServeHTTP(rec, req)
			if rec.Code != 200 {
				t.Fatalf("status %d", rec.Code)
			}
			var line struct{ Msg, Remote string }
			if err := json.Unmarshal(logs.Bytes(), &line); err != nil {
				t.Fatalf("access log %q: %v", logs, err)
			}
			if line.Msg != "request" || line.Remote != tc.want {
				t.Errorf("access log %q: remote %q, want %q", logs, line.Remote, tc.want)
			}
		})
	}
}
