package auth

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/carhub/backend/pkg/ginx"
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

func TestLimiter(t *testing.T) {
	l := NewLimiter(2, time.Minute, 2)
	now := time.Unix(0, 0)
	l.now = func() time.Time { return now }
	for i := range 2 {
		if ok, _ := l.Allow("ann"); !ok {
			t.Fatalf("event %d refused", i)
		}
	}
	ok, wait := l.Allow("ann")
	if ok || wait <= 0 || wait > 30*time.Second {
		t.Fatalf("third event: %v, wait %v (want refused, about 30 s)", ok, wait)
	}
	if ok, _ := l.Allow("bob"); !ok {
		t.Fatal("another key shares ann's bucket")
	}
	now = now.Add(30 * time.Second)
	if ok, _ := l.Allow("ann"); !ok {
		t.Fatal("refill refused")
	}
	if ok, _ := l.Allow("ann"); ok {
		t.Fatal("refused attempts were counted as not taken, or refill too fast")
	}
	off := NewLimiter(0, time.Minute, 0)
	for range 1000 {
		if ok, _ := off.Allow("x"); !ok {
			t.Fatal("a limit of 0 refused")
		}
	}
}

func TestConcurrency(t *testing.T) {
	c := NewConcurrency(2)
	for i := range 2 {
		if !c.Acquire("a") {
			t.Fatalf("acquire %d of 2 refused", i+1)
		}
	}
	if c.Acquire("a") {
		t.Fatal("third accepted")
	}
	if !c.Acquire("b") {
		t.Fatal("b refused")
	}
	c.Release("a")
	if !c.Acquire("a") {
		t.Fatal("released slot not given back")
	}
}

func TestTrustedMiddleware(t *testing.T) {
	secret := []byte(strings.Repeat("k", 32))
	now := time.Unix(1_800_000_000, 0)
	serve := func(mode Mode, header string, method string) (*httptest.ResponseRecorder, Identity) {
		var seen Identity
		e := ginx.New(slog.New(slog.DiscardHandler), ginx.Options{})
		e.Use(Trusted(mode, secret, func() time.Time { return now }), RequireScope())
		h := func(c *gin.Context) { seen, _ = FromContext(c.Request.Context()); c.Status(http.StatusNoContent) }
		e.GET("/x", h)
		e.POST("/x", h)
		e.GET("/admin", RequireAdmin(), h)
		path := "/x"
		if method == "ADMIN" {
			method, path = http.MethodGet, "/admin"
		}
		req := httptest.NewRequest(method, path, nil)
		if header != "" {
			req.Header.Set(HeaderIdentity, header)
		}
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		return rec, seen
	}
	if rec, id := serve(ModeOff, "", http.MethodPost); rec.Code != 204 || id != Builtin() {
		t.Fatalf("off: %d %+v", rec.Code, id)
	}
	rec, _ := serve(ModeLocal, "", http.MethodGet)
	if rec.Code != 401 || rec.Header().Get("WWW-Authenticate") == "" || !strings.Contains(rec.Body.String(), `"UNAUTHORIZED"`) {
		t.Fatalf("local without identity: %d %q %s", rec.Code, rec.Header().Get("WWW-Authenticate"), rec.Body)
	}
	if rec, _ := serve(ModeLocal, "forged.header", http.MethodGet); rec.Code != 401 {
		t.Fatalf("forged: %d", rec.Code)
	}
	reader := Sign(secret, Identity{UserID: 5, Username: "r", Scope: ScopeRead}, now)
	if rec, id := serve(ModeLocal, reader, http.MethodGet); rec.Code != 204 || id.UserID != 5 {
		t.Fatalf("reader GET: %d %+v", rec.Code, id)
	}
	if rec, _ := serve(ModeLocal, reader, http.MethodPost); rec.Code != 403 || !strings.Contains(rec.Body.String(), `"FORBIDDEN"`) {
		t.Fatalf("reader POST: %d %s", rec.Code, rec.Body)
	}
	if rec, _ := serve(ModeLocal, reader, "ADMIN"); rec.Code != 403 {
		t.Fatalf("non-admin on admin route: %d", rec.Code)
	}
	admin := Sign(secret, Identity{UserID: 6, Username: "a", Admin: true, Scope: ScopeWrite}, now)
	if rec, _ := serve(ModeLocal, admin, "ADMIN"); rec.Code != 204 {
		t.Fatalf("admin: %d", rec.Code)
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
