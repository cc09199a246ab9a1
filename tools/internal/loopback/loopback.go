// Package loopback gives tests of the tools module free loopback addresses
// for the processes they start (this module does not depend on pkg, whose
// caddytest.FreeAddr does the same for the services' tests).
package loopback

import (
	"net"
	"sync"
	"testing"
)

// handedOut holds every address FreeAddr returned.
var handedOut sync.Map

// FreeAddr returns a 127.0.0.1 host:port that was free a moment ago, and
// never the same one twice in a process. The kernel picks a port at random
// for each listener, so two calls in a row can name the same one: a Caddy
// given it for its site and for its metrics listener binds both, and the
// site's requests reach the metrics listener.
func FreeAddr(tb testing.TB) string {
	tb.Helper()
	for {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			tb.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		if _, given := handedOut.LoadOrStore(addr, true); !given {
			return addr
		}
	}
}
