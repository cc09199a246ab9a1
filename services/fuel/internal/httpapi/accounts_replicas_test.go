package httpapi_test

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/pkg/ginx"
	"github.com/carhub/backend/pkg/pgtest"
	"github.com/carhub/backend/services/fuel/internal/httpapi"
	"github.com/carhub/backend/services/fuel/internal/store"
)

// replicas starts n instances of the API, each with its own store (its
// own pool) on one PostgreSQL database, as replicas of the service run,
// behind a trusted proxy at 127.0.0.1 and with loginsPerMinute.
func replicas(t *testing.T, n, loginsPerMinute int) []*server {
	t.Helper()
	dsn := pgtest.NewDatabase(t)
	loopback, err := ginx.ParseTrustedProxies("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	var out []*server
	for range n {
		st, err := store.OpenPostgres(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = st.Close() })
		h := httpapi.New(slog.New(slog.NewTextHandler(io.Discard, nil)), st, httpapi.Options{
			TrustedProxies: loopback,
			Auth:           httpapi.AuthOptions{Mode: auth.ModeLocal, Accounts: st, IdentitySecret: testSecret, LoginsPerMinute: loginsPerMinute},
		})
		ts := httptest.NewServer(h)
		t.Cleanup(ts.Close)
		out = append(out, &server{tb: t, url: ts.URL, store: st})
	}
	return out
}

// TestLoginLimitHoldsAcrossReplicas: two instances on one database share
// the budgets. Three wrong logins of one user spread over both spend the
// user's budget of three, and a fourth is refused by either; so are the
// attempts of an address, whichever instance they reach.
func TestLoginLimitHoldsAcrossReplicas(t *testing.T) {
	r := replicas(t, 2, 3)
	const wrong = `","password":"wrong-password"}`
	login := func(s *server, addr, user string) response {
		t.Helper()
		return s.from(addr, "", "POST", "/api/auth/login", `{"username":"`+user+wrong)
	}

	// Per username, from a new address each time.
	for i, s := range []*server{r[0], r[1], r[0]} {
		wantStatus(t, "ann's attempt "+strconv.Itoa(i+1), login(s, "198.51.100."+strconv.Itoa(i+1), "ann"), 401, "UNAUTHORIZED")
	}
	for i, s := range r {
		res := login(s, "198.51.100."+strconv.Itoa(10+i), "ANN")
		wantStatus(t, "ann's attempt on instance "+strconv.Itoa(i+1)+" past the budget", res, 429, "RESOURCE_EXHAUSTED")
		wantRetryAfter(t, "ann's refused attempt", res)
	}

	// Per address, another user each time.
	const addr = "2001:db8:7::1"
	for i, s := range []*server{r[1], r[0], r[1]} {
		wantStatus(t, "address attempt "+strconv.Itoa(i+1), login(s, addr, "user"+strconv.Itoa(i)), 401, "UNAUTHORIZED")
	}
	for i, s := range r {
		// Another address of the same /64.
		res := login(s, "2001:db8:7::"+strconv.Itoa(100+i), "other"+strconv.Itoa(i))
		wantStatus(t, "address attempt on instance "+strconv.Itoa(i+1)+" past the budget", res, 429, "RESOURCE_EXHAUSTED")
	}
	wantStatus(t, "another address", login(r[0], "203.0.113.1", "someone"), 401, "UNAUTHORIZED")
}
