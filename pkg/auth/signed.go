package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"strings"
	"time"
)

// HeaderIdentity carries the verified identity from fuel-service's verify
// route, through Caddy's forward_auth, to docqa-service. Caddy removes the
// client's own copy first; docqa trusts it only with a valid signature.
const HeaderIdentity = "X-Carhub-Identity"

// SignedTTL is how long a signed identity is accepted. The gateway signs
// one per request, so this only bounds a replay of a captured header.
const SignedTTL = 60 * time.Second

// MinSecretBytes is the shortest AUTH_IDENTITY_SECRET accepted.
const MinSecretBytes = 32

type signedIdentity struct {
	Identity
	Expires int64 `json:"exp"`
}

// Sign returns the header value that vouches for id until now+SignedTTL:
// base64url(JSON) "." base64url(HMAC-SHA256(secret, JSON)).
func Sign(secret []byte, id Identity, now time.Time) string {
	id.TokenID = 0
	payload, _ := json.Marshal(signedIdentity{Identity: id, Expires: now.Add(SignedTTL).Unix()})
	p := tokenEncoding.EncodeToString(payload)
	return p + "." + tokenEncoding.EncodeToString(mac(secret, p))
}

// ErrBadSignature is any signed identity that is not one.
var ErrBadSignature = errors.New("identity header: not signed by this system, malformed or expired")

// VerifySigned returns the identity of a header value made by Sign with
// the same secret, if it has not expired at now.
func VerifySigned(secret []byte, value string, now time.Time) (Identity, error) {
	p, sig, ok := strings.Cut(value, ".")
	if !ok {
		return Identity{}, ErrBadSignature
	}
	got, err := tokenEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(got, mac(secret, p)) {
		return Identity{}, ErrBadSignature
	}
	payload, err := tokenEncoding.DecodeString(p)
	if err != nil {
		return Identity{}, ErrBadSignature
	}
	var s signedIdentity
	if err := json.Unmarshal(payload, &s); err != nil || s.UserID == 0 {
		return Identity{}, ErrBadSignature
	}
	if now.Unix() > s.Expires {
		return Identity{}, ErrBadSignature
	}
	if _, ok := ParseScope(string(s.Scope)); !ok {
		return Identity{}, ErrBadSignature
	}
	return s.Identity, nil
}

func mac(secret []byte, payload string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("carhub identity v1\x00"))
	m.Write([]byte(payload))
	return m.Sum(nil)
}
