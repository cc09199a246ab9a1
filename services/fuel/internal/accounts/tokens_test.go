package accounts_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/services/fuel/internal/accounts"
)

func ptr[T any](v T) *T { return &v }

// TestCreateToken: only a session makes a token; every bad member is
// named at once; an account with a password gives it, one without (single
// sign-on) needs a recent sign-in; the token is stored with its expiry.
func TestCreateToken(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)
	st := newMemStore()
	ada := st.withUser(t, "ada", "ada-password")
	sso := accounts.User{ID: 50, Username: "sso"}
	st.users = append(st.users, sso)
	l := accounts.NewLogins(st, auth.NewPasswords(0, 0), 0)
	adaID := auth.Identity{UserID: ada.ID, Username: "ada", TokenID: 1}
	session := accounts.Token{ID: 1, UserID: ada.ID, Kind: auth.KindSession, CreatedAt: now.Add(-time.Hour)}
	good := accounts.TokenRequest{Name: ptr("  phone  "), Scope: ptr("read"), ExpiresInDays: ptr(30), CurrentPassword: ptr("ada-password")}

	_, err := l.CreateToken(ctx, "192.0.2.1", adaID, accounts.Token{ID: 2, Kind: auth.KindToken}, good, now)
	if e := apperr.From(err); e.Code != apperr.Forbidden {
		t.Errorf("a token making a token: %v, want FORBIDDEN", err)
	}

	bad := accounts.TokenRequest{Name: ptr("   "), Scope: ptr("admin"), ExpiresInDays: ptr(accounts.MaxTokenDays + 1)}
	_, err = l.CreateToken(ctx, "192.0.2.1", adaID, session, bad, now)
	e := apperr.From(err)
	for _, f := range []string{"name", "scope", "expires_in_days", "current_password"} {
		if e.Code != apperr.InvalidArgument || !strings.Contains(e.Message, f+": ") {
			t.Errorf("bad request: %v does not name %s", err, f)
		}
	}

	wrong := good
	wrong.CurrentPassword = ptr("wrong")
	_, err = l.CreateToken(ctx, "192.0.2.1", adaID, session, wrong, now)
	if e := apperr.From(err); e.Code != apperr.InvalidArgument || e.Field != "current_password" {
		t.Errorf("a wrong password: %v, want INVALID_ARGUMENT on current_password", err)
	}

	made, err := l.CreateToken(ctx, "192.0.2.1", adaID, session, good, now)
	if err != nil {
		t.Fatal(err)
	}
	tok := made.Token
	if made.Secret == "" || tok.ID == 0 || tok.Kind != auth.KindToken || tok.Name != "phone" || tok.Scope != auth.ScopeRead ||
		!tok.ExpiresAt.Equal(now.Add(30*24*time.Hour)) || tok.UserID != ada.ID {
		t.Errorf("made %+v", made)
	}

	ssoID := auth.Identity{UserID: sso.ID, Username: "sso", TokenID: 3}
	noPassword := accounts.TokenRequest{Name: ptr("ci"), Scope: ptr("write")}
	old := accounts.Token{ID: 3, UserID: sso.ID, Kind: auth.KindSession, CreatedAt: now.Add(-accounts.FreshSignIn - time.Second)}
	if _, err := l.CreateToken(ctx, "192.0.2.1", ssoID, old, noPassword, now); apperr.From(err).Code != apperr.Forbidden {
		t.Errorf("an old single sign-on session: %v, want FORBIDDEN", err)
	}
	fresh := old
	fresh.CreatedAt = now.Add(-time.Minute)
	made, err = l.CreateToken(ctx, "192.0.2.1", ssoID, fresh, noPassword, now)
	if err != nil || !made.Token.ExpiresAt.IsZero() || made.Token.Scope != auth.ScopeWrite {
		t.Errorf("a fresh single sign-on session: %+v %v, want a write token without expiry", made, err)
	}
}
