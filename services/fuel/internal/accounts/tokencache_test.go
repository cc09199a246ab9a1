package accounts_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/services/fuel/internal/accounts"
)

// TestTokenCache: a success is reused for ttl, a failure never; Purge
// forgets every verdict; a nil cache asks every time.
func TestTokenCache(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 12, 7, 3, 0, 0, 0, time.UTC)
	asked := 0
	valid := true
	verify := func(context.Context, []byte) (auth.Identity, error) {
		asked++
		if !valid {
			return auth.Identity{}, accounts.ErrInvalidToken
		}
		return auth.Identity{UserID: 7}, nil
	}
	c := accounts.NewTokenCache(10*time.Second, func() time.Time { return now })
	check := func(step string, wantAsked int, wantErr error) {
		t.Helper()
		id, err := c.Verify(ctx, []byte("hash"), verify)
		if !errors.Is(err, wantErr) || (err == nil && id.UserID != 7) {
			t.Errorf("%s: %+v %v, want user 7 or %v", step, id, err, wantErr)
		}
		if asked != wantAsked {
			t.Errorf("%s: verify asked %d times, want %d", step, asked, wantAsked)
		}
	}
	check("first", 1, nil)
	valid = false // revoked by another instance
	now = now.Add(9 * time.Second)
	check("within ttl", 1, nil)
	now = now.Add(time.Second)
	check("at ttl", 2, accounts.ErrInvalidToken)
	check("a failure is not kept", 3, accounts.ErrInvalidToken)
	valid = true
	check("valid again", 4, nil)
	c.Purge()
	check("after Purge", 5, nil)

	var none *accounts.TokenCache = accounts.NewTokenCache(0, time.Now)
	none.Purge()
	for range 2 {
		if _, err := none.Verify(ctx, []byte("hash"), verify); err != nil {
			t.Fatal(err)
		}
	}
	if asked != 7 {
		t.Errorf("a nil cache: verify asked %d times in all, want 7", asked)
	}
}
