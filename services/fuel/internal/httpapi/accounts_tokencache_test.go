package httpapi_test

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/services/fuel/internal/httpapi"
	"github.com/carhub/backend/services/fuel/internal/store"
)

// clock is a settable time for the token cache.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// TestTokenCacheBoundsRevocation: with AUTH_TOKEN_CACHE, a token revoked
// by another instance (here: straight in the database) is still taken
// until the cached verdict is ttl old, and refused from then on; a
// revocation on this instance (logout, token deletion, password change,
// user deletion) is refused on the very next request.
func TestTokenCacheBoundsRevocation(t *testing.T) {
	for _, d := range dialects {
		t.Run(string(d), func(t *testing.T) { tokenCacheBoundsRevocation(t, mustStore(t, d)) })
	}
}

func tokenCacheBoundsRevocation(t *testing.T, st *store.Store) {
	{
		ctx := context.Background()
		hash, err := rootPasswordHash()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.ClaimBuiltinUser(ctx, "root", hash); err != nil {
			t.Fatal(err)
		}
		clk := &clock{t: time.Now()}
		const ttl = 10 * time.Second
		h := httpapi.New(slog.New(slog.NewTextHandler(io.Discard, nil)), st, httpapi.Options{Now: clk.now, Auth: httpapi.AuthOptions{
			Mode: auth.ModeLocal, Accounts: st, IdentitySecret: testSecret, LoginsPerMinute: 1000, TokenCacheTTL: ttl,
		}})
		ts := httptest.NewServer(h)
		t.Cleanup(ts.Close)
		s := &server{tb: t, url: ts.URL, store: st}

		// Another instance revokes: this one goes on trusting its verdict
		// for at most ttl.
		token := s.login("root", "root-password")
		wantStatus(t, "first use", s.as(token, "GET", "/api/vehicles", ""), 200, "")
		me := object(t, s.as(token, "GET", "/api/auth/me", "").body)
		uid, err := strconv.ParseUint(literal(me["id"]), 10, 64)
		if err != nil {
			t.Fatalf("me %v: %v", me, err)
		}
		tokens, err := st.Tokens(ctx, uid)
		if err != nil || len(tokens) != 1 {
			t.Fatalf("tokens %v, %v", tokens, err)
		}
		if err := st.RevokeToken(ctx, uid, tokens[0].ID); err != nil {
			t.Fatal(err)
		}
		clk.advance(ttl - time.Second)
		wantStatus(t, "revoked elsewhere, verdict younger than ttl", s.as(token, "GET", "/api/vehicles", ""), 200, "")
		clk.advance(time.Second)
		wantStatus(t, "revoked elsewhere, verdict ttl old", s.as(token, "GET", "/api/vehicles", ""), 401, "UNAUTHORIZED")

		// This instance revokes: refused at once, though cached.
		for _, tc := range []struct {
			name   string
			revoke func(token string)
		}{
			{"logout", func(token string) {
				wantStatus(t, "logout", s.as(token, "POST", "/api/auth/logout", ""), 204, "")
			}},
			{"token deleted from another session", func(token string) {
				other := s.login("root", "root-password")
				for _, tok := range array(t, s.as(other, "GET", "/api/auth/tokens", "").body) {
					if tok["current"] != true {
						s.as(other, "DELETE", "/api/auth/tokens/"+literal(tok["id"]), "")
					}
				}
			}},
		} {
			token := s.login("root", "root-password")
			wantStatus(t, tc.name+": cached", s.as(token, "GET", "/api/vehicles", ""), 200, "")
			tc.revoke(token)
			wantStatus(t, tc.name+": next request", s.as(token, "GET", "/api/vehicles", ""), 401, "UNAUTHORIZED")
		}
	}
}
