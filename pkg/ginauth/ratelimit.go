package ginauth

import (
	"math"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/expirable"
	"golang.org/x/time/rate"

	"github.com/carhub/backend/pkg/apperr"
)

// Limiter is a token bucket per key (a username, a client address, a
// user): Events per Per, with bursts of Burst. Keys not seen for an hour
// are forgotten, and at most maxKeys are kept (the least recently used go
// first), so a flood of new keys cannot grow memory without bound.
type Limiter struct {
	limit rate.Limit
	burst int
	now   func() time.Time
	mu    sync.Mutex
	keys  *expirable.LRU[string, *rate.Limiter]
}

const (
	maxKeys  = 100_000
	keepKeys = time.Hour
)

// NewLimiter allows events per period for each key, bursts of burst.
// events <= 0 allows everything (the limit is off).
func NewLimiter(events int, per time.Duration, burst int) *Limiter {
	l := &Limiter{limit: rate.Inf, burst: burst, now: time.Now, keys: expirable.NewLRU[string, *rate.Limiter](maxKeys, nil, keepKeys)}
	if events > 0 {
		l.limit = rate.Limit(float64(events) / per.Seconds())
		if l.burst < 1 {
			l.burst = 1
		}
	}
	return l
}

// Allow takes one event for key; when the key's bucket is empty it returns
// false and how long until the next event is allowed.
func (l *Limiter) Allow(key string) (bool, time.Duration) {
	if l.limit == rate.Inf {
		return true, 0
	}
	l.mu.Lock()
	b, ok := l.keys.Get(key)
	if !ok {
		b = rate.NewLimiter(l.limit, l.burst)
		l.keys.Add(key, b)
	}
	l.mu.Unlock()
	now := l.now()
	r := b.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d
	}
	return true, 0
}

// Exhausted is the RESOURCE_EXHAUSTED answer of a limit, retry after d.
func Exhausted(what string, d time.Duration) *apperr.Error {
	return &apperr.Error{
		Code: apperr.ResourceExhausted, Message: what + ": too many requests, try again later",
		RetryAfter: time.Duration(math.Max(float64(d), float64(time.Second))),
	}
}

// Concurrency counts what runs at once per key (uploads per user): at most
// Max each, Max <= 0 meaning no limit.
type Concurrency struct {
	max     int
	mu      sync.Mutex
	running map[string]int
}

// NewConcurrency allows max at once per key.
func NewConcurrency(max int) *Concurrency {
	return &Concurrency{max: max, running: map[string]int{}}
}

// Acquire takes a slot for key, or returns false when key has max running.
// A true answer must be followed by Release.
func (c *Concurrency) Acquire(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.max > 0 && c.running[key] >= c.max {
		return false
	}
	c.running[key]++
	return true
}

// Release gives back a slot taken by Acquire.
func (c *Concurrency) Release(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.running[key]--; c.running[key] <= 0 {
		delete(c.running, key)
	}
}
