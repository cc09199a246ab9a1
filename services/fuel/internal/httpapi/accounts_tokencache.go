package httpapi

import (
	"context"
	"sync"
	"time"

	"github.com/carhub/backend/pkg/auth"
)

// tokenCacheSize bounds the verdicts kept; past it the cache starts afresh
// (a miss costs one database lookup, as without the cache).
const tokenCacheSize = 10000

// tokenCache remembers, for ttl, the identity a valid token's hash was
// verified as, so that a request does not pay a database lookup beside its
// own work (proto-docs/auth-decisions.md, "Cost"). Only valid tokens are
// kept: an invalid one is looked up every time. The instance that revokes
// a token, ends sessions or deletes a user forgets every verdict at once
// (purge); other instances of fuel-service refuse it within ttl, inside the
// issue's 60 seconds.
type tokenCache struct {
	ttl time.Duration
	now func() time.Time

	mu      sync.Mutex
	entries map[string]cachedIdentity
}

type cachedIdentity struct {
	id    auth.Identity
	until time.Time
}

// newTokenCache returns nil (no caching) for ttl <= 0.
func newTokenCache(ttl time.Duration, now func() time.Time) *tokenCache {
	if ttl <= 0 {
		return nil
	}
	return &tokenCache{ttl: ttl, now: now, entries: make(map[string]cachedIdentity)}
}

// verify answers from the cache when it holds a fresh verdict for hash,
// else asks verify and keeps a success.
func (c *tokenCache) verify(ctx context.Context, hash []byte, verify func(context.Context, []byte) (auth.Identity, error)) (auth.Identity, error) {
	if c == nil {
		return verify(ctx, hash)
	}
	key := string(hash)
	now := c.now()
	c.mu.Lock()
	e, ok := c.entries[key]
	c.mu.Unlock()
	if ok && now.Before(e.until) {
		return e.id, nil
	}
	id, err := verify(ctx, hash)
	if err != nil {
		return id, err
	}
	c.mu.Lock()
	if len(c.entries) >= tokenCacheSize {
		clear(c.entries)
	}
	c.entries[key] = cachedIdentity{id: id, until: now.Add(c.ttl)}
	c.mu.Unlock()
	return id, nil
}

// purge forgets every verdict: after a revocation, a password change that
// ends sessions, or a user's deletion on this instance.
func (c *tokenCache) purge() {
	if c == nil {
		return
	}
	c.mu.Lock()
	clear(c.entries)
	c.mu.Unlock()
}
