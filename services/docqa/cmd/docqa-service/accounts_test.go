package main

import (
	"strings"
	"testing"

	"github.com/carhub/backend/pkg/auth"
)

func TestAuthConfig(t *testing.T) {
	secret := strings.Repeat("s", 32)
	for _, c := range []struct {
		cfg  serviceConfig
		want string
	}{
		{serviceConfig{AuthMode: "sso"}, "AUTH_MODE"},
		{serviceConfig{AuthMode: "local"}, "AUTH_IDENTITY_SECRET"},
		{serviceConfig{AuthMode: "local", AuthIdentitySecret: "short"}, "AUTH_IDENTITY_SECRET"},
		{serviceConfig{AuthMode: "local", AuthIdentitySecret: secret, UploadsPerUser: -1}, "UPLOADS_PER_USER"},
	} {
		if _, _, _, err := authConfig(c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error naming %s", c.cfg, err, c.want)
		}
	}
	mode, sec, lim, err := authConfig(serviceConfig{AuthMode: "off", ChatQuestionsPerMinute: 20, UploadsPerUser: 2})
	if err != nil || mode != auth.ModeOff || sec != nil || lim != (userLimits{}) {
		t.Fatalf("off: %v %q %+v %v (want no limits: everyone is one user)", mode, sec, lim, err)
	}
	mode, sec, lim, err = authConfig(serviceConfig{AuthMode: "local", AuthIdentitySecret: secret, ChatQuestionsPerMinute: 20, UploadsPerUser: 2})
	if err != nil || mode != auth.ModeLocal || string(sec) != secret || lim != (userLimits{20, 2}) {
		t.Fatalf("local: %v %q %+v %v", mode, sec, lim, err)
	}
}
