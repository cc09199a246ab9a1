package notifications

import (
	"context"
	"crypto/ecdh"
	"encoding/base64"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/carhub/backend/pkg/apperr"
)

// Options configure New. Nil senders turn their channel off: no mailer
// means no e-mail (SMTP_URL empty).
type Options struct {
	Push    PushSender
	Mail    MailSender
	Webhook WebhookSender
	// URLs checks webhook URLs and push endpoints (required).
	URLs URLChecker
	// VAPIDPublicKey is the application server key browsers subscribe
	// with (base64url, uncompressed P-256).
	VAPIDPublicKey string
	// PublicURL is the base of the links in messages (PUBLIC_URL).
	PublicURL string
	// Retries is how many more tries a failed delivery gets
	// (NOTIFY_RETRIES), RetryBase the wait before the first of them,
	// doubling after each (NOTIFY_RETRY_BASE).
	Retries   int
	RetryBase time.Duration
	// AttemptTimeout bounds one try of one channel (default 30s).
	AttemptTimeout time.Duration
	// Lease is how long a claim stays with its claimant without being
	// renewed (renewed before every try); past it a claim still pending
	// is another's to take. Default: twice the longest wait between tries
	// plus a try, at least a minute.
	Lease time.Duration
	// Parallel bounds the deliveries in progress at once (default 8).
	Parallel int
	// Now is the clock; Sleep waits between tries (returning ctx's error
	// when it ends first). Tests replace both.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
	Log   *slog.Logger
}

// Service is the notifications' use cases: the settings, subscriptions
// and log of the API, the test message, and the runner.
type Service struct {
	store     Store
	reminders Reminders
	opts      Options
	// slots bound the deliveries in progress (Parallel).
	slots chan struct{}
}

// New returns the service over store and reminders.
func New(store Store, reminders Reminders, opts Options) *Service {
	if opts.AttemptTimeout <= 0 {
		opts.AttemptTimeout = 30 * time.Second
	}
	if opts.Retries < 0 {
		opts.Retries = 0
	}
	if opts.Lease <= 0 {
		longest := time.Duration(0)
		if opts.Retries > 0 {
			longest = opts.RetryBase << (opts.Retries - 1)
		}
		opts.Lease = max(time.Minute, 2*(longest+opts.AttemptTimeout))
	}
	if opts.Parallel <= 0 {
		opts.Parallel = 8
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Sleep == nil {
		opts.Sleep = sleep
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	return &Service{store: store, reminders: reminders, opts: opts, slots: make(chan struct{}, opts.Parallel)}
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// VAPIDPublicKey is the key browsers subscribe with.
func (s *Service) VAPIDPublicKey() string { return s.opts.VAPIDPublicKey }

// Available says which channels this server can send on: e-mail only
// with a mailer.
func (s *Service) Available() ChannelSet {
	return ChannelSet{Push: s.opts.Push != nil, Email: s.opts.Mail != nil, Webhook: s.opts.Webhook != nil}
}

// Settings returns the caller's settings.
func (s *Service) Settings(ctx context.Context) (Settings, error) {
	return s.store.NotificationSettings(ctx)
}

// UpdateSettings applies u to the caller's settings and stores them when
// valid. Every bad field is named in one INVALID_ARGUMENT error; a
// webhook_url given is also checked by the URLChecker (a loopback or
// private address is refused, naming webhook_url).
func (s *Service) UpdateSettings(ctx context.Context, u SettingsUpdate) (Settings, error) {
	cur, err := s.store.NotificationSettings(ctx)
	if err != nil {
		return Settings{}, err
	}
	next := cur
	u.Apply(&next)
	var check func(string) error
	if u.WebhookURL != nil { // a URL saved before was checked then, and is again at each send
		check = func(raw string) error { return s.opts.URLs.CheckURL(ctx, raw) }
	}
	if err := next.Validate(s.Available(), check); err != nil {
		return Settings{}, err
	}
	return s.store.SaveNotificationSettings(ctx, next, s.opts.Now())
}

// Subscribe stores the caller's push subscription, checking its members
// (all bad ones named at once) and that its endpoint may be called.
func (s *Service) Subscribe(ctx context.Context, sub Subscription) (Subscription, error) {
	var errs []error
	if err := validEndpoint(sub.Endpoint); err != nil {
		errs = append(errs, err)
	} else if err := s.opts.URLs.CheckURL(ctx, sub.Endpoint); err != nil {
		errs = append(errs, apperr.Invalid("endpoint", "%s", err.Error()))
	}
	p256dh, err := decodeKey("keys.p256dh", sub.P256dh)
	if err == nil {
		if _, perr := ecdh.P256().NewPublicKey(p256dh); perr != nil {
			err = apperr.Invalid("keys.p256dh", "must be an uncompressed P-256 public key (65 bytes, base64url)")
		}
	}
	errs = append(errs, err)
	authKey, err := decodeKey("keys.auth", sub.Auth)
	if err == nil && len(authKey) != 16 {
		err = apperr.Invalid("keys.auth", "must be 16 bytes (base64url)")
	}
	errs = append(errs, err)
	if err := apperr.Join(errs...); err != nil {
		return Subscription{}, err
	}
	return s.store.AddPushSubscription(ctx, sub, s.opts.Now())
}

func validEndpoint(s string) error {
	if s == "" {
		return apperr.Invalid("endpoint", "is required")
	}
	if len(s) > MaxEndpointLen {
		return apperr.Invalid("endpoint", "must be at most %d characters", MaxEndpointLen)
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Hostname() == "" {
		return apperr.Invalid("endpoint", "must be the push service's https URL")
	}
	return nil
}

// decodeKey reads a key of a PushSubscription: base64url, padded or not
// (browsers write it unpadded).
func decodeKey(field, s string) ([]byte, error) {
	if s == "" {
		return nil, apperr.Invalid(field, "is required")
	}
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
	if err != nil || len(s) > 256 {
		return nil, apperr.Invalid(field, "must be base64url")
	}
	return b, nil
}

// Unsubscribe deletes one of the caller's push subscriptions;
// ErrSubscriptionNotFound when the caller has none of that id.
func (s *Service) Unsubscribe(ctx context.Context, id uint64) error {
	return s.store.DeletePushSubscription(ctx, id)
}

// MaxDeliveries is how many deliveries the log answers.
const MaxDeliveries = 100

// Deliveries is the caller's log, newest first.
func (s *Service) Deliveries(ctx context.Context) ([]Delivery, error) {
	return s.store.Deliveries(ctx, MaxDeliveries)
}

// TestResult is how a test message went on one channel: StateSent or
// StateFailed with why.
type TestResult struct {
	Channel Channel
	State   string
	Error   string
}

// SendTest sends a test message on every channel the caller turned on,
// now, once each (no retries, no claim, nothing logged: the answer is
// the result), and answers each channel's result in the order of
// AllChannels. INVALID_ARGUMENT naming channels when none is on.
func (s *Service) SendTest(ctx context.Context) ([]TestResult, error) {
	set, err := s.store.NotificationSettings(ctx)
	if err != nil {
		return nil, err
	}
	if !set.Channels.Any() {
		return nil, apperr.Invalid("channels", "no channel is turned on: turn on push, email or webhook first")
	}
	subs, err := s.store.PushSubscriptions(ctx)
	if err != nil {
		return nil, err
	}
	prefs, err := s.reminders.Preferences(ctx)
	if err != nil {
		return nil, err
	}
	msg := TestMessage(WordingOf(prefs), s.opts.PublicURL)
	var out []TestResult
	for _, ch := range AllChannels {
		if !set.Channels.On(ch) {
			continue
		}
		r := TestResult{Channel: ch, State: StateSent}
		t := s.target(ch, set, subs)
		if err := t.check(); err != nil {
			r.State, r.Error = StateFailed, err.Error()
		} else if err := s.sendOnce(ctx, t, msg); err != nil {
			r.State, r.Error = StateFailed, t.redact(err)
		}
		out = append(out, r)
	}
	return out, nil
}
