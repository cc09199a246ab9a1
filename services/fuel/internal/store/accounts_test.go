package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/services/fuel/internal/accounts"
)

// clock is a settable store clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestUsers(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		users, err := s.Users(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(users) != 1 || users[0].ID != auth.BuiltinUserID || users[0].Username != "owner" || !users[0].Admin || users[0].PasswordHash != "" {
			t.Fatalf("a fresh database has %+v, want only the built-in user", users)
		}
		ann, err := s.CreateUser(ctx, "  Ann ", "hash-a", false)
		if err != nil {
			t.Fatal(err)
		}
		if ann.ID != 2 || ann.Username != "Ann" {
			t.Fatalf("first new user %+v: want id 2 (after the built-in user) and a trimmed name", ann)
		}
		for _, dup := range []string{"ann", "ANN", "Ann", "owner"} {
			if _, err := s.CreateUser(ctx, dup, "h", false); !errors.Is(err, accounts.ErrUsernameTaken) {
				t.Errorf("CreateUser(%q): %v, want accounts.ErrUsernameTaken", dup, err)
			}
		}
		got, err := s.UserByUsername(ctx, "aNN")
		if err != nil || got.ID != ann.ID || got.PasswordHash != "hash-a" || got.Admin {
			t.Fatalf("UserByUsername: %+v %v", got, err)
		}
		if _, err := s.UserByUsername(ctx, "nobody"); !errors.Is(err, accounts.ErrUserNotFound) {
			t.Fatalf("unknown user: %v", err)
		}
		bob, _ := s.CreateUser(ctx, "bob", "hash-b", true)
		users, _ = s.Users(ctx)
		if len(users) != 3 || users[1].ID != ann.ID || users[2].ID != bob.ID || !users[2].Admin {
			t.Fatalf("Users: %+v", users)
		}
		if err := s.DeleteUser(ctx, ann.ID); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteUser(ctx, ann.ID); !errors.Is(err, accounts.ErrUserNotFound) {
			t.Fatalf("second delete: %v", err)
		}
		// Deleting frees the name.
		if _, err := s.CreateUser(ctx, "ann", "h", false); err != nil {
			t.Fatalf("name of a deleted user: %v", err)
		}
	})
}

func TestConcurrentCreateUserMakesOne(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for i := range 8 {
			wg.Go(func() {
				name := "Same"
				if i%2 == 1 {
					name = "same"
				}
				_, err := s.CreateUser(ctx, name, "h", false)
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		made := 0
		for err := range errs {
			switch {
			case err == nil:
				made++
			case !errors.Is(err, accounts.ErrUsernameTaken):
				t.Errorf("unexpected error: %v", err)
			}
		}
		if made != 1 {
			t.Fatalf("%d users made with one name, want 1", made)
		}
	})
}

func TestClaimBuiltinUser(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		if _, err := s.CreateUser(ctx, "taken", "", false); err != nil {
			t.Fatal(err)
		}
		if _, err := s.ClaimBuiltinUser(ctx, "TAKEN", "h"); !errors.Is(err, accounts.ErrUsernameTaken) {
			t.Fatalf("claim with a taken name: %v", err)
		}
		admin, err := s.ClaimBuiltinUser(ctx, "admin", "hash")
		if err != nil {
			t.Fatal(err)
		}
		if admin.ID != auth.BuiltinUserID || admin.Username != "admin" || admin.PasswordHash != "hash" || !admin.Admin {
			t.Fatalf("claimed %+v", admin)
		}
		if _, err := s.ClaimBuiltinUser(ctx, "other", "hash2"); !errors.Is(err, accounts.ErrAccountsClaimed) {
			t.Fatalf("second claim: %v", err)
		}
		if u, _ := s.UserByUsername(ctx, "admin"); u.PasswordHash != "hash" {
			t.Fatalf("second claim changed the admin: %+v", u)
		}
	})
}

func TestTokens(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		c := &clock{t: time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)}
		s.Now = c.now
		ann, _ := s.CreateUser(ctx, "ann", "h", false)
		bob, _ := s.CreateUser(ctx, "bob", "h", true)

		_, sessHash := auth.NewToken(auth.KindSession)
		sess := accounts.Token{UserID: ann.ID, Kind: auth.KindSession, Scope: auth.ScopeWrite}
		if err := s.CreateToken(ctx, &sess, sessHash); err != nil {
			t.Fatal(err)
		}
		if !sess.ExpiresAt.Equal(c.now().Add(accounts.SessionMaxLife)) {
			t.Fatalf("session ends %v", sess.ExpiresAt)
		}
		_, readHash := auth.NewToken(auth.KindToken)
		read := accounts.Token{UserID: ann.ID, Kind: auth.KindToken, Name: "grafana", Scope: auth.ScopeRead}
		if err := s.CreateToken(ctx, &read, readHash); err != nil {
			t.Fatal(err)
		}
		_, shortHash := auth.NewToken(auth.KindToken)
		short := accounts.Token{UserID: bob.ID, Kind: auth.KindToken, Name: "short", Scope: auth.ScopeWrite, ExpiresAt: c.now().Add(24 * time.Hour)}
		if err := s.CreateToken(ctx, &short, shortHash); err != nil {
			t.Fatal(err)
		}

		id, err := s.VerifyToken(ctx, sessHash)
		if err != nil || id != (auth.Identity{UserID: ann.ID, Username: "ann", Scope: auth.ScopeWrite, TokenID: sess.ID}) {
			t.Fatalf("session: %+v %v", id, err)
		}
		id, err = s.VerifyToken(ctx, readHash)
		if err != nil || id.Scope != auth.ScopeRead || id.UserID != ann.ID {
			t.Fatalf("read token: %+v %v", id, err)
		}
		if id, err := s.VerifyToken(ctx, shortHash); err != nil || !id.Admin {
			t.Fatalf("admin's token: %+v %v", id, err)
		}
		_, unknown := auth.NewToken(auth.KindSession)
		if _, err := s.VerifyToken(ctx, unknown); !errors.Is(err, accounts.ErrInvalidToken) {
			t.Fatalf("unknown token: %v", err)
		}

		// Last use is written at most once a minute.
		c.add(30 * time.Second)
		_, _ = s.VerifyToken(ctx, sessHash)
		if got := tokenByID(t, s, ann.ID, sess.ID).LastUsedAt; !got.Equal(sess.CreatedAt) {
			t.Fatalf("last use written after 30 s: %v", got)
		}
		c.add(31 * time.Second)
		_, _ = s.VerifyToken(ctx, sessHash)
		if got := tokenByID(t, s, ann.ID, sess.ID).LastUsedAt; !got.Equal(c.now()) {
			t.Fatalf("last use %v, want %v", got, c.now())
		}

		// A day later the short token has ended; the others have not.
		c.add(24 * time.Hour)
		if _, err := s.VerifyToken(ctx, shortHash); !errors.Is(err, accounts.ErrInvalidToken) {
			t.Fatalf("expired token: %v", err)
		}
		// 30 idle days end the session; the personal token lives on.
		c.add(accounts.SessionIdle)
		if _, err := s.VerifyToken(ctx, sessHash); !errors.Is(err, accounts.ErrInvalidToken) {
			t.Fatalf("idle session: %v", err)
		}
		if _, err := s.VerifyToken(ctx, readHash); err != nil {
			t.Fatalf("personal token without expiry: %v", err)
		}
		n, err := s.PurgeExpiredTokens(ctx)
		if err != nil || n != 2 {
			t.Fatalf("purged %d (%v), want the idle session and the expired token", n, err)
		}

		// Revocation: only one's own.
		if err := s.RevokeToken(ctx, bob.ID, read.ID); !errors.Is(err, accounts.ErrTokenNotFound) {
			t.Fatalf("bob revoked ann's token: %v", err)
		}
		if err := s.RevokeToken(ctx, ann.ID, read.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.VerifyToken(ctx, readHash); !errors.Is(err, accounts.ErrInvalidToken) {
			t.Fatalf("revoked token: %v", err)
		}
	})
}

func TestSessionMaxLife(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
		s.Now = c.now
		_, hash := auth.NewToken(auth.KindSession)
		sess := accounts.Token{UserID: auth.BuiltinUserID, Kind: auth.KindSession, Scope: auth.ScopeWrite}
		if err := s.CreateToken(ctx, &sess, hash); err != nil {
			t.Fatal(err)
		}
		// Used every 20 days, it is never idle, but ends at 90 days.
		for day := 20; day < 90; day += 20 {
			c.add(20 * 24 * time.Hour)
			if _, err := s.VerifyToken(ctx, hash); err != nil {
				t.Fatalf("day %d: %v", day, err)
			}
		}
		c.t = sess.CreatedAt.Add(accounts.SessionMaxLife)
		if _, err := s.VerifyToken(ctx, hash); !errors.Is(err, accounts.ErrInvalidToken) {
			t.Fatalf("session past 90 days: %v", err)
		}
	})
}

// TestPasswordChangeRevokesOtherSessions: a password change ends the
// user's other sessions and, asked to, every personal access token (the
// caller's too when it is one), never another user's.
func TestPasswordChangeRevokesOtherSessions(t *testing.T) {
	for _, revokeTokens := range []bool{false, true} {
		t.Run(fmt.Sprintf("revokeTokens=%v", revokeTokens), func(t *testing.T) {
			passwordChangeRevokes(t, revokeTokens)
		})
	}
}

func passwordChangeRevokes(t *testing.T, revokeTokens bool) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		ann, _ := s.CreateUser(ctx, "ann", "old", false)
		bob, _ := s.CreateUser(ctx, "bob", "b", false)
		mk := func(user uint64, k auth.Kind) (accounts.Token, []byte) {
			_, h := auth.NewToken(k)
			tok := accounts.Token{UserID: user, Kind: k, Scope: auth.ScopeWrite}
			if err := s.CreateToken(ctx, &tok, h); err != nil {
				t.Fatal(err)
			}
			return tok, h
		}
		here, hereHash := mk(ann.ID, auth.KindSession)
		_, otherHash := mk(ann.ID, auth.KindSession)
		_, patHash := mk(ann.ID, auth.KindToken)
		_, bobHash := mk(bob.ID, auth.KindSession)
		_, bobPATHash := mk(bob.ID, auth.KindToken)
		if err := s.SetPassword(ctx, ann.ID, "new", here.ID, revokeTokens); err != nil {
			t.Fatal(err)
		}
		if u, _ := s.UserByUsername(ctx, "ann"); u.PasswordHash != "new" {
			t.Fatalf("hash %q", u.PasswordHash)
		}
		for name, c := range map[string]struct {
			hash []byte
			ok   bool
		}{
			"this session": {hereHash, true}, "other session": {otherHash, false}, "personal token": {patHash, !revokeTokens},
			"bob's session": {bobHash, true}, "bob's personal token": {bobPATHash, true},
		} {
			_, err := s.VerifyToken(ctx, c.hash)
			if (err == nil) != c.ok {
				t.Errorf("%s after the password change: %v", name, err)
			}
		}
		// Asked by a personal token, the change keeps it only when tokens
		// are kept.
		pat, patHash := mk(ann.ID, auth.KindToken)
		if err := s.SetPassword(ctx, ann.ID, "newer", pat.ID, revokeTokens); err != nil {
			t.Fatal(err)
		}
		if _, err := s.VerifyToken(ctx, patHash); (err == nil) != !revokeTokens {
			t.Errorf("the asking personal token after the password change: %v", err)
		}
		if _, err := s.VerifyToken(ctx, hereHash); err == nil {
			t.Error("a session other than the asking token outlived the password change")
		}
		if err := s.SetPassword(ctx, 999, "x", 0, revokeTokens); !errors.Is(err, accounts.ErrUserNotFound) {
			t.Fatalf("unknown user: %v", err)
		}
		// Deleting a user deletes its tokens.
		if err := s.DeleteUser(ctx, bob.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.VerifyToken(ctx, bobHash); !errors.Is(err, accounts.ErrInvalidToken) {
			t.Fatalf("token of a deleted user: %v", err)
		}
	})
}

func tokenByID(t *testing.T, s *Store, user, id uint64) accounts.Token {
	t.Helper()
	ts, err := s.Tokens(context.Background(), user)
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range ts {
		if tok.ID == id {
			return tok
		}
	}
	t.Fatalf("token %d of user %d not listed in %+v", id, user, ts)
	return accounts.Token{}
}
