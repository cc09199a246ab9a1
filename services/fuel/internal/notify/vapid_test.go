package notify

import (
	"crypto/ecdh"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
)

func TestVAPIDKeysRoundTrip(t *testing.T) {
	k := mustKeys(t)
	priv, pub := k.PrivateKey(), k.PublicKey()
	if n := len(must(base64.RawURLEncoding.DecodeString(priv))); n != 32 {
		t.Errorf("private key is %d bytes, want 32", n)
	}
	pubBytes := must(base64.RawURLEncoding.DecodeString(pub))
	if len(pubBytes) != 65 || pubBytes[0] != 4 {
		t.Errorf("public key is %d bytes starting %#x, want 65 uncompressed", len(pubBytes), pubBytes[0])
	}
	// The public key is the private one's: derive it independently.
	ecdhKey := must(ecdh.P256().NewPrivateKey(must(base64.RawURLEncoding.DecodeString(priv))))
	if got := base64.RawURLEncoding.EncodeToString(ecdhKey.PublicKey().Bytes()); got != pub {
		t.Errorf("PublicKey() = %s, want %s", pub, got)
	}
	for _, form := range []string{priv, priv + "=", " " + priv + "\n"} {
		back, err := ParseVAPIDPrivateKey(form)
		if err != nil {
			t.Fatalf("ParseVAPIDPrivateKey(%q): %v", form, err)
		}
		if back.PublicKey() != pub || back.PrivateKey() != priv {
			t.Errorf("ParseVAPIDPrivateKey(%q) gave another key", form)
		}
	}
	if other := mustKeys(t); other.PublicKey() == pub {
		t.Error("two generated keys are equal")
	}
	for _, s := range []string{fmt.Sprint(k), fmt.Sprintf("%+v", k), fmt.Sprintf("%#v", k), fmt.Sprintf("%v", &k)} {
		if strings.Contains(s, priv) {
			t.Errorf("%q shows the private key", s)
		}
	}
	var zero VAPIDKeys
	if zero.PublicKey() != "" || zero.PrivateKey() != "" {
		t.Error("the zero VAPIDKeys has keys")
	}
}

func TestParseVAPIDPrivateKeyErrors(t *testing.T) {
	// The P-256 group order: not a valid scalar.
	order := "_____wAAAAD__________7zm-q2nF56E87nKwvxjJVE"
	tests := []struct{ in, want string }{
		{"", "empty"},
		{"not/base64+", "not base64url"},
		{"c2VjcmV0LWtleQ", "is 10 bytes"},
		{base64.RawURLEncoding.EncodeToString(make([]byte, 33)), "is 33 bytes"},
		{base64.RawURLEncoding.EncodeToString(make([]byte, 32)), "not a valid P-256 private key"},
		{order, "not a valid P-256 private key"},
	}
	for _, tt := range tests {
		_, err := ParseVAPIDPrivateKey(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseVAPIDPrivateKey(%q) = %v, want an error saying %q", tt.in, err, tt.want)
			continue
		}
		if tt.in != "" && strings.Contains(err.Error(), tt.in) {
			t.Errorf("error %q repeats the key", err)
		}
	}
}
