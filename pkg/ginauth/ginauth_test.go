package ginauth

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/pkg/ginx"
)

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
	serve := func(mode auth.Mode, header string, method string) (*httptest.ResponseRecorder, auth.Identity) {
		var seen auth.Identity
		e := ginx.New(slog.New(slog.DiscardHandler), ginx.Options{})
		e.Use(Trusted(mode, secret, func() time.Time { return now }), RequireScope())
		h := func(c *gin.Context) { seen, _ = auth.FromContext(c.Request.Context()); c.Status(http.StatusNoContent) }
		e.GET("/x", h)
		e.POST("/x", h)
		e.GET("/admin", RequireAdmin(), h)
		path := "/x"
		if method == "ADMIN" {
			method, path = http.MethodGet, "/admin"
		}
		req := httptest.NewRequest(method, path, nil)
		if header != "" {
			req.Header.Set(auth.HeaderIdentity, header)
		}
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		return rec, seen
	}
	if rec, id := serve(auth.ModeOff, "", http.MethodPost); rec.Code != 204 || id != auth.Builtin() {
		t.Fatalf("off: %d %+v", rec.Code, id)
	}
	rec, _ := serve(auth.ModeLocal, "", http.MethodGet)
	if rec.Code != 401 || rec.Header().Get("WWW-Authenticate") == "" || !strings.Contains(rec.Body.String(), `"UNAUTHORIZED"`) {
		t.Fatalf("local without identity: %d %q %s", rec.Code, rec.Header().Get("WWW-Authenticate"), rec.Body)
	}
	if rec, _ := serve(auth.ModeLocal, "forged.header", http.MethodGet); rec.Code != 401 {
		t.Fatalf("forged: %d", rec.Code)
	}
	reader := auth.Sign(secret, auth.Identity{UserID: 5, Username: "r", Scope: auth.ScopeRead}, now)
	if rec, id := serve(auth.ModeLocal, reader, http.MethodGet); rec.Code != 204 || id.UserID != 5 {
		t.Fatalf("reader GET: %d %+v", rec.Code, id)
	}
	if rec, _ := serve(auth.ModeLocal, reader, http.MethodPost); rec.Code != 403 || !strings.Contains(rec.Body.String(), `"FORBIDDEN"`) {
		t.Fatalf("reader POST: %d %s", rec.Code, rec.Body)
	}
	if rec, _ := serve(auth.ModeLocal, reader, "ADMIN"); rec.Code != 403 {
		t.Fatalf("non-admin on admin route: %d", rec.Code)
	}
	admin := auth.Sign(secret, auth.Identity{UserID: 6, Username: "a", Admin: true, Scope: auth.ScopeWrite}, now)
	if rec, _ := serve(auth.ModeLocal, admin, "ADMIN"); rec.Code != 204 {
		t.Fatalf("admin: %d", rec.Code)
	}
}
