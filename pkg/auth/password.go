package auth

import (
	"fmt"
	"unicode/utf8"

	"github.com/alexedwards/argon2id"
)

// passwordParams are argon2id's cost: OWASP's first recommended setting
// (19 MiB, 2 passes, 1 lane). A login costs about 30 ms of one core here
// (make bench); failed logins are rate limited, so this cannot be used to
// exhaust the machine.
var passwordParams = &argon2id.Params{Memory: 19 * 1024, Iterations: 2, Parallelism: 1, SaltLength: 16, KeyLength: 32}

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
// with its own random salt.
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

// VerifyPassword reports whether p matches hash (constant time). An empty
// hash (a user who signs in only through OIDC, or the built-in user
// before an admin takes it over) matches nothing, after the same work.
func VerifyPassword(p, hash string) bool {
	if hash == "" {
		_, _ = argon2id.ComparePasswordAndHash(p, dummyHash)
		return false
	}
	ok, err := argon2id.ComparePasswordAndHash(p, hash)
	return err == nil && ok
}
