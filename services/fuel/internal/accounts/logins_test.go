package accounts_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/services/fuel/internal/accounts"
)

// memStore keeps accounts in memory and counts attempts per budget, a
// budget allowing limit attempts in all (no window): what the policy asks
// of a Store, not how the database counts (store's tests).
type memStore struct {
	accounts.Store // the methods not used here panic
	users          []accounts.User
	tokens         []accounts.Token
	attempts       map[string]int
	oidc           map[string]accounts.User
}

func newMemStore() *memStore {
	return &memStore{attempts: map[string]int{}, oidc: map[string]accounts.User{}}
}

func (m *memStore) TakeAttempt(_ context.Context, kind accounts.AttemptKind, key string, limit int) (bool, time.Duration, error) {
	k := string(kind) + " " + key
	m.attempts[k]++
	if m.attempts[k] > limit {
		return false, 42 * time.Second, nil
	}
	return true, 0, nil
}

func (m *memStore) UserByUsername(_ context.Context, name string) (accounts.User, error) {
	for _, u := range m.users {
		if strings.EqualFold(u.Username, name) {
			return u, nil
		}
	}
	return accounts.User{}, accounts.ErrUserNotFound
}

func (m *memStore) CreateToken(_ context.Context, t *accounts.Token, _ []byte) error {
	t.ID = uint64(len(m.tokens) + 1)
	m.tokens = append(m.tokens, *t)
	return nil
}

func (m *memStore) SetPassword(_ context.Context, userID uint64, hash string, _ uint64, _ bool) error {
	for i := range m.users {
		if m.users[i].ID == userID {
			m.users[i].PasswordHash = hash
			return nil
		}
	}
	return accounts.ErrUserNotFound
}

func (m *memStore) OIDCUser(_ context.Context, issuer, subject, username string) (accounts.User, bool, error) {
	k := issuer + " " + subject
	if u, ok := m.oidc[k]; ok {
		return u, false, nil
	}
	u := accounts.User{ID: uint64(100 + len(m.oidc)), Username: username}
	m.oidc[k] = u
	return u, true, nil
}

// withUser adds an account named name with password.
func (m *memStore) withUser(tb testing.TB, name, password string) accounts.User {
	tb.Helper()
	hash, err := auth.HashPassword(password)
	if err != nil {
		tb.Fatal(err)
	}
	u := accounts.User{ID: uint64(len(m.users) + 1), Username: name, PasswordHash: hash}
	m.users = append(m.users, u)
	return u
}

// TestAddressKey: an IPv4 address counts alone, an IPv6 address by its
// /64, whatever way it is written.
func TestAddressKey(t *testing.T) {
	for in, want := range map[string]string{
		"192.0.2.7":                "192.0.2.7",
		"::ffff:192.0.2.7":         "192.0.2.7",
		"2001:db8:1:2:3:4:5:6":     "2001:db8:1:2::/64",
		"2001:db8:1:2:ffff::1":     "2001:db8:1:2::/64",
		"fe80::1%eth0":             "fe80::/64",
		"not an address":           "not an address",
		"2001:db8:1:3:3:4:5:6":     "2001:db8:1:3::/64",
		"2001:0db8:0001:0002::0ff": "2001:db8:1:2::/64",
	} {
		if got := accounts.AddressKey(in); got != want {
			t.Errorf("AddressKey(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLoginAttempts: every login takes from the address's budget and the
// username's (in any case); a wrong password and an unknown user are told
// apart by nothing; over a budget the refusal says when to retry.
func TestLoginAttempts(t *testing.T) {
	ctx := context.Background()
	st := newMemStore()
	st.withUser(t, "ada", "ada-password")
	l := accounts.NewLogins(st, auth.NewPasswords(0, 0), 2)

	s, err := l.Login(ctx, "192.0.2.1", "ADA", "ada-password")
	if err != nil {
		t.Fatal(err)
	}
	if s.User.Username != "ada" || s.Token.Kind != auth.KindSession || s.Token.Name != "login" || s.Secret == "" {
		t.Errorf("session %+v", s)
	}
	for _, name := range []string{"ada", "nobody"} {
		if _, err := l.Login(ctx, "192.0.2.2", name, "wrong"); !errors.Is(err, accounts.ErrWrongPassword) {
			t.Errorf("login of %s with a wrong password: %v, want ErrWrongPassword", name, err)
		}
	}
	// ada's third attempt, from yet another address: the username's
	// budget of 2 is spent.
	_, err = l.Login(ctx, "192.0.2.3", "Ada", "ada-password")
	var ex *accounts.AttemptsExhausted
	if !errors.As(err, &ex) || ex.What != "login" || ex.RetryAfter != 42*time.Second {
		t.Errorf("third attempt at ada: %v, want AttemptsExhausted login 42s", err)
	}
	// 192.0.2.2's third attempt, at another name, and from another
	// address of the same IPv6 /64 as one that spent its budget.
	if _, err := l.Login(ctx, "192.0.2.2", "grace", "x"); !errors.As(err, &ex) {
		t.Errorf("third attempt from 192.0.2.2: %v, want AttemptsExhausted", err)
	}
	for _, addr := range []string{"2001:db8::1", "2001:db8::2"} {
		_, _ = l.Login(ctx, addr, "u"+addr, "x")
	}
	if _, err := l.Login(ctx, "2001:db8::ffff", "someone", "x"); !errors.As(err, &ex) {
		t.Errorf("third attempt from one /64: %v, want AttemptsExhausted", err)
	}
}

// TestNoLimit: without a limit no attempt is counted.
func TestNoLimit(t *testing.T) {
	st := newMemStore()
	l := accounts.NewLogins(st, auth.NewPasswords(0, 0), 0)
	for range 5 {
		if _, err := l.Login(context.Background(), "192.0.2.1", "nobody", "x"); !errors.Is(err, accounts.ErrWrongPassword) {
			t.Fatal(err)
		}
	}
	if len(st.attempts) != 0 {
		t.Errorf("attempts counted without a limit: %v", st.attempts)
	}
}

// TestChangePassword: the current password must match, and its check is
// an attempt of "password change" from the caller's budgets.
func TestChangePassword(t *testing.T) {
	ctx := context.Background()
	st := newMemStore()
	u := st.withUser(t, "ada", "ada-password")
	l := accounts.NewLogins(st, auth.NewPasswords(0, 0), 2)
	id := auth.Identity{UserID: u.ID, Username: "ada", TokenID: 9}
	err := l.ChangePassword(ctx, "192.0.2.1", id, "wrong", "a new password 1", true)
	if e := apperr.From(err); e.Code != apperr.InvalidArgument || e.Field != "current_password" {
		t.Errorf("a wrong current password: %v, want INVALID_ARGUMENT on current_password", err)
	}
	if err := l.ChangePassword(ctx, "192.0.2.1", id, "ada-password", "a new password 1", true); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Login(ctx, "192.0.2.9", "ada", "ada-password"); !errors.As(err, new(*accounts.AttemptsExhausted)) {
		t.Errorf("a login after two changes: %v, want the username's budget spent", err)
	}
	if ok, err := auth.NewPasswords(0, 0).Verify(ctx, "a new password 1", st.users[0].PasswordHash); err != nil || !ok {
		t.Errorf("the new password does not verify: %v %v", ok, err)
	}
	err = l.CheckPassword(ctx, "token creation", "192.0.2.1", st.users[0], "a new password 1")
	var ex *accounts.AttemptsExhausted
	if !errors.As(err, &ex) || ex.What != "token creation" {
		t.Errorf("a third check from one address: %v, want AttemptsExhausted token creation", err)
	}
}
