package loopback

import "testing"

// The kernel hands out a random free port per listener, so a few hundred
// calls would repeat one; FreeAddr never does.
func TestFreeAddrNeverRepeats(t *testing.T) {
	seen := map[string]bool{}
	for range 500 {
		a := FreeAddr(t)
		if seen[a] {
			t.Fatalf("%s handed out twice", a)
		}
		seen[a] = true
	}
}
