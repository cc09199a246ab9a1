package httpapi_test

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/carhub/backend/pkg/auth"
)

// send sends method path with the identity header value (none when "")
// and returns the answer and its body.
func send(t *testing.T, s *service, method, path, identity, contentType string, body []byte) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, s.URL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if identity != "" {
		req.Header.Set(auth.HeaderIdentity, identity)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	return exchange(t, http.DefaultClient, req)
}

// TestAccountsGuardEveryAPIRoute: with AUTH_MODE=local every registered
// /api route answers 401 UNAUTHORIZED, with WWW-Authenticate: Bearer,
// to a request without the gateway's identity or with one that is not
// valid (another secret, expired, altered, malformed), before its handler
// runs; /health needs none.
func TestAccountsGuardEveryAPIRoute(t *testing.T) {
	s := newService(t, options{accounts: true})
	valid := auth.Sign(accountsSecret, accountsAdmin, testNow)
	payload, signature, _ := strings.Cut(valid, ".")
	other := accountsAdmin
	other.UserID++
	otherPayload, _, _ := strings.Cut(auth.Sign(accountsSecret, other, testNow), ".")
	refused := map[string]string{
		"none":            "",
		"another secret":  auth.Sign([]byte(strings.Repeat("B", auth.MinSecretBytes)), accountsAdmin, testNow),
		"expired":         auth.Sign(accountsSecret, accountsAdmin, testNow.Add(-auth.SignedTTL-time.Second)),
		"unsigned":        payload,
		"other signature": payload + "." + strings.Repeat("A", 43),
		"malformed":       "not an identity",
		// Another user's payload under the valid one's signature.
		"altered": otherPayload + "." + signature,
	}

	var seen []string
	for _, r := range s.routes {
		if !strings.HasPrefix(r.Path, "/api/") {
			continue
		}
		seen = append(seen, r.Method+" "+r.Path)
		path := strings.ReplaceAll(r.Path, ":md5", strings.Repeat("ab", 16))
		for name, identity := range refused {
			resp, body := send(t, s, r.Method, path, identity, "", nil)
			if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != `Bearer realm="carhub"` {
				t.Errorf("%s %s, identity %s: %d, WWW-Authenticate %q; want 401 Bearer",
					r.Method, path, name, resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
			}
			if r.Method != http.MethodHead && !strings.Contains(string(body), `"code":"UNAUTHORIZED"`) {
				t.Errorf("%s %s, identity %s: body %s", r.Method, path, name, body)
			}
		}
	}
	for _, want := range []string{
		"POST /api/chat/stream", "POST /api/documents/upload", "POST /api/documents/upload/stream",
		"POST /api/documents/import", "GET /api/documents", "DELETE /api/documents/:md5",
		"GET /api/documents/:md5/file", "HEAD /api/documents/:md5/file", "GET /api/documents/:md5/pages/:page",
	} {
		if !slices.Contains(seen, want) {
			t.Errorf("route %s was not checked (routes %v)", want, seen)
		}
	}
	if n := len(s.fake.EmbeddingRequests()) + len(s.fake.ChatRequests()); n != 0 {
		t.Errorf("%d provider calls for refused requests", n)
	}

	// The same requests with the valid identity pass.
	if resp, body := send(t, s, http.MethodGet, "/api/documents", valid, "", nil); resp.StatusCode != http.StatusOK || string(body) != "[]" {
		t.Errorf("GET /api/documents with a valid identity: %d %s", resp.StatusCode, body)
	}
	if resp, body := send(t, s, http.MethodGet, "/health", "", "", nil); resp.StatusCode != http.StatusOK {
		t.Errorf("/health without an identity: %d %s", resp.StatusCode, body)
	}
}

// TestAccountsRefuseWhatTheIdentityMayNotDo: a read-only identity reads
// but every write is 403 FORBIDDEN, and a user who is no administrator may
// not import; a refused request stores nothing and calls no provider.
func TestAccountsRefuseWhatTheIdentityMayNotDo(t *testing.T) {
	s := newService(t, options{accounts: true})
	doc := s.uploadPDF(t, "manual.pdf", manual("scopes"))
	must(t, os.WriteFile(filepath.Join(s.dataDir, "library.pdf"), manual("library"), 0o644))
	calls := len(s.fake.EmbeddingRequests())

	reader := auth.Sign(accountsSecret, auth.Identity{UserID: 42, Username: "admin", Admin: true, Scope: auth.ScopeRead}, testNow)
	if resp, body := send(t, s, http.MethodGet, "/api/documents", reader, "", nil); resp.StatusCode != http.StatusOK ||
		!strings.Contains(string(body), doc.FileMD5) {
		t.Errorf("read-only GET /api/documents: %d %s", resp.StatusCode, body)
	}
	if resp, _ := send(t, s, http.MethodHead, "/api/documents/"+doc.FileMD5+"/file", reader, "", nil); resp.StatusCode != http.StatusOK {
		t.Errorf("read-only HEAD of the file: %d", resp.StatusCode)
	}
	ct, upload := multipartBody(t, part{"file", "other.pdf", manual("other")})
	for _, w := range []struct {
		method, path, contentType string
		body                      []byte
	}{
		{http.MethodPost, "/api/chat/stream", "application/json", []byte(`{"question":"oil?"}`)},
		{http.MethodPost, "/api/documents/upload", ct, upload},
		{http.MethodPost, "/api/documents/upload/stream", ct, upload},
		{http.MethodPost, "/api/documents/import", "", nil},
		{http.MethodDelete, "/api/documents/" + doc.FileMD5, "", nil},
	} {
		resp, body := send(t, s, w.method, w.path, reader, w.contentType, w.body)
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(body), `"code":"FORBIDDEN"`) ||
			!strings.Contains(string(body), "may only read") {
			t.Errorf("read-only %s %s: %d %s, want 403 FORBIDDEN", w.method, w.path, resp.StatusCode, body)
		}
	}

	user := auth.Sign(accountsSecret, auth.Identity{UserID: 43, Username: "user", Scope: auth.ScopeWrite}, testNow)
	resp, body := send(t, s, http.MethodPost, "/api/documents/import", user, "", nil)
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(body), `"code":"FORBIDDEN"`) ||
		!strings.Contains(string(body), "administrator") {
		t.Errorf("import by a user: %d %s, want 403 FORBIDDEN", resp.StatusCode, body)
	}

	var list []struct{ FileMD5 string }
	decode(t, s.get(t, "/api/documents"), http.StatusOK, &list)
	if len(list) != 1 || list[0].FileMD5 != doc.FileMD5 || len(s.fake.EmbeddingRequests()) != calls || len(s.fake.ChatRequests()) != 0 {
		t.Errorf("after the refused requests: documents %+v, embedding calls %d -> %d, chat calls %d",
			list, calls, len(s.fake.EmbeddingRequests()), len(s.fake.ChatRequests()))
	}
}
