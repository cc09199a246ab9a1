package notify

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// Address checks against server-side request forgery: a webhook URL or a
// push endpoint is the user's input, and the service must not become their
// way into its own network (the database, the metadata service of a cloud
// host, a router's admin page). CheckURL refuses such URLs when they are
// entered; NewHTTPClient refuses to connect to such addresses when a
// delivery is made, so a name that resolved to a public address then and
// to a private one now (DNS rebinding) is still refused.

// forbiddenPrefixes are ranges that netip's predicates do not cover and
// that no public receiver lives in.
var forbiddenPrefixes = []struct {
	prefix netip.Prefix
	why    string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "\"this network\""},
	{netip.MustParsePrefix("100.64.0.0/10"), "shared (carrier-grade NAT)"},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol assignments"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"}, // with 255.255.255.255
	{netip.MustParsePrefix("::/96"), "IPv4-compatible"},
	{netip.MustParsePrefix("fec0::/10"), "site-local"},
}

// embeddingPrefixes are IPv6 ranges whose addresses carry an IPv4 address
// that a gateway reaches: they are judged by that address.
var embeddingPrefixes = []struct {
	prefix netip.Prefix
	offset int // of the IPv4 address in the 16 bytes
}{
	{netip.MustParsePrefix("64:ff9b::/96"), 12}, // NAT64
	{netip.MustParsePrefix("2002::/16"), 2},     // 6to4
}

// forbidden says why ip may not be reached, or "" when it may.
func forbidden(ip netip.Addr) string {
	ip = ip.Unmap() // ::ffff:127.0.0.1 is 127.0.0.1
	switch {
	case ip.IsLoopback():
		return "loopback"
	case ip.IsPrivate():
		return "private"
	case ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast():
		return "link-local"
	case ip.IsUnspecified():
		return "unspecified"
	case ip.IsMulticast():
		return "multicast"
	}
	for _, p := range forbiddenPrefixes {
		if p.prefix.Contains(ip) {
			return p.why
		}
	}
	for _, p := range embeddingPrefixes {
		if p.prefix.Contains(ip) {
			b := ip.As16()
			if why := forbidden(netip.AddrFrom4([4]byte(b[p.offset : p.offset+4]))); why != "" {
				return why + " (embedded in IPv6)"
			}
		}
	}
	return ""
}

// checkAddr refuses ip unless it may be reached.
func checkAddr(ip netip.Addr) error {
	if why := forbidden(ip); why != "" {
		return fmt.Errorf("%w: %s address", ErrForbiddenAddress, why)
	}
	return nil
}

// parseTarget parses raw as an http or https URL with a host.
func parseTarget(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		// url.Error repeats the input, which can hold a token.
		return nil, permanent(errors.New("not a valid URL"))
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, permanent(errors.New("must be an http or https URL"))
	}
	if u.Hostname() == "" {
		return nil, permanent(errors.New("has no host"))
	}
	return u, nil
}

// checkHostName refuses, without resolving it, a host that names the
// machine itself or that a resolver may read as a numeric IPv4 address in
// a form net/netip does not parse (2130706433, 0x7f.1, 0177.0.0.1): what
// such a form means depends on the resolver, so it is never trusted.
func checkHostName(host string) error {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return fmt.Errorf("%w: localhost", ErrForbiddenAddress)
	}
	if _, err := netip.ParseAddr(h); err == nil {
		return nil
	}
	if numericLabel(h[strings.LastIndexByte(h, '.')+1:]) {
		return fmt.Errorf("%w: a numeric host that is no standard IP address", ErrForbiddenAddress)
	}
	return nil
}

// numericLabel tells whether a host's last label is a number (decimal,
// octal or 0x hex): no top-level domain is, but some resolvers read such a
// host as an IPv4 address.
func numericLabel(s string) bool {
	if hex, ok := strings.CutPrefix(s, "0x"); ok {
		return strings.Trim(hex, "0123456789abcdef") == ""
	}
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// CheckURL checks a URL that deliveries will be sent to: http or https
// with a host, and, unless allowPrivate, a host that is not localhost and
// whose every address (an IP literal, or what it resolves to now) is
// public. A refused address wraps ErrForbiddenAddress; the errors never
// repeat the URL, whose path or user part may be a secret.
func CheckURL(ctx context.Context, raw string, allowPrivate bool) error {
	u, err := parseTarget(raw)
	if err != nil || allowPrivate {
		return err
	}
	host := u.Hostname()
	if err := checkHostName(host); err != nil {
		return err
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		return checkAddr(ip)
	}
	ips, err := lookupNetIP(ctx, "ip", host)
	if err != nil {
		var dnsErr *net.DNSError
		if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
			return permanent(fmt.Errorf("host %s does not resolve", host))
		}
		return fmt.Errorf("resolving %s: %w", host, err)
	}
	for _, ip := range ips {
		if err := checkAddr(ip); err != nil {
			return fmt.Errorf("%s: %w", host, err)
		}
	}
	return nil
}

// lookupNetIP resolves CheckURL's host names; tests replace it, since
// they have no DNS.
var lookupNetIP = net.DefaultResolver.LookupNetIP

// maxRedirects bounds the redirects a delivery follows.
const maxRedirects = 3

// NewHTTPClient returns the client deliveries are sent with. Unless
// allowPrivate, it refuses to connect to a forbidden address, checked on
// the address actually dialled (after resolution, for every address tried),
// and it uses no HTTP proxy, since behind a proxy the address could not be
// checked. TLS uses the system's roots (Go reads SSL_CERT_FILE and
// SSL_CERT_DIR). Redirects are followed, at most three, only to the same
// host and only when they keep the method and body (307, 308; a 301 or 302
// would turn the POST into a GET that delivers nothing): a token header
// must not follow a redirect to another host.
func NewHTTPClient(allowPrivate bool, timeout time.Duration) *http.Client {
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	transport := &http.Transport{
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	if allowPrivate {
		transport.Proxy = http.ProxyFromEnvironment
	} else {
		dialer.Control = controlDial
	}
	return &http.Client{
		Transport: transport,
		Timeout:   timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			return checkRedirect(req, via, allowPrivate)
		},
	}
}

// controlDial refuses a connection to a forbidden address; address is the
// resolved "ip:port" about to be dialled.
func controlDial(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: cannot read the address being dialled", ErrForbiddenAddress)
	}
	return checkAddr(ap.Addr())
}

// checkRedirect is NewHTTPClient's redirect policy.
func checkRedirect(req *http.Request, via []*http.Request, allowPrivate bool) error {
	first := via[0]
	switch {
	case len(via) > maxRedirects:
		return permanent(fmt.Errorf("more than %d redirects", maxRedirects))
	case req.Method != first.Method:
		return permanent(fmt.Errorf("redirected with HTTP %d, which would turn the %s into a %s: use the URL it redirects to",
			req.Response.StatusCode, first.Method, req.Method))
	case req.URL.Scheme != "http" && req.URL.Scheme != "https":
		return permanent(errors.New("redirected to a URL that is not http or https"))
	case !strings.EqualFold(req.URL.Hostname(), first.URL.Hostname()):
		return permanent(fmt.Errorf("redirected from %s to another host", first.URL.Hostname()))
	}
	if !allowPrivate {
		// The dialler checks the address too; this refuses early and says why.
		if err := checkHostName(req.URL.Hostname()); err != nil {
			return err
		}
	}
	return nil
}
