package main

import (
	"bytes"
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
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/carhub/backend/pkg/caddytest"
	"github.com/carhub/backend/services/fuel/internal/store/storetest"
)

// received is one request a stand-in receiver got.
type received struct {
	header http.Header
	body   []byte
}

// receiver is a stand-in webhook receiver or push service: it answers
// status and keeps what it got.
type receiver struct {
	*httptest.Server
	mu  sync.Mutex
	got []received
}

func newReceiver(t *testing.T, status int) *receiver {
	r := &receiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got = append(r.got, received{req.Header.Clone(), b})
		r.mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) requests() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.got...)
}

// pushBrowser is a browser's push subscription keys.
type pushBrowser struct {
	key  *ecdh.PrivateKey
	auth []byte
}

func (b pushBrowser) subscriptionJSON(endpoint string) string {
	enc := base64.RawURLEncoding.EncodeToString
	return fmt.Sprintf(`{"endpoint":%q,"expirationTime":null,"keys":{"p256dh":%q,"auth":%q}}`, endpoint, enc(b.key.PublicKey().Bytes()), enc(b.auth))
}

// decrypt opens an aes128gcm push body (RFC 8188, RFC 8291) as the
// browser does.
func (b pushBrowser) decrypt(t *testing.T, body []byte) []byte {
	t.Helper()
	if len(body) < 21+65 || body[20] != 65 {
		t.Fatalf("no aes128gcm header with the server's key in %d bytes", len(body))
	}
	salt, rs := body[:16], binary.BigEndian.Uint32(body[16:20])
	server, err := ecdh.P256().NewPublicKey(body[21:86])
	if err != nil {
		t.Fatal(err)
	}
	record := body[86:]
	if uint32(len(record)) > rs {
		t.Fatalf("record of %d bytes beyond rs %d", len(record), rs)
	}
	secret, err := b.key.ECDH(server)
	if err != nil {
		t.Fatal(err)
	}
	ikm, err := hkdf.Key(sha256.New, secret, b.auth, "WebPush: info\x00"+string(b.key.PublicKey().Bytes())+string(server.Bytes()), 32)
	if err != nil {
		t.Fatal(err)
	}
	cek, _ := hkdf.Key(sha256.New, ikm, salt, "Content-Encoding: aes128gcm\x00", 16)
	nonce, _ := hkdf.Key(sha256.New, ikm, salt, "Content-Encoding: nonce\x00", 12)
	block, _ := aes.NewCipher(cek)
	gcm, _ := cipher.NewGCM(block)
	plain, err := gcm.Open(nil, nonce, record, nil)
	if err != nil {
		t.Fatalf("decrypt the push: %v", err)
	}
	plain = bytes.TrimRight(plain, "\x00")
	if len(plain) == 0 || plain[len(plain)-1] != 2 {
		t.Fatal("no 0x02 delimiter after the last record")
	}
	return plain[:len(plain)-1]
}

// vapidClaims checks the push's Authorization (vapid t=JWT, k=key): k is
// the key the API answered and the ES256 signature verifies with it.
func vapidClaims(t *testing.T, authorization, key string) map[string]any {
	t.Helper()
	var jwt, k string
	for part := range strings.SplitSeq(strings.TrimPrefix(authorization, "vapid "), ",") {
		part = strings.TrimSpace(part)
		if v, ok := strings.CutPrefix(part, "t="); ok {
			jwt = v
		}
		if v, ok := strings.CutPrefix(part, "k="); ok {
			k = v
		}
	}
	if k != key {
		t.Fatalf("VAPID k=%q, want the API's key %q", k, key)
	}
	raw, _ := base64.RawURLEncoding.DecodeString(k)
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), raw)
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		t.Fatalf("JWT %q", jwt)
	}
	sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if len(sig) != 64 || !ecdsa.Verify(pub, digest[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		t.Fatal("the VAPID JWT does not verify with the API's key")
	}
	var claims map[string]any
	payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
	if err := json.Unmarshal(payload, &claims); err != nil {
		t.Fatal(err)
	}
	return claims
}

// TestNotificationsEndToEnd runs the service with its real channels: a
// reminder that is soon reaches a webhook receiver and a stand-in push
// service (the payload decrypted with the subscription's keys, the VAPID
// signature checked against the key the API answers) once; a restart on
// the same database sends nothing again and keeps the VAPID key. The
// gateway routes /api/notifications to the service.
func TestNotificationsEndToEnd(t *testing.T) {
	hook := newReceiver(t, http.StatusOK)
	push := newReceiver(t, http.StatusCreated)
	k, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	browser := pushBrowser{key: k, auth: []byte("0123456789abcdef")}
	vars := map[string]string{
		"FUEL_SQLITE_PATH": filepath.Join(t.TempDir(), "fuel.db"), "NOTIFY_INTERVAL": "100ms", "NOTIFY_RETRY_BASE": "1s",
		// The stand-ins listen on 127.0.0.1.
		"WEBHOOK_ALLOW_PRIVATE": "true", "PUBLIC_URL": "https://cars.example", "NOTIFY_FROM": "CarHub <cars@example.org>",
	}
	call := func(base, method, path, body string, want int) []byte {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != want {
			t.Fatalf("%s %s: %d %s, want %d", method, path, res.StatusCode, b, want)
		}
		return b
	}
	field := func(b []byte, name string) string {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		return strings.Trim(string(m[name]), `"`)
	}
	var key string
	t.Run("first start", func(t *testing.T) {
		base := MustRun(t, vars)
		key = field(call(base, "GET", "/api/notifications/vapid-public-key", "", 200), "key")
		vid := field(call(base, "POST", "/api/vehicles", `{"name":"Golf","fuel_type":"diesel","current_odometer":13500}`, 200), "id")
		rid := field(call(base, "POST", "/api/reminders", `{"vehicle_id":`+vid+`,"title":"Oil change","category":"service","every_km":5000,`+
			`"last_done":{"time":"2026-01-01T00:00:00Z","odometer":9000}}`, 200), "id")
		call(base, "POST", "/api/notifications/push-subscriptions", browser.subscriptionJSON(push.URL+"/push/sub-1"), 201)
		call(base, "PUT", "/api/notifications/settings", `{"webhook_url":"`+hook.URL+`/hook","webhook_token":"tok-e2e",`+
			`"channels":{"push":true,"webhook":true}}`, 200)

		deadline := time.Now().Add(20 * time.Second)
		for (len(hook.requests()) == 0 || len(push.requests()) == 0) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		time.Sleep(500 * time.Millisecond) // five more evaluations: nothing more may come
		hooks, pushes := hook.requests(), push.requests()
		if len(hooks) != 1 || len(pushes) != 1 {
			t.Fatalf("webhook got %d, push service %d; want 1 each", len(hooks), len(pushes))
		}
		link := "https://cars.example/costs?reminder=" + rid + "&vehicle=" + vid
		var sent map[string]any
		if err := json.Unmarshal(hooks[0].body, &sent); err != nil {
			t.Fatal(err)
		}
		if sent["type"] != "reminder" || sent["status"] != "soon" || sent["title"] != "Oil change" || sent["vehicle"] != "Golf" ||
			sent["due_odometer"] != "14000" || sent["due_in_km"] != "500" || sent["url"] != link {
			t.Errorf("webhook body %s", hooks[0].body)
		}
		if got := hooks[0].header.Get("Authorization"); got != "Bearer tok-e2e" {
			t.Errorf("webhook Authorization %q", got)
		}
		var payload struct{ Title, Body, URL string }
		if err := json.Unmarshal(browser.decrypt(t, pushes[0].body), &payload); err != nil {
			t.Fatal(err)
		}
		if payload.Title != "Oil change is due soon - Golf" || payload.Body != "due at 14,000 km (500 km left)" || payload.URL != link {
			t.Errorf("push payload %+v", payload)
		}
		if pushes[0].header.Get("Content-Encoding") != "aes128gcm" || pushes[0].header.Get("TTL") == "" {
			t.Errorf("push headers %v", pushes[0].header)
		}
		claims := vapidClaims(t, pushes[0].header.Get("Authorization"), key)
		if claims["aud"] != push.URL || claims["sub"] != "mailto:cars@example.org" {
			t.Errorf("VAPID claims %v", claims)
		}
		log := call(base, "GET", "/api/notifications", "", 200)
		if n := strings.Count(string(log), `"status":"sent"`); n != 2 || strings.Contains(string(log), "tok-e2e") {
			t.Errorf("log %s", log)
		}

		gw := caddytest.Start(t, "FUEL_UPSTREAM="+strings.TrimPrefix(base, "http://"), "DOCQA_UPSTREAM=127.0.0.1:1", "WEB_ROOT="+t.TempDir())
		for end := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) {
			res, err := http.Get(gw + "/api/notifications/settings")
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode == 200 && field(b, "webhook_token_set") == "true" {
				break
			}
			if time.Now().After(end) {
				t.Fatalf("through the gateway: %d %s", res.StatusCode, b)
			}
		}
	})
	t.Run("restart", func(t *testing.T) {
		base := MustRun(t, vars)
		if got := field(call(base, "GET", "/api/notifications/vapid-public-key", "", 200), "key"); got != key {
			t.Fatalf("VAPID key after a restart %q, want the kept %q", got, key)
		}
		time.Sleep(time.Second) // ten evaluations
		if len(hook.requests()) != 1 || len(push.requests()) != 1 {
			t.Fatalf("after the restart the webhook got %d, the push service %d; want still 1 each", len(hook.requests()), len(push.requests()))
		}
	})
}

// TestNotifyConfigErrors: bad notification settings stop the start with a
// message naming the variable and never the secret.
func TestNotifyConfigErrors(t *testing.T) {
	for name, c := range map[string]struct {
		vars map[string]string
		want string
	}{
		"interval":  {map[string]string{"NOTIFY_INTERVAL": "0s"}, "NOTIFY_INTERVAL"},
		"retries":   {map[string]string{"NOTIFY_RETRIES": "-1"}, "NOTIFY_RETRIES"},
		"base":      {map[string]string{"NOTIFY_RETRY_BASE": "0s"}, "NOTIFY_RETRY_BASE"},
		"public":    {map[string]string{"PUBLIC_URL": "cars.example"}, "PUBLIC_URL"},
		"vapid key": {map[string]string{"VAPID_PRIVATE_KEY": "not-a-key-zq-private"}, "VAPID_PRIVATE_KEY"},
		"subject":   {map[string]string{"VAPID_SUBJECT": "cars@example.org"}, "VAPID_SUBJECT"},
		"smtp":      {map[string]string{"SMTP_URL": "smtp://user:pw-zq-private@mail.example:587"}, "NOTIFY_FROM"},
	} {
		t.Run(name, func(t *testing.T) {
			// A migrated database: each start refuses its settings, and
			// migrating a new database each time is not what is checked.
			c.vars["FUEL_SQLITE_PATH"] = storetest.SQLitePath(t)
			c.vars["FUEL_ADDR"] = "127.0.0.1:0"
			var out bytes.Buffer
			err := run(t.Context(), env(c.vars), &out)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want one naming %s", err, c.want)
			}
			if strings.Contains(err.Error()+out.String(), "zq-private") {
				t.Fatalf("a secret in %v or the log:\n%s", err, out.String())
			}
		})
	}
}
