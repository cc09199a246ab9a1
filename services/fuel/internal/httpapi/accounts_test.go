package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/pkg/ginx"
	"github.com/carhub/backend/services/fuel/internal/httpapi"
	"github.com/carhub/backend/services/fuel/internal/store"
)

var testSecret = []byte(strings.Repeat("x", auth.MinSecretBytes))

// authServer is the API with accounts on (AUTH_MODE=local) and an admin
// "root" whose password is "root-password".
func authServer(tb testing.TB, d store.Dialect, loginsPerMinute int) *server {
	tb.Helper()
	return authServerWith(tb, d, func(o *httpapi.Options, _ *store.Store) { o.Auth.LoginsPerMinute = loginsPerMinute })
}

// authServerWith is authServer with options that set changes (its store
// is st: set may give it the server's clock too).
func authServerWith(tb testing.TB, d store.Dialect, set func(o *httpapi.Options, st *store.Store)) *server {
	tb.Helper()
	st := mustStore(tb, d)
	hash, err := rootPasswordHash()
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := st.ClaimBuiltinUser(context.Background(), "root", hash); err != nil {
		tb.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	opts := httpapi.Options{Auth: httpapi.AuthOptions{Mode: auth.ModeLocal, Accounts: st, IdentitySecret: testSecret}}
	set(&opts, st)
	ts := httptest.NewServer(httpapi.New(log, st, opts))
	tb.Cleanup(ts.Close)
	return &server{tb: tb, url: ts.URL, store: st}
}

// rootPasswordHash is the argon2id hash of "root-password", made once for
// every server of the tests: each hash costs a fifth of a second of a core
// under the race detector, and the hash of the fixture user is not what
// any test checks (each store still gets its own user; a test that
// changes the password stores a hash of its own).
func rootPasswordHash() (string, error) { return passwordHash("root-password") }

// as sends a request with a bearer token ("" for none) instead of the
// server's own.
func (s *server) as(token, method, path, body string) response {
	s.tb.Helper()
	c := *s
	c.token = token
	return c.do(method, path, body)
}

func (s *server) login(username, password string) string {
	s.tb.Helper()
	res := s.do("POST", "/api/auth/login", `{"username":"`+username+`","password":"`+password+`"}`)
	if res.status != 200 {
		s.tb.Fatalf("login %s: %d %s", username, res.status, res.body)
	}
	tok, _ := object(s.tb, res.body)["token"].(string)
	return tok
}

func wantStatus(t *testing.T, what string, res response, status int, code string) {
	t.Helper()
	if res.status != status || (code != "" && !strings.Contains(string(res.body), `"code":"`+code+`"`)) {
		t.Fatalf("%s: %d %s, want %d %s", what, res.status, res.body, status, code)
	}
}

func forEachAuthDialect(t *testing.T, perMinute int, fn func(t *testing.T, s *server)) {
	for _, d := range dialects {
		t.Run(string(d), func(t *testing.T) { fn(t, authServer(t, d, perMinute)) })
	}
}

func TestAuthOffActsAsTheBuiltinUser(t *testing.T) {
	s := MustServer(t, store.SQLite)
	if got := string(s.must(200, "GET", "/api/auth/config", "").body); got != `{"mode":"off","oidc":false}` {
		t.Fatalf("config %s", got)
	}
	me := object(t, s.must(200, "GET", "/api/auth/me", "").body)
	if literal(me["id"]) != "1" || me["is_admin"] != true {
		t.Fatalf("me %v", me)
	}
	s.must(404, "POST", "/api/auth/login", `{"username":"a","password":"b"}`)
	s.must(200, "GET", "/api/vehicles", "")
}

func TestLoginAndBearerTokens(t *testing.T) {
	forEachAuthDialect(t, 0, func(t *testing.T, s *server) {
		if got := string(s.must(200, "GET", "/api/auth/config", "").body); got != `{"mode":"local","oidc":false}` {
			t.Fatalf("config %s", got)
		}
		// No, malformed, unknown token: the same 401.
		for _, tok := range []string{"", "nonsense", "chs_" + strings.Repeat("A", 43)} {
			res := s.as(tok, "GET", "/api/vehicles", "")
			wantStatus(t, "token "+tok, res, 401, "UNAUTHORIZED")
			if !strings.HasPrefix(res.header.Get("WWW-Authenticate"), "Bearer") {
				t.Fatalf("401 without WWW-Authenticate: %v", res.header)
			}
		}
		wantStatus(t, "import without token", s.as("", "POST", "/api/vehicles/1/refuels/import", ""), 401, "UNAUTHORIZED")
		// Wrong password and unknown user are told apart by nothing.
		wrong := s.do("POST", "/api/auth/login", `{"username":"root","password":"nope-nope"}`)
		unknown := s.do("POST", "/api/auth/login", `{"username":"nobody","password":"nope-nope"}`)
		if wrong.status != 401 || unknown.status != 401 || string(wrong.body) != string(unknown.body) {
			t.Fatalf("wrong password %d %s, unknown user %d %s", wrong.status, wrong.body, unknown.status, unknown.body)
		}
		wantStatus(t, "login without password", s.do("POST", "/api/auth/login", `{"username":"root"}`), 400, "INVALID_ARGUMENT")

		res := s.must(200, "POST", "/api/auth/login", `{"username":"ROOT","password":"root-password"}`)
		login := object(t, res.body)
		session := login["token"].(string)
		if k, ok := auth.ParseToken(session); !ok || k != auth.KindSession {
			t.Fatalf("login token %q", session)
		}
		exp, err := time.Parse(time.RFC3339, login["expires_at"].(string))
		if err != nil || exp.Before(time.Now().Add(29*24*time.Hour)) || exp.After(time.Now().Add(31*24*time.Hour)) {
			t.Fatalf("expires_at %v (%v): want 30 idle days from now", login["expires_at"], err)
		}
		if u := login["user"].(map[string]any); u["username"] != "root" || u["is_admin"] != true || u["has_password"] != true {
			t.Fatalf("user %v", u)
		}
		if me := object(t, s.as(session, "GET", "/api/auth/me", "").body); me["username"] != "root" || me["has_password"] != true {
			t.Fatalf("me %v", me)
		}
		wantStatus(t, "session GET", s.as(session, "GET", "/api/vehicles", ""), 200, "")
		wantStatus(t, "session POST", s.as(session, "POST", "/api/vehicles", `{"name":"Car","fuel_type":"diesel"}`), 200, "")

		// A read token reads and is refused every write.
		res = s.as(session, "POST", "/api/auth/tokens", `{"name":"grafana","scope":"read","expires_in_days":7,"current_password":"root-password"}`)
		wantStatus(t, "create token", res, 200, "")
		created := object(t, res.body)
		read := created["token"].(string)
		if k, _ := auth.ParseToken(read); k != auth.KindToken || created["scope"] != "read" || created["expires_at"] == nil {
			t.Fatalf("created %v", created)
		}
		wantStatus(t, "read token GET", s.as(read, "GET", "/api/vehicles", ""), 200, "")
		for _, w := range [][3]string{
			{"POST", "/api/vehicles", `{"name":"X","fuel_type":"diesel"}`},
			{"PUT", "/api/vehicles/1", `{"name":"Y"}`},
			{"DELETE", "/api/vehicles/1", ""},
			{"POST", "/api/refuels", `{}`},
			{"POST", "/api/vehicles/1/refuels/import", ""},
			{"POST", "/api/auth/tokens", `{"name":"more","scope":"write"}`},
		} {
			wantStatus(t, "read token "+w[0]+" "+w[1], s.as(read, w[0], w[1], w[2]), 403, "FORBIDDEN")
		}
		// The list never holds a secret; it marks the caller's token.
		res = s.as(session, "GET", "/api/auth/tokens", "")
		wantStatus(t, "list tokens", res, 200, "")
		if strings.Contains(string(res.body), read) || strings.Contains(string(res.body), session) || strings.Contains(string(res.body), `"token":`) {
			t.Fatalf("token list shows a secret: %s", res.body)
		}
		list := array(t, res.body)
		if len(list) != 2 || list[0]["name"] != "grafana" || list[1]["kind"] != "session" || list[1]["current"] != true || list[0]["current"] != false {
			t.Fatalf("tokens %s", res.body)
		}
		for _, bad := range []string{`{"scope":"read"}`, `{"name":"x","scope":"admin"}`, `{"name":"x","scope":"read","expires_in_days":0}`} {
			res := s.as(session, "POST", "/api/auth/tokens", bad)
			wantStatus(t, bad, res, 400, "INVALID_ARGUMENT")
		}
		// Revoking: the token stops working at once.
		wantStatus(t, "revoke", s.as(session, "DELETE", "/api/auth/tokens/"+literal(list[0]["id"]), ""), 204, "")
		wantStatus(t, "revoked token", s.as(read, "GET", "/api/vehicles", ""), 401, "UNAUTHORIZED")
		wantStatus(t, "revoke again", s.as(session, "DELETE", "/api/auth/tokens/"+literal(list[0]["id"]), ""), 404, "NOT_FOUND")
		// Logout revokes the session used.
		wantStatus(t, "logout", s.as(session, "POST", "/api/auth/logout", ""), 204, "")
		wantStatus(t, "after logout", s.as(session, "GET", "/api/vehicles", ""), 401, "UNAUTHORIZED")
	})
}

func TestUsersAndPasswords(t *testing.T) {
	forEachAuthDialect(t, 0, func(t *testing.T, s *server) {
		root := s.login("root", "root-password")
		res := s.as(root, "POST", "/api/users", `{"username":"ann","password":"ann-password"}`)
		wantStatus(t, "create ann", res, 201, "")
		ann := object(t, res.body)
		if ann["username"] != "ann" || ann["is_admin"] != false {
			t.Fatalf("ann %v", ann)
		}
		wantStatus(t, "duplicate", s.as(root, "POST", "/api/users", `{"username":"ANN","password":"other-password"}`), 409, "CONFLICT")
		for field, body := range map[string]string{
			"username": `{"username":"a b","password":"long-enough"}`,
			"password": `{"username":"bob","password":"short"}`,
		} {
			res := s.as(root, "POST", "/api/users", body)
			wantStatus(t, body, res, 400, "INVALID_ARGUMENT")
			if !strings.Contains(string(res.body), `"message":"`+field+`:`) {
				t.Fatalf("error does not name %s: %s", field, res.body)
			}
		}
		annTok := s.login("ann", "ann-password")
		wantStatus(t, "non-admin lists users", s.as(annTok, "GET", "/api/users", ""), 403, "FORBIDDEN")
		wantStatus(t, "non-admin creates user", s.as(annTok, "POST", "/api/users", `{"username":"eve","password":"eve-password"}`), 403, "FORBIDDEN")
		users := array(t, s.as(root, "GET", "/api/users", "").body)
		if len(users) != 2 || users[0]["username"] != "root" || users[1]["username"] != "ann" {
			t.Fatalf("users %v", users)
		}
		for _, u := range users {
			if _, ok := u["password_hash"]; ok {
				t.Fatal("a password hash is listed")
			}
		}

		// A password change keeps this session and ends the others.
		other := s.login("ann", "ann-password")
		wantStatus(t, "wrong current password", s.as(annTok, "PUT", "/api/users/me/password", `{"current_password":"nope-nope","new_password":"new-password"}`), 400, "INVALID_ARGUMENT")
		wantStatus(t, "change", s.as(annTok, "PUT", "/api/users/me/password", `{"current_password":"ann-password","new_password":"new-password"}`), 204, "")
		wantStatus(t, "this session", s.as(annTok, "GET", "/api/auth/me", ""), 200, "")
		wantStatus(t, "other session", s.as(other, "GET", "/api/auth/me", ""), 401, "UNAUTHORIZED")
		wantStatus(t, "old password", s.do("POST", "/api/auth/login", `{"username":"ann","password":"ann-password"}`), 401, "UNAUTHORIZED")
		s.login("ann", "new-password")

		// Deleting a user ends its sessions; an admin cannot delete itself.
		wantStatus(t, "delete self", s.as(root, "DELETE", "/api/users/1", ""), 400, "INVALID_ARGUMENT")
		wantStatus(t, "delete ann", s.as(root, "DELETE", "/api/users/"+literal(ann["id"]), ""), 204, "")
		wantStatus(t, "deleted user's session", s.as(annTok, "GET", "/api/auth/me", ""), 401, "UNAUTHORIZED")
		wantStatus(t, "delete again", s.as(root, "DELETE", "/api/users/"+literal(ann["id"]), ""), 404, "NOT_FOUND")
	})
}

// TestEveryInvalidAccountFieldNamed: the bodies of logins, tokens,
// passwords, users and shares name every bad member in one answer, in
// order, as vehicles and refuels do, and a refused one writes nothing.
func TestEveryInvalidAccountFieldNamed(t *testing.T) {
	forEachAuthDialect(t, 0, func(t *testing.T, s *server) {
		root := s.login("root", "root-password")
		res := s.as(root, "POST", "/api/vehicles", `{"name":"car","fuel_type":"diesel"}`)
		wantStatus(t, "create vehicle", res, 200, "")
		vid := literal(object(t, res.body)["id"])
		tokens := len(array(t, s.as(root, "GET", "/api/auth/tokens", "").body))
		length := fmt.Sprintf("must be %d to %d characters long", auth.MinPasswordLen, auth.MaxPasswordLen)
		for _, tc := range []struct{ name, token, method, path, body, want string }{
			{"a login of nothing", "", "POST", "/api/auth/login", `{}`, "username: is required; password: is required"},
			{"a token against every rule", root, "POST", "/api/auth/tokens", `{"name":" ","scope":"admin","expires_in_days":0}`,
				"name: is required, at most 64 characters; scope: must be read or write; expires_in_days: must be between 1 and 3650; current_password: is required"},
			{"a password change", root, "PUT", "/api/users/me/password", `{"new_password":"short"}`,
				"current_password: is required; new_password: " + length},
			{"a user against every rule", root, "POST", "/api/users", `{"username":"a b","password":"short"}`,
				"username: must be 1 to 64 letters, digits or . _ @ -; password: " + length},
			{"a share of nothing", root, "POST", "/api/vehicles/" + vid + "/members", `{"role":"owner"}`,
				"username: is required; role: must be one of viewer, editor"},
		} {
			res := s.as(tc.token, tc.method, tc.path, tc.body)
			wantStatus(t, tc.name, res, 400, "INVALID_ARGUMENT")
			if msg, _ := object(t, res.body)["message"].(string); msg != tc.want {
				t.Errorf("%s: message %q, want %q", tc.name, msg, tc.want)
			}
		}
		if users := array(t, s.as(root, "GET", "/api/users", "").body); len(users) != 1 {
			t.Errorf("users after refused bodies: %v", users)
		}
		if n := len(array(t, s.as(root, "GET", "/api/auth/tokens", "").body)); n != tokens {
			t.Errorf("%d tokens after a refused one, want %d", n, tokens)
		}
		if members := array(t, s.as(root, "GET", "/api/vehicles/"+vid+"/members", "").body); len(members) != 0 {
			t.Errorf("members after a refused share: %v", members)
		}
		s.login("root", "root-password") // the password is unchanged
	})
}

func TestLoginRateLimit(t *testing.T) {
	s := authServer(t, store.SQLite, 3)
	for i := range 3 {
		wantStatus(t, "attempt", s.do("POST", "/api/auth/login", `{"username":"root","password":"wrong-password"}`), 401, "UNAUTHORIZED")
		_ = i
	}
	res := s.do("POST", "/api/auth/login", `{"username":"root","password":"root-password"}`)
	wantStatus(t, "fourth attempt", res, 429, "RESOURCE_EXHAUSTED")
	if ra := res.header.Get("Retry-After"); ra == "" || ra == "0" {
		t.Fatalf("Retry-After %q", ra)
	}
}

// TestLoginLimitPerAddress: behind a trusted proxy, login attempts count
// per IPv4 address and per IPv6 /64 (one subscriber's block, any address of
// which it may use), an IPv4-mapped IPv6 address as its IPv4 address.
func TestLoginLimitPerAddress(t *testing.T) {
	st := mustStore(t, store.SQLite)
	loopback, err := ginx.ParseTrustedProxies("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	h := httpapi.New(slog.New(slog.NewTextHandler(io.Discard, nil)), st, httpapi.Options{
		TrustedProxies: loopback,
		Auth:           httpapi.AuthOptions{Mode: auth.ModeLocal, Accounts: st, IdentitySecret: testSecret, LoginsPerMinute: 2},
	})
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	n := 0
	login := func(from string) int {
		t.Helper()
		n++ // another user each time: only the address limit can refuse
		req, err := http.NewRequest("POST", ts.URL+"/api/auth/login", strings.NewReader(`{"username":"user`+strconv.Itoa(n)+`","password":"wrong-password"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Forwarded-For", from)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	for _, step := range []struct {
		from string
		want int
	}{
		{"2001:db8:1:2::1", 401},
		{"2001:db8:1:2:ffff:ffff:ffff:fffe", 401},
		{"2001:db8:1:2:abcd::9", 429}, // the same /64, a third address
		{"2001:db8:1:3::1", 401},      // the next /64
		{"198.51.100.1", 401},
		{"198.51.100.1", 401},
		{"198.51.100.1", 429},
		{"198.51.100.2", 401}, // the next address: IPv4 is counted alone
		{"::ffff:198.51.100.2", 401},
		{"198.51.100.2", 429}, // the mapped form was the same address
	} {
		if got := login(step.from); got != step.want {
			t.Fatalf("login from %s: %d, want %d", step.from, got, step.want)
		}
	}
}

func TestVerifySignsTheIdentity(t *testing.T) {
	s := authServer(t, store.SQLite, 0)
	wantStatus(t, "verify without token", s.as("", "GET", "/auth/verify", ""), 401, "UNAUTHORIZED")
	root := s.login("root", "root-password")
	res := s.as(root, "GET", "/auth/verify", "")
	wantStatus(t, "verify", res, 200, "")
	id, err := auth.VerifySigned(testSecret, res.header.Get(auth.HeaderIdentity), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	want := auth.Identity{UserID: 1, Username: "root", Admin: true, Scope: auth.ScopeWrite}
	if id != want {
		b, _ := json.Marshal(id)
		t.Fatalf("signed identity %s", b)
	}
}

// TestUsersSeeOnlyTheirOwnVehicles: through the API, with accounts on, a
// user's vehicles, refuels and statistics are invisible to another user
// (404, no existence leak) and absent from the other's lists.
func TestUsersSeeOnlyTheirOwnVehicles(t *testing.T) {
	forEachAuthDialect(t, 0, func(t *testing.T, s *server) {
		root := s.login("root", "root-password")
		wantStatus(t, "create ann", s.as(root, "POST", "/api/users", `{"username":"ann","password":"ann-password"}`), 201, "")
		ann := s.login("ann", "ann-password")

		res := s.as(root, "POST", "/api/vehicles", `{"name":"Root's car","fuel_type":"diesel","default_vehicle":true}`)
		wantStatus(t, "root's vehicle", res, 200, "")
		vid := literal(object(t, res.body)["id"])
		res = s.as(root, "POST", "/api/refuels", `{"vehicle_id":`+vid+`,"refuel_time":"2026-11-01T08:00:00Z","odometer":1000,"liters":40,"total_amount":60,"fuel_type":"diesel","is_full":true}`)
		wantStatus(t, "root's refuel", res, 200, "")
		rid := literal(object(t, res.body)["id"])
		res = s.as(ann, "POST", "/api/vehicles", `{"name":"Ann's car","fuel_type":"gasoline","default_vehicle":true}`)
		wantStatus(t, "ann's vehicle, her own default", res, 200, "")

		for _, p := range []string{"/api/vehicles/" + vid, "/api/vehicles/" + vid + "/statistics", "/api/vehicles/" + vid + "/refuels.csv", "/api/refuels/" + rid} {
			wantStatus(t, "ann reads "+p, s.as(ann, "GET", p, ""), 404, "NOT_FOUND")
		}
		wantStatus(t, "ann deletes root's vehicle", s.as(ann, "DELETE", "/api/vehicles/"+vid, ""), 404, "NOT_FOUND")
		list := array(t, s.as(ann, "GET", "/api/vehicles", "").body)
		if len(list) != 1 || list[0]["name"] != "Ann's car" || list[0]["default_vehicle"] != true {
			t.Fatalf("ann's vehicles %v", list)
		}
		if refuels := array(t, s.as(ann, "GET", "/api/refuels?vehicle_id="+vid, "").body); len(refuels) != 0 {
			t.Fatalf("ann lists root's refuels: %v", refuels)
		}
		list = array(t, s.as(root, "GET", "/api/vehicles", "").body)
		if len(list) != 1 || list[0]["name"] != "Root's car" || list[0]["default_vehicle"] != true {
			t.Fatalf("root's vehicles %v", list)
		}
		wantStatus(t, "root still has the refuel", s.as(root, "GET", "/api/refuels/"+rid, ""), 200, "")
	})
}

// TestSharedVehicle: the owner shares a vehicle with a viewer and an
// editor through the member routes; each can do what the role allows and
// no more.
func TestSharedVehicle(t *testing.T) {
	forEachAuthDialect(t, 0, func(t *testing.T, s *server) {
		root := s.login("root", "root-password")
		ids := map[string]string{}
		for _, name := range []string{"viv", "ed", "out", "zed"} {
			res := s.as(root, "POST", "/api/users", `{"username":"`+name+`","password":"`+name+`-password"}`)
			wantStatus(t, "create "+name, res, 201, "")
			ids[name] = literal(object(t, res.body)["id"])
		}
		viv, ed, out := s.login("viv", "viv-password"), s.login("ed", "ed-password"), s.login("out", "out-password")
		res := s.as(root, "POST", "/api/vehicles", `{"name":"Family car","fuel_type":"diesel"}`)
		vid := literal(object(t, res.body)["id"])
		members := "/api/vehicles/" + vid + "/members/"

		wantStatus(t, "share with viv", s.as(root, "PUT", members+ids["viv"], `{"role":"viewer"}`), 200, "")
		res = s.as(root, "PUT", members+ids["ed"], `{"role":"editor"}`)
		wantStatus(t, "share with ed", res, 200, "")
		if m := object(t, res.body); m["username"] != "ed" || m["role"] != "editor" {
			t.Fatalf("member %v", m)
		}
		wantStatus(t, "bad role", s.as(root, "PUT", members+ids["out"], `{"role":"owner"}`), 400, "INVALID_ARGUMENT")
		wantStatus(t, "unknown user", s.as(root, "PUT", members+"999", `{"role":"viewer"}`), 404, "NOT_FOUND")

		refuel := `{"vehicle_id":` + vid + `,"refuel_time":"2026-11-01T08:00:00Z","odometer":1000,"liters":40,"total_amount":60,"fuel_type":"diesel","is_full":true}`
		wantStatus(t, "viewer reads", s.as(viv, "GET", "/api/vehicles/"+vid+"/statistics", ""), 200, "")
		wantStatus(t, "viewer writes a refuel", s.as(viv, "POST", "/api/refuels", refuel), 403, "FORBIDDEN")
		wantStatus(t, "editor writes a refuel", s.as(ed, "POST", "/api/refuels", refuel), 200, "")
		wantStatus(t, "editor renames the vehicle", s.as(ed, "PUT", "/api/vehicles/"+vid, `{"name":"Mine"}`), 403, "FORBIDDEN")
		wantStatus(t, "viewer deletes the vehicle", s.as(viv, "DELETE", "/api/vehicles/"+vid, ""), 403, "FORBIDDEN")
		wantStatus(t, "editor shares it on", s.as(ed, "PUT", members+ids["out"], `{"role":"viewer"}`), 403, "FORBIDDEN")
		wantStatus(t, "outsider reads", s.as(out, "GET", "/api/vehicles/"+vid, ""), 404, "NOT_FOUND")
		wantStatus(t, "outsider lists members", s.as(out, "GET", "/api/vehicles/"+vid+"/members", ""), 404, "NOT_FOUND")

		list := array(t, s.as(viv, "GET", "/api/vehicles/"+vid+"/members", "").body)
		if len(list) != 2 || list[0]["username"] != "viv" || list[1]["username"] != "ed" {
			t.Fatalf("members %v", list)
		}

		// Every answer with the vehicle says what its reader may do.
		for who, tok := range map[string]string{"owner": root, "viewer": viv, "editor": ed} {
			if got := object(t, s.as(tok, "GET", "/api/vehicles/"+vid, "").body)["role"]; got != who {
				t.Errorf("%s reads role %v", who, got)
			}
			if l := array(t, s.as(tok, "GET", "/api/vehicles", "").body); len(l) != 1 || l[0]["role"] != who {
				t.Errorf("%s lists %v", who, l)
			}
		}
		if got := object(t, s.as(root, "PUT", "/api/vehicles/"+vid, `{"name":"Family car"}`).body)["role"]; got != "owner" {
			t.Errorf("owner's PUT answers role %v", got)
		}
		if got := object(t, s.as(root, "POST", "/api/vehicles/"+vid+"/default", "").body)["role"]; got != "owner" {
			t.Errorf("owner's default answers role %v", got)
		}

		// Sharing by name: what an owner knows of the people they share with.
		byName := "/api/vehicles/" + vid + "/members"
		res = s.as(root, "POST", byName, `{"username":" OUT ","role":"viewer"}`)
		wantStatus(t, "share with out by name", res, 200, "")
		if m := object(t, res.body); m["username"] != "out" || m["role"] != "viewer" || literal(m["user_id"]) != ids["out"] {
			t.Fatalf("member by name %v", m)
		}
		wantStatus(t, "out reads it now", s.as(out, "GET", "/api/vehicles/"+vid, ""), 200, "")
		wantStatus(t, "out made an editor by name", s.as(root, "POST", byName, `{"username":"out","role":"editor"}`), 200, "")
		if l := array(t, s.as(root, "GET", byName, "").body); len(l) != 3 || l[2]["username"] != "out" || l[2]["role"] != "editor" {
			t.Fatalf("members after the change %v", l)
		}
		wantMessage := func(what string, res response, status int, code, message string) {
			t.Helper()
			wantStatus(t, what, res, status, code)
			if got := object(t, res.body)["message"]; got != message {
				t.Errorf("%s: message %q, want %q", what, got, message)
			}
		}
		wantMessage("no such name", s.as(root, "POST", byName, `{"username":"nobody","role":"viewer"}`), 404, "NOT_FOUND", `username: no user is named "nobody"`)
		wantMessage("no name", s.as(root, "POST", byName, `{"username":"  ","role":"viewer"}`), 400, "INVALID_ARGUMENT", "username: is required")
		wantMessage("no role", s.as(root, "POST", byName, `{"username":"out"}`), 400, "INVALID_ARGUMENT", "role: is required: viewer or editor")
		wantMessage("the owner's own name", s.as(root, "POST", byName, `{"username":"root","role":"viewer"}`), 400, "INVALID_ARGUMENT", "username: is the vehicle's owner")
		wantStatus(t, "an editor shares by name", s.as(ed, "POST", byName, `{"username":"viv","role":"editor"}`), 403, "FORBIDDEN")
		// Someone who does not own the vehicle learns nothing of names: the vehicle is not found first.
		zed := s.login("zed", "zed-password")
		known := s.as(zed, "POST", byName, `{"username":"viv","role":"viewer"}`)
		wantStatus(t, "a stranger, a known name", known, 404, "NOT_FOUND")
		msg, _ := object(t, known.body)["message"].(string)
		if strings.Contains(msg, "username") {
			t.Errorf("a stranger is told about the name: %q", msg)
		}
		wantMessage("a stranger, an unknown name", s.as(zed, "POST", byName, `{"username":"nobody","role":"viewer"}`), 404, "NOT_FOUND", msg)
		wantStatus(t, "unshare out", s.as(root, "DELETE", members+ids["out"], ""), 204, "")
		wantStatus(t, "unshare viv", s.as(root, "DELETE", members+ids["viv"], ""), 204, "")
		wantStatus(t, "unshare viv again", s.as(root, "DELETE", members+ids["viv"], ""), 404, "NOT_FOUND")
		wantStatus(t, "viv after unsharing", s.as(viv, "GET", "/api/vehicles/"+vid, ""), 404, "NOT_FOUND")
	})
}
