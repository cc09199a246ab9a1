package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"strings"
)

// Kind tells a login session from a personal access token; the prefix of
// the token says which it is, so a leaked one is recognisable.
type Kind string

const (
	KindSession Kind = "session"
	KindToken   Kind = "token"
)

const (
	sessionPrefix = "chs_"
	tokenPrefix   = "chp_"
	// secretBytes of randomness per token.
	secretBytes = 32
)

var tokenEncoding = base64.RawURLEncoding

// NewToken returns a new token of kind k and the hash to store for it.
// The token itself is shown once and never stored.
func NewToken(k Kind) (token string, hash []byte) {
	b := make([]byte, secretBytes)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	prefix := sessionPrefix
	if k == KindToken {
		prefix = tokenPrefix
	}
	token = prefix + tokenEncoding.EncodeToString(b)
	return token, HashToken(token)
}

// HashToken is what the database keeps of a token: its SHA-256. A token
// holds 256 random bits, so a fast hash is enough (no password stretching
// needed); a stolen table yields no usable token.
func HashToken(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

// ParseToken checks a token's shape and returns its kind; a malformed
// token is refused before any database lookup.
func ParseToken(token string) (Kind, bool) {
	var k Kind
	var rest string
	switch {
	case strings.HasPrefix(token, sessionPrefix):
		k, rest = KindSession, token[len(sessionPrefix):]
	case strings.HasPrefix(token, tokenPrefix):
		k, rest = KindToken, token[len(tokenPrefix):]
	default:
		return "", false
	}
	b, err := tokenEncoding.DecodeString(rest)
	if err != nil || len(b) != secretBytes {
		return "", false
	}
	return k, true
}

// HashesEqual compares two token hashes in constant time.
func HashesEqual(a, b []byte) bool { return subtle.ConstantTimeCompare(a, b) == 1 }

// BearerToken returns the token of an Authorization header value
// ("Bearer <token>", scheme case-insensitive), or "" when there is none.
func BearerToken(header string) string {
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(token)
}
