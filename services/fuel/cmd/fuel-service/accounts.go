package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/services/fuel/internal/httpapi"
	"github.com/carhub/backend/services/fuel/internal/store"
)

// authOptions reads the accounts' configuration and, in local mode, makes
// the first administrator from AUTH_ADMIN_USERNAME and AUTH_ADMIN_PASSWORD
// when no account has a password yet (it takes over the built-in user,
// and with it what was made with accounts off).
func authOptions(ctx context.Context, cfg Config, st *store.Store, log *slog.Logger) (httpapi.AuthOptions, error) {
	mode, err := auth.ParseMode(cfg.AuthMode)
	if err != nil {
		return httpapi.AuthOptions{}, err
	}
	if cfg.AuthLoginsPerMinute < 0 {
		return httpapi.AuthOptions{}, fmt.Errorf("AUTH_LOGINS_PER_MINUTE must not be negative, got %d", cfg.AuthLoginsPerMinute)
	}
	opts := httpapi.AuthOptions{Mode: mode, Accounts: st, LoginsPerMinute: cfg.AuthLoginsPerMinute}
	if mode != auth.ModeLocal {
		return opts, nil
	}
	if len(cfg.AuthIdentitySecret) < auth.MinSecretBytes {
		return opts, fmt.Errorf("AUTH_IDENTITY_SECRET must be at least %d bytes with AUTH_MODE=local (for example: openssl rand -base64 48)", auth.MinSecretBytes)
	}
	opts.IdentitySecret = []byte(cfg.AuthIdentitySecret)
	if cfg.AuthAdminUsername == "" && cfg.AuthAdminPassword == "" {
		return opts, nil
	}
	if cfg.AuthAdminUsername == "" || cfg.AuthAdminPassword == "" {
		return opts, errors.New("AUTH_ADMIN_USERNAME and AUTH_ADMIN_PASSWORD go together")
	}
	if err := auth.CheckPassword(cfg.AuthAdminPassword); err != nil {
		return opts, fmt.Errorf("AUTH_ADMIN_PASSWORD: %w", err)
	}
	hash, err := auth.HashPassword(cfg.AuthAdminPassword)
	if err != nil {
		return opts, err
	}
	switch u, err := st.ClaimBuiltinUser(ctx, cfg.AuthAdminUsername, hash); {
	case err == nil:
		log.Info("first administrator made", "username", u.Username)
	case errors.Is(err, store.ErrAccountsClaimed):
		// Accounts exist: the variables only matter on the first start.
	default:
		return opts, fmt.Errorf("AUTH_ADMIN_USERNAME: %w", err)
	}
	return opts, nil
}
