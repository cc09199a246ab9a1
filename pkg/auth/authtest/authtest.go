// Package authtest holds what tests of password work need: the slots of
// an auth.Passwords taken and kept for as long as a test says, so that a
// test sees the bound refuse without racing real hashes against a clock.
package authtest

import (
	"context"
	"sync"
	"testing"

	"github.com/carhub/backend/pkg/auth"
)

// HoldPasswordSlots takes n slots of pw and keeps them until release is
// called (at the latest when the test ends); it returns once all n are
// held.
func HoldPasswordSlots(tb testing.TB, pw *auth.Passwords, n int) (release func()) {
	tb.Helper()
	held, done := make(chan struct{}), make(chan struct{})
	for range n {
		go func() {
			if err := pw.Do(context.Background(), func() { held <- struct{}{}; <-done }); err != nil {
				tb.Errorf("authtest: taking a password slot: %v", err)
				held <- struct{}{}
			}
		}()
		<-held
	}
	release = sync.OnceFunc(func() { close(done) })
	tb.Cleanup(release)
	return release
}
