package accounts

import (
	"context"
	"sync"
	"time"

	"github.com/carhub/backend/pkg/auth"
)

// tokenCacheSize bounds the verdicts kept; past it the cache starts afresh
// (a miss costs one database lookup, as without the cache).
const tokenCacheSize = 10000

// TokenCache remembers, for its ttl, the identity a valid token's hash was
// verified as, so that a request does not pay a database lookup beside its
// own work (proto-docs/auth-decisions.md, "Cost"). Only valid tokens are
// kept: an invalid one is looked up every time. The instance that revokes
// a token, ends sessions or deletes a user forgets every verdict at once
// (Purge); other instances of fuel-service refuse it within ttl, inside the
// issue's 60 seconds. A nil *TokenCache caches nothing.
type TokenCache struct {
	ttl time.Duration
	now func() time.Time

	mu      sync.Mutex
	entries map[string]cachedIdentity
}

type cachedIdentity struct {
	id    auth.Identity
	until time.Time
}

// NewTokenCache keeps verdicts for ttl by the clock now; nil (no caching)
// for ttl <= 0.
func NewTokenCache(ttl time.Duration, now func() time.Time) *TokenCache {
	if ttl <= 0 {
		return nil
	}
	return &TokenCache{ttl: ttl, now: now, entries: make(map[string]cachedIdentity)}
}

// Verify answers from the cache when it holds a fresh verdict for hash,
// else asks verify (Store.VerifyToken; with a nil cache, always) and
// keeps a success. Its errors are verify's.
func (c *TokenCache) Verify(ctx context.Context, hash []byte, verify func(context.Context, []byte) (auth.Identity, error)) (auth.Identity, error) {
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

// Purge forgets every verdict: after a revocation, a password change that
// ends sessions, or a user's deletion on this instance.
func (c *TokenCache) Purge() {
	if c == nil {
		return
	}
	c.mu.Lock()
	clear(c.entries)
	c.mu.Unlock()
}
