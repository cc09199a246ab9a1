package auth_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/pkg/auth/authtest"
)

// TestPasswordsBound: with every slot held, a hash, a check (also of an
// unknown user's empty hash) and any other work wait their time and are
// refused with 503 UNAVAILABLE and a Retry-After, running nothing; a
// caller whose context ends is told so instead; a freed slot serves the
// next caller.
func TestPasswordsBound(t *testing.T) {
	hash, err := auth.HashPassword("correct horse")
	if err != nil {
		t.Fatal(err)
	}
	pw := auth.NewPasswords(2, time.Millisecond)
	release := authtest.HoldPasswordSlots(t, pw, 2)
	ctx := context.Background()
	busy := func(what string, err error) {
		t.Helper()
		var e *apperr.Error
		if !errors.As(err, &e) || e.Code != apperr.Unavailable || e.RetryAfter < time.Second || !errors.Is(err, auth.ErrPasswordsBusy) {
			t.Fatalf("%s with every slot held: %v, want UNAVAILABLE with a Retry-After", what, err)
		}
	}
	_, err = pw.Hash(ctx, "correct horse")
	busy("hash", err)
	ok, err := pw.Verify(ctx, "correct horse", hash)
	busy("verify", err)
	if ok {
		t.Fatal("a refused check matched")
	}
	_, err = pw.Verify(ctx, "anything", "")
	busy("verify of an unknown user", err)
	ran := false
	busy("other work", pw.Do(ctx, func() { ran = true }))
	if ran {
		t.Fatal("refused work ran")
	}

	// A caller that gives up is not told to come back.
	gone, cancel := context.WithCancel(ctx)
	cancel()
	if err := pw.Do(gone, func() {}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled caller waiting for a slot: %v, want context.Canceled", err)
	}

	release()
	if ok, err := pw.Verify(ctx, "correct horse", hash); err != nil || !ok {
		t.Fatalf("after the slots are freed: %v %v", ok, err)
	}
}

// BenchmarkPasswordsVerify is the rate of wrong-password checks with 64
// callers per core, by the number of slots: one per core keeps every core
// busy, more only hold more memory at once.
func BenchmarkPasswordsVerify(b *testing.B) {
	hash, err := auth.HashPassword("correct horse")
	if err != nil {
		b.Fatal(err)
	}
	for _, slots := range []int{1, runtime.GOMAXPROCS(0), 2 * runtime.GOMAXPROCS(0), 4 * runtime.GOMAXPROCS(0)} {
		b.Run(fmt.Sprintf("slots=%d", slots), func(b *testing.B) {
			pw := auth.NewPasswords(slots, time.Hour)
			b.SetParallelism(64)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := pw.Verify(context.Background(), "wrong horse", hash); err != nil {
						b.Error(err)
					}
				}
			})
		})
	}
}
