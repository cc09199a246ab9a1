package main

import (
	"fmt"

	"github.com/carhub/backend/pkg/auth"
)

// userLimits are the per-user limits in force (none with accounts off:
// every request is the one built-in user).
type userLimits struct{ chatPerMinute, uploadsPerUser int }

// authConfig reads AUTH_MODE and, in local mode, the secret that fuel-service
// signs identities with and the per-user limits
// (proto-docs/auth-decisions.md).
func authConfig(cfg serviceConfig) (auth.Mode, []byte, userLimits, error) {
	mode, err := auth.ParseMode(cfg.AuthMode)
	if err != nil {
		return "", nil, userLimits{}, err
	}
	if cfg.ChatQuestionsPerMinute < 0 || cfg.UploadsPerUser < 0 {
		return "", nil, userLimits{}, fmt.Errorf("CHAT_QUESTIONS_PER_MINUTE and UPLOADS_PER_USER must not be negative, got %d and %d",
			cfg.ChatQuestionsPerMinute, cfg.UploadsPerUser)
	}
	if mode != auth.ModeLocal {
		return mode, nil, userLimits{}, nil
	}
	if len(cfg.AuthIdentitySecret) < auth.MinSecretBytes {
		return "", nil, userLimits{}, fmt.Errorf("AUTH_IDENTITY_SECRET must be at least %d bytes with AUTH_MODE=local (the value fuel-service has)", auth.MinSecretBytes)
	}
	return mode, []byte(cfg.AuthIdentitySecret), userLimits{cfg.ChatQuestionsPerMinute, cfg.UploadsPerUser}, nil
}
