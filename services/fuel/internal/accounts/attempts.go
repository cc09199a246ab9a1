package accounts

import (
	"context"
	"math"
	"time"
)

// AttemptKind names a budget of password attempts: per username or per
// client address (proto-docs/auth-decisions.md, "Password attempts
// counted across replicas").
type AttemptKind string

// The budgets every password attempt takes from.
const (
	AttemptsByUsername AttemptKind = "username"
	AttemptsByAddress  AttemptKind = "address"
)

// AttemptWindow is the fixed window password attempts are counted in
// (AUTH_LOGINS_PER_MINUTE): a budget's estimate weighs the previous
// window's count by the part of it still inside the last AttemptWindow.
const AttemptWindow = time.Minute

// Attempts counts password attempts where every instance of the service
// sees them (the database), so that N replicas give no more attempts than
// one.
type Attempts interface {
	// TakeAttempt counts one attempt against the budget (kind, key) of
	// limit attempts per AttemptWindow, refused ones included, and says
	// whether it is within the budget (AttemptAllowed); when not, how long
	// until an attempt would be.
	TakeAttempt(ctx context.Context, kind AttemptKind, key string, limit int) (ok bool, retryAfter time.Duration, err error)
}

// AttemptAllowed is the sliding-window estimate of a budget of limit
// attempts per AttemptWindow: prev attempts in the previous fixed window,
// cur in the current one (this attempt included), elapsed into the current
// one. The estimate prev*(1-elapsed/AttemptWindow) + cur must not exceed
// limit. When it does, retryAfter is how long until one more attempt
// would fit, if no other came meanwhile.
func AttemptAllowed(prev, cur int64, elapsed time.Duration, limit int) (ok bool, retryAfter time.Duration) {
	w := AttemptWindow.Seconds()
	e := elapsed.Seconds()
	n := float64(limit)
	if float64(prev)*(w-e)/w+float64(cur) <= n {
		return true, 0
	}
	var at float64 // seconds from the current window's start
	if float64(cur)+1 <= n {
		// Within this window, once enough of the previous one has slid
		// out (prev > 0, or the estimate would fit).
		at = w - (n-float64(cur)-1)*w/float64(prev)
	} else {
		// In the next window, where this one's cur is the previous.
		at = w + w - (n-1)*w/float64(cur)
	}
	return false, time.Duration(math.Ceil((at - e) * float64(time.Second)))
}
