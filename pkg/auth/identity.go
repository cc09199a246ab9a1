// Package auth is what both services share of accounts: who a request acts
// for (Identity), bearer tokens and how they are stored, password hashes,
// the signed identity that the gateway hands from fuel-service to
// docqa-service, the checks of a token's scope, and rate limits.
// The accounts themselves live in fuel-service; proto-docs/auth-decisions.md
// has the design.
package auth

import (
	"context"
	"fmt"
	"net/http"
)

// Mode is AUTH_MODE.
type Mode string

const (
	// ModeOff: every request acts as the built-in user, as before accounts.
	ModeOff Mode = "off"
	// ModeLocal: every /api request needs a valid token.
	ModeLocal Mode = "local"
)

// ParseMode reads AUTH_MODE; empty is off.
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case "", ModeOff:
		return ModeOff, nil
	case ModeLocal:
		return ModeLocal, nil
	}
	return "", fmt.Errorf("AUTH_MODE: %q is not one of off, local", s)
}

// BuiltinUserID is the user every request acts as with AUTH_MODE=off.
// Its row exists from the first migration on, so data made without
// accounts already belongs to a user: the first admin of local mode takes
// it over (no data migration).
const BuiltinUserID uint64 = 1

// Scope is what a token may do.
type Scope string

const (
	ScopeRead  Scope = "read"
	ScopeWrite Scope = "write"
)

// ParseScope reads a scope; anything but read or write is an error.
func ParseScope(s string) (Scope, bool) {
	switch Scope(s) {
	case ScopeRead, ScopeWrite:
		return Scope(s), true
	}
	return "", false
}

// Identity is who a request acts for.
type Identity struct {
	UserID   uint64 `json:"uid"`
	Username string `json:"name"`
	Admin    bool   `json:"admin,omitempty"`
	Scope    Scope  `json:"scope"`
	// TokenID is the row of the token used (0 with AUTH_MODE=off or when
	// the identity came signed from the gateway).
	TokenID uint64 `json:"tid,omitempty"`
}

// Builtin is the identity of every request with AUTH_MODE=off.
func Builtin() Identity {
	return Identity{UserID: BuiltinUserID, Username: "owner", Admin: true, Scope: ScopeWrite}
}

// CanWrite reports whether the identity's scope allows a request with the
// given method: read tokens may only read.
func (id Identity) CanWrite() bool { return id.Scope == ScopeWrite }

type identityKey struct{}

// WithIdentity returns ctx acting for id.
func WithIdentity(ctx context.Context, id Identity) context.Context {
	return context.WithValue(ctx, identityKey{}, id)
}

// FromContext returns the identity ctx acts for, and whether it has one.
func FromContext(ctx context.Context) (Identity, bool) {
	id, ok := ctx.Value(identityKey{}).(Identity)
	return id, ok
}

// UserID returns the user ctx acts for: the built-in user when ctx carries
// no identity. Only AUTH_MODE=off requests and code outside a request
// (tests, commands) reach a store without one; in local mode the
// middleware refuses a request before it has one.
func UserID(ctx context.Context) uint64 {
	if id, ok := FromContext(ctx); ok {
		return id.UserID
	}
	return BuiltinUserID
}

// IsRead reports whether an HTTP method only reads.
func IsRead(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return true
	}
	return false
}
