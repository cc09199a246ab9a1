package main

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/services/fuel/internal/store"
)

func TestAuthOptions(t *testing.T) {
	ctx := context.Background()
	st, err := store.OpenSQLite(ctx, filepath.Join(t.TempDir(), "fuel.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	secret := strings.Repeat("s", 32)

	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{AuthMode: "oidc"}, "AUTH_MODE"},
		{Config{AuthMode: "local"}, "AUTH_IDENTITY_SECRET"},
		{Config{AuthMode: "local", AuthIdentitySecret: "short"}, "AUTH_IDENTITY_SECRET"},
		{Config{AuthMode: "local", AuthIdentitySecret: secret, AuthAdminUsername: "root"}, "go together"},
		{Config{AuthMode: "local", AuthIdentitySecret: secret, AuthAdminUsername: "root", AuthAdminPassword: "short"}, "AUTH_ADMIN_PASSWORD"},
		{Config{AuthMode: "off", AuthLoginsPerMinute: -1}, "AUTH_LOGINS_PER_MINUTE"},
		{Config{AuthMode: "off", AuthPasswordConcurrency: -1}, "AUTH_PASSWORD_CONCURRENCY"},
	} {
		if _, err := authOptions(ctx, c.cfg, st, log); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error naming %s", c.cfg, err, c.want)
		}
	}
	if u, _ := st.UserByUsername(ctx, "owner"); u.PasswordHash != "" {
		t.Fatal("a refused configuration changed the built-in user")
	}

	off, err := authOptions(ctx, Config{AuthMode: "off"}, st, log)
	if err != nil || off.Mode != auth.ModeOff {
		t.Fatalf("off: %+v %v", off, err)
	}
	cfg := Config{AuthMode: "local", AuthIdentitySecret: secret, AuthAdminUsername: "root", AuthAdminPassword: "first-password", AuthLoginsPerMinute: 10}
	opts, err := authOptions(ctx, cfg, st, log)
	if err != nil || opts.Mode != auth.ModeLocal || string(opts.IdentitySecret) != secret || opts.LoginsPerMinute != 10 {
		t.Fatalf("local: %+v %v", opts, err)
	}
	if opts.Passwords == nil {
		t.Fatal("local: no bound on password work")
	}
	matches := func(password, hash string) bool {
		ok, err := opts.Passwords.Verify(ctx, password, hash)
		return err == nil && ok
	}
	root, err := st.UserByUsername(ctx, "root")
	if err != nil || root.ID != auth.BuiltinUserID || !root.Admin || !matches("first-password", root.PasswordHash) {
		t.Fatalf("first admin %+v %v", root, err)
	}
	// Later starts leave the accounts alone, whatever the variables say.
	cfg.AuthAdminPassword = "second-password"
	if _, err := authOptions(ctx, cfg, st, log); err != nil {
		t.Fatal(err)
	}
	if root, _ := st.UserByUsername(ctx, "root"); !matches("first-password", root.PasswordHash) {
		t.Fatal("a later start changed the admin's password")
	}
}
