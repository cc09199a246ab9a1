package docqa

import (
	"context"
	"errors"
	"testing"
)

func TestRemember(t *testing.T) {
	calls := 0
	compute := func(v string, err error) func() (string, error) {
		return func() (string, error) {
			calls++
			return v, err
		}
	}

	// Without a memo, every call computes.
	ctx := context.Background()
	for range 2 {
		if v, err := Remember(ctx, "k", compute("a", nil)); v != "a" || err != nil {
			t.Fatalf("no memo: %q, %v", v, err)
		}
	}
	if calls != 2 {
		t.Fatalf("no memo: %d computations, want 2", calls)
	}

	// With one, a key is computed once; another key on its own.
	calls = 0
	ctx = WithSearchMemo(context.Background())
	for range 3 {
		if v, err := Remember(ctx, "k", compute("a", nil)); v != "a" || err != nil {
			t.Fatalf("memo: %q, %v", v, err)
		}
	}
	if v, err := Remember(ctx, "other", compute("b", nil)); v != "b" || err != nil {
		t.Fatalf("memo, other key: %q, %v", v, err)
	}
	if calls != 2 {
		t.Fatalf("memo: %d computations, want 2 (one per key)", calls)
	}

	// An error is returned and not kept: the next call computes again.
	calls = 0
	boom := errors.New("boom")
	if _, err := Remember(ctx, "failing", compute("", boom)); !errors.Is(err, boom) {
		t.Fatalf("error: %v", err)
	}
	if v, err := Remember(ctx, "failing", compute("c", nil)); v != "c" || err != nil || calls != 2 {
		t.Fatalf("after an error: %q, %v, %d computations", v, err, calls)
	}

	// A new memo (the next question) remembers nothing of the last.
	calls = 0
	if v, _ := Remember(WithSearchMemo(context.Background()), "k", compute("d", nil)); v != "d" || calls != 1 {
		t.Fatalf("new memo: %q after %d computations", v, calls)
	}
}
