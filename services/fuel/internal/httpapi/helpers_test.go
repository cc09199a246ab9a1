package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/services/fuel/internal/accounts"
	"github.com/carhub/backend/services/fuel/internal/httpapi"
	"github.com/carhub/backend/services/fuel/internal/store"
	"github.com/carhub/backend/services/fuel/internal/store/storetest"
)

// server is the fuel API over real HTTP on a fresh database.
type server struct {
	tb    testing.TB
	url   string
	store *store.Store
	// token, when set, goes with every request of do as a bearer token.
	token string
}

// MustServer starts the API on a fresh database of dialect d: a new
// PostgreSQL database or a new SQLite file, each a copy of one migrated
// once by the real migrations (storetest.PostgresURL, SQLitePath).
func MustServer(tb testing.TB, d store.Dialect) *server {
	tb.Helper()
	return mustServerWith(tb, d, nil)
}

// mustServerWith is MustServer with prepare (when not nil) called on the
// store before the server starts.
func mustServerWith(tb testing.TB, d store.Dialect, prepare func(*store.Store)) *server {
	tb.Helper()
	st := mustStore(tb, d)
	if prepare != nil {
		prepare(st)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ts := httptest.NewServer(httpapi.New(log, st, httpapi.Options{}))
	tb.Cleanup(ts.Close)
	return &server{tb: tb, url: ts.URL, store: st}
}

func mustStore(tb testing.TB, d store.Dialect) *store.Store {
	tb.Helper()
	var (
		st  *store.Store
		err error
	)
	if d == store.Postgres {
		st, err = store.OpenPostgres(context.Background(), storetest.PostgresURL(tb))
	} else {
		st, err = store.OpenSQLite(context.Background(), storetest.SQLitePath(tb))
	}
	if err != nil {
		tb.Fatalf("open %s: %v", d, err)
	}
	tb.Cleanup(func() { _ = st.Close() })
	return st
}

var dialects = []store.Dialect{store.Postgres, store.SQLite}

// forEachDialect runs fn against a fresh server on each database, with
// accounts off, and again with accounts on (AUTH_MODE=local), every
// request carrying the token of root's session: the contract holds in
// both modes.
func forEachDialect(t *testing.T, fn func(t *testing.T, s *server)) {
	t.Helper()
	forEachDialectWith(t, nil, fn)
}

// forEachDialectWith is forEachDialect with prepare (when not nil) called
// on each server's store before the server starts.
func forEachDialectWith(t *testing.T, prepare func(*store.Store), fn func(t *testing.T, s *server)) {
	t.Helper()
	for _, d := range dialects {
		t.Run(string(d), func(t *testing.T) { fn(t, mustServerWith(t, d, prepare)) })
		t.Run(string(d)+"-accounts", func(t *testing.T) {
			s := authServerWith(t, d, func(o *httpapi.Options, st *store.Store) {
				o.Auth.LoginsPerMinute = 1000
				if prepare != nil {
					prepare(st)
				}
			})
			s.token = s.session("root")
			fn(t, s)
		})
	}
}

// session opens a session of username the way a login does once the
// password matched (accounts.OpenSession, named "login"), and returns its
// token. It skips the login's argon2id check, a fifth of a second under
// the race detector, for the tests whose subject is not the login (the
// accounts tests sign in through POST /api/auth/login).
func (s *server) session(username string) string {
	s.tb.Helper()
	ctx := context.Background()
	u, err := s.store.UserByUsername(ctx, username)
	if err != nil {
		s.tb.Fatalf("session of %s: %v", username, err)
	}
	sess, err := accounts.OpenSession(ctx, s.store, u, "login")
	if err != nil {
		s.tb.Fatalf("session of %s: %v", username, err)
	}
	return sess.Secret
}

// newUser makes a user who is not an administrator, named name, with the
// password name+"-password", and returns its id and the token of a
// session of it. It writes the user to the store with a hash made once
// per name (passwordHash) and opens the session as a login does: the
// tests that use it are about what users see of each other, and an
// argon2id for each creation and each login (a fifth of a second each
// under the race detector) is what the accounts tests check.
func (s *server) newUser(name string) (id, token string) {
	s.tb.Helper()
	hash, err := passwordHash(name + "-password")
	if err != nil {
		s.tb.Fatal(err)
	}
	u, err := s.store.CreateUser(context.Background(), name, hash, false)
	if err != nil {
		s.tb.Fatalf("create %s: %v", name, err)
	}
	return strconv.FormatUint(u.ID, 10), s.session(name)
}

// passwordHashes holds passwordHash's hashes, by password.
var passwordHashes sync.Map

// passwordHash is the argon2id hash of password, made once per password
// for every test of the process.
func passwordHash(password string) (string, error) {
	if h, ok := passwordHashes.Load(password); ok {
		return h.(string), nil
	}
	h, err := auth.HashPassword(password)
	if err != nil {
		return "", err
	}
	actual, _ := passwordHashes.LoadOrStore(password, h)
	return actual.(string), nil
}

// response is an answer of the server.
type response struct {
	status int
	header http.Header
	body   []byte
}

// do sends method path with body ("" for none) and returns the answer.
func (s *server) do(method, path, body string) response {
	s.tb.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, s.url+path, r)
	if err != nil {
		s.tb.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	s.authorize(req)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		s.tb.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		s.tb.Fatal(err)
	}
	return response{status: res.StatusCode, header: res.Header, body: b}
}

// authorize adds the server's bearer token to req, when it has one.
func (s *server) authorize(req *http.Request) {
	if s.token != "" {
		req.Header.Set("Authorization", "Bearer "+s.token)
	}
}

// postForm posts a multipart body (authorized) and returns the answer;
// header holds more request headers, name and value in turn.
func (s *server) postForm(path, contentType string, body io.Reader, header ...string) response {
	s.tb.Helper()
	req, err := http.NewRequest(http.MethodPost, s.url+path, body)
	if err != nil {
		s.tb.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	s.authorize(req)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		s.tb.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		s.tb.Fatal(err)
	}
	return response{status: res.StatusCode, header: res.Header, body: b}
}

// must sends the request and fails the test unless the status is want.
func (s *server) must(want int, method, path, body string) response {
	s.tb.Helper()
	res := s.do(method, path, body)
	if res.status != want {
		s.tb.Fatalf("%s %s %s: status %d, want %d; body %s", method, path, body, res.status, want, res.body)
	}
	return res
}

// object decodes a JSON object answer keeping numbers as literals.
func object(tb testing.TB, b []byte) map[string]any {
	tb.Helper()
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		tb.Fatalf("decode %s: %v", b, err)
	}
	return m
}

// array decodes a JSON array of objects.
func array(tb testing.TB, b []byte) []map[string]any {
	tb.Helper()
	var a []map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&a); err != nil {
		tb.Fatalf("decode %s: %v", b, err)
	}
	if a == nil {
		tb.Fatalf("answer %s is not an array", b)
	}
	return a
}

// literal renders a decoded JSON value the way it was written: numbers as
// their literal, strings quoted, so a test can tell 40 from "40".
func literal(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// errorBody checks an error answer: the status, the JSON shape, the code,
// and that the message names field (when field is not "").
func errorBody(tb testing.TB, res response, status int, code, field string) {
	tb.Helper()
	if res.status != status {
		tb.Fatalf("status %d, want %d; body %s", res.status, status, res.body)
	}
	if ct := res.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		tb.Errorf("Content-Type %q, want application/json", ct)
	}
	var body struct{ Code, Message string }
	if err := json.Unmarshal(res.body, &body); err != nil {
		tb.Fatalf("error body %s: %v", res.body, err)
	}
	if body.Code != code {
		tb.Errorf("code %q, want %q (body %s)", body.Code, code, res.body)
	}
	if field != "" && !strings.HasPrefix(body.Message, field+":") {
		tb.Errorf("message %q does not name field %q", body.Message, field)
	}
}

// mustVehicle creates a vehicle from body and returns its id.
func (s *server) mustVehicle(body string) string {
	s.tb.Helper()
	return literal(object(s.tb, s.must(200, "POST", "/api/vehicles", body).body)["id"])
}

// mustRefuel creates a refuel from body and returns its id.
func (s *server) mustRefuel(body string) string {
	s.tb.Helper()
	return literal(object(s.tb, s.must(200, "POST", "/api/refuels", body).body)["id"])
}
