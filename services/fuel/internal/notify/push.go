package notify

import (
	"context"
	"crypto/ecdh"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	webpush "github.com/SherClockHolmes/webpush-go"

	"github.com/carhub/backend/pkg/apperr"
)

// Web Push is sent with github.com/SherClockHolmes/webpush-go, which does
// the aes128gcm encryption (RFC 8291), the ES256 VAPID JWT (RFC 8292) and
// the POST with TTL (RFC 8030) and takes our *http.Client. Two of its
// habits are worked around here: it prefixes "mailto:" to any subject
// that does not start with "https:" (so "mailto:" is stripped before), and
// it pads every message to its record size (set to pushRecordSize, which
// Firefox for Android's 3070-byte limit accepts).

// pushRecordSize is the encrypted body's size: every push is padded to it.
const pushRecordSize = 2048

// maxPushPayload is the most JSON a push carries: the record less the
// aes128gcm header (16 salt, 4 record size, 1 key length, 65 key), the
// 16-byte GCM tag and the padding delimiter.
const maxPushPayload = pushRecordSize - 86 - 16 - 1

// DefaultPushTTL is how long a push service keeps a message for a device
// that is offline when Push.TTL is zero: a reminder is still worth showing
// after a weekend with the phone off.
const DefaultPushTTL = 7 * 24 * time.Hour

// maxEndpointLength bounds a stored endpoint; the push services' are a
// few hundred characters.
const maxEndpointLength = 2048

// defaultClient is the client of a Push or Webhook without one: private
// addresses refused.
var defaultClient = NewHTTPClient(false, 30*time.Second)

// Subscription is a browser's PushSubscription: the push service's
// endpoint URL and the keys its payloads are encrypted to, both base64url
// as the browser's toJSON() gives them.
type Subscription struct {
	Endpoint string
	// P256dh is the browser's P-256 public key (65 bytes uncompressed).
	P256dh string
	// Auth is the 16-byte authentication secret.
	Auth string
}

// Validate checks the subscription's form and returns every bad field as
// an INVALID_ARGUMENT naming "endpoint", "keys.p256dh" or "keys.auth", the
// names of the browser's JSON. Whether the endpoint's host may be reached
// is CheckURL's question.
func (s Subscription) Validate() error {
	var errs []error
	if len(s.Endpoint) > maxEndpointLength {
		errs = append(errs, apperr.Invalid("endpoint", "must be at most %d characters", maxEndpointLength))
	} else if _, err := parseTarget(s.Endpoint); err != nil {
		errs = append(errs, apperr.Invalid("endpoint", "%v", err))
	}
	if b, err := decodeKey(s.P256dh); err != nil {
		errs = append(errs, apperr.Invalid("keys.p256dh", "must be base64url"))
	} else if _, err := ecdh.P256().NewPublicKey(b); err != nil {
		errs = append(errs, apperr.Invalid("keys.p256dh", "must be an uncompressed P-256 public key (65 bytes)"))
	}
	if b, err := decodeKey(s.Auth); err != nil {
		errs = append(errs, apperr.Invalid("keys.auth", "must be base64url"))
	} else if len(b) != 16 {
		errs = append(errs, apperr.Invalid("keys.auth", "must be 16 bytes"))
	}
	return apperr.Join(errs...)
}

// decodeKey decodes a subscription key: base64url as browsers send it,
// with or without padding.
func decodeKey(s string) ([]byte, error) {
	return base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
}

// CheckVAPIDSubject checks VAPID_SUBJECT: a mailto: or https: URL, the
// contact a push service may write to (Apple's refuses a JWT without one).
func CheckVAPIDSubject(subject string) error {
	_, err := vapidSubscriber(subject)
	return err
}

// vapidSubscriber is subject in the form webpush-go expects: an address
// without "mailto:" (it adds the prefix itself) or an https URL.
func vapidSubscriber(subject string) (string, error) {
	if addr, ok := strings.CutPrefix(subject, "mailto:"); ok && strings.Contains(addr, "@") {
		return addr, nil
	}
	if u, err := url.Parse(subject); err == nil && u.Scheme == "https" && u.Host != "" {
		return subject, nil
	}
	return "", errors.New("VAPID subject must be a mailto: address or an https: URL")
}

// Push sends Web Push messages.
type Push struct {
	// Keys sign every push's VAPID JWT.
	Keys VAPIDKeys
	// Subject is the JWT's sub: "mailto:owner@example.org" or an https URL.
	Subject string
	// TTL is how long the push service keeps an undelivered message;
	// zero is DefaultPushTTL. It is sent in whole seconds.
	TTL time.Duration
	// Client sends the POST; nil is NewHTTPClient(false, 30s).
	Client *http.Client
}

// pushPayload is what the service worker receives.
type pushPayload struct {
	Title string `json:"title"`
	Body  string `json:"body"`
	URL   string `json:"url"`
}

// Send encrypts m's {title, body, url} to s and posts it to s's push
// service. A 404 or 410 answer wraps ErrGone: the caller deletes the
// subscription. Other non-2xx answers are a *StatusError. A body too long
// for a push is shortened, with "…" at its end.
func (p Push) Send(ctx context.Context, s Subscription, m Message) error {
	if p.Keys.key == nil {
		return permanent(errors.New("push: no VAPID keys"))
	}
	subscriber, err := vapidSubscriber(p.Subject)
	if err != nil {
		return permanent(fmt.Errorf("push: %w", err))
	}
	if err := s.Validate(); err != nil {
		return permanent(fmt.Errorf("push: bad subscription: %w", err))
	}
	endpoint, _ := url.Parse(s.Endpoint) // Validate parsed it
	ttl := p.TTL
	if ttl <= 0 {
		ttl = DefaultPushTTL
	}
	client := p.Client
	if client == nil {
		client = defaultClient
	}
	resp, err := webpush.SendNotificationWithContext(ctx, encodePushPayload(m),
		&webpush.Subscription{Endpoint: s.Endpoint, Keys: webpush.Keys{Auth: s.Auth, P256dh: s.P256dh}},
		&webpush.Options{
			HTTPClient:      client,
			RecordSize:      pushRecordSize,
			Subscriber:      subscriber,
			TTL:             int(ttl / time.Second),
			VAPIDPublicKey:  p.Keys.PublicKey(),
			VAPIDPrivateKey: p.Keys.PrivateKey(),
		})
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) { // from client.Do: the network
			return sendError("push", endpoint, err)
		}
		return permanent(fmt.Errorf("push to %s: encrypting: %w", endpoint.Host, err))
	}
	defer drain(resp)
	switch resp.StatusCode {
	case http.StatusNotFound, http.StatusGone:
		return fmt.Errorf("%w: %w", ErrGone, statusError("push", endpoint, resp))
	}
	if resp.StatusCode/100 != 2 {
		return statusError("push", endpoint, resp)
	}
	return nil
}

// encodePushPayload is m's JSON, shortened to maxPushPayload bytes: the
// body first, then the title; a URL too long to fit is left out (the
// service worker then opens the app's start page).
func encodePushPayload(m Message) []byte {
	p := pushPayload{Title: m.Title, Body: m.Body, URL: m.URL}
	fits := func() bool {
		b, _ := json.Marshal(p) // strings only: cannot fail
		return len(b) <= maxPushPayload
	}
	for _, field := range []*string{&p.Body, &p.Title} {
		if fits() {
			break
		}
		// The longest prefix that fits, found by bisection: JSON escapes
		// make the encoded length no simple function of the cut.
		whole := *field
		lo, hi := 0, len(whole) // shorten(whole, lo) fits or lo is 0
		for lo < hi {
			mid := (lo + hi + 1) / 2
			if *field = shorten(whole, mid); fits() {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		*field = shorten(whole, lo)
	}
	if !fits() {
		p.URL = ""
	}
	b, _ := json.Marshal(p)
	return b
}

// shorten cuts s to at most n bytes on a rune boundary, ending in "…"
// (which counts in n); "" when n leaves no room.
func shorten(s string, n int) string {
	const ellipsis = "…"
	if len(s) <= n {
		return s
	}
	n -= len(ellipsis)
	if n <= 0 {
		return ""
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + ellipsis
}

// drain reads a little of an answer's body, so that the connection can be
// reused, and closes it.
func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
}
