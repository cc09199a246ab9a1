package notifications_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/carhub/backend/services/fuel/internal/fuel"
	"github.com/carhub/backend/services/fuel/internal/notifications"
	"github.com/carhub/backend/services/fuel/internal/store"
	"github.com/carhub/backend/services/fuel/internal/store/storetest"
)

// clock is a settable clock shared by the stores and the services.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Set(t time.Time) { c.mu.Lock(); c.now = t; c.mu.Unlock() }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// sent is one message a channel took.
type sent struct {
	channel notifications.Channel
	to      string // address, endpoint or webhook URL
	msg     notifications.Message
}

// recorder stands in for every channel and the URL check: it keeps what
// it was given, fails as fail says and counts the calls. One recorder
// shared by two services counts what both sent.
type recorder struct {
	mu    sync.Mutex
	sent  []sent
	calls map[notifications.Channel]int
	waits []time.Duration
	// fail, when set, decides the error of a channel's nth call (1-based)
	// to one target.
	fail func(ch notifications.Channel, n int, to string) error
	// delay makes every send take this long (for the replicas' race).
	delay time.Duration
	// tried is signalled (without blocking) after every failed call.
	tried chan notifications.Channel
}

func newRecorder() *recorder {
	return &recorder{calls: map[notifications.Channel]int{}, tried: make(chan notifications.Channel, 100)}
}

func (r *recorder) send(ctx context.Context, ch notifications.Channel, to string, m notifications.Message) error {
	if r.delay > 0 {
		time.Sleep(r.delay)
	}
	r.mu.Lock()
	r.calls[ch]++
	n := r.calls[ch]
	fail := r.fail
	r.mu.Unlock()
	var err error
	if fail != nil {
		err = fail(ch, n, to)
	}
	if err != nil {
		select {
		case r.tried <- ch:
		default:
		}
		return err
	}
	r.mu.Lock()
	r.sent = append(r.sent, sent{ch, to, m})
	r.mu.Unlock()
	return ctx.Err()
}

func (r *recorder) SendPush(ctx context.Context, s notifications.Subscription, m notifications.Message) error {
	return r.send(ctx, notifications.ChannelPush, s.Endpoint, m)
}

func (r *recorder) SendMail(ctx context.Context, to string, m notifications.Message) error {
	return r.send(ctx, notifications.ChannelEmail, to, m)
}

func (r *recorder) SendWebhook(ctx context.Context, t notifications.WebhookTarget, m notifications.Message) error {
	return r.send(ctx, notifications.ChannelWebhook, t.URL, m)
}

// CheckURL refuses loopback addresses written as such, as the real check
// does once it has resolved a name.
func (r *recorder) CheckURL(_ context.Context, raw string) error {
	if strings.Contains(raw, "127.0.0.1") || strings.Contains(raw, "localhost") {
		return errors.New("refused: the address 127.0.0.1 is a loopback address")
	}
	return nil
}

// sleep records the wait and returns at once (the tests never wait).
func (r *recorder) sleep(ctx context.Context, d time.Duration) error {
	r.mu.Lock()
	r.waits = append(r.waits, d)
	r.mu.Unlock()
	return ctx.Err()
}

// took returns the messages sent so far, by channel then title.
func (r *recorder) took() []sent {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := slices.Clone(r.sent)
	slices.SortFunc(out, func(a, b sent) int {
		if c := strings.Compare(string(a.channel), string(b.channel)); c != 0 {
			return c
		}
		if c := strings.Compare(a.msg.Title, b.msg.Title); c != 0 {
			return c
		}
		return strings.Compare(a.to, b.to)
	})
	return out
}

// summary writes what was sent as "channel: title" lines.
func summary(ss []sent) string {
	lines := make([]string, len(ss))
	for i, s := range ss {
		lines[i] = string(s.channel) + ": " + s.msg.Title
	}
	return strings.Join(lines, "\n")
}

// syncBuffer is a log destination safe for concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

var start = time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)

// fixture is a database with the built-in user's car, the clock, the
// channels' stand-in and the log.
type fixture struct {
	t     *testing.T
	open  func() *store.Store // another store on the same database
	st    *store.Store
	clock *clock
	rec   *recorder
	logs  *syncBuffer
	ctx   context.Context // the built-in user's (no identity)
	car   fuel.Vehicle
}

var dialects = []store.Dialect{store.Postgres, store.SQLite}

func forEachDialect(t *testing.T, fn func(t *testing.T, f *fixture)) {
	for _, d := range dialects {
		t.Run(string(d), func(t *testing.T) { fn(t, newFixture(t, d)) })
	}
}

func newFixture(t *testing.T, d store.Dialect) *fixture {
	t.Helper()
	f := &fixture{t: t, clock: &clock{now: start}, rec: newRecorder(), logs: &syncBuffer{}, ctx: context.Background()}
	var open func() (*store.Store, error)
	if d == store.Postgres {
		dsn := storetest.PostgresURL(t)
		open = func() (*store.Store, error) { return store.OpenPostgres(context.Background(), dsn) }
	} else {
		path := storetest.SQLitePath(t)
		open = func() (*store.Store, error) { return store.OpenSQLite(context.Background(), path) }
	}
	f.open = func() *store.Store {
		st, err := open()
		if err != nil {
			t.Fatal(err)
		}
		st.Now = f.clock.Now
		t.Cleanup(func() { _ = st.Close() })
		return st
	}
	f.st = f.open()
	f.car = fuel.Vehicle{Name: "Golf", FuelType: "diesel", CurrentOdometer: decimal.NewFromInt(10000), DefaultVehicle: true}
	if err := f.st.CreateVehicle(f.ctx, &f.car); err != nil {
		t.Fatal(err)
	}
	return f
}

// service is a service on st (f.st when nil) with every channel on the
// recorder, NOTIFY_RETRIES 3 and NOTIFY_RETRY_BASE 30s.
func (f *fixture) service(st *store.Store, change ...func(*notifications.Options)) *notifications.Service {
	if st == nil {
		st = f.st
	}
	opts := notifications.Options{
		Push: f.rec, Mail: f.rec, Webhook: f.rec, URLs: f.rec, PublicURL: "https://cars.example/",
		Retries: 3, RetryBase: 30 * time.Second, Now: f.clock.Now, Sleep: f.rec.sleep,
		Log: slog.New(slog.NewTextHandler(f.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	for _, c := range change {
		c(&opts)
	}
	return notifications.New(st, st, opts)
}

// everyChannel turns on push (with one device), e-mail and the webhook
// for the user of ctx.
func (f *fixture) everyChannel(ctx context.Context, change ...func(*notifications.Settings)) {
	f.t.Helper()
	s := notifications.DefaultSettings()
	s.Email, s.WebhookURL, s.WebhookToken = "owner@example.com", "https://hooks.example/cars", "tok-SECRET-123"
	s.Channels = notifications.ChannelSet{Push: true, Email: true, Webhook: true}
	for _, c := range change {
		c(&s)
	}
	if _, err := f.st.SaveNotificationSettings(ctx, s, f.clock.Now()); err != nil {
		f.t.Fatal(err)
	}
	if _, err := f.st.AddPushSubscription(ctx, notifications.Subscription{Endpoint: "https://push.example/device/SECRET-PATH-" + fmt.Sprint(time.Now().UnixNano()),
		P256dh: "p", Auth: "a"}, f.clock.Now()); err != nil {
		f.t.Fatal(err)
	}
}

// reminder makes a distance reminder of the car: every km from lastOdo.
func (f *fixture) reminder(title string, everyKm, lastOdo int64) fuel.Reminder {
	f.t.Helper()
	r := fuel.Reminder{VehicleID: f.car.ID, Title: title, Category: "service", EveryKm: decimal.NewNullDecimal(decimal.NewFromInt(everyKm)),
		SoonKm: fuel.DefaultSoonKm, SoonDays: fuel.DefaultSoonDays,
		LastDone: &fuel.Done{Time: start.Add(-24 * time.Hour), Odometer: decimal.NewNullDecimal(decimal.NewFromInt(lastOdo))}}
	if err := f.st.CreateReminder(f.ctx, &r); err != nil {
		f.t.Fatal(err)
	}
	return r
}

// drive logs a refuel of the car at odometer, now.
func (f *fixture) drive(odometer int64) {
	f.t.Helper()
	r := fuel.Refuel{VehicleID: f.car.ID, RefuelTime: f.clock.Now(), Odometer: decimal.NewFromInt(odometer), FuelType: "B7",
		Liters: decimal.NewFromInt(40), TotalAmount: decimal.NewFromInt(60), IsFull: true}
	if err := f.st.CreateRefuel(f.ctx, &r); err != nil {
		f.t.Fatal(err)
	}
}

// evaluate runs one pass of svc and fails the test on its error.
func (f *fixture) evaluate(svc *notifications.Service) {
	f.t.Helper()
	if err := svc.Evaluate(context.Background()); err != nil {
		f.t.Fatal(err)
	}
}

// deliveries returns the log of the user of ctx, oldest first.
func (f *fixture) deliveries(ctx context.Context) []notifications.Delivery {
	f.t.Helper()
	ds, err := f.st.Deliveries(ctx, 1000)
	if err != nil {
		f.t.Fatal(err)
	}
	slices.Reverse(ds)
	return ds
}

// wantSent fails unless the recorder took exactly want ("channel: title"
// lines in channel, then title order).
func (f *fixture) wantSent(what, want string) {
	f.t.Helper()
	if got := summary(f.rec.took()); got != want {
		f.t.Fatalf("%s: sent\n%s\nwant\n%s", what, got, want)
	}
}
