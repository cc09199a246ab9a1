package auth

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestTokensCarryTheirKindAndAreStoredOnlyAsAHash(t *testing.T) {
	s, sh := NewToken(KindSession)
	p, ph := NewToken(KindToken)
	if !strings.HasPrefix(s, "chs_") || !strings.HasPrefix(p, "chp_") {
		t.Fatalf("prefixes: %q %q", s, p)
	}
	if k, ok := ParseToken(s); !ok || k != KindSession {
		t.Fatalf("session parsed as %q %v", k, ok)
	}
	if k, ok := ParseToken(p); !ok || k != KindToken {
		t.Fatalf("token parsed as %q %v", k, ok)
	}
	if !HashesEqual(sh, HashToken(s)) || HashesEqual(sh, ph) {
		t.Fatal("hash is not a function of the token alone")
	}
	if strings.Contains(string(sh), s[4:]) {
		t.Fatal("the hash holds the secret")
	}
	again, _ := NewToken(KindSession)
	if again == s {
		t.Fatal("two tokens alike")
	}
	for _, bad := range []string{"", "chs_", "chx_" + s[4:], s[:len(s)-1], s + "A", "chs_" + strings.Repeat("!", 43), "Bearer " + s} {
		if _, ok := ParseToken(bad); ok {
			t.Errorf("ParseToken(%q) accepted", bad)
		}
	}
}

func TestBearerToken(t *testing.T) {
	for in, want := range map[string]string{
		"Bearer abc": "abc", "bearer abc": "abc", "BEARER  abc ": "abc",
		"Basic abc": "", "Bearer": "", "": "", "abc": "",
	} {
		if got := BearerToken(in); got != want {
			t.Errorf("BearerToken(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPasswords(t *testing.T) {
	ctx := context.Background()
	pw := NewPasswords(0, 0)
	h, err := pw.Hash(ctx, "correct horse")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Fatalf("hash %q is not argon2id with the chosen cost", h)
	}
	verify := func(p, hash string) bool {
		t.Helper()
		ok, err := pw.Verify(ctx, p, hash)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if !verify("correct horse", h) {
		t.Fatal("right password refused")
	}
	for _, wrong := range []string{"correct hors", "Correct horse", "", "correct horse "} {
		if verify(wrong, h) {
			t.Errorf("wrong password %q accepted", wrong)
		}
	}
	if verify("", "") || verify("anything", "") {
		t.Fatal("an empty hash matched")
	}
	h2, _ := HashPassword("correct horse")
	if h2 == h {
		t.Fatal("same salt twice")
	}
	if !verify("correct horse", h2) {
		t.Fatal("HashPassword and Passwords.Hash disagree")
	}
	if CheckPassword("short") == nil || CheckPassword(strings.Repeat("x", 257)) == nil || CheckPassword("\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8") == nil {
		t.Fatal("a bad password passed CheckPassword")
	}
	if err := CheckPassword("密码密码密码密码"); err != nil {
		t.Fatalf("8 characters refused: %v", err)
	}
}

func TestSignedIdentity(t *testing.T) {
	secret := []byte(strings.Repeat("s", 32))
	now := time.Unix(1_800_000_000, 0)
	id := Identity{UserID: 7, Username: "ann", Scope: ScopeRead, TokenID: 9}
	v := Sign(secret, id, now)
	got, err := VerifySigned(secret, v, now.Add(SignedTTL))
	if err != nil {
		t.Fatal(err)
	}
	if got != (Identity{UserID: 7, Username: "ann", Scope: ScopeRead}) {
		t.Fatalf("got %+v", got)
	}
	if _, err := VerifySigned(secret, v, now.Add(SignedTTL+time.Second)); err == nil {
		t.Fatal("expired identity accepted")
	}
	if _, err := VerifySigned([]byte(strings.Repeat("t", 32)), v, now); err == nil {
		t.Fatal("identity signed with another secret accepted")
	}
	// A forged payload (admin: true) under the old signature.
	p, sig, _ := strings.Cut(v, ".")
	forged := Sign(secret, Identity{UserID: 7, Username: "ann", Admin: true, Scope: ScopeWrite}, now)
	fp, _, _ := strings.Cut(forged, ".")
	for _, bad := range []string{fp + "." + sig, p, p + ".", "." + sig, "", "x.y"} {
		if _, err := VerifySigned(secret, bad, now); err == nil {
			t.Errorf("VerifySigned(%q) accepted", bad)
		}
	}
}

func TestParseMode(t *testing.T) {
	if m, err := ParseMode(""); err != nil || m != ModeOff {
		t.Fatal(m, err)
	}
	if m, err := ParseMode("local"); err != nil || m != ModeLocal {
		t.Fatal(m, err)
	}
	if _, err := ParseMode("oidc"); err == nil || !strings.Contains(err.Error(), "AUTH_MODE") {
		t.Fatal("unknown mode accepted or error does not name AUTH_MODE")
	}
}

// TestNoHTTPRouting: domain and store packages import pkg/auth for
// identities; it must not bring Gin with it (the middleware is pkg/ginauth).
func TestNoHTTPRouting(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/carhub/backend/pkg/auth").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "github.com/gin-gonic/") || dep == "github.com/carhub/backend/pkg/ginx" {
			t.Errorf("pkg/auth depends on %s", dep)
		}
	}
}
