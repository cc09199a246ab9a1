package notify

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// VAPIDKeys is the application server's P-256 key pair of RFC 8292: the
// browser subscribes with the public key, and every push is signed with
// the private one. The caller generates it at first start and keeps it in
// its database, or reads it from VAPID_PRIVATE_KEY; rotating it orphans
// every subscription made with the old public key. The zero value has no
// key: Push.Send refuses it.
type VAPIDKeys struct {
	key *ecdsa.PrivateKey
}

// GenerateVAPIDKeys makes a new key pair.
func GenerateVAPIDKeys() (VAPIDKeys, error) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return VAPIDKeys{}, fmt.Errorf("generating VAPID keys: %w", err)
	}
	return VAPIDKeys{key: k}, nil
}

// ParseVAPIDPrivateKey reads a private key in the usual web-push form:
// base64url (padded or not) of the 32-byte big-endian P-256 scalar, as
// PrivateKey writes it and the web-push tools print it. The error says
// what is wrong without repeating the key.
func ParseVAPIDPrivateKey(b64url string) (VAPIDKeys, error) {
	s := strings.TrimRight(strings.TrimSpace(b64url), "=")
	if s == "" {
		return VAPIDKeys{}, errors.New("VAPID private key is empty")
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return VAPIDKeys{}, errors.New("VAPID private key is not base64url (A-Z a-z 0-9 - _)")
	}
	if len(b) != 32 {
		return VAPIDKeys{}, fmt.Errorf("VAPID private key is %d bytes; a P-256 private key is 32", len(b))
	}
	k, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), b)
	if err != nil {
		return VAPIDKeys{}, errors.New("VAPID private key is not a valid P-256 private key (zero or not below the group order)")
	}
	return VAPIDKeys{key: k}, nil
}

// PrivateKey is the private key as base64url without padding, the form
// ParseVAPIDPrivateKey reads back: what the caller stores. It is a secret:
// never log it. "" for the zero VAPIDKeys.
func (k VAPIDKeys) PrivateKey() string {
	if k.key == nil {
		return ""
	}
	b, err := k.key.Bytes()
	if err != nil {
		return "" // cannot happen for a key made by this package
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// PublicKey is the public key as base64url without padding of the 65-byte
// uncompressed point: the applicationServerKey a browser subscribes with
// (GET /api/notifications/vapid-public-key). "" for the zero VAPIDKeys.
func (k VAPIDKeys) PublicKey() string {
	if k.key == nil {
		return ""
	}
	b, err := k.key.PublicKey.Bytes()
	if err != nil {
		return ""
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// String shows the public key only, so that printing the keys by mistake
// leaks nothing.
func (k VAPIDKeys) String() string { return "VAPIDKeys{public: " + k.PublicKey() + "}" }

// GoString is String for %#v.
func (k VAPIDKeys) GoString() string { return k.String() }
