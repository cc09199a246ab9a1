package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	netmail "net/mail"
	"net/url"
	"strings"
	"time"

	"github.com/carhub/backend/services/fuel/internal/notifications"
	"github.com/carhub/backend/services/fuel/internal/notify"
	"github.com/carhub/backend/services/fuel/internal/store"
)

// NotifyConfig is the configuration of notifications (issue 57;
// proto-docs/fuel-decisions.md, "Notifications").
type NotifyConfig struct {
	// Interval is how often reminders are evaluated.
	Interval time.Duration `env:"NOTIFY_INTERVAL" default:"15m"`
	// SMTPURL is smtp://user:pass@host:port (STARTTLS when offered) or
	// smtps:// (implicit TLS); empty: e-mail off.
	SMTPURL string `env:"SMTP_URL" secret:"true"`
	// From is the sender of e-mails ("CarHub <cars@example.org>"), and
	// the default VAPID subject.
	From string `env:"NOTIFY_FROM"`
	// PublicURL is the base of the links in messages.
	PublicURL string `env:"PUBLIC_URL"`
	// AllowPrivate lets webhook URLs and push endpoints resolve to
	// loopback, private and link-local addresses.
	AllowPrivate bool `env:"WEBHOOK_ALLOW_PRIVATE" default:"false"`
	// Retries is how many more tries a failed delivery gets; RetryBase the
	// wait before the first, doubling after each.
	Retries   int           `env:"NOTIFY_RETRIES" default:"3"`
	RetryBase time.Duration `env:"NOTIFY_RETRY_BASE" default:"30s"`
	// VAPIDPrivateKey is base64url of the 32-byte P-256 private key; empty:
	// one made at the first start and kept in the database.
	VAPIDPrivateKey string `env:"VAPID_PRIVATE_KEY" secret:"true"`
	// VAPIDSubject is the contact push services see; empty: mailto: and
	// NOTIFY_FROM's address (or PUBLIC_URL when it is https).
	VAPIDSubject string `env:"VAPID_SUBJECT"`
}

// sendTimeout bounds one HTTP delivery (a push or a webhook).
const sendTimeout = 30 * time.Second

// notificationService reads cfg and makes the notifications' service on
// st with the real channels: push always (when a VAPID subject can be
// told), e-mail with SMTP_URL, webhooks always.
func notificationService(ctx context.Context, cfg NotifyConfig, st *store.Store, log *slog.Logger) (*notifications.Service, error) {
	switch {
	case cfg.Interval <= 0:
		return nil, fmt.Errorf("NOTIFY_INTERVAL must be positive, got %s", cfg.Interval)
	case cfg.Retries < 0 || cfg.Retries > 10:
		return nil, fmt.Errorf("NOTIFY_RETRIES must be from 0 to 10, got %d", cfg.Retries)
	case cfg.RetryBase <= 0:
		return nil, fmt.Errorf("NOTIFY_RETRY_BASE must be positive, got %s", cfg.RetryBase)
	}
	if cfg.PublicURL != "" {
		if u, err := url.Parse(cfg.PublicURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, errors.New("PUBLIC_URL must be an absolute http or https URL (the base of links in messages)")
		}
	}
	keys, err := vapidKeys(ctx, cfg, st)
	if err != nil {
		return nil, err
	}
	subject, err := vapidSubject(cfg)
	if err != nil {
		return nil, err
	}
	client := notify.NewHTTPClient(cfg.AllowPrivate, sendTimeout)
	ch := channels{webhook: notify.Webhook{Client: client}, push: notify.Push{Keys: keys, Subject: subject, Client: client}}
	if cfg.SMTPURL != "" {
		if ch.mail, err = notify.NewMailer(cfg.SMTPURL, cfg.From); err != nil {
			return nil, fmt.Errorf("SMTP_URL, NOTIFY_FROM: %w", err)
		}
	}
	opts := notifications.Options{
		Webhook: ch, URLs: urlCheck{allowPrivate: cfg.AllowPrivate},
		PublicURL: cfg.PublicURL, Retries: cfg.Retries, RetryBase: cfg.RetryBase, AttemptTimeout: sendTimeout, Log: log,
	}
	if subject != "" {
		opts.Push, opts.VAPIDPublicKey = ch, keys.PublicKey()
	} else {
		log.Warn("web push off: set VAPID_SUBJECT (mailto: or https:) or NOTIFY_FROM: push services want a contact")
	}
	if ch.mail != nil {
		opts.Mail = ch
	}
	log.Info("notifications ready", "push", opts.Push != nil, "email", opts.Mail != nil, "interval", cfg.Interval)
	return notifications.New(st, st, opts), nil
}

// vapidKeys are VAPID_PRIVATE_KEY's, or the ones kept in the database,
// made at the first start.
func vapidKeys(ctx context.Context, cfg NotifyConfig, st *store.Store) (notify.VAPIDKeys, error) {
	if cfg.VAPIDPrivateKey != "" {
		k, err := notify.ParseVAPIDPrivateKey(cfg.VAPIDPrivateKey)
		if err != nil {
			return k, fmt.Errorf("VAPID_PRIVATE_KEY: %w", err)
		}
		return k, nil
	}
	raw, err := st.ServiceKey(ctx, store.VAPIDKeyName, func() (string, error) {
		k, err := notify.GenerateVAPIDKeys()
		return k.PrivateKey(), err
	})
	if err != nil {
		return notify.VAPIDKeys{}, err
	}
	k, err := notify.ParseVAPIDPrivateKey(raw)
	if err != nil {
		return k, fmt.Errorf("the VAPID key kept in the database: %w", err)
	}
	return k, nil
}

// vapidSubject is VAPID_SUBJECT (checked), else mailto: with NOTIFY_FROM's
// address, else PUBLIC_URL when it is https; "" when none of them gives
// one.
func vapidSubject(cfg NotifyConfig) (string, error) {
	if cfg.VAPIDSubject != "" {
		if err := notify.CheckVAPIDSubject(cfg.VAPIDSubject); err != nil {
			return "", fmt.Errorf("VAPID_SUBJECT: %w", err)
		}
		return cfg.VAPIDSubject, nil
	}
	if a, err := netmail.ParseAddress(cfg.From); err == nil {
		return "mailto:" + a.Address, nil
	}
	if strings.HasPrefix(cfg.PublicURL, "https://") {
		return cfg.PublicURL, nil
	}
	return "", nil
}

// startNotifications runs the evaluation in the background; the function
// it returns stops it and waits (deliveries cut short are released in
// the database for the next start or another replica).
func startNotifications(ctx context.Context, svc *notifications.Service, interval time.Duration) func() {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		svc.Run(ctx, interval)
	}()
	return func() {
		cancel()
		<-done
	}
}

// channels adapts notify's senders to the notifications' interfaces.
type channels struct {
	push    notify.Push
	mail    *notify.Mailer
	webhook notify.Webhook
}

var (
	_ notifications.PushSender    = channels{}
	_ notifications.MailSender    = channels{}
	_ notifications.WebhookSender = channels{}
	_ notifications.URLChecker    = urlCheck{}
)

func (c channels) SendPush(ctx context.Context, s notifications.Subscription, m notifications.Message) error {
	return classify(c.push.Send(ctx, notify.Subscription{Endpoint: s.Endpoint, P256dh: s.P256dh, Auth: s.Auth}, toNotify(m)))
}

func (c channels) SendMail(ctx context.Context, to string, m notifications.Message) error {
	return classify(c.mail.Send(ctx, to, toNotify(m)))
}

func (c channels) SendWebhook(ctx context.Context, t notifications.WebhookTarget, m notifications.Message) error {
	return classify(c.webhook.Send(ctx, notify.WebhookTarget{URL: t.URL, Format: t.Format, Token: t.Token}, toNotify(m)))
}

// classify tells the notifications what kind of failure err is: a gone
// subscription, one that no retry mends, or another.
func classify(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, notify.ErrGone):
		return fmt.Errorf("%w: %w", notifications.ErrGone, err)
	case notify.Permanent(err):
		return notifications.Permanent(err)
	}
	return err
}

func toNotify(m notifications.Message) notify.Message {
	out := notify.Message{Title: m.Title, Body: m.Body, URL: m.URL}
	if m.Reminder != nil {
		r := toReminderInfo(*m.Reminder)
		out.Reminder = &r
	}
	for _, r := range m.Digest {
		out.Digest = append(out.Digest, toReminderInfo(r))
	}
	return out
}

func toReminderInfo(r notifications.ReminderInfo) notify.ReminderInfo {
	return notify.ReminderInfo{Status: r.Status, Title: r.Title, Vehicle: r.Vehicle, DueDate: r.DueDate,
		DueOdometer: r.DueOdometer, DueInKm: r.DueInKm, DueInDays: r.DueInDays}
}

// urlCheck is notify.CheckURL with WEBHOOK_ALLOW_PRIVATE.
type urlCheck struct{ allowPrivate bool }

func (u urlCheck) CheckURL(ctx context.Context, raw string) error {
	return notify.CheckURL(ctx, raw, u.allowPrivate)
}
