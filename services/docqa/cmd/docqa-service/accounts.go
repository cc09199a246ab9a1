package main

import (
	"fmt"

	"github.com/carhub/backend/pkg/auth"
)

// authConfig reads AUTH_MODE and, in local mode, the secret that fuel-service
// signs identities with (proto-docs/auth-decisions.md).
func authConfig(cfg serviceConfig) (auth.Mode, []byte, error) {
	mode, err := auth.ParseMode(cfg.AuthMode)
	if err != nil {
		return "", nil, err
	}
	if mode != auth.ModeLocal {
		return mode, nil, nil
	}
	if len(cfg.AuthIdentitySecret) < auth.MinSecretBytes {
		return "", nil, fmt.Errorf("AUTH_IDENTITY_SECRET must be at least %d bytes with AUTH_MODE=local (the value fuel-service has)", auth.MinSecretBytes)
	}
	return mode, []byte(cfg.AuthIdentitySecret), nil
}
