package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/carhub/backend/services/fuel/internal/accounts"
)

const testIssuer = "https://id.example"

func TestOIDCUserLinksByIssuerAndSubject(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		ann, made, err := s.OIDCUser(ctx, testIssuer, "sub-1", "ann")
		if err != nil || !made {
			t.Fatalf("first sign-in: %+v made=%v %v", ann, made, err)
		}
		if ann.ID != 2 || ann.Username != "ann" || ann.Admin || ann.PasswordHash != "" {
			t.Fatalf("first sign-in made %+v, want id 2, ann, no admin, no password", ann)
		}
		// The same subject again, even with another preferred name: the
		// same account, unrenamed.
		again, made, err := s.OIDCUser(ctx, testIssuer, "sub-1", "annie")
		if err != nil || made || again.ID != ann.ID || again.Username != "ann" {
			t.Fatalf("second sign-in: %+v made=%v %v, want %+v", again, made, err, ann)
		}
		// The same subject at another issuer is another person.
		other, made, err := s.OIDCUser(ctx, "https://other.example", "sub-1", "ann")
		if err != nil || !made || other.ID == ann.ID || other.Username != "ann-2" {
			t.Fatalf("other issuer: %+v made=%v %v", other, made, err)
		}
		// A linked account logs in with no password.
		if u, err := s.UserByUsername(ctx, "ann"); err != nil || u.PasswordHash != "" {
			t.Fatalf("UserByUsername: %+v %v", u, err)
		}
		if _, _, err := s.OIDCUser(ctx, "", "sub", "x"); err == nil {
			t.Fatal("an empty issuer was accepted")
		}
	})
}

func TestOIDCUserNeverTakesOverALocalAccount(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		local, err := s.CreateUser(ctx, "Bob", "local-hash", true)
		if err != nil {
			t.Fatal(err)
		}
		// Names taken in any case, by local and OIDC accounts alike, are
		// numbered in order.
		want := []string{"bob-2", "bob-3", "bob-4"}
		for i, name := range want {
			u, made, err := s.OIDCUser(ctx, testIssuer, fmt.Sprintf("sub-%d", i), "bob")
			if err != nil || !made {
				t.Fatalf("sign-in %d: %+v made=%v %v", i, u, made, err)
			}
			if u.Username != name || u.ID == local.ID || u.Admin {
				t.Fatalf("sign-in %d made %+v, want a new non-admin %s", i, u, name)
			}
		}
		got, err := s.UserByUsername(ctx, "bob")
		if err != nil || got.ID != local.ID || got.PasswordHash != "local-hash" || !got.Admin {
			t.Fatalf("the local account changed: %+v %v", got, err)
		}
		// After the numbered names, a random suffix.
		for i := 5; i <= 9; i++ {
			if _, err := s.CreateUser(ctx, fmt.Sprintf("bob-%d", i), "", false); err != nil {
				t.Fatal(err)
			}
		}
		u, made, err := s.OIDCUser(ctx, testIssuer, "sub-random", "bob")
		if err != nil || !made || !strings.HasPrefix(u.Username, "bob-") || len(u.Username) != len("bob-")+8 {
			t.Fatalf("after bob-9: %+v made=%v %v, want bob- and 8 hex digits", u, made, err)
		}
	})
}

func TestOIDCUserLongNamesStayWithinTheSchema(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		long := strings.Repeat("é", 64)
		first, _, err := s.OIDCUser(ctx, testIssuer, "a", long)
		if err != nil || first.Username != long {
			t.Fatalf("64 characters: %q %v", first.Username, err)
		}
		second, _, err := s.OIDCUser(ctx, testIssuer, "b", long)
		if err != nil {
			t.Fatal(err)
		}
		if want := strings.Repeat("é", 62) + "-2"; second.Username != want || utf8.RuneCountInString(second.Username) != 64 {
			t.Fatalf("collision of a 64-character name: %q, want %q", second.Username, want)
		}
	})
}

func TestConcurrentFirstOIDCSignInMakesOneUser(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		const n = 8
		ids := make(chan uint64, n)
		errs := make(chan error, n)
		var wg sync.WaitGroup
		for range n {
			wg.Go(func() {
				u, _, err := s.OIDCUser(ctx, testIssuer, "same-subject", "carol")
				if err != nil {
					errs <- err
					return
				}
				ids <- u.ID
			})
		}
		wg.Wait()
		close(ids)
		close(errs)
		for err := range errs {
			t.Errorf("concurrent sign-in: %v", err)
		}
		seen := map[uint64]bool{}
		for id := range ids {
			seen[id] = true
		}
		if len(seen) != 1 {
			t.Fatalf("%d accounts for one subject: %v", len(seen), seen)
		}
		users, err := s.Users(ctx)
		if err != nil || len(users) != 2 || users[1].Username != "carol" {
			t.Fatalf("users after concurrent sign-ins: %+v %v", users, err)
		}
		if _, err := s.UserByUsername(ctx, "carol-2"); !errors.Is(err, accounts.ErrUserNotFound) {
			t.Fatalf("a losing sign-in made a second account: %v", err)
		}
	})
}
