// Package notifications decides when a reminder reaches its owner and
// delivers it (issue 57): each user's settings (which channels, as due or
// as a daily digest), the rule (a reminder soon or overdue is notified
// once per channel per occurrence, proto-docs/fuel-decisions.md,
// "Notifications"), the claim in the database that makes each delivery
// happen once across restarts and replicas, the retries, and the runner
// that evaluates every user's reminders in the background.
//
// It is the use-case room of the notifications, with no HTTP in it: the
// handlers (services/fuel/internal/httpapi/notifications.go) call Service;
// the database layer (services/fuel/internal/store/notifications.go)
// implements Store; the channels themselves (Web Push, e-mail, webhooks)
// are services/fuel/internal/notify, reached through PushSender,
// MailSender and WebhookSender, which cmd/fuel-service adapts to it.
package notifications

import (
	"context"
	"errors"
	"time"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// Channel is a way a message reaches a user.
type Channel string

// The channels, in the order they are answered.
const (
	ChannelPush    Channel = "push"
	ChannelEmail   Channel = "email"
	ChannelWebhook Channel = "webhook"
)

// AllChannels lists the channels in their order.
var AllChannels = []Channel{ChannelPush, ChannelEmail, ChannelWebhook}

// The values of Settings.When: a message per reminder as it falls due,
// or one a day listing them.
const (
	WhenDue    = "due"
	WhenDigest = "digest"
)

// The webhook formats (notify renders them).
var WebhookFormats = []string{"generic", "ntfy", "gotify"}

// Bounds of the settings' text.
const (
	MaxEmailLen        = 254 // RFC 5321's path limit
	MaxWebhookURLLen   = 2048
	MaxWebhookTokenLen = 512
	MaxEndpointLen     = 2048
	// MaxSubscriptions is how many push subscriptions (devices) a user
	// keeps: the oldest beyond it are dropped (Store.AddPushSubscription).
	MaxSubscriptions = 20
)

// ChannelSet says which channels a user turned on.
type ChannelSet struct {
	Push, Email, Webhook bool
}

// On reports whether ch is turned on.
func (c ChannelSet) On(ch Channel) bool {
	switch ch {
	case ChannelPush:
		return c.Push
	case ChannelEmail:
		return c.Email
	case ChannelWebhook:
		return c.Webhook
	}
	return false
}

// Any reports whether any channel is on.
func (c ChannelSet) Any() bool { return c.Push || c.Email || c.Webhook }

// Settings are a user's choices of how reminders reach them.
type Settings struct {
	Email      string
	WebhookURL string
	// WebhookFormat is one of WebhookFormats.
	WebhookFormat string
	// WebhookToken is a secret: written, never answered (the API says
	// only whether one is set).
	WebhookToken string
	Channels     ChannelSet
	// When is WhenDue or WhenDigest; DigestTime the "HH:MM" of the digest
	// in the user's time zone (their time_zone preference, UTC without).
	When       string
	DigestTime string
	// ViewerReminders: also the reminders of vehicles the user may only
	// view. An owner or editor is notified of a vehicle's reminders
	// whenever their channels are on; a viewer only by choosing so.
	ViewerReminders bool
	// UpdatedAt is zero until the first save.
	UpdatedAt time.Time
}

// DefaultSettings are the settings of a user who saved none: every
// channel off.
func DefaultSettings() Settings {
	return Settings{WebhookFormat: "generic", When: WhenDue, DigestTime: "08:00"}
}

// Subscription is a browser's push subscription (its PushSubscription
// JSON): the push service's endpoint and the keys of RFC 8291.
type Subscription struct {
	ID uint64
	// Endpoint is a capability URL: whoever knows it may push to the
	// device, so it is never logged nor answered.
	Endpoint  string
	P256dh    string
	Auth      string
	CreatedAt time.Time
}

// The states of a delivery: claimed and in progress, done, given up.
const (
	StatePending = "pending"
	StateSent    = "sent"
	StateFailed  = "failed"
)

// The kinds of a delivery.
const (
	KindReminder = "reminder"
	KindDigest   = "digest"
)

// Delivery is one message to one channel of one user: the claim that
// makes it happen once, and the log the API answers.
type Delivery struct {
	ID      uint64
	Kind    string
	Channel Channel
	// ReminderID is the reminder of a KindReminder (0 for a digest or
	// once the reminder is deleted); ReminderStatus its status when it
	// was notified (soon or overdue).
	ReminderID     uint64
	ReminderStatus fuel.ReminderStatus
	// Title is the reminder's title or the digest's, Vehicle the
	// vehicle's name ("" for a digest), both as they were.
	Title    string
	Vehicle  string
	State    string
	Attempts int
	// Error is why the last try failed, without secrets ("" when none).
	Error     string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Claim asks for the delivery of one occurrence on one channel to the
// user of the context. Occurrence names what is notified: a reminder's
// current due point ("reminder:7:15000:2026-03-01") or a digest's day
// ("digest:2026-03-01").
type Claim struct {
	Occurrence     string
	Channel        Channel
	Kind           string
	ReminderID     uint64
	ReminderStatus fuel.ReminderStatus
	Title, Vehicle string
	// Token names the claimant: only it may renew, finish or release the
	// claim.
	Token string
	// Now is the claimant's clock; LeaseUntil when the claim, still
	// pending, may be taken by another.
	Now, LeaseUntil time.Time
}

// Outcome is how a claimed delivery ended.
type Outcome struct {
	State    string // StateSent or StateFailed
	Attempts int
	Error    string
	At       time.Time
}

// Errors of the store.
var (
	ErrSubscriptionNotFound = apperr.New(apperr.NotFound, "push subscription not found")
)

// Store keeps the notification settings, push subscriptions and
// deliveries. Implemented by services/fuel/internal/store; every method
// acts for the user of ctx (auth.UserID) except NotifiedUsers. Methods
// return the errors named in their comments and others only for failures
// of the database.
type Store interface {
	// NotificationSettings returns the user's settings; DefaultSettings
	// for a user who saved none.
	NotificationSettings(ctx context.Context) (Settings, error)
	// SaveNotificationSettings stores s whole (it is valid: Validate),
	// sets UpdatedAt to now and returns what is stored; fuel.ErrUserGone
	// for a user deleted meanwhile.
	SaveNotificationSettings(ctx context.Context, s Settings, now time.Time) (Settings, error)

	// AddPushSubscription stores s for the user, or, for an endpoint
	// already stored (this user's or another's: the device changed
	// hands), gives it to the user with s's keys and keeps its id. The
	// user's oldest subscriptions beyond MaxSubscriptions are dropped.
	// fuel.ErrUserGone for a user deleted meanwhile.
	AddPushSubscription(ctx context.Context, s Subscription, now time.Time) (Subscription, error)
	// DeletePushSubscription deletes one of the user's subscriptions;
	// ErrSubscriptionNotFound when the user has none of that id.
	DeletePushSubscription(ctx context.Context, id uint64) error
	// PushSubscriptions lists the user's subscriptions by id.
	PushSubscriptions(ctx context.Context) ([]Subscription, error)

	// NotifiedUsers returns, by id, every user whose settings turn a
	// channel on: whom the runner evaluates.
	NotifiedUsers(ctx context.Context) ([]uint64, error)
	// ClaimDelivery makes c the user's pending delivery of its occurrence
	// on its channel and returns its id with ok true, when no delivery of
	// them exists yet or the one that exists is pending with its lease
	// passed (a claimant that stopped); else ok false. Whoever's insert or
	// update wins holds the claim: two replicas never both hold one.
	ClaimDelivery(ctx context.Context, c Claim) (id uint64, ok bool, err error)
	// RenewDelivery moves the lease of a pending delivery held with token;
	// false when it is no longer held so.
	RenewDelivery(ctx context.Context, id uint64, token string, leaseUntil time.Time) (bool, error)
	// FinishDelivery records the outcome of a pending delivery held with
	// token; false when it is no longer held so (nothing is written).
	FinishDelivery(ctx context.Context, id uint64, token string, o Outcome) (bool, error)
	// ReleaseDelivery gives a pending delivery held with token back, its
	// lease ending at now and its attempts so far kept, so that the next
	// evaluation (here or on another replica) takes it at once.
	ReleaseDelivery(ctx context.Context, id uint64, token string, attempts int, now time.Time) error
	// Deliveries lists the user's newest deliveries, newest first, at
	// most limit.
	Deliveries(ctx context.Context, limit int) ([]Delivery, error)
}

// Reminders is what the rule reads of the fuel data, for the user of ctx
// (fuel.Store has these methods).
type Reminders interface {
	// ListVehicles gives the names of the vehicles and the user's role.
	ListVehicles(ctx context.Context) ([]fuel.Vehicle, error)
	ListReminders(ctx context.Context, f fuel.ReminderFilter) ([]fuel.Reminder, error)
	// Preferences gives the user's time zone (the digest's).
	Preferences(ctx context.Context) (fuel.Preferences, error)
}

// Message is what a channel sends: a title, a body of plain text, the
// link that opens it in the app, and the facts of its reminder (the
// generic webhook's members) or of the reminders of a digest.
type Message struct {
	Title, Body, URL string
	Reminder         *ReminderInfo
	Digest           []ReminderInfo
}

// ReminderInfo are the facts of one notified reminder; the due members
// are nil when unknown.
type ReminderInfo struct {
	Status, Title, Vehicle        string
	DueDate, DueOdometer, DueInKm *string
	DueInDays                     *int
}

// WebhookTarget is where a user's webhook goes.
type WebhookTarget struct {
	URL, Format, Token string
}

// PushSender delivers a message to one browser. It returns an error
// wrapping ErrGone when the push service says the subscription is gone
// (404, 410), one that IsPermanent says is permanent when trying again
// cannot help, and other errors for failures worth another try.
type PushSender interface {
	SendPush(ctx context.Context, s Subscription, m Message) error
}

// MailSender delivers a message by e-mail, with the errors of PushSender.
type MailSender interface {
	SendMail(ctx context.Context, to string, m Message) error
}

// WebhookSender delivers a message to a webhook, with the errors of
// PushSender.
type WebhookSender interface {
	SendWebhook(ctx context.Context, t WebhookTarget, m Message) error
}

// URLChecker refuses a URL that resolves to an address the service must
// not call (loopback, private, link-local, unless WEBHOOK_ALLOW_PRIVATE):
// webhook URLs when saved and before each send, push endpoints when
// subscribed. Its error says why, without secrets.
type URLChecker interface {
	CheckURL(ctx context.Context, raw string) error
}

// ErrGone is wrapped by a PushSender's error for a subscription its push
// service no longer knows: it is deleted.
var ErrGone = errors.New("the push subscription is gone")

// Permanent marks err as a failure that another try cannot mend (a 4xx
// answer, an address refused): the delivery fails at once.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return permanentError{err}
}

// IsPermanent reports whether err was marked by Permanent.
func IsPermanent(err error) bool {
	var p permanentError
	return errors.As(err, &p)
}

type permanentError struct{ error }

func (p permanentError) Unwrap() error { return p.error }
