package notify

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// browser is the user agent's side of a push subscription: the keys the
// test decrypts with.
type browser struct {
	key  *ecdh.PrivateKey
	auth []byte
}

func newBrowser(tb testing.TB) browser {
	tb.Helper()
	key, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	auth := make([]byte, 16)
	_, _ = rand.Read(auth)
	return browser{key: key, auth: auth}
}

// subscription is what the browser's PushSubscription.toJSON() gives.
func (b browser) subscription(endpoint string) Subscription {
	return Subscription{
		Endpoint: endpoint,
		P256dh:   base64.RawURLEncoding.EncodeToString(b.key.PublicKey().Bytes()),
		Auth:     base64.RawURLEncoding.EncodeToString(b.auth),
	}
}

// decrypt opens an aes128gcm body (RFC 8188) as a browser does (RFC 8291).
func (b browser) decrypt(tb testing.TB, body []byte) []byte {
	tb.Helper()
	if len(body) < 21 {
		tb.Fatalf("body of %d bytes has no aes128gcm header", len(body))
	}
	salt, rs, idlen := body[:16], binary.BigEndian.Uint32(body[16:20]), int(body[20])
	if idlen != 65 || len(body) < 21+idlen {
		tb.Fatalf("key id is %d bytes, want the 65-byte server key", idlen)
	}
	serverPub, err := ecdh.P256().NewPublicKey(body[21 : 21+idlen])
	if err != nil {
		tb.Fatalf("server key: %v", err)
	}
	record := body[21+idlen:]
	if uint32(len(record)) > rs {
		tb.Fatalf("one record of %d bytes is larger than rs %d", len(record), rs)
	}
	secret, err := b.key.ECDH(serverPub)
	if err != nil {
		tb.Fatal(err)
	}
	keyInfo := "WebPush: info\x00" + string(b.key.PublicKey().Bytes()) + string(serverPub.Bytes())
	ikm := must(hkdf.Key(sha256.New, secret, b.auth, keyInfo, 32))
	cek := must(hkdf.Key(sha256.New, ikm, salt, "Content-Encoding: aes128gcm\x00", 16))
	nonce := must(hkdf.Key(sha256.New, ikm, salt, "Content-Encoding: nonce\x00", 12))
	block := must(aes.NewCipher(cek))
	gcm := must(cipher.NewGCM(block))
	plain, err := gcm.Open(nil, nonce, record, nil)
	if err != nil {
		tb.Fatalf("decrypting: %v", err)
	}
	plain = bytes.TrimRight(plain, "\x00")
	if len(plain) == 0 || plain[len(plain)-1] != 2 {
		tb.Fatal("the last record does not end in the delimiter 0x02")
	}
	return plain[:len(plain)-1]
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// pushService is a stand-in for a browser vendor's push service.
type pushService struct {
	*httptest.Server
	status int
	header http.Header

	mu       sync.Mutex
	requests []recorded
}

type recorded struct {
	method, path string
	header       http.Header
	body         []byte
}

func newPushService(tb testing.TB, status int) *pushService {
	tb.Helper()
	s := &pushService{status: status, header: http.Header{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.requests = append(s.requests, recorded{r.Method, r.URL.Path, r.Header.Clone(), body})
		s.mu.Unlock()
		for k, v := range s.header {
			w.Header()[k] = v
		}
		w.WriteHeader(s.status)
	}))
	tb.Cleanup(s.Close)
	return s
}

func (s *pushService) received(tb testing.TB) []recorded {
	tb.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]recorded(nil), s.requests...)
}

func mustKeys(tb testing.TB) VAPIDKeys {
	tb.Helper()
	k, err := GenerateVAPIDKeys()
	if err != nil {
		tb.Fatal(err)
	}
	return k
}

// jwtClaims checks an ES256 JWT's signature against pub and returns its
// claims, reading the token as a push service does.
func jwtClaims(tb testing.TB, token string, pub *ecdsa.PublicKey) map[string]any {
	tb.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		tb.Fatalf("JWT has %d parts", len(parts))
	}
	var header map[string]any
	if err := json.Unmarshal(must(base64.RawURLEncoding.DecodeString(parts[0])), &header); err != nil {
		tb.Fatal(err)
	}
	if header["alg"] != "ES256" {
		tb.Fatalf("JWT alg = %v, want ES256", header["alg"])
	}
	sig := must(base64.RawURLEncoding.DecodeString(parts[2]))
	if len(sig) != 64 {
		tb.Fatalf("ES256 signature is %d bytes, want r||s of 64", len(sig))
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	r, s := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])
	if !ecdsa.Verify(pub, digest[:], r, s) {
		tb.Fatal("the VAPID JWT's signature does not verify with the public key")
	}
	var claims map[string]any
	if err := json.Unmarshal(must(base64.RawURLEncoding.DecodeString(parts[1])), &claims); err != nil {
		tb.Fatal(err)
	}
	return claims
}

func TestPushSendIsDecryptableAndSigned(t *testing.T) {
	svc := newPushService(t, http.StatusCreated)
	keys := mustKeys(t)
	b := newBrowser(t)
	p := Push{Keys: keys, Subject: "mailto:ops@example.org", TTL: 90 * time.Minute, Client: NewHTTPClient(true, 5*time.Second)}
	m := Message{Title: "Oil change is overdue - Golf", Body: "Due at 120 000 km.", URL: "https://cars.example.org/reminders/7"}

	if err := p.Send(context.Background(), b.subscription(svc.URL+"/push/abc123"), m); err != nil {
		t.Fatal(err)
	}
	got := svc.received(t)
	if len(got) != 1 {
		t.Fatalf("push service got %d requests, want 1", len(got))
	}
	req := got[0]
	if req.method != http.MethodPost || req.path != "/push/abc123" {
		t.Errorf("request = %s %s, want POST /push/abc123", req.method, req.path)
	}
	for k, want := range map[string]string{"Content-Encoding": "aes128gcm", "Ttl": "5400", "Content-Type": "application/octet-stream"} {
		if v := req.header.Get(k); v != want {
			t.Errorf("%s = %q, want %q", k, v, want)
		}
	}
	if len(req.body) != pushRecordSize {
		t.Errorf("body is %d bytes, want the padded %d", len(req.body), pushRecordSize)
	}

	var payload map[string]string
	if err := json.Unmarshal(b.decrypt(t, req.body), &payload); err != nil {
		t.Fatalf("payload is not JSON: %v", err)
	}
	want := map[string]string{"title": m.Title, "body": m.Body, "url": m.URL}
	if len(payload) != len(want) {
		t.Errorf("payload = %v, want %v", payload, want)
	}
	for k, v := range want {
		if payload[k] != v {
			t.Errorf("payload[%q] = %q, want %q", k, payload[k], v)
		}
	}

	// Authorization: vapid t=<JWT>, k=<public key> (RFC 8292 section 3).
	auth, ok := strings.CutPrefix(req.header.Get("Authorization"), "vapid ")
	if !ok {
		t.Fatalf("Authorization = %q, want the vapid scheme", req.header.Get("Authorization"))
	}
	params := map[string]string{}
	for part := range strings.SplitSeq(auth, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		params[k] = v
	}
	if params["k"] != keys.PublicKey() {
		t.Errorf("k = %q, want PublicKey() %q", params["k"], keys.PublicKey())
	}
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), must(base64.RawURLEncoding.DecodeString(keys.PublicKey())))
	if err != nil {
		t.Fatal(err)
	}
	claims := jwtClaims(t, params["t"], pub)
	if claims["aud"] != svc.URL {
		t.Errorf("aud = %v, want the endpoint's origin %s", claims["aud"], svc.URL)
	}
	if claims["sub"] != "mailto:ops@example.org" {
		t.Errorf("sub = %v, want mailto:ops@example.org (once)", claims["sub"])
	}
	exp, _ := claims["exp"].(float64)
	if until := time.Until(time.Unix(int64(exp), 0)); until <= 0 || until > 24*time.Hour {
		t.Errorf("exp is %v from now, want within 24 hours (RFC 8292)", until)
	}
}

func TestPushSendSubjects(t *testing.T) {
	svc := newPushService(t, http.StatusCreated)
	keys := mustKeys(t)
	b := newBrowser(t)
	pub, _ := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), must(base64.RawURLEncoding.DecodeString(keys.PublicKey())))
	for _, subject := range []string{"mailto:ops@example.org", "https://cars.example.org/"} {
		p := Push{Keys: keys, Subject: subject, Client: NewHTTPClient(true, 5*time.Second)}
		if err := p.Send(context.Background(), b.subscription(svc.URL+"/s"), Message{Title: "t"}); err != nil {
			t.Fatal(err)
		}
		got := svc.received(t)
		req := got[len(got)-1]
		if ttl := req.header.Get("TTL"); ttl != "604800" {
			t.Errorf("TTL = %s, want the default 7 days", ttl)
		}
		_, rest, _ := strings.Cut(req.header.Get("Authorization"), "t=")
		token, _, _ := strings.Cut(rest, ",")
		if sub := jwtClaims(t, token, pub)["sub"]; sub != subject {
			t.Errorf("sub = %v, want %s", sub, subject)
		}
	}
	for _, bad := range []string{"", "ops@example.org", "mailto:", "http://cars.example.org", "https://"} {
		err := Push{Keys: keys, Subject: bad, Client: NewHTTPClient(true, time.Second)}.Send(context.Background(), b.subscription(svc.URL), Message{})
		if err == nil || !Permanent(err) {
			t.Errorf("subject %q: err = %v, want a permanent error", bad, err)
		}
		if CheckVAPIDSubject(bad) == nil {
			t.Errorf("CheckVAPIDSubject(%q) = nil", bad)
		}
	}
}

func TestPushSendAnswers(t *testing.T) {
	tests := []struct {
		status             int
		retryAfter         string
		wantErr, gone, per bool
		wantRetryAfter     time.Duration
	}{
		{status: http.StatusCreated},
		{status: http.StatusOK},
		{status: http.StatusNotFound, wantErr: true, gone: true, per: true},
		{status: http.StatusGone, wantErr: true, gone: true, per: true},
		{status: http.StatusBadRequest, wantErr: true, per: true},
		{status: http.StatusForbidden, wantErr: true, per: true},
		{status: http.StatusRequestEntityTooLarge, wantErr: true, per: true},
		{status: http.StatusTooManyRequests, retryAfter: "120", wantErr: true, wantRetryAfter: 2 * time.Minute},
		{status: http.StatusInternalServerError, wantErr: true},
		{status: http.StatusServiceUnavailable, wantErr: true},
	}
	keys := mustKeys(t)
	b := newBrowser(t)
	for _, tt := range tests {
		t.Run(http.StatusText(tt.status), func(t *testing.T) {
			svc := newPushService(t, tt.status)
			if tt.retryAfter != "" {
				svc.header.Set("Retry-After", tt.retryAfter)
			}
			p := Push{Keys: keys, Subject: "mailto:ops@example.org", Client: NewHTTPClient(true, 5*time.Second)}
			err := p.Send(context.Background(), b.subscription(svc.URL+"/wpush/v2/SECRET-CAPABILITY"), Message{Title: "x"})
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if errors.Is(err, ErrGone) != tt.gone {
				t.Errorf("errors.Is(ErrGone) = %v, want %v (%v)", !tt.gone, tt.gone, err)
			}
			if Permanent(err) != tt.per {
				t.Errorf("Permanent = %v, want %v (%v)", !tt.per, tt.per, err)
			}
			if err == nil {
				return
			}
			var se *StatusError
			if !errors.As(err, &se) || se.Code != tt.status || se.RetryAfter != tt.wantRetryAfter {
				t.Errorf("err = %#v, want a StatusError %d retry after %v", se, tt.status, tt.wantRetryAfter)
			}
			if strings.Contains(err.Error(), "SECRET-CAPABILITY") {
				t.Errorf("error %q repeats the endpoint's path", err)
			}
		})
	}
}

func TestPushSendNetworkErrors(t *testing.T) {
	keys := mustKeys(t)
	b := newBrowser(t)
	svc := newPushService(t, http.StatusCreated)
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()

	t.Run("refused connection is not permanent", func(t *testing.T) {
		p := Push{Keys: keys, Subject: "mailto:ops@example.org", Client: NewHTTPClient(true, 5*time.Second)}
		err := p.Send(context.Background(), b.subscription(closedURL+"/SECRET-CAPABILITY"), Message{})
		if err == nil || Permanent(err) {
			t.Fatalf("err = %v, want a temporary error", err)
		}
		if strings.Contains(err.Error(), "SECRET-CAPABILITY") {
			t.Errorf("error %q repeats the endpoint's path", err)
		}
	})
	t.Run("the default client refuses a private endpoint", func(t *testing.T) {
		p := Push{Keys: keys, Subject: "mailto:ops@example.org"}
		err := p.Send(context.Background(), b.subscription(svc.URL+"/x"), Message{})
		if !errors.Is(err, ErrForbiddenAddress) || !Permanent(err) {
			t.Fatalf("err = %v, want ErrForbiddenAddress", err)
		}
		if n := len(svc.received(t)); n != 0 {
			t.Errorf("push service got %d requests, want none", n)
		}
	})
	t.Run("no keys", func(t *testing.T) {
		err := Push{Subject: "mailto:ops@example.org"}.Send(context.Background(), b.subscription(svc.URL), Message{})
		if err == nil || !Permanent(err) {
			t.Fatalf("err = %v, want a permanent error", err)
		}
	})
	t.Run("bad subscription", func(t *testing.T) {
		s := b.subscription(svc.URL)
		s.Auth = "AAAA"
		err := Push{Keys: keys, Subject: "mailto:ops@example.org"}.Send(context.Background(), s, Message{})
		if err == nil || !Permanent(err) || !strings.Contains(err.Error(), "keys.auth") {
			t.Fatalf("err = %v, want a permanent error naming keys.auth", err)
		}
	})
}

func TestPushSendShortensLongMessages(t *testing.T) {
	svc := newPushService(t, http.StatusCreated)
	b := newBrowser(t)
	p := Push{Keys: mustKeys(t), Subject: "mailto:ops@example.org", Client: NewHTTPClient(true, 5*time.Second)}
	m := Message{Title: "Daily digest - 40 reminders", Body: strings.Repeat("Ölwechsel <überfällig> ", 200), URL: "https://cars.example.org/reminders"}
	if err := p.Send(context.Background(), b.subscription(svc.URL), m); err != nil {
		t.Fatal(err)
	}
	var payload map[string]string
	plain := b.decrypt(t, svc.received(t)[0].body)
	if err := json.Unmarshal(plain, &payload); err != nil {
		t.Fatal(err)
	}
	if payload["title"] != m.Title || payload["url"] != m.URL {
		t.Errorf("title/url = %q %q, want them whole", payload["title"], payload["url"])
	}
	if !strings.HasSuffix(payload["body"], "…") || !strings.HasPrefix(m.Body, strings.TrimSuffix(payload["body"], "…")) {
		t.Errorf("body = %q, want a prefix of the body ending in …", payload["body"])
	}
	if len(plain) > maxPushPayload || len(plain) < maxPushPayload-10 {
		t.Errorf("payload is %d bytes, want just under %d", len(plain), maxPushPayload)
	}
}

func FuzzEncodePushPayload(f *testing.F) {
	f.Add("Oil change is overdue - Golf", "Due at 120 000 km.", "https://cars.example.org/r/1")
	f.Add(strings.Repeat("é", 3000), strings.Repeat("<", 3000), strings.Repeat("u", 3000))
	f.Fuzz(func(t *testing.T, title, body, u string) {
		b := encodePushPayload(Message{Title: title, Body: body, URL: u})
		if len(b) > maxPushPayload {
			t.Fatalf("payload is %d bytes, more than %d", len(b), maxPushPayload)
		}
		var p pushPayload
		if err := json.Unmarshal(b, &p); err != nil {
			t.Fatalf("payload is not JSON: %v", err)
		}
		if utf8.ValidString(body) && !strings.HasPrefix(body, strings.TrimSuffix(p.Body, "…")) {
			t.Fatalf("body %q is not a prefix of %q", p.Body, body)
		}
	})
}

func TestSubscriptionValidate(t *testing.T) {
	b := newBrowser(t)
	good := b.subscription("https://fcm.googleapis.com/fcm/send/abc")
	compressed := must(b.key.PublicKey().Bytes(), error(nil))
	compressed = elliptic.MarshalCompressed(elliptic.P256(), new(big.Int).SetBytes(compressed[1:33]), new(big.Int).SetBytes(compressed[33:]))
	tests := []struct {
		name   string
		edit   func(*Subscription)
		fields []string
	}{
		{"good", func(*Subscription) {}, nil},
		{"padded keys", func(s *Subscription) { s.Auth += "==" }, nil},
		{"no endpoint", func(s *Subscription) { s.Endpoint = "" }, []string{"endpoint"}},
		{"ftp endpoint", func(s *Subscription) { s.Endpoint = "ftp://push.example.org/x" }, []string{"endpoint"}},
		{"long endpoint", func(s *Subscription) { s.Endpoint = "https://p.example.org/" + strings.Repeat("a", 3000) }, []string{"endpoint"}},
		{"p256dh not base64url", func(s *Subscription) { s.P256dh = "not base64!" }, []string{"keys.p256dh"}},
		{"p256dh compressed", func(s *Subscription) { s.P256dh = base64.RawURLEncoding.EncodeToString(compressed) }, []string{"keys.p256dh"}},
		{"p256dh off the curve", func(s *Subscription) {
			k := must(b.key.PublicKey().Bytes(), error(nil))
			k = append([]byte(nil), k...)
			k[64] ^= 1
			s.P256dh = base64.RawURLEncoding.EncodeToString(k)
		}, []string{"keys.p256dh"}},
		{"auth short", func(s *Subscription) { s.Auth = "AAAA" }, []string{"keys.auth"}},
		{"all bad", func(s *Subscription) { *s = Subscription{} }, []string{"endpoint", "keys.p256dh", "keys.auth"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := good
			tt.edit(&s)
			err := s.Validate()
			if (err != nil) != (tt.fields != nil) {
				t.Fatalf("Validate() = %v, want error naming %v", err, tt.fields)
			}
			for _, f := range tt.fields {
				if !strings.Contains(err.Error(), f+":") {
					t.Errorf("error %q does not name %s", err, f)
				}
			}
		})
	}
}
