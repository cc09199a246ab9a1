package httpapi_test

import (
	"bytes"
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/services/fuel/internal/accounts"
	"github.com/carhub/backend/services/fuel/internal/httpapi"
	"github.com/carhub/backend/services/fuel/internal/notifications"
	"github.com/carhub/backend/services/fuel/internal/notify"
	"github.com/carhub/backend/services/fuel/internal/store"
)

// notifyStub stands in for the channels: it keeps what it was sent and
// fails a channel whose error is set.
type notifyStub struct {
	mu   sync.Mutex
	sent []string // "channel title"
	errs map[notifications.Channel]error
}

func (n *notifyStub) send(ch notifications.Channel, m notifications.Message) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if err := n.errs[ch]; err != nil {
		return err
	}
	n.sent = append(n.sent, string(ch)+" "+m.Title)
	return nil
}

func (n *notifyStub) SendPush(_ context.Context, _ notifications.Subscription, m notifications.Message) error {
	return n.send(notifications.ChannelPush, m)
}

func (n *notifyStub) SendMail(_ context.Context, _ string, m notifications.Message) error {
	return n.send(notifications.ChannelEmail, m)
}

func (n *notifyStub) SendWebhook(_ context.Context, _ notifications.WebhookTarget, m notifications.Message) error {
	return n.send(notifications.ChannelWebhook, m)
}

// realCheck is the service's own URL check (private addresses refused).
type realCheck struct{}

func (realCheck) CheckURL(ctx context.Context, raw string) error {
	return notify.CheckURL(ctx, raw, false)
}

const testVAPIDKey = "BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM"

// notifyServer is the API of dialect d with notifications on the stub
// (e-mail off unless mail), the service and what it logs; with accounts,
// requests carry root's session.
type notifyServer struct {
	*server
	svc  *notifications.Service
	stub *notifyStub
	logs *bytes.Buffer
}

func newNotifyServer(t *testing.T, d store.Dialect, withAccounts, mail bool) *notifyServer {
	t.Helper()
	n := &notifyServer{stub: &notifyStub{errs: map[notifications.Channel]error{}}, logs: &bytes.Buffer{}}
	var logMu sync.Mutex
	log := slog.New(slog.NewTextHandler(lockedWriter{&logMu, n.logs}, nil))
	service := func(st *store.Store) *notifications.Service {
		opts := notifications.Options{Push: n.stub, Webhook: n.stub, URLs: realCheck{}, VAPIDPublicKey: testVAPIDKey,
			PublicURL: "https://cars.example", Retries: 0, Log: log}
		if mail {
			opts.Mail = n.stub
		}
		n.svc = notifications.New(st, st, opts)
		return n.svc
	}
	if withAccounts {
		n.server = authServerWith(t, d, func(o *httpapi.Options, st *store.Store) { o.Notifications = service(st) })
		n.token = n.session("root")
		return n
	}
	st := mustStore(t, d)
	ts := httptest.NewServer(httpapi.New(log, st, httpapi.Options{Notifications: service(st)}))
	t.Cleanup(ts.Close)
	n.server = &server{tb: t, url: ts.URL, store: st}
	return n
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// forEachNotify runs fn on each database, with accounts off and on.
func forEachNotify(t *testing.T, mail bool, fn func(t *testing.T, n *notifyServer)) {
	for _, d := range dialects {
		t.Run(string(d), func(t *testing.T) { fn(t, newNotifyServer(t, d, false, mail)) })
		t.Run(string(d)+"-accounts", func(t *testing.T) { fn(t, newNotifyServer(t, d, true, mail)) })
	}
}

// subscription is a browser's PushSubscription JSON with real keys.
func subscription(t *testing.T, endpoint string) string {
	t.Helper()
	k, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	secret := make([]byte, 16)
	_, _ = rand.Read(secret)
	enc := base64.RawURLEncoding.EncodeToString
	return fmt.Sprintf(`{"endpoint":%q,"expirationTime":null,"keys":{"p256dh":%q,"auth":%q}}`, endpoint, enc(k.PublicKey().Bytes()), enc(secret))
}

func TestNotificationSettingsAPI(t *testing.T) {
	forEachNotify(t, true, func(t *testing.T, n *notifyServer) {
		const defaults = `{"email":null,"webhook_url":null,"webhook_format":"generic","webhook_token_set":false,` +
			`"channels":{"push":false,"email":false,"webhook":false},"when":"due","digest_time":"08:00","viewer_reminders":false,` +
			`"available":{"push":true,"email":true,"webhook":true},"updated_at":null}`
		if got := string(n.must(200, "GET", "/api/notifications/settings", "").body); got != defaults {
			t.Fatalf("defaults:\n%s\nwant\n%s", got, defaults)
		}
		res := n.must(200, "PUT", "/api/notifications/settings", `{"email":" owner@example.com ","webhook_url":"https://203.0.113.8/hook",`+
			`"webhook_format":"ntfy","webhook_token":"tok-SECRET-1","channels":{"push":true,"email":true,"webhook":true},`+
			`"when":"digest","digest_time":"07:30","viewer_reminders":true}`)
		m := object(t, res.body)
		want := map[string]string{"email": `"owner@example.com"`, "webhook_url": `"https://203.0.113.8/hook"`, "webhook_format": `"ntfy"`,
			"webhook_token_set": "true", "channels": `{"email":true,"push":true,"webhook":true}`, "when": `"digest"`, "digest_time": `"07:30"`,
			"viewer_reminders": "true"}
		for k, v := range want {
			if got := literal(m[k]); got != v {
				t.Errorf("%s = %s, want %s", k, got, v)
			}
		}
		if m["updated_at"] == nil || strings.Contains(string(res.body), "tok-SECRET") {
			t.Fatalf("answer %s", res.body)
		}
		// A patch without the token keeps it; GET answers the same.
		n.must(200, "PUT", "/api/notifications/settings", `{"channels":{"email":false}}`)
		got := object(t, n.must(200, "GET", "/api/notifications/settings", "").body)
		if literal(got["webhook_token_set"]) != "true" || literal(got["channels"]) != `{"email":false,"push":true,"webhook":true}` {
			t.Fatalf("after a patch: %v", got)
		}
		// A new webhook URL without a token drops the old one; null clears.
		got = object(t, n.must(200, "PUT", "/api/notifications/settings", `{"webhook_url":"https://203.0.113.9/other","email":null,"channels":{"email":null}}`).body)
		if literal(got["webhook_token_set"]) != "false" || got["email"] != nil {
			t.Fatalf("after a new URL: %v", got)
		}
		if logs := n.logs.String(); strings.Contains(logs, "tok-SECRET") {
			t.Fatalf("the token was logged:\n%s", logs)
		}
	})
}

// TestNotificationSettingsNamesEveryBadField: one 400 names each bad
// member, the webhook URL's loopback address among them (SSRF), in the
// order of the members; nothing is stored.
func TestNotificationSettingsNamesEveryBadField(t *testing.T) {
	forEachNotify(t, false, func(t *testing.T, n *notifyServer) {
		res := n.do("PUT", "/api/notifications/settings", `{"email":"nobody","webhook_url":"http://127.0.0.1:8080/hook",`+
			`"webhook_format":"slack","webhook_token":"a\nb","channels":{"email":true},"when":"weekly","digest_time":"25:00"}`)
		errorBody(t, res, 400, "INVALID_ARGUMENT", "email")
		msg := object(t, res.body)["message"].(string)
		at := 0
		for _, f := range []string{"email:", "webhook_url: address not allowed: loopback", "webhook_format:", "webhook_token:",
			"channels.email: e-mail is not configured", "when:", "digest_time:"} {
			i := strings.Index(msg[at:], f)
			if i < 0 {
				t.Fatalf("%q missing or out of order in %q", f, msg)
			}
			at += i
		}
		if got := object(t, n.must(200, "GET", "/api/notifications/settings", "").body); got["updated_at"] != nil {
			t.Fatalf("stored after a 400: %v", got)
		}
	})
}

// TestWebhookURLRefusedAddresses: a webhook URL on the service's own
// network is refused with a 400 naming webhook_url.
func TestWebhookURLRefusedAddresses(t *testing.T) {
	n := newNotifyServer(t, store.SQLite, false, false)
	for _, u := range []string{"http://127.0.0.1/hook", "http://localhost:9000/x", "http://10.0.0.5/x", "http://169.254.169.254/latest/meta-data",
		"http://[::1]/x", "http://2130706433/x", "ftp://203.0.113.8/x"} {
		errorBody(t, n.do("PUT", "/api/notifications/settings", `{"webhook_url":"`+u+`","channels":{"webhook":true}}`), 400, "INVALID_ARGUMENT", "webhook_url")
	}
	errorBody(t, n.do("PUT", "/api/notifications/settings", `{"channels":{"webhook":true}}`), 400, "INVALID_ARGUMENT", "channels.webhook")
	errorBody(t, n.do("PUT", "/api/notifications/settings", `{"channels":{"push":"yes"}}`), 400, "INVALID_ARGUMENT", "")
	errorBody(t, n.do("PUT", "/api/notifications/settings", `{"viewer_reminders":1}`), 400, "INVALID_ARGUMENT", "viewer_reminders")
}

func TestPushSubscriptionsAPI(t *testing.T) {
	forEachNotify(t, false, func(t *testing.T, n *notifyServer) {
		if got := string(n.must(200, "GET", "/api/notifications/vapid-public-key", "").body); got != `{"key":"`+testVAPIDKey+`"}` {
			t.Fatalf("key %s", got)
		}
		body := subscription(t, "https://203.0.113.7/push/SECRET-CAPABILITY")
		first := n.must(201, "POST", "/api/notifications/push-subscriptions", body)
		id := literal(object(t, first.body)["id"])
		if again := n.must(201, "POST", "/api/notifications/push-subscriptions", body); string(again.body) != string(first.body) {
			t.Fatalf("the same subscription again: %s, want %s", again.body, first.body)
		}
		res := n.do("POST", "/api/notifications/push-subscriptions", `{"endpoint":"ftp://x","keys":{"p256dh":"AAAA","auth":"!!"}}`)
		errorBody(t, res, 400, "INVALID_ARGUMENT", "endpoint")
		for _, f := range []string{"keys.p256dh:", "keys.auth:"} {
			if !strings.Contains(string(res.body), f) {
				t.Errorf("%s not named in %s", f, res.body)
			}
		}
		errorBody(t, n.do("POST", "/api/notifications/push-subscriptions", subscription(t, "http://127.0.0.1:9/push")), 400, "INVALID_ARGUMENT", "endpoint")
		errorBody(t, n.do("POST", "/api/notifications/push-subscriptions", `{"endpoint":"https://203.0.113.7/p"}`), 400, "INVALID_ARGUMENT", "keys.p256dh")
		n.must(204, "DELETE", "/api/notifications/push-subscriptions/"+id, "")
		errorBody(t, n.do("DELETE", "/api/notifications/push-subscriptions/"+id, ""), 404, "NOT_FOUND", "")
		errorBody(t, n.do("DELETE", "/api/notifications/push-subscriptions/abc", ""), 400, "INVALID_ARGUMENT", "id")
		if strings.Contains(n.logs.String(), "SECRET-CAPABILITY") {
			t.Fatalf("the endpoint was logged:\n%s", n.logs)
		}
	})
}

// TestNotificationTestAPI: a message on each channel on, each one's
// result answered, a failure's reason without the token.
func TestNotificationTestAPI(t *testing.T) {
	forEachNotify(t, false, func(t *testing.T, n *notifyServer) {
		errorBody(t, n.do("POST", "/api/notifications/test", ""), 400, "INVALID_ARGUMENT", "channels")
		n.must(200, "PUT", "/api/notifications/settings", `{"webhook_url":"https://203.0.113.8/hook","webhook_token":"tok-SECRET-2","channels":{"push":true,"webhook":true}}`)
		n.stub.errs[notifications.ChannelWebhook] = notifications.Permanent(errors.New("webhook to 203.0.113.8: HTTP 401 Unauthorized (token tok-SECRET-2)"))
		res := n.must(200, "POST", "/api/notifications/test", "")
		want := `{"results":[{"channel":"push","status":"failed","error":"no device has turned push on"},` +
			`{"channel":"webhook","status":"failed","error":"webhook to 203.0.113.8: HTTP 401 Unauthorized (token ***)"}]}`
		if string(res.body) != want {
			t.Fatalf("test:\n%s\nwant\n%s", res.body, want)
		}
		n.must(201, "POST", "/api/notifications/push-subscriptions", subscription(t, "https://203.0.113.7/push/a"))
		delete(n.stub.errs, notifications.ChannelWebhook)
		res = n.must(200, "POST", "/api/notifications/test", "")
		if want := `{"results":[{"channel":"push","status":"sent","error":null},{"channel":"webhook","status":"sent","error":null}]}`; string(res.body) != want {
			t.Fatalf("test:\n%s\nwant\n%s", res.body, want)
		}
		if len(n.stub.sent) != 2 || n.stub.sent[0] != "push CarHub test notification" {
			t.Fatalf("sent %v", n.stub.sent)
		}
		// The test is not a delivery: the log stays empty.
		if got := string(n.must(200, "GET", "/api/notifications", "").body); got != "[]" {
			t.Fatalf("log %s", got)
		}
	})
}

// TestNotificationsLogAPI: what the runner sent is answered, newest first.
func TestNotificationsLogAPI(t *testing.T) {
	forEachNotify(t, false, func(t *testing.T, n *notifyServer) {
		vid := n.mustVehicle(`{"name":"Golf","fuel_type":"diesel","current_odometer":13500}`)
		rid := literal(object(t, n.must(200, "POST", "/api/reminders", `{"vehicle_id":`+vid+`,"title":"Oil change","category":"service",`+
			`"every_km":5000,"last_done":{"time":"2026-01-01T00:00:00Z","odometer":9000}}`).body)["id"])
		n.must(200, "PUT", "/api/notifications/settings", `{"webhook_url":"https://203.0.113.8/hook","channels":{"webhook":true}}`)
		if err := n.svc.Evaluate(context.Background()); err != nil {
			t.Fatal(err)
		}
		ds := array(t, n.must(200, "GET", "/api/notifications", "").body)
		if len(ds) != 1 {
			t.Fatalf("log %v", ds)
		}
		d := ds[0]
		want := map[string]string{"kind": `"reminder"`, "reminder_id": rid, "reminder_status": `"soon"`, "title": `"Oil change"`,
			"vehicle": `"Golf"`, "channel": `"webhook"`, "status": `"sent"`, "attempts": "1", "error": "null"}
		for k, v := range want {
			if got := literal(d[k]); got != v {
				t.Errorf("%s = %s, want %s", k, got, v)
			}
		}
		if _, err := time.Parse(time.RFC3339Nano, d["time"].(string)); err != nil {
			t.Errorf("time %v", d["time"])
		}
		if len(d) != 12 {
			t.Errorf("members %v", d)
		}
	})
}

// TestNotificationsPerUser: each user has their own settings and
// subscriptions; a read token may read but not change them.
func TestNotificationsPerUser(t *testing.T) {
	n := newNotifyServer(t, store.SQLite, true, false)
	n.must(200, "PUT", "/api/notifications/settings", `{"channels":{"push":true}}`)
	sub := literal(object(t, n.must(201, "POST", "/api/notifications/push-subscriptions", subscription(t, "https://203.0.113.7/push/root")).body)["id"])
	ann := userWithSession(t, n.store, "ann", true)
	if got := object(t, n.as(ann, "GET", "/api/notifications/settings", "").body); literal(got["channels"]) != `{"email":false,"push":false,"webhook":false}` {
		t.Fatalf("ann sees %v", got)
	}
	wantStatus(t, "ann deletes root's device", n.as(ann, "DELETE", "/api/notifications/push-subscriptions/"+sub, ""), 404, "NOT_FOUND")
	token, hash := auth.NewToken(auth.KindToken)
	if err := n.store.CreateToken(context.Background(), &accounts.Token{UserID: 1, Kind: auth.KindToken, Name: "ro", Scope: auth.ScopeRead}, hash); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "read token reads", n.as(token, "GET", "/api/notifications/settings", ""), 200, "")
	wantStatus(t, "read token writes", n.as(token, "PUT", "/api/notifications/settings", `{}`), 403, "FORBIDDEN")
	wantStatus(t, "read token tests", n.as(token, "POST", "/api/notifications/test", ""), 403, "FORBIDDEN")
	wantStatus(t, "no token", n.as("", "GET", "/api/notifications", ""), 401, "UNAUTHORIZED")
}

// TestNotificationsUnconfigured: an API without the service answers 503.
func TestNotificationsUnconfigured(t *testing.T) {
	s := MustServer(t, store.SQLite)
	for _, r := range [][2]string{{"GET", "/api/notifications/vapid-public-key"}, {"GET", "/api/notifications/settings"}, {"GET", "/api/notifications"}} {
		errorBody(t, s.do(r[0], r[1], ""), 503, "UNAVAILABLE", "")
	}
}
