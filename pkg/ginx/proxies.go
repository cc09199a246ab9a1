package ginx

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/gin-gonic/gin"
)

// DefaultTrustedProxies is TRUSTED_PROXIES when it is unset: loopback and
// the private ranges (RFC 1918 and IPv6 unique local), where Caddy runs in
// `make run`, on a Compose network and in a Kubernetes cluster.
const DefaultTrustedProxies = "127.0.0.0/8,::1/128,10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,fc00::/7"

// ParseTrustedProxies reads TRUSTED_PROXIES: a comma-separated list of
// addresses and CIDR prefixes, "none" to trust no proxy at all (a service
// that clients reach directly), or "" for DefaultTrustedProxies. An item
// that is neither is an error naming it.
func ParseTrustedProxies(s string) ([]netip.Prefix, error) {
	if s == "" {
		s = DefaultTrustedProxies
	}
	if strings.TrimSpace(s) == "none" {
		return []netip.Prefix{}, nil
	}
	var out []netip.Prefix
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if p, err := netip.ParsePrefix(item); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(item)
		if err != nil || a.Zone() != "" {
			return nil, fmt.Errorf("TRUSTED_PROXIES: %q is not an IP address or a CIDR prefix such as 10.0.0.0/8 (or the word none)", item)
		}
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf(`TRUSTED_PROXIES: %q names no address; write "none" to trust no proxy`, s)
	}
	return out, nil
}

// trustProxies makes the engine take a request's client address from
// X-Forwarded-For only when the connection comes from one of proxies
// (Caddy, which replaces a client's own X-Forwarded-For with the address
// it sees), and otherwise from the connection. Gin alone would believe the
// header, and X-Real-IP, from anyone: a client reaching a service directly
// could then pick the address that its login attempts are counted under.
func trustProxies(e *gin.Engine, proxies []netip.Prefix) {
	e.ForwardedByClientIP = true
	e.RemoteIPHeaders = []string{"X-Forwarded-For"}
	var cidrs []string // nil: trust no one
	for _, p := range proxies {
		cidrs = append(cidrs, p.String())
	}
	if err := e.SetTrustedProxies(cidrs); err != nil {
		// Unreachable: netip's own String() of a valid prefix.
		panic(fmt.Sprintf("ginx: trusted proxies %v: %v", cidrs, err))
	}
}
