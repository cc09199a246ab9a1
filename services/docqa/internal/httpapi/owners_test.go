package httpapi_test

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/services/docqa/internal/ingest"
)

// user is who a request of the owners test acts for.
type user struct {
	id    uint64
	admin bool
}

var (
	admin = user{auth.BuiltinUserID, true}
	alice = user{2, false}
	bob   = user{3, false}
)

// do sends a request acting for u, signed as the gateway signs it.
func (u user) do(t *testing.T, s *service, method, path, contentType string, body []byte) (int, []byte) {
	t.Helper()
	id := auth.Identity{UserID: u.id, Username: fmt.Sprint("u", u.id), Admin: u.admin, Scope: auth.ScopeWrite}
	res, b := send(t, s, method, path, auth.Sign(limitSecret, id, time.Now()), contentType, body)
	return res.StatusCode, b
}

func (u user) upload(t *testing.T, s *service, name string, pdf []byte) ingest.Result {
	t.Helper()
	ct, body := multipartBody(t, part{"file", name, pdf})
	code, b := u.do(t, s, http.MethodPost, "/api/documents/upload", ct, body)
	var res ingest.Result
	if code != http.StatusOK || json.Unmarshal(b, &res) != nil {
		t.Fatalf("upload of %s by user %d = %d %s", name, u.id, code, b)
	}
	return res
}

type listed struct {
	FileName string `json:"fileName"`
	FileMD5  string `json:"fileMd5"`
	Shared   bool   `json:"shared"`
}

func (u user) list(t *testing.T, s *service) []listed {
	t.Helper()
	code, b := u.do(t, s, http.MethodGet, "/api/documents", "", nil)
	var docs []listed
	if code != http.StatusOK || json.Unmarshal(b, &docs) != nil {
		t.Fatalf("list of user %d = %d %s", u.id, code, b)
	}
	return docs
}

// sources asks a question and returns the fileMd5 of each source, in order.
func (u user) sources(t *testing.T, s *service, body string) []string {
	t.Helper()
	code, b := u.do(t, s, http.MethodPost, "/api/chat/stream", "application/json", []byte(body))
	if code != http.StatusOK {
		t.Fatalf("chat of user %d = %d %s", u.id, code, b)
	}
	events := withoutComments(readEventsFrom(t, newEventReader(bytes.NewReader(b))))
	if len(events) == 0 || events[0].Name != "sources" {
		t.Fatalf("chat of user %d: events %+v", u.id, events)
	}
	var src sourcesData
	if err := json.Unmarshal([]byte(events[0].Data), &src); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, x := range src.Sources {
		out = append(out, x.FileMD5)
	}
	return out
}

func md5Of(b []byte) string {
	sum := md5.Sum(b)
	return hex.EncodeToString(sum[:])
}

// TestDocumentsPerUser: with accounts on, documents belong to their
// uploader. The same file uploaded by two users is two documents (the
// de-duplication is per user), neither sees, reads, deletes nor gets
// answers from the other's, the import's documents are everyone's and
// only an administrator deletes them, and an original shared by two
// copies stays until the last copy goes.
func TestDocumentsPerUser(t *testing.T) {
	s := newService(t, options{identitySecret: limitSecret})
	oil, brakes, wipers := manual("oil"), manual("brakes"), manual("wipers")
	oilMD5, brakesMD5, wipersMD5 := md5Of(oil), md5Of(brakes), md5Of(wipers)

	a := alice.upload(t, s, "oil.pdf", oil)
	if a.Duplicate || a.Shared || a.FileMD5 != oilMD5 {
		t.Fatalf("alice's upload = %+v", a)
	}
	calls := len(s.fake.EmbeddingRequests())
	b := bob.upload(t, s, "bob-oil.pdf", oil)
	if b.Duplicate || b.FileName != "bob-oil.pdf" || len(s.fake.EmbeddingRequests()) == calls {
		t.Fatalf("bob's upload of alice's file = %+v (embedding calls %d -> %d); want his own document",
			b, calls, len(s.fake.EmbeddingRequests()))
	}
	if again := bob.upload(t, s, "again.pdf", oil); !again.Duplicate || again.FileName != "bob-oil.pdf" {
		t.Fatalf("bob's second upload = %+v, want a duplicate of his own", again)
	}
	bob.upload(t, s, "brakes.pdf", brakes)

	if got := alice.list(t, s); !slices.Equal(got, []listed{{"oil.pdf", oilMD5, false}}) {
		t.Fatalf("alice's list = %+v", got)
	}
	if got := bob.list(t, s); len(got) != 2 || !slices.Contains(got, listed{"bob-oil.pdf", oilMD5, false}) ||
		!slices.Contains(got, listed{"brakes.pdf", brakesMD5, false}) {
		t.Fatalf("bob's list = %+v", got)
	}

	// Bob's document does not exist for alice: 404 everywhere, 400 naming
	// documents[0] when she names it in a question.
	for _, req := range []struct{ method, path string }{
		{http.MethodGet, "/api/documents/" + brakesMD5 + "/file"},
		{http.MethodDelete, "/api/documents/" + brakesMD5},
	} {
		if code, body := alice.do(t, s, req.method, req.path, "", nil); code != http.StatusNotFound {
			t.Errorf("alice %s %s = %d %s, want 404", req.method, req.path, code, body)
		}
	}
	code, body := alice.do(t, s, http.MethodPost, "/api/chat/stream", "application/json",
		[]byte(`{"question":"brake pads?","documents":["`+brakesMD5+`"]}`))
	if code != http.StatusBadRequest || !strings.Contains(string(body), "documents[0]") {
		t.Errorf("alice's question on bob's document = %d %s, want 400 naming documents[0]", code, body)
	}
	// Her answers come from her documents only, though bob's brake manual
	// holds the words of the question.
	if got := alice.sources(t, s, `{"question":"What does the brakes manual say about tyre pressure?","topK":10}`); len(got) == 0 ||
		slices.ContainsFunc(got, func(m string) bool { return m != oilMD5 }) {
		t.Errorf("alice's sources = %v, want her oil manual's only", got)
	}
	if got := bob.sources(t, s, `{"question":"What does the brakes manual say?","topK":10}`); !slices.Contains(got, brakesMD5) {
		t.Errorf("bob's sources = %v, want his brake manual among them", got)
	}

	// The shared library: imported by an administrator, read by everyone.
	must(t, os.WriteFile(filepath.Join(s.dataDir, "wipers.pdf"), wipers, 0o644))
	if code, body := alice.do(t, s, http.MethodPost, "/api/documents/import", "", nil); code != http.StatusForbidden {
		t.Fatalf("import by a user = %d %s, want 403", code, body)
	}
	if code, body := admin.do(t, s, http.MethodPost, "/api/documents/import", "", nil); code != http.StatusOK {
		t.Fatalf("import = %d %s", code, body)
	}
	for _, u := range []user{alice, bob} {
		if got := u.list(t, s); !slices.Contains(got, listed{"wipers.pdf", wipersMD5, true}) {
			t.Errorf("list of user %d = %+v, want the shared wipers.pdf", u.id, got)
		}
		if got := u.sources(t, s, `{"question":"wipers","topK":10,"documents":["`+wipersMD5+`"]}`); len(got) == 0 ||
			slices.ContainsFunc(got, func(m string) bool { return m != wipersMD5 }) {
			t.Errorf("sources of user %d asking the shared manual = %v", u.id, got)
		}
	}
	if code, body := bob.do(t, s, http.MethodDelete, "/api/documents/"+wipersMD5, "", nil); code != http.StatusForbidden ||
		!strings.Contains(string(body), "FORBIDDEN") {
		t.Errorf("bob deleting a shared document = %d %s, want 403 FORBIDDEN", code, body)
	}

	// Alice's and bob's copies of oil.pdf share one original: it stays
	// until the last copy is deleted.
	original := filepath.Join(s.filesDir, oilMD5+".pdf")
	if code, body := alice.do(t, s, http.MethodDelete, "/api/documents/"+oilMD5, "", nil); code != http.StatusNoContent {
		t.Fatalf("alice's delete = %d %s", code, body)
	}
	if code, _ := bob.do(t, s, http.MethodGet, "/api/documents/"+oilMD5+"/file", "", nil); code != http.StatusOK {
		t.Fatalf("bob's original after alice deleted her copy = %d, want 200", code)
	}
	if got := alice.list(t, s); !slices.Equal(got, []listed{{"wipers.pdf", wipersMD5, true}}) {
		t.Errorf("alice's list after her delete = %+v", got)
	}
	if code, body := bob.do(t, s, http.MethodDelete, "/api/documents/"+oilMD5, "", nil); code != http.StatusNoContent {
		t.Fatalf("bob's delete = %d %s", code, body)
	}
	if _, err := os.Stat(original); !os.IsNotExist(err) {
		t.Errorf("original after the last copy went: %v, want it removed", err)
	}
	if code, body := admin.do(t, s, http.MethodDelete, "/api/documents/"+wipersMD5, "", nil); code != http.StatusNoContent {
		t.Errorf("administrator deleting a shared document = %d %s", code, body)
	}
}
