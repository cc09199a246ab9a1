package auth

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"
	"unicode/utf8"

	"github.com/alexedwards/argon2id"
	"golang.org/x/sync/semaphore"

	"github.com/carhub/backend/pkg/apperr"
)

// passwordParams are argon2id's cost: OWASP's first recommended setting
// (19 MiB, 2 passes, 1 lane). A login costs about 30 ms of one core here
// (make bench). Each hash or check holds its 19 MiB while it runs, so the
// number running at once is bounded (Passwords), and the routes that check
// a password are rate limited per user and per address.
var passwordParams = &argon2id.Params{Memory: 19 * 1024, Iterations: 2, Parallelism: 1, SaltLength: 16, KeyLength: 32}

// PasswordMemoryBytes is what one argon2id hash or check holds while it
// runs.
const PasswordMemoryBytes = 19 << 20

// Password length bounds, in characters (NIST SP 800-63B: at least 8, long
// passphrases allowed).
const (
	MinPasswordLen = 8
	MaxPasswordLen = 256
)

// CheckPassword says what is wrong with a new password, or nil.
func CheckPassword(p string) error {
	n := utf8.RuneCountInString(p)
	if !utf8.ValidString(p) {
		return fmt.Errorf("must be valid UTF-8")
	}
	if n < MinPasswordLen || n > MaxPasswordLen {
		return fmt.Errorf("must be %d to %d characters long", MinPasswordLen, MaxPasswordLen)
	}
	return nil
}

// HashPassword returns the argon2id hash of p in the PHC string format,
// with its own random salt. It is not bounded: a service hashes through
// its Passwords; this is for tests and tools that make accounts.
func HashPassword(p string) (string, error) {
	return argon2id.CreateHash(p, passwordParams)
}

// dummyHash is compared against when a login names no user, so that an
// unknown username costs as much time as a wrong password.
var dummyHash = func() string {
	h, err := HashPassword("no user has this password")
	if err != nil {
		panic(err)
	}
	return h
}()

// verifyPassword reports whether p matches hash (constant time). An empty
// hash (a user who signs in only through OIDC, or the built-in user
// before an admin takes it over) matches nothing, after the same work.
func verifyPassword(p, hash string) bool {
	if hash == "" {
		_, _ = argon2id.ComparePasswordAndHash(p, dummyHash)
		return false
	}
	ok, err := argon2id.ComparePasswordAndHash(p, hash)
	return err == nil && ok
}

// Defaults of NewPasswords.
const (
	// DefaultPasswordWait is how long a hash or check waits for a slot
	// before it is refused. A slot is free again after one argon2id (tens
	// of milliseconds), so a second of queue is dozens of them per slot.
	DefaultPasswordWait = time.Second
	// passwordRetryAfter is what a refused caller is told: the queue that
	// refused it drains within about a second.
	passwordRetryAfter = time.Second
)

// DefaultPasswordConcurrency is the bound of NewPasswords(0, ...): one
// argon2id per core the process may use (GOMAXPROCS). One per core keeps
// every core busy; more run no faster (BenchmarkPasswordsVerify: slower,
// as they share the cores and caches) and only hold more memory at once.
func DefaultPasswordConcurrency() int { return runtime.GOMAXPROCS(0) }

// ErrPasswordsBusy is the cause of the answer to a hash or check that
// found every slot taken for its whole wait.
var ErrPasswordsBusy = errors.New("too many password checks at once")

// Passwords bounds the argon2id work of a process: at most a fixed number
// of hashes and checks run at once, each holding PasswordMemoryBytes. A
// caller waits for a slot (first come, first served) for a bounded time or
// until its context ends; past the wait it gets 503 UNAVAILABLE with
// Retry-After. A service makes one and hands it to everything that hashes
// or checks a password, so the bound is the process's.
type Passwords struct {
	slots *semaphore.Weighted
	wait  time.Duration
}

// NewPasswords allows concurrency hashes and checks at once (<= 0:
// DefaultPasswordConcurrency), each caller waiting at most wait for a
// slot (<= 0: DefaultPasswordWait).
func NewPasswords(concurrency int, wait time.Duration) *Passwords {
	if concurrency <= 0 {
		concurrency = DefaultPasswordConcurrency()
	}
	if wait <= 0 {
		wait = DefaultPasswordWait
	}
	return &Passwords{slots: semaphore.NewWeighted(int64(concurrency)), wait: wait}
}

// Do runs fn in a slot. It returns ctx's error when ctx ends first, and an
// UNAVAILABLE *apperr.Error with RetryAfter (cause ErrPasswordsBusy) when
// no slot was free within the wait; fn did not run then.
func (p *Passwords) Do(ctx context.Context, fn func()) error {
	wctx, cancel := context.WithTimeout(ctx, p.wait)
	defer cancel()
	if err := p.slots.Acquire(wctx, 1); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &apperr.Error{
			Code: apperr.Unavailable, Message: "too many password checks at once, try again later",
			Err: ErrPasswordsBusy, RetryAfter: passwordRetryAfter,
		}
	}
	defer p.slots.Release(1)
	fn()
	return nil
}

// Hash is HashPassword in a slot (see Do for the errors).
func (p *Passwords) Hash(ctx context.Context, password string) (string, error) {
	var hash string
	var hashErr error
	if err := p.Do(ctx, func() { hash, hashErr = HashPassword(password) }); err != nil {
		return "", err
	}
	return hash, hashErr
}

// Verify reports, in a slot, whether password matches hash in constant
// time. An empty hash (a user who signs in only through OIDC, an unknown
// user, the built-in user before an admin takes it over) matches nothing
// after the same work, so a wrong username cannot be told from a wrong
// password by the time taken. The error is Do's: the check did not run.
func (p *Passwords) Verify(ctx context.Context, password, hash string) (bool, error) {
	var ok bool
	err := p.Do(ctx, func() { ok = verifyPassword(password, hash) })
	return ok, err
}
