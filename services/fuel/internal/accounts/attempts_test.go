package accounts

import (
	"testing"
	"time"
)

// TestAttemptAllowed: the estimate weighs the previous window by the part
// of it still inside the last minute, and Retry-After is when one more
// attempt would fit.
func TestAttemptAllowed(t *testing.T) {
	for _, tc := range []struct {
		name      string
		prev, cur int64
		elapsed   time.Duration
		limit     int
		ok        bool
		wait      time.Duration
	}{
		{"first attempt", 0, 1, 0, 3, true, 0},
		{"the third of three", 0, 3, 10 * time.Second, 3, true, 0},
		// The fourth this window: one more fits in the next window, once
		// these 4 weigh 2 or less, half a minute into it: 50 + 30 s.
		{"the fourth of three", 0, 4, 10 * time.Second, 3, false, 50*time.Second + 30*time.Second},
		// 3 last window, 1 now, a third in: 2 + 1 fit in 3.
		{"the previous window weighs less", 3, 1, 20 * time.Second, 3, true, 0},
		// 3 last window, 1 now, 10 s in: 2.5 + 1 > 3; one more fits once
		// 3*(1-f) + 2 <= 3, at f = 2/3 (40 s), 30 s from now.
		{"the previous window still weighs", 3, 1, 10 * time.Second, 3, false, 30 * time.Second},
		// A limit of one: 2 attempts in this window weigh nothing only at
		// the end of the next one.
		{"a limit of one", 0, 2, 0, 1, false, 2 * time.Minute},
	} {
		ok, wait := AttemptAllowed(tc.prev, tc.cur, tc.elapsed, tc.limit)
		if ok != tc.ok || wait != tc.wait {
			t.Errorf("%s: %v %s, want %v %s", tc.name, ok, wait, tc.ok, tc.wait)
		}
	}
}
