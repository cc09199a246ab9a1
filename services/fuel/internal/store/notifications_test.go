package store

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/carhub/backend/pkg/pgtest"
	"github.com/carhub/backend/services/fuel/internal/fuel"
	"github.com/carhub/backend/services/fuel/internal/notifications"
)

var notifyNow = time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)

func TestNotificationSettingsRoundTrip(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		ctx, _ := as(t, s, "ann")
		got, err := s.NotificationSettings(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got != notifications.DefaultSettings() {
			t.Fatalf("settings of a user who saved none: %+v, want the defaults", got)
		}
		want := notifications.Settings{Email: "ann@example.com", WebhookURL: "https://ntfy.example.com/cars", WebhookFormat: "ntfy",
			WebhookToken: "tk_secret", Channels: notifications.ChannelSet{Push: true, Email: true, Webhook: true},
			When: notifications.WhenDigest, DigestTime: "07:45", ViewerReminders: true}
		saved, err := s.SaveNotificationSettings(ctx, want, notifyNow)
		if err != nil {
			t.Fatal(err)
		}
		want.UpdatedAt = notifyNow
		if saved != want {
			t.Fatalf("saved %+v, want %+v", saved, want)
		}
		if got, _ := s.NotificationSettings(ctx); got != want {
			t.Fatalf("read back %+v, want %+v", got, want)
		}
		// A second save replaces the row.
		want.Channels, want.WebhookToken = notifications.ChannelSet{Push: true}, ""
		if _, err := s.SaveNotificationSettings(ctx, want, notifyNow); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.NotificationSettings(ctx); got != want {
			t.Fatalf("after the second save %+v, want %+v", got, want)
		}
		// Another user sees their own.
		other, _ := as(t, s, "bob")
		if got, _ := s.NotificationSettings(other); got != notifications.DefaultSettings() {
			t.Fatalf("another user's settings: %+v", got)
		}
		users, err := s.NotifiedUsers(context.Background())
		if err != nil || len(users) != 1 {
			t.Fatalf("notified users %v, %v: want ann's alone", users, err)
		}
	})
}

func TestNotificationSettingsOfADeletedUser(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		ctx, u := as(t, s, "gone")
		if err := s.DeleteUser(context.Background(), u.ID); err != nil {
			t.Fatal(err)
		}
		_, err := s.SaveNotificationSettings(ctx, notifications.DefaultSettings(), notifyNow)
		wantErr(t, "save settings", err, fuel.ErrUserGone)
		_, err = s.AddPushSubscription(ctx, notifications.Subscription{Endpoint: "https://push.example/1", P256dh: "k", Auth: "a"}, notifyNow)
		wantErr(t, "add subscription", err, fuel.ErrUserGone)
	})
}

// TestSchemaRefusesWhatSettingsRefuse: the database's CHECKs repeat the
// rules, so a bug above cannot store an e-mail channel without an address.
func TestSchemaRefusesWhatSettingsRefuse(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		ctx, _ := as(t, s, "ann")
		for name, bad := range map[string]notifications.Settings{
			"email on without address": {WebhookFormat: "generic", When: "due", DigestTime: "08:00", Channels: notifications.ChannelSet{Email: true}},
			"webhook on without url":   {WebhookFormat: "generic", When: "due", DigestTime: "08:00", Channels: notifications.ChannelSet{Webhook: true}},
			"format":                   {WebhookFormat: "slack", When: "due", DigestTime: "08:00"},
			"when":                     {WebhookFormat: "generic", When: "weekly", DigestTime: "08:00"},
			"digest time":              {WebhookFormat: "generic", When: "due", DigestTime: "24:00"},
		} {
			if _, err := s.SaveNotificationSettings(ctx, bad, notifyNow); err == nil {
				t.Errorf("%s: stored", name)
			}
		}
	})
}

func TestPushSubscriptions(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		ann, _ := as(t, s, "ann")
		bob, _ := as(t, s, "bob")
		sub := notifications.Subscription{Endpoint: "https://push.example/device-1", P256dh: "p1", Auth: "a1"}
		first, err := s.AddPushSubscription(ann, sub, notifyNow)
		if err != nil {
			t.Fatal(err)
		}
		// The same endpoint again: the same id, the new keys.
		sub.P256dh = "p2"
		again, err := s.AddPushSubscription(ann, sub, notifyNow.Add(time.Hour))
		if err != nil || again.ID != first.ID {
			t.Fatalf("the same endpoint again: %+v, %v; want id %d", again, err, first.ID)
		}
		list, _ := s.PushSubscriptions(ann)
		if len(list) != 1 || list[0].P256dh != "p2" || !list[0].CreatedAt.Equal(notifyNow) {
			t.Fatalf("ann's subscriptions %+v", list)
		}
		// Bob cannot delete it; when bob subscribes the device, it is his.
		wantErr(t, "bob deletes ann's", s.DeletePushSubscription(bob, first.ID), notifications.ErrSubscriptionNotFound)
		moved, err := s.AddPushSubscription(bob, sub, notifyNow)
		if err != nil || moved.ID != first.ID {
			t.Fatalf("the device moves to bob: %+v, %v", moved, err)
		}
		if list, _ := s.PushSubscriptions(ann); len(list) != 0 {
			t.Fatalf("ann keeps %+v", list)
		}
		if err := s.DeletePushSubscription(bob, first.ID); err != nil {
			t.Fatal(err)
		}
		wantErr(t, "delete twice", s.DeletePushSubscription(bob, first.ID), notifications.ErrSubscriptionNotFound)
		// At most MaxSubscriptions are kept: the oldest go.
		for i := range notifications.MaxSubscriptions + 3 {
			if _, err := s.AddPushSubscription(ann, notifications.Subscription{Endpoint: fmt.Sprintf("https://push.example/d%d", i), P256dh: "p", Auth: "a"}, notifyNow); err != nil {
				t.Fatal(err)
			}
		}
		list, _ = s.PushSubscriptions(ann)
		if len(list) != notifications.MaxSubscriptions || list[0].Endpoint != "https://push.example/d3" {
			t.Fatalf("kept %d subscriptions from %s", len(list), list[0].Endpoint)
		}
	})
}

// claim is a claim of occurrence on push for the user of ctx.
func claim(occurrence, token string, now time.Time) notifications.Claim {
	return notifications.Claim{Occurrence: occurrence, Channel: notifications.ChannelPush, Kind: notifications.KindDigest,
		Title: "2 reminders need attention", Token: token, Now: now, LeaseUntil: now.Add(time.Minute)}
}

func TestClaimDelivery(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		ctx, _ := as(t, s, "ann")
		id, ok, err := s.ClaimDelivery(ctx, claim("digest:2026-03-01", "a", notifyNow))
		if err != nil || !ok {
			t.Fatalf("first claim: %v %v", ok, err)
		}
		// Held: no one else gets it, whatever their token.
		if _, ok, _ := s.ClaimDelivery(ctx, claim("digest:2026-03-01", "b", notifyNow.Add(30*time.Second))); ok {
			t.Fatal("a held claim was taken")
		}
		// Another channel or another user is another delivery.
		other := claim("digest:2026-03-01", "c", notifyNow)
		other.Channel = notifications.ChannelEmail
		if _, ok, _ := s.ClaimDelivery(ctx, other); !ok {
			t.Fatal("the e-mail of the same digest was refused")
		}
		bob, _ := as(t, s, "bob")
		if _, ok, _ := s.ClaimDelivery(bob, claim("digest:2026-03-01", "d", notifyNow)); !ok {
			t.Fatal("bob's digest was refused")
		}
		// Only the holder renews; past its lease, a pending claim is taken.
		if held, _ := s.RenewDelivery(ctx, id, "b", notifyNow.Add(time.Hour)); held {
			t.Fatal("renewed with another's token")
		}
		took, ok, err := s.ClaimDelivery(ctx, claim("digest:2026-03-01", "b", notifyNow.Add(2*time.Minute)))
		if err != nil || !ok || took != id {
			t.Fatalf("take over a lapsed claim: %d %v %v", took, ok, err)
		}
		if held, _ := s.FinishDelivery(ctx, id, "a", notifications.Outcome{State: notifications.StateSent, Attempts: 1, At: notifyNow}); held {
			t.Fatal("the first claimant finished a claim taken from it")
		}
		if held, err := s.FinishDelivery(ctx, id, "b", notifications.Outcome{State: notifications.StateFailed, Attempts: 4, Error: "503", At: notifyNow.Add(3 * time.Minute)}); !held || err != nil {
			t.Fatalf("finish: %v %v", held, err)
		}
		// Finished: never claimed again, however late.
		if _, ok, _ := s.ClaimDelivery(ctx, claim("digest:2026-03-01", "e", notifyNow.Add(1000*time.Hour))); ok {
			t.Fatal("a finished delivery was claimed again")
		}
		// A released claim is taken at once.
		id2, _, _ := s.ClaimDelivery(ctx, claim("digest:2026-03-02", "f", notifyNow))
		if err := s.ReleaseDelivery(ctx, id2, "f", 2, notifyNow); err != nil {
			t.Fatal(err)
		}
		if got, ok, _ := s.ClaimDelivery(ctx, claim("digest:2026-03-02", "g", notifyNow.Add(time.Millisecond))); !ok || got != id2 {
			t.Fatal("a released claim was not taken")
		}
		ds, err := s.Deliveries(ctx, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(ds) != 3 || ds[0].ID != id2 || ds[0].State != notifications.StatePending || ds[0].Attempts != 2 {
			t.Fatalf("deliveries %+v", ds)
		}
		last := ds[2]
		if last.ID != id || last.State != notifications.StateFailed || last.Attempts != 4 || last.Error != "503" ||
			last.Kind != notifications.KindDigest || last.Channel != notifications.ChannelPush || !last.UpdatedAt.Equal(notifyNow.Add(3*time.Minute)) {
			t.Fatalf("the failed delivery reads %+v", last)
		}
	})
}

// TestClaimOfADeletedReminder: the reminder's row keeps the log of its
// deliveries (reminder_id cleared), and a claim for a reminder deleted
// since it was read is no claim.
func TestClaimOfADeletedReminder(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		v := fuel.Vehicle{Name: "Golf", FuelType: "diesel"}
		if err := s.CreateVehicle(ctx, &v); err != nil {
			t.Fatal(err)
		}
		r := mustReminder(t, s, fuel.Reminder{VehicleID: v.ID, Title: "Oil", Category: "service", EveryMonths: 12})
		c := notifications.Claim{Occurrence: fmt.Sprintf("reminder:%d:-:2027-03-01", r.ID), Channel: notifications.ChannelWebhook,
			Kind: notifications.KindReminder, ReminderID: r.ID, ReminderStatus: fuel.StatusSoon, Title: "Oil", Vehicle: "Golf",
			Token: "t", Now: notifyNow, LeaseUntil: notifyNow.Add(time.Minute)}
		if _, ok, err := s.ClaimDelivery(ctx, c); !ok || err != nil {
			t.Fatalf("claim: %v %v", ok, err)
		}
		if err := s.DeleteReminder(ctx, r.ID); err != nil {
			t.Fatal(err)
		}
		ds, _ := s.Deliveries(ctx, 10)
		if len(ds) != 1 || ds[0].ReminderID != 0 || ds[0].Title != "Oil" || ds[0].Vehicle != "Golf" || ds[0].ReminderStatus != fuel.StatusSoon {
			t.Fatalf("log after the reminder's deletion: %+v", ds)
		}
		c.Occurrence, c.Channel = c.Occurrence+"x", notifications.ChannelEmail
		if _, ok, err := s.ClaimDelivery(ctx, c); ok || err != nil {
			t.Fatalf("claim for a deleted reminder: %v %v, want no claim and no error", ok, err)
		}
	})
}

// TestClaimsRace: many claimants of one delivery at once, on one
// database (on PostgreSQL from two stores, as two replicas), and exactly
// one wins, also when they race to take over a lapsed claim.
func TestClaimsRace(t *testing.T) {
	race := func(t *testing.T, stores []*Store, ctx context.Context, occurrence string, now time.Time) int64 {
		var (
			wins atomic.Int64
			wg   sync.WaitGroup
		)
		for i := range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, ok, err := stores[i%len(stores)].ClaimDelivery(ctx, claim(occurrence, fmt.Sprint("t", i), now))
				if err != nil {
					t.Error(err)
				}
				if ok {
					wins.Add(1)
				}
			}()
		}
		wg.Wait()
		return wins.Load()
	}
	t.Run("postgres", func(t *testing.T) {
		dsn := pgtest.NewDatabase(t)
		var stores []*Store
		for range 2 {
			st, err := OpenPostgres(context.Background(), dsn)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = st.Close() })
			stores = append(stores, st)
		}
		ctx, _ := as(t, stores[0], "ann")
		if n := race(t, stores, ctx, "digest:2026-03-01", notifyNow); n != 1 {
			t.Fatalf("%d claimants won a new delivery", n)
		}
		if n := race(t, stores, ctx, "digest:2026-03-01", notifyNow.Add(time.Hour)); n != 1 {
			t.Fatalf("%d claimants took over the lapsed delivery", n)
		}
	})
	t.Run("sqlite", func(t *testing.T) {
		s := MustOpen(t, SQLite)
		ctx, _ := as(t, s, "ann")
		if n := race(t, []*Store{s}, ctx, "digest:2026-03-01", notifyNow); n != 1 {
			t.Fatalf("%d claimants won a new delivery", n)
		}
		if n := race(t, []*Store{s}, ctx, "digest:2026-03-01", notifyNow.Add(time.Hour)); n != 1 {
			t.Fatalf("%d claimants took over the lapsed delivery", n)
		}
	})
}

// TestServiceKey: made once and kept; two replicas starting together on
// PostgreSQL agree on one.
func TestServiceKey(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		n := 0
		gen := func() (string, error) { n++; return fmt.Sprint("key-", n), nil }
		k1, err := s.ServiceKey(ctx, VAPIDKeyName, gen)
		if err != nil || k1 != "key-1" {
			t.Fatalf("first: %q %v", k1, err)
		}
		k2, err := s.ServiceKey(ctx, VAPIDKeyName, gen)
		if err != nil || k2 != "key-1" || n != 1 {
			t.Fatalf("second: %q %v, generated %d times", k2, err, n)
		}
	})
	t.Run("postgres-replicas", func(t *testing.T) {
		dsn := pgtest.NewDatabase(t)
		var (
			wg   sync.WaitGroup
			keys [4]string
		)
		for i := range keys {
			st, err := OpenPostgres(context.Background(), dsn)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = st.Close() })
			wg.Add(1)
			go func() {
				defer wg.Done()
				k, err := st.ServiceKey(context.Background(), VAPIDKeyName, func() (string, error) { return fmt.Sprint("replica-", i), nil })
				if err != nil {
					t.Error(err)
				}
				keys[i] = k
			}()
		}
		wg.Wait()
		for _, k := range keys[1:] {
			if k != keys[0] {
				t.Fatalf("replicas disagree: %q", keys)
			}
		}
	})
}
