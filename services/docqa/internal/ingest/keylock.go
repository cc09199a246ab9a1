package ingest

import (
	"context"
	"sync"
)

// keyLock is a set of mutexes, one per key, created on demand and dropped
// when nobody holds or waits for them. Waiting respects the context, so a
// client that gives up does not stay queued behind a long ingestion.
type keyLock struct {
	mu sync.Mutex
	m  map[string]*lockEntry
}

type lockEntry struct {
	held chan struct{} // capacity 1: full while the key is held
	refs int           // holders and waiters
}

// lock blocks until key is free or ctx is done; the returned func releases it.
func (k *keyLock) lock(ctx context.Context, key string) (unlock func(), err error) {
	k.mu.Lock()
	if k.m == nil {
		k.m = make(map[string]*lockEntry)
	}
	e := k.m[key]
	if e == nil {
		e = &lockEntry{held: make(chan struct{}, 1)}
		k.m[key] = e
	}
	e.refs++
	k.mu.Unlock()

	select {
	case e.held <- struct{}{}:
		return func() {
			<-e.held
			k.release(key, e)
		}, nil
	case <-ctx.Done():
		k.release(key, e)
		return nil, ctx.Err()
	}
}

func (k *keyLock) release(key string, e *lockEntry) {
	k.mu.Lock()
	defer k.mu.Unlock()
	e.refs--
	if e.refs == 0 {
		delete(k.m, key)
	}
}
