package notifications

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// Run evaluates the reminders every interval (NOTIFY_INTERVAL), the first
// time at once, until ctx ends; it returns once the deliveries in
// progress have stopped (those cut short are released, not lost). It
// runs beside the HTTP server and shares nothing with a request but the
// database.
func (s *Service) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if err := s.Evaluate(ctx); err != nil && ctx.Err() == nil {
			s.opts.Log.WarnContext(ctx, "evaluate notifications", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Evaluate is one pass of the rule over every user with a channel on: it
// claims each delivery due now and sends the ones it won (Parallel at
// once, each with its retries), and returns when they have ended. An
// error of one user's reads is logged and the others go on; the error
// returned is only the list of users failing.
func (s *Service) Evaluate(ctx context.Context) error {
	users, err := s.store.NotifiedUsers(ctx)
	if err != nil {
		return fmt.Errorf("list the users to notify: %w", err)
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	for _, uid := range users {
		if ctx.Err() != nil {
			return nil
		}
		uctx := auth.WithIdentity(ctx, auth.Identity{UserID: uid, Scope: auth.ScopeRead})
		if err := s.evaluateUser(uctx, &wg); err != nil && ctx.Err() == nil {
			s.opts.Log.WarnContext(ctx, "evaluate a user's notifications", "user", uid, "err", err)
		}
	}
	return nil
}

// evaluateUser claims and starts what is due to the user of ctx.
func (s *Service) evaluateUser(ctx context.Context, wg *sync.WaitGroup) error {
	set, err := s.store.NotificationSettings(ctx)
	if err != nil || !set.Channels.Any() {
		return err
	}
	subs, err := s.store.PushSubscriptions(ctx)
	if err != nil {
		return err
	}
	var targets []*target
	for _, ch := range AllChannels {
		if t := s.target(ch, set, subs); set.Channels.On(ch) && t.check() == nil {
			targets = append(targets, t)
		}
	}
	if len(targets) == 0 {
		return nil
	}
	now := s.opts.Now()
	vehicles, err := s.reminders.ListVehicles(ctx)
	if err != nil {
		return err
	}
	rs, err := s.reminders.ListReminders(ctx, fuel.ReminderFilter{AsOf: now})
	if err != nil {
		return err
	}
	due := SelectDue(rs, vehicles, set.ViewerReminders, now)
	if len(due) == 0 {
		return nil
	}
	prefs, err := s.reminders.Preferences(ctx)
	if err != nil {
		return err
	}
	wording := WordingOf(prefs)
	if set.When == WhenDigest {
		day, ok := DigestDay(now, zone(prefs.TimeZone), set.DigestTime)
		if !ok {
			return nil
		}
		SortDue(due)
		msg := DigestMessage(due, wording, s.opts.PublicURL)
		for _, t := range targets {
			c := Claim{Occurrence: DigestOccurrence(day), Channel: t.channel, Kind: KindDigest, Title: msg.Title}
			if err := s.claimAndStart(ctx, wg, c, t, msg); err != nil {
				return err
			}
		}
		return nil
	}
	for _, d := range due {
		msg := ReminderMessage(d, wording, s.opts.PublicURL)
		for _, t := range targets {
			c := Claim{Occurrence: Occurrence(d), Channel: t.channel, Kind: KindReminder, ReminderID: d.Reminder.ID,
				ReminderStatus: d.Due.Status, Title: d.Reminder.Title, Vehicle: d.Vehicle}
			// Each delivery sends on a target of its own: push keeps
			// which devices each message reached.
			if err := s.claimAndStart(ctx, wg, c, s.target(t.channel, set, subs), msg); err != nil {
				return err
			}
		}
	}
	return nil
}

// claimAndStart claims c and, when won, sends in the background. A free
// slot is taken before the claim, so that a claim never waits for one
// while its lease runs.
func (s *Service) claimAndStart(ctx context.Context, wg *sync.WaitGroup, c Claim, t *target, m Message) error {
	select {
	case s.slots <- struct{}{}:
	case <-ctx.Done():
		return nil
	}
	c.Token = newToken()
	c.Now = s.opts.Now()
	c.LeaseUntil = c.Now.Add(s.opts.Lease)
	id, ok, err := s.store.ClaimDelivery(ctx, c)
	if err != nil || !ok {
		<-s.slots
		return err
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer func() { <-s.slots }()
		s.deliver(ctx, id, c.Token, t, m)
	}()
	return nil
}

func newToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b[:])
}

// zone is the user's time zone: their preference, UTC without one (or
// for one this binary no longer knows).
func zone(name string) *time.Location {
	if name == "" {
		return time.UTC
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return time.UTC
	}
	return loc
}

// SortDue orders reminders as GET /api/reminders does: overdue before
// soon, then by the day they are due (none last), then by id.
func SortDue(ds []Due) {
	slices.SortStableFunc(ds, func(x, y Due) int {
		return cmp.Or(fuel.CompareUrgency(x.Due, y.Due), cmp.Compare(x.Reminder.ID, y.Reminder.ID))
	})
}
