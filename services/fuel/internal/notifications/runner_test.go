package notifications_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/services/fuel/internal/fuel"
	"github.com/carhub/backend/services/fuel/internal/notifications"
	"github.com/carhub/backend/services/fuel/internal/store"
)

// TestOncePerOccurrence walks a distance reminder through its life: ok
// (nothing), soon (one message per channel), overdue (the same
// occurrence: nothing more), done by a matching expense (a new due point,
// ok again), soon again (a new occurrence: one more per channel).
func TestOncePerOccurrence(t *testing.T) {
	forEachDialect(t, func(t *testing.T, f *fixture) {
		f.reminder("Oil change", 5000, 9000) // due at 14000; the car is at 10000
		f.everyChannel(f.ctx)
		svc := f.service(nil)

		f.evaluate(svc)
		f.wantSent("ok", "")

		f.drive(13200) // 800 km left: soon
		f.evaluate(svc)
		f.evaluate(svc)
		f.wantSent("soon, evaluated twice", "email: Oil change is due soon - Golf\npush: Oil change is due soon - Golf\nwebhook: Oil change is due soon - Golf")
		msg := f.rec.took()[0].msg
		if msg.Body != "due at 14,000 km (800 km left)" || msg.Reminder == nil || *msg.Reminder.DueOdometer != "14000" ||
			*msg.Reminder.DueInKm != "800" || msg.Reminder.Status != "soon" || msg.Reminder.Vehicle != "Golf" {
			t.Fatalf("message %+v %+v", msg, msg.Reminder)
		}
		if !strings.HasPrefix(msg.URL, "https://cars.example/costs?") || !strings.Contains(msg.URL, "reminder=") {
			t.Fatalf("link %q", msg.URL)
		}

		f.clock.Add(time.Hour)
		f.drive(14100) // overdue: the same due point
		f.evaluate(svc)
		f.wantSent("overdue, same occurrence", "email: Oil change is due soon - Golf\npush: Oil change is due soon - Golf\nwebhook: Oil change is due soon - Golf")

		f.clock.Add(time.Hour)
		e := fuel.Expense{VehicleID: f.car.ID, Time: f.clock.Now(), Odometer: decimal.NewNullDecimal(decimal.NewFromInt(14100)),
			Category: "service", Title: "Oil change and filter", Amount: decimal.NewFromInt(80)}
		if err := f.st.CreateExpense(f.ctx, &e); err != nil {
			t.Fatal(err)
		}
		f.evaluate(svc) // due at 19100 now: ok
		f.wantSent("done again", "email: Oil change is due soon - Golf\npush: Oil change is due soon - Golf\nwebhook: Oil change is due soon - Golf")

		f.clock.Add(time.Hour)
		f.drive(19200) // past 19100: overdue, a new occurrence
		f.evaluate(svc)
		f.evaluate(svc)
		f.wantSent("the next occurrence", "email: Oil change is due soon - Golf\nemail: Oil change is overdue - Golf\n"+
			"push: Oil change is due soon - Golf\npush: Oil change is overdue - Golf\n"+
			"webhook: Oil change is due soon - Golf\nwebhook: Oil change is overdue - Golf")

		ds := f.deliveries(f.ctx)
		if len(ds) != 6 {
			t.Fatalf("%d deliveries logged, want 6: %+v", len(ds), ds)
		}
		for _, d := range ds {
			if d.State != notifications.StateSent || d.Attempts != 1 || d.Kind != notifications.KindReminder || d.Title != "Oil change" || d.Vehicle != "Golf" {
				t.Errorf("delivery %+v", d)
			}
		}
		if ds[0].ReminderStatus != fuel.StatusSoon || ds[5].ReminderStatus != fuel.StatusOverdue {
			t.Errorf("statuses %s, %s", ds[0].ReminderStatus, ds[5].ReminderStatus)
		}
	})
}

// TestChannelsOffAndUnusable: a channel turned off, e-mail without a
// mailer, push without a device: nothing is claimed for them.
func TestChannelsOffAndUnusable(t *testing.T) {
	f := newFixture(t, store.SQLite)
	f.reminder("Oil change", 5000, 9000)
	f.drive(13500)
	s := notifications.DefaultSettings()
	s.Email, s.Channels = "owner@example.com", notifications.ChannelSet{Push: true, Email: true}
	if _, err := f.st.SaveNotificationSettings(f.ctx, s, start); err != nil {
		t.Fatal(err)
	}
	f.evaluate(f.service(nil, func(o *notifications.Options) { o.Mail = nil }))
	f.wantSent("push without a device, e-mail without a mailer", "")
	if ds := f.deliveries(f.ctx); len(ds) != 0 {
		t.Fatalf("deliveries %+v", ds)
	}
	f.evaluate(f.service(nil))
	f.wantSent("e-mail with a mailer", "email: Oil change is due soon - Golf")
}

// TestDigest: one message a day per channel at digest_time in the
// user's zone (Europe/Berlin, UTC+1 in March), listing what is soon or
// overdue, most urgent first; nothing before its time nor twice a day;
// and again the next day.
func TestDigest(t *testing.T) {
	forEachDialect(t, func(t *testing.T, f *fixture) {
		f.reminder("Oil change", 5000, 9000) // due 14000
		f.reminder("Brakes", 3000, 7000)     // due 10000
		f.reminder("Tyres", 40000, 9000)     // ok
		f.drive(13500)                       // oil soon, brakes overdue
		zone := "Europe/Berlin"
		if _, err := f.st.UpdatePreferences(f.ctx, fuel.PreferencesUpdate{TimeZone: &zone}); err != nil {
			t.Fatal(err)
		}
		f.everyChannel(f.ctx, func(s *notifications.Settings) { s.When, s.DigestTime = notifications.WhenDigest, "08:00" })
		svc := f.service(nil)

		day := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
		f.clock.Set(day.Add(6*time.Hour + 59*time.Minute)) // 07:59 in Berlin
		f.evaluate(svc)
		f.wantSent("before the digest's time", "")

		f.clock.Set(day.Add(7 * time.Hour)) // 08:00 in Berlin
		f.evaluate(svc)
		want := "email: 2 reminders need attention\npush: 2 reminders need attention\nwebhook: 2 reminders need attention"
		f.wantSent("at the digest's time", want)
		body := f.rec.took()[0].msg.Body
		if body != "- Brakes - Golf: overdue, due at 10,000 km (3,500 km past)\n- Oil change - Golf: due soon, due at 14,000 km (500 km left)" {
			t.Fatalf("digest body %q", body)
		}
		if m := f.rec.took()[0].msg; m.Reminder != nil || len(m.Digest) != 2 || m.Digest[0].Title != "Brakes" || m.Digest[0].Status != "overdue" ||
			*m.Digest[1].DueInKm != "500" || m.URL != "https://cars.example/" {
			t.Fatalf("digest facts %+v", m)
		}

		f.clock.Set(day.Add(22*time.Hour + 59*time.Minute)) // 23:59 in Berlin
		f.evaluate(svc)
		f.wantSent("later the same day", want)

		f.clock.Set(day.Add(23 * time.Hour)) // 00:00 the next day in Berlin
		f.evaluate(svc)
		f.wantSent("the next day before its time", want)

		f.clock.Set(day.Add(31 * time.Hour)) // 08:00 the next day
		f.evaluate(svc)
		f.wantSent("the next day", strings.Repeat("email: 2 reminders need attention\n", 2)+strings.Repeat("push: 2 reminders need attention\n", 2)+
			"webhook: 2 reminders need attention\nwebhook: 2 reminders need attention")
		ds := f.deliveries(f.ctx)
		if len(ds) != 6 || ds[0].Kind != notifications.KindDigest || ds[0].ReminderID != 0 {
			t.Fatalf("deliveries %+v", ds)
		}
	})
}

// TestSharedVehicles: an editor is notified of the reminders of a car
// shared with them; a viewer only once they chose so.
func TestSharedVehicles(t *testing.T) {
	f := newFixture(t, store.SQLite)
	f.reminder("Oil change", 5000, 9000)
	f.drive(13500)
	member := func(name string, role fuel.Role) context.Context {
		u, err := f.st.CreateUser(context.Background(), name, "", false)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.st.SetMember(f.ctx, f.car.ID, u.ID, role); err != nil {
			t.Fatal(err)
		}
		ctx := auth.WithIdentity(context.Background(), auth.Identity{UserID: u.ID, Scope: auth.ScopeWrite})
		s := notifications.DefaultSettings()
		s.Email, s.Channels = name+"@example.com", notifications.ChannelSet{Email: true}
		if _, err := f.st.SaveNotificationSettings(ctx, s, start); err != nil {
			t.Fatal(err)
		}
		return ctx
	}
	member("edith", fuel.RoleEditor)
	viewer := member("victor", fuel.RoleViewer)
	svc := f.service(nil)
	f.evaluate(svc)
	if got := f.rec.took(); len(got) != 1 || got[0].to != "edith@example.com" {
		t.Fatalf("sent %+v, want edith's alone", got)
	}
	s, _ := f.st.NotificationSettings(viewer)
	s.ViewerReminders = true
	if _, err := f.st.SaveNotificationSettings(viewer, s, start); err != nil {
		t.Fatal(err)
	}
	f.evaluate(svc)
	if got := f.rec.took(); len(got) != 2 || got[1].to != "victor@example.com" {
		t.Fatalf("sent %+v, want victor's too", got)
	}
}

// TestChannelDown: the webhook answers 503 on every try: it is tried
// 1 + NOTIFY_RETRIES times with waits doubling from NOTIFY_RETRY_BASE and
// recorded failed; push and e-mail go out meanwhile. The secrets in its
// error (the token, a URL's password) and the push endpoint are in
// neither the log nor the recorded error.
func TestChannelDown(t *testing.T) {
	forEachDialect(t, func(t *testing.T, f *fixture) {
		f.reminder("Oil change", 5000, 9000)
		f.drive(13500)
		f.everyChannel(f.ctx)
		subs, _ := f.st.PushSubscriptions(f.ctx)
		f.rec.fail = func(ch notifications.Channel, n int, to string) error {
			if ch == notifications.ChannelWebhook {
				return fmt.Errorf(`Post "https://hook:pw-SECRET@hooks.example/cars?token=tok-SECRET-123": 503 Service Unavailable (also %s)`, subs[0].Endpoint)
			}
			return nil
		}
		f.evaluate(f.service(nil))
		f.wantSent("webhook down", "email: Oil change is due soon - Golf\npush: Oil change is due soon - Golf")
		if f.rec.calls[notifications.ChannelWebhook] != 4 {
			t.Fatalf("webhook tried %d times, want 4", f.rec.calls[notifications.ChannelWebhook])
		}
		if want := []time.Duration{30 * time.Second, time.Minute, 2 * time.Minute}; !slices.Equal(f.rec.waits, want) {
			t.Fatalf("waits %v, want %v", f.rec.waits, want)
		}
		var hook notifications.Delivery
		for _, d := range f.deliveries(f.ctx) {
			if d.Channel == notifications.ChannelWebhook {
				hook = d
			} else if d.State != notifications.StateSent {
				t.Errorf("%s: %+v", d.Channel, d)
			}
		}
		if hook.State != notifications.StateFailed || hook.Attempts != 4 || !strings.Contains(hook.Error, "503 Service Unavailable") {
			t.Fatalf("webhook delivery %+v", hook)
		}
		logs := f.logs.String()
		for _, secret := range []string{"tok-SECRET-123", "pw-SECRET", "SECRET-PATH"} {
			if strings.Contains(hook.Error, secret) || strings.Contains(logs, secret) {
				t.Errorf("%q leaked: error %q\nlogs:\n%s", secret, hook.Error, logs)
			}
		}
		if !strings.Contains(logs, "notification failed") {
			t.Errorf("the failure is not logged:\n%s", logs)
		}
		// Failed is final: the next evaluation leaves it.
		f.rec.fail = nil
		f.evaluate(f.service(nil))
		f.wantSent("after the failure", "email: Oil change is due soon - Golf\npush: Oil change is due soon - Golf")
	})
}

// TestRetriedThenSent: two failed tries, the third goes through; a
// permanent error (a 4xx) is not tried again.
func TestRetriedThenSent(t *testing.T) {
	f := newFixture(t, store.SQLite)
	f.reminder("Oil change", 5000, 9000)
	f.drive(13500)
	f.everyChannel(f.ctx)
	f.rec.fail = func(ch notifications.Channel, n int, _ string) error {
		switch {
		case ch == notifications.ChannelWebhook && n <= 2:
			return errors.New("connection refused")
		case ch == notifications.ChannelEmail:
			return notifications.Permanent(errors.New("550 mailbox unavailable"))
		}
		return nil
	}
	f.evaluate(f.service(nil))
	f.wantSent("retried", "push: Oil change is due soon - Golf\nwebhook: Oil change is due soon - Golf")
	got := map[notifications.Channel]notifications.Delivery{}
	for _, d := range f.deliveries(f.ctx) {
		got[d.Channel] = d
	}
	if d := got[notifications.ChannelWebhook]; d.State != notifications.StateSent || d.Attempts != 3 {
		t.Errorf("webhook %+v", d)
	}
	if d := got[notifications.ChannelEmail]; d.State != notifications.StateFailed || d.Attempts != 1 || d.Error != "550 mailbox unavailable" {
		t.Errorf("email %+v", d)
	}
}

// TestPushGone: a push service answering 404/410 (ErrGone) removes that
// subscription; the message still counts as sent when another device got
// it, and fails when none did.
func TestPushGone(t *testing.T) {
	forEachDialect(t, func(t *testing.T, f *fixture) {
		f.reminder("Oil change", 5000, 9000)
		f.drive(13500)
		s := notifications.DefaultSettings()
		s.Channels.Push = true
		if _, err := f.st.SaveNotificationSettings(f.ctx, s, start); err != nil {
			t.Fatal(err)
		}
		for _, ep := range []string{"https://push.example/gone", "https://push.example/alive"} {
			if _, err := f.st.AddPushSubscription(f.ctx, notifications.Subscription{Endpoint: ep, P256dh: "p", Auth: "a"}, start); err != nil {
				t.Fatal(err)
			}
		}
		f.rec.fail = func(_ notifications.Channel, _ int, to string) error {
			if strings.HasSuffix(to, "/gone") {
				return fmt.Errorf("push service answered 410: %w", notifications.ErrGone)
			}
			return nil
		}
		f.evaluate(f.service(nil))
		subs, _ := f.st.PushSubscriptions(f.ctx)
		if len(subs) != 1 || subs[0].Endpoint != "https://push.example/alive" {
			t.Fatalf("subscriptions after a 410: %+v", subs)
		}
		if ds := f.deliveries(f.ctx); len(ds) != 1 || ds[0].State != notifications.StateSent {
			t.Fatalf("deliveries %+v", ds)
		}
		// The other device goes too: the next occurrence fails, and no
		// subscription is left.
		f.rec.fail = func(notifications.Channel, int, string) error { return notifications.ErrGone }
		f.drive(14500)
		f.reminder("Brakes", 3000, 9000)
		f.evaluate(f.service(nil))
		if subs, _ := f.st.PushSubscriptions(f.ctx); len(subs) != 0 {
			t.Fatalf("subscriptions left %+v", subs)
		}
		ds := f.deliveries(f.ctx)
		if len(ds) != 2 || ds[1].State != notifications.StateFailed || ds[1].Attempts != 1 {
			t.Fatalf("deliveries %+v", ds)
		}
	})
}

// TestReplicasSendOnce: two services, each on its own connection pool to
// one PostgreSQL database (two replicas), evaluate at the same time,
// again and again: every delivery is sent exactly once.
func TestReplicasSendOnce(t *testing.T) {
	f := newFixture(t, store.Postgres)
	for i := range 5 {
		f.reminder(fmt.Sprint("Job ", i), 5000, 9000)
	}
	f.drive(13500)
	f.everyChannel(f.ctx)
	f.rec.delay = 5 * time.Millisecond // sends overlap the other's claims
	replicas := []*notifications.Service{f.service(f.open()), f.service(f.open())}
	for range 3 {
		var wg sync.WaitGroup
		for _, r := range replicas {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := r.Evaluate(context.Background()); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
	}
	got := f.rec.took()
	if len(got) != 15 {
		t.Fatalf("%d messages sent, want 15 (5 reminders x 3 channels):\n%s", len(got), summary(got))
	}
	for i := 1; i < len(got); i++ {
		if got[i].channel == got[i-1].channel && got[i].msg.Title == got[i-1].msg.Title {
			t.Fatalf("sent twice: %s %s", got[i].channel, got[i].msg.Title)
		}
	}
}

// TestRestart: a service stopped while it waits to try the webhook again
// releases its claim; a new service on the same database (a restart) sends
// the webhook, once, and nothing that was sent already.
func TestRestart(t *testing.T) {
	forEachDialect(t, func(t *testing.T, f *fixture) {
		f.reminder("Oil change", 5000, 9000)
		f.drive(13500)
		f.everyChannel(f.ctx)
		f.rec.fail = func(ch notifications.Channel, _ int, _ string) error {
			if ch == notifications.ChannelWebhook {
				return errors.New("503 Service Unavailable")
			}
			return nil
		}
		ctx, stop := context.WithCancel(context.Background())
		blocking := func(o *notifications.Options) {
			o.Sleep = func(ctx context.Context, _ time.Duration) error { <-ctx.Done(); return ctx.Err() }
		}
		first := f.service(f.open(), blocking)
		done := make(chan error)
		go func() { done <- first.Evaluate(ctx) }()
		<-f.rec.tried // the webhook's first try failed: the service waits
		stop()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		f.wantSent("before the restart", "email: Oil change is due soon - Golf\npush: Oil change is due soon - Golf")

		f.rec.fail = nil
		f.clock.Add(time.Second) // the released lease ends at the stop
		second := f.service(f.open())
		f.evaluate(second)
		f.evaluate(second)
		f.wantSent("after the restart", "email: Oil change is due soon - Golf\npush: Oil change is due soon - Golf\nwebhook: Oil change is due soon - Golf")
		for _, d := range f.deliveries(f.ctx) {
			if d.State != notifications.StateSent {
				t.Errorf("%+v", d)
			}
		}
	})
}

// TestCrashedClaimTakenAfterItsLease: a replica that claimed a delivery
// and died leaves it pending: no one sends it until its lease has passed,
// then one does, once.
func TestCrashedClaimTakenAfterItsLease(t *testing.T) {
	forEachDialect(t, func(t *testing.T, f *fixture) {
		r := f.reminder("Oil change", 5000, 9000)
		f.drive(13500)
		f.everyChannel(f.ctx)
		occurrence := fmt.Sprintf("reminder:%d:14000:-", r.ID)
		if _, ok, err := f.st.ClaimDelivery(f.ctx, notifications.Claim{Occurrence: occurrence, Channel: notifications.ChannelEmail,
			Kind: notifications.KindReminder, ReminderID: r.ID, ReminderStatus: fuel.StatusSoon, Title: r.Title, Vehicle: "Golf",
			Token: "dead-replica", Now: start, LeaseUntil: start.Add(5 * time.Minute)}); !ok || err != nil {
			t.Fatalf("the dead replica's claim: %v %v", ok, err)
		}
		svc := f.service(nil)
		f.evaluate(svc)
		f.wantSent("within the lease", "push: Oil change is due soon - Golf\nwebhook: Oil change is due soon - Golf")
		f.clock.Add(5*time.Minute + time.Second)
		f.evaluate(svc)
		f.evaluate(svc)
		f.wantSent("past the lease", "email: Oil change is due soon - Golf\npush: Oil change is due soon - Golf\nwebhook: Oil change is due soon - Golf")
	})
}

// TestRunStopsAndWaits: Run evaluates at once and again each interval,
// and returns once stopped.
func TestRunStopsAndWaits(t *testing.T) {
	f := newFixture(t, store.SQLite)
	f.reminder("Oil change", 5000, 9000)
	f.drive(13500)
	f.everyChannel(f.ctx)
	svc := f.service(nil)
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { svc.Run(ctx, time.Hour); close(done) }()
	deadline := time.Now().Add(10 * time.Second)
	for len(f.rec.took()) < 3 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	stop()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after its context ended")
	}
	f.wantSent("the first evaluation", "email: Oil change is due soon - Golf\npush: Oil change is due soon - Golf\nwebhook: Oil change is due soon - Golf")
}
