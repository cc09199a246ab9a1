package store

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// reminderText writes every stored field of r, decimals and times as
// their values (the drivers' representations differ).
func reminderText(r fuel.Reminder) string {
	last := "-"
	if d := r.LastDone; d != nil {
		last = d.Time.UTC().Format(time.RFC3339Nano) + "@" + d.Odometer.Decimal.String() + fmt.Sprint(d.Odometer.Valid)
	}
	return fmt.Sprintf("%d %d %q %q %q %s/%v %d %s %q %s %d %s %d %s %s", r.ID, r.VehicleID, r.Title, r.Category, r.Match,
		r.EveryKm.Decimal, r.EveryKm.Valid, r.EveryMonths, last, r.Notes, r.SoonKm, r.SoonDays, r.StartOdometer, r.Revision,
		r.CreatedAt.UTC().Format(time.RFC3339Nano), r.UpdatedAt.UTC().Format(time.RFC3339Nano))
}

func mustReminder(tb testing.TB, s *Store, r fuel.Reminder) fuel.Reminder {
	tb.Helper()
	if r.SoonKm.IsZero() {
		r.SoonKm, r.SoonDays = fuel.DefaultSoonKm, fuel.DefaultSoonDays
	}
	if err := s.CreateReminder(context.Background(), &r); err != nil {
		tb.Fatal(err)
	}
	return r
}

// TestReminderRoundTrip stores a reminder with every field set and one
// with the optional ones unset, and reads both back equal, with the facts
// of their vehicle: the current odometer, the owner's zone and the
// readings of the 90 days before the read (the one before them left out).
func TestReminderRoundTrip(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
		s.Now = func() time.Time { return now }
		v := fuel.Vehicle{Name: "Golf", FuelType: "gasoline", CurrentOdometer: dec("1000")}
		if err := s.CreateVehicle(ctx, &v); err != nil {
			t.Fatal(err)
		}
		for _, r := range []struct {
			at  time.Time
			odo string
		}{{now.Add(-fuel.EstimateWindow), "1500"}, {now.Add(-fuel.EstimateWindow + time.Second), "1600"}, {now, "2500.5"}} {
			ref := fuel.Refuel{VehicleID: v.ID, RefuelTime: r.at, Odometer: dec(r.odo), FuelType: "E10", Liters: dec("40"), TotalAmount: dec("60")}
			if err := s.CreateRefuel(ctx, &ref); err != nil {
				t.Fatal(err)
			}
		}
		full := mustReminder(t, s, fuel.Reminder{VehicleID: v.ID, Title: "Oil", Category: "service", Match: "öl",
			EveryKm: decimal.NewNullDecimal(dec("15000.1234")), EveryMonths: 12, Notes: "5W-30",
			LastDone: &fuel.Done{Time: time.Date(2025, 7, 1, 8, 0, 0, 123456789, time.UTC), Odometer: decimal.NewNullDecimal(dec("40000"))},
			SoonKm:   dec("500"), SoonDays: 0})
		bare := mustReminder(t, s, fuel.Reminder{VehicleID: v.ID, Title: "TÜV", Category: "inspection", EveryMonths: 24})
		if full.EveryKm.Decimal.String() != "15000.123" || !full.LastDone.Time.Equal(time.Date(2025, 7, 1, 8, 0, 0, 123456000, time.UTC)) {
			t.Fatalf("not normalized: %+v", full)
		}
		if !bare.StartOdometer.Equal(dec("2500.5")) || bare.Revision != 0 || !bare.CreatedAt.Equal(now) {
			t.Fatalf("start odometer %s (want the top reading 2500.5), revision %d, created %v", bare.StartOdometer, bare.Revision, bare.CreatedAt)
		}
		for _, want := range []fuel.Reminder{full, bare} {
			got, err := s.Reminder(ctx, want.ID, now)
			if err != nil {
				t.Fatal(err)
			}
			facts := got.Facts
			if reminderText(got) != reminderText(want) {
				t.Errorf("read back\n got %s\nwant %s", reminderText(got), reminderText(want))
			}
			if !facts.CurrentOdometer.Equal(dec("2500.5")) || facts.Location != time.UTC || len(facts.Readings) != 2 {
				t.Errorf("facts %+v: want 2500.5, UTC and the two readings inside the window", facts)
			}
		}

		// The owner's zone; a change raises the revision.
		tz := "Europe/Berlin"
		if _, err := s.UpdatePreferences(ctx, fuel.PreferencesUpdate{TimeZone: &tz}); err != nil {
			t.Fatal(err)
		}
		title := "Oil and filter"
		upd, err := s.UpdateReminder(ctx, full.ID, fuel.ReminderUpdate{Title: &title, SetLastDone: true})
		if err != nil {
			t.Fatal(err)
		}
		if upd.Revision != 1 || upd.LastDone != nil || upd.Title != title {
			t.Fatalf("updated %+v", upd)
		}
		list, err := s.ListReminders(ctx, fuel.ReminderFilter{AsOf: now})
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 2 || list[0].ID != full.ID || list[1].ID != bare.ID || list[0].Facts.Location.String() != "Europe/Berlin" {
			t.Fatalf("list %+v", list)
		}

		if err := s.DeleteVehicle(ctx, v.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Reminder(ctx, full.ID, now); !errors.Is(err, fuel.ErrReminderNotFound) {
			t.Fatalf("after the vehicle's deletion: %v", err)
		}
	})
}

// TestBackupKeepsReminders: fuel-service backup copies the whole database,
// reminders included; the restored store reads them back equal.
func TestBackupKeepsReminders(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "fuel.db")
	s := mustOpenSQLiteAt(t, path)
	v := fuel.Vehicle{Name: "Golf", FuelType: "gasoline"}
	if err := s.CreateVehicle(ctx, &v); err != nil {
		t.Fatal(err)
	}
	want := mustReminder(t, s, fuel.Reminder{VehicleID: v.ID, Title: "Oil", Category: "service", EveryKm: decimal.NewNullDecimal(dec("15000")),
		LastDone: &fuel.Done{Time: time.Date(2025, 7, 1, 8, 0, 0, 0, time.UTC), Odometer: decimal.NewNullDecimal(dec("40000"))}})
	dst := filepath.Join(dir, "backup.db")
	if _, err := BackupSQLite(ctx, path, dst, false); err != nil {
		t.Fatal(err)
	}
	restored := filepath.Join(t.TempDir(), "fuel.db")
	if _, err := RestoreSQLite(ctx, dst, restored, false); err != nil {
		t.Fatal(err)
	}
	got, err := mustOpenSQLiteAt(t, restored).Reminder(ctx, want.ID, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if reminderText(got) != reminderText(want) {
		t.Fatalf("restored\n got %s\nwant %s", reminderText(got), reminderText(want))
	}
}

// BenchmarkListReminders is the start page's read: 20 reminders of one
// vehicle with 100 refuels and 1000 service expenses (one in 50 an oil
// change), each reminder finding its newest matching expense.
func BenchmarkListReminders(b *testing.B) {
	for _, d := range []Dialect{Postgres, SQLite} {
		b.Run(string(d), func(b *testing.B) {
			s, vid := benchVehicle(b, d, 100)
			ctx := context.Background()
			start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
			for i := range 1000 {
				title := fmt.Sprintf("Job %d", i)
				if i%50 == 0 {
					title = "Oil change"
				}
				e := fuel.Expense{VehicleID: vid, Time: start.Add(time.Duration(i) * 24 * time.Hour), Category: "service", Title: title,
					Amount: dec("10"), Odometer: decimal.NewNullDecimal(decimal.NewFromInt(int64(1000 + 40*i)))}
				if err := s.CreateExpense(ctx, &e); err != nil {
					b.Fatal(err)
				}
			}
			for i := range 20 {
				r := fuel.Reminder{VehicleID: vid, Title: fmt.Sprintf("Job %d", i), Category: "service", EveryMonths: 12}
				if i%2 == 0 {
					r.Match = "oil"
				}
				mustReminder(b, s, r)
			}
			now := start.Add(1000 * 24 * time.Hour)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				rs, err := s.ListReminders(ctx, fuel.ReminderFilter{AsOf: now})
				if err != nil || len(rs) != 20 || rs[0].Facts.LastExpense == nil {
					b.Fatalf("%d reminders, %v", len(rs), err)
				}
			}
		})
	}
}

// TestMatchingExpenseBeyondAPage: the only matching expense is older than
// two pages of others (PostgreSQL reads them in pages of matchPage).
func TestMatchingExpenseBeyondAPage(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		v := fuel.Vehicle{Name: "Golf", FuelType: "gasoline"}
		if err := s.CreateVehicle(ctx, &v); err != nil {
			t.Fatal(err)
		}
		start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		var oil uint64
		for i := range 2*matchPage + 3 {
			e := fuel.Expense{VehicleID: v.ID, Time: start.Add(time.Duration(i) * time.Hour), Category: "service", Title: fmt.Sprintf("Job %d", i), Amount: dec("1")}
			if i == 0 {
				e.Title = "Oil change"
			}
			if err := s.CreateExpense(ctx, &e); err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				oil = e.ID
			}
		}
		r := mustReminder(t, s, fuel.Reminder{VehicleID: v.ID, Title: "Oil", Category: "service", Match: "OIL", EveryMonths: 12})
		got, err := s.Reminder(ctx, r.ID, start.AddDate(0, 1, 0))
		if err != nil {
			t.Fatal(err)
		}
		if d := got.Facts.LastExpense; d == nil || d.ExpenseID != oil || !d.Time.Equal(start) || d.Odometer.Valid {
			t.Fatalf("last expense %+v, want %d at %v without an odometer (no reading before it)", d, oil, start)
		}
	})
}

// TestReminderLastDoneReadingWithoutTime: a distance reminder keeps a
// last_done that is only a reading (the owner remembers the odometer, not
// the day) and reads it back so; a reminder counting months refuses one,
// in the store and, below it, in the database's CHECK.
func TestReminderLastDoneReadingWithoutTime(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
		s.Now = func() time.Time { return now }
		v := fuel.Vehicle{Name: "Golf", FuelType: "gasoline", CurrentOdometer: dec("29500")}
		if err := s.CreateVehicle(ctx, &v); err != nil {
			t.Fatal(err)
		}
		r := mustReminder(t, s, fuel.Reminder{VehicleID: v.ID, Title: "Oil", Category: "service",
			EveryKm: decimal.NewNullDecimal(dec("15000")), LastDone: &fuel.Done{Odometer: decimal.NewNullDecimal(dec("15000"))}})
		got, err := s.Reminder(ctx, r.ID, now)
		if err != nil {
			t.Fatal(err)
		}
		if reminderText(got) != reminderText(r) || got.LastDone == nil || !got.LastDone.Time.IsZero() {
			t.Fatalf("read back\n got %s\nwant %s", reminderText(got), reminderText(r))
		}
		if d := got.Due(now); d.DueOdometer.Decimal.String() != "30000" || d.Status != fuel.StatusSoon {
			t.Errorf("due %s, status %s; want 30000, soon", d.DueOdometer.Decimal, d.Status)
		}

		months := 12
		_, err = s.UpdateReminder(ctx, r.ID, fuel.ReminderUpdate{EveryMonths: &months})
		if msg := apperr.From(err).Message; err == nil || msg != "last_done.time: is required when every_months is set" {
			t.Errorf("months beside a reading without its day: %q", msg)
		}
		err = s.write.Exec("UPDATE reminders SET every_months = 12 WHERE id = ?", r.ID).Error
		if err == nil {
			t.Errorf("the database kept every_months beside a last_done without its time")
		}
	})
}

// TestLastDoneReadingMigrationKeepsReminders writes a database as the
// version before migration 0016 left it, with reminders and one deleted,
// then opens it: the reminders read back as they were, a new one takes an
// id after the deleted one's (SQLite rebuilt the table), and a reading
// without its day is now kept.
func TestLastDoneReadingMigrationKeepsReminders(t *testing.T) {
	for _, d := range []Dialect{Postgres, SQLite} {
		t.Run(string(d), func(t *testing.T) {
			ctx := context.Background()
			exec, open := olderDatabase(t, d, 16)
			now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			exec("INSERT INTO vehicles (id, name, fuel_type, owner_id, created_at, updated_at) VALUES (1, 'Golf', 'diesel', 1, ?, ?)", now, now)
			insert := `INSERT INTO reminders (vehicle_id, title, category, every_km, every_months, last_done_time, last_done_odometer,
				created_at, updated_at) VALUES (1, ?, 'service', ?, ?, ?, ?, ?, ?)`
			exec(insert, "Oil", "15000", nil, now, "40000", now, now)
			exec(insert, "TÜV", nil, 24, nil, nil, now, now)
			exec(insert, "Tyres", "30000", nil, nil, nil, now, now)
			exec("DELETE FROM reminders WHERE title = 'Tyres'")
			s := open()
			list, err := s.ListReminders(ctx, fuel.ReminderFilter{AsOf: now})
			if err != nil {
				t.Fatal(err)
			}
			if len(list) != 2 || list[0].Title != "Oil" || list[0].LastDone == nil || !list[0].LastDone.Time.Equal(now) ||
				list[0].LastDone.Odometer.Decimal.String() != "40000" || list[1].EveryMonths != 24 || list[1].LastDone != nil {
				t.Fatalf("after the migration: %+v", list)
			}
			r := fuel.Reminder{VehicleID: 1, Title: "Belt", Category: "service", EveryKm: decimal.NewNullDecimal(dec("60000")),
				LastDone: &fuel.Done{Odometer: decimal.NewNullDecimal(dec("12000"))}, SoonKm: fuel.DefaultSoonKm, SoonDays: fuel.DefaultSoonDays}
			if err := s.CreateReminder(ctx, &r); err != nil {
				t.Fatal(err)
			}
			if r.ID <= 3 {
				t.Errorf("new reminder id %d: a deleted reminder's id (3) given again", r.ID)
			}
		})
	}
}
