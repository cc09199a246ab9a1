package notifications

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"
)

// maxErrorLen bounds the error text a delivery keeps.
const maxErrorLen = 500

// target is one channel of one user, ready to send on: the address, the
// webhook or the devices, and for push what the tries so far reached.
type target struct {
	s       *Service
	channel Channel
	email   string
	webhook WebhookTarget
	// subs are the devices still to reach (push): one that got the
	// message or is gone is dropped after each try.
	subs []Subscription
	// reached counts the devices that got the message; lost notes why
	// others will not (given up on).
	reached int
	lost    []string
}

func (s *Service) target(ch Channel, set Settings, subs []Subscription) *target {
	return &target{
		s: s, channel: ch, email: set.Email,
		webhook: WebhookTarget{URL: set.WebhookURL, Format: set.WebhookFormat, Token: set.WebhookToken},
		subs:    append([]Subscription(nil), subs...),
	}
}

// check says why the channel cannot be sent on, nil when it can.
func (t *target) check() error {
	switch t.channel {
	case ChannelPush:
		if t.s.opts.Push == nil {
			return errors.New("push is not configured on this server")
		}
		if len(t.subs) == 0 {
			return errors.New("no device has turned push on")
		}
	case ChannelEmail:
		if t.s.opts.Mail == nil {
			return errors.New("e-mail is not configured on this server (SMTP_URL)")
		}
		if t.email == "" {
			return errors.New("no email address is set")
		}
	case ChannelWebhook:
		if t.s.opts.Webhook == nil {
			return errors.New("webhooks are not configured on this server")
		}
		if t.webhook.URL == "" {
			return errors.New("no webhook_url is set")
		}
	}
	return nil
}

// send makes one try. Push tries every device not reached yet: it
// succeeds once any device has the message, a gone device's subscription
// is deleted, and a device that failed for good is given up on (noted in
// lost); it fails permanently when no device is left.
func (t *target) send(ctx context.Context, m Message) error {
	switch t.channel {
	case ChannelEmail:
		return t.s.opts.Mail.SendMail(ctx, t.email, m)
	case ChannelWebhook:
		// Checked again at each send: the name may resolve elsewhere now.
		if err := t.s.opts.URLs.CheckURL(ctx, t.webhook.URL); err != nil {
			return Permanent(fmt.Errorf("webhook_url refused: %w", err))
		}
		return t.s.opts.Webhook.SendWebhook(ctx, t.webhook, m)
	}
	var (
		errs []error
		left []Subscription
	)
	for _, sub := range t.subs {
		err := t.s.opts.Push.SendPush(ctx, sub, m)
		switch {
		case err == nil:
			t.reached++
		case errors.Is(err, ErrGone):
			if derr := t.s.store.DeletePushSubscription(ctx, sub.ID); derr != nil && !errors.Is(derr, ErrSubscriptionNotFound) {
				t.s.opts.Log.WarnContext(ctx, "delete a gone push subscription", "subscription", sub.ID, "err", derr)
			} else {
				t.s.opts.Log.InfoContext(ctx, "push subscription gone: deleted", "subscription", sub.ID)
			}
		case IsPermanent(err):
			t.lost = append(t.lost, t.redact(err))
		default:
			left = append(left, sub)
			errs = append(errs, err)
		}
	}
	t.subs = left
	switch {
	case len(errs) > 0:
		return errors.Join(errs...)
	case t.reached > 0:
		return nil
	case len(t.lost) > 0:
		return Permanent(errors.New(strings.Join(t.lost, "; ")))
	}
	return Permanent(errors.New("no device has push turned on (its subscriptions are gone)"))
}

// note is what a sent delivery keeps as its error: the devices that did
// not get it.
func (t *target) note() string {
	if t.channel != ChannelPush || len(t.lost)+len(t.subs) == 0 {
		return ""
	}
	return clip(fmt.Sprintf("%d device(s) did not get it: %s", len(t.lost)+len(t.subs), strings.Join(t.lost, "; ")))
}

// sendOnce makes one try within the attempt timeout.
func (s *Service) sendOnce(ctx context.Context, t *target, m Message) error {
	ctx, cancel := context.WithTimeout(ctx, s.opts.AttemptTimeout)
	defer cancel()
	return t.send(ctx, m)
}

// userinfo matches the credentials of a URL in an error's text.
var userinfo = regexp.MustCompile(`(?i)([a-z][a-z0-9+.-]*://)[^/@\s"]*@`)

// redact is err's text without the target's secrets: the webhook token,
// the push endpoints (capability URLs) and any URL's user:password.
func (t *target) redact(err error) string {
	s := err.Error()
	if t.webhook.Token != "" {
		s = strings.ReplaceAll(s, t.webhook.Token, "***")
	}
	for _, sub := range t.subs {
		s = redactEndpoint(s, sub.Endpoint)
	}
	s = userinfo.ReplaceAllString(s, "${1}***@")
	return clip(s)
}

// redactEndpoint replaces a push endpoint in s by its origin.
func redactEndpoint(s, endpoint string) string {
	if endpoint == "" || !strings.Contains(s, endpoint) {
		return s
	}
	origin := "push endpoint"
	if u, err := url.Parse(endpoint); err == nil {
		origin = u.Scheme + "://" + u.Host + "/***"
	}
	return strings.ReplaceAll(s, endpoint, origin)
}

func clip(s string) string {
	if len(s) <= maxErrorLen {
		return s
	}
	cut := maxErrorLen
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// deliver sends m on t for the claim (id, token) with its retries, then
// records the outcome. Before each wait the lease is moved past the
// wait and the next try; a claim that is no longer this one's (taken
// after its lease passed) is left alone. When ctx ends first the claim is
// released for the next evaluation, here or elsewhere.
func (s *Service) deliver(ctx context.Context, id uint64, token string, t *target, m Message) {
	log := s.opts.Log.With("delivery", id, "channel", t.channel)
	for attempt := 1; ; attempt++ {
		err := s.sendOnce(ctx, t, m)
		if err == nil {
			s.finish(ctx, log, id, token, Outcome{State: StateSent, Attempts: attempt, Error: t.note()})
			return
		}
		if ctx.Err() != nil {
			s.release(ctx, log, id, token, attempt)
			return
		}
		text := t.redact(err)
		if IsPermanent(err) || attempt > s.opts.Retries {
			log.WarnContext(ctx, "notification failed", "attempts", attempt, "err", text)
			s.finish(ctx, log, id, token, Outcome{State: StateFailed, Attempts: attempt, Error: text})
			return
		}
		wait := s.opts.RetryBase << (attempt - 1)
		log.InfoContext(ctx, "notification try failed; trying again", "attempt", attempt, "wait", wait, "err", text)
		held, rerr := s.store.RenewDelivery(ctx, id, token, s.opts.Now().Add(wait+s.opts.Lease))
		if ctx.Err() != nil {
			s.release(ctx, log, id, token, attempt)
			return
		}
		if rerr != nil || !held {
			log.WarnContext(ctx, "notification claim lost; leaving it", "err", rerr)
			return
		}
		if err := s.opts.Sleep(ctx, wait); err != nil {
			s.release(ctx, log, id, token, attempt)
			return
		}
	}
}

// finish records an outcome even while the service stops.
func (s *Service) finish(ctx context.Context, log *slog.Logger, id uint64, token string, o Outcome) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	o.At = s.opts.Now()
	held, err := s.store.FinishDelivery(ctx, id, token, o)
	switch {
	case err != nil:
		log.WarnContext(ctx, "record a notification's outcome", "state", o.State, "err", err)
	case !held:
		log.WarnContext(ctx, "notification claim lost before its outcome was recorded", "state", o.State)
	case o.State == StateSent:
		log.InfoContext(ctx, "notification sent", "attempts", o.Attempts)
	}
}

// release gives the claim back at once, even while the service stops.
func (s *Service) release(ctx context.Context, log *slog.Logger, id uint64, token string, attempts int) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := s.store.ReleaseDelivery(ctx, id, token, attempts, s.opts.Now()); err != nil {
		log.WarnContext(ctx, "release a notification claim", "err", err)
		return
	}
	log.InfoContext(ctx, "notification interrupted; released for the next evaluation", "attempts", attempts)
}
