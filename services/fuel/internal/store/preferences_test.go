package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/carhub/backend/services/fuel/internal/fuel"
)

func ptr(s string) *string { return &s }

// wantPreferences fails unless got has exactly the fields of want (the
// time compared separately).
func wantPreferences(t *testing.T, what string, got fuel.Preferences, want fuel.Preferences) {
	t.Helper()
	if got != want {
		t.Errorf("%s:\n got  %+v\n want %+v", what, got, want)
	}
}

// preferenceRows counts the rows of user_preferences of a user.
func preferenceRows(t *testing.T, s *Store, userID uint64) int64 {
	t.Helper()
	var n int64
	if err := s.read.Raw("SELECT count(*) FROM user_preferences WHERE user_id = ?", userID).Row().Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestPreferencesPatch(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		now := time.Date(2026, 3, 1, 8, 0, 1, 500000000, time.UTC)
		s.Now = func() time.Time { return now }
		ctx := context.Background() // the built-in user

		p, err := s.Preferences(ctx)
		if err != nil {
			t.Fatal(err)
		}
		wantPreferences(t, "never saved", p, fuel.Preferences{})

		// Two fields, in the forms a browser may send: canonicalized.
		p, err = s.UpdatePreferences(ctx, fuel.PreferencesUpdate{Currency: ptr("usd"), Locale: ptr("zh_hans_cn")})
		if err != nil {
			t.Fatal(err)
		}
		want := fuel.Preferences{Currency: "USD", Locale: "zh-Hans-CN", UpdatedAt: now}
		wantPreferences(t, "first patch", p, want)
		if got, _ := s.Preferences(ctx); got != want {
			t.Errorf("read back %+v, want %+v", got, want)
		}

		// Another field later: the first two stay.
		now = now.Add(time.Hour)
		p, err = s.UpdatePreferences(ctx, fuel.PreferencesUpdate{DistanceUnit: ptr("mi"), VolumeUnit: ptr("gal_us"),
			ConsumptionUnit: ptr("mpg_us"), ElectricConsumptionUnit: ptr("mi_per_kwh"), GasConsumptionUnit: ptr("km_per_kg"),
			TimeZone: ptr("America/Chicago"), Language: ptr("de")})
		if err != nil {
			t.Fatal(err)
		}
		want = fuel.Preferences{DistanceUnit: "mi", VolumeUnit: "gal_us", ConsumptionUnit: "mpg_us",
			ElectricConsumptionUnit: "mi_per_kwh", GasConsumptionUnit: "km_per_kg", Currency: "USD", Locale: "zh-Hans-CN",
			TimeZone: "America/Chicago", Language: "de", UpdatedAt: now}
		wantPreferences(t, "second patch", p, want)

		// "" clears one; the rest stay. An empty patch only touches the time.
		now = now.Add(time.Hour)
		if p, err = s.UpdatePreferences(ctx, fuel.PreferencesUpdate{Locale: ptr(""), VolumeUnit: ptr("")}); err != nil {
			t.Fatal(err)
		}
		want.Locale, want.VolumeUnit, want.UpdatedAt = "", "", now
		wantPreferences(t, "cleared", p, want)
		now = now.Add(time.Hour)
		if p, err = s.UpdatePreferences(ctx, fuel.PreferencesUpdate{}); err != nil {
			t.Fatal(err)
		}
		want.UpdatedAt = now
		wantPreferences(t, "empty patch", p, want)
		if got, _ := s.Preferences(ctx); got != want {
			t.Errorf("read back %+v, want %+v", got, want)
		}
	})
}

func TestPreferencesRejectBadValues(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		if _, err := s.UpdatePreferences(ctx, fuel.PreferencesUpdate{DistanceUnit: ptr("km")}); err != nil {
			t.Fatal(err)
		}
		before, _ := s.Preferences(ctx)
		for _, tc := range []struct {
			field string
			u     fuel.PreferencesUpdate
		}{
			{"distance_unit", fuel.PreferencesUpdate{DistanceUnit: ptr("KM")}},
			{"volume_unit", fuel.PreferencesUpdate{VolumeUnit: ptr("gal")}},
			{"consumption_unit", fuel.PreferencesUpdate{ConsumptionUnit: ptr("mpg")}},
			{"electric_consumption_unit", fuel.PreferencesUpdate{ElectricConsumptionUnit: ptr("kwh_per_mi")}},
			{"gas_consumption_unit", fuel.PreferencesUpdate{GasConsumptionUnit: ptr("l_per_100km")}},
			{"currency", fuel.PreferencesUpdate{Currency: ptr("ABC")}},
			{"locale", fuel.PreferencesUpdate{Locale: ptr("und")}},
			{"time_zone", fuel.PreferencesUpdate{TimeZone: ptr("Local")}},
			{"language", fuel.PreferencesUpdate{Language: ptr("fr")}},
			// The first bad field in table order is named; nothing of the
			// good one before it is written.
			{"currency", fuel.PreferencesUpdate{DistanceUnit: ptr("mi"), Currency: ptr("EU"), TimeZone: ptr("Mars/Olympus")}},
		} {
			_, err := s.UpdatePreferences(ctx, tc.u)
			wantInvalid(t, tc.field, err, tc.field)
		}
		if after, _ := s.Preferences(ctx); after != before {
			t.Fatalf("a refused patch wrote: %+v, was %+v", after, before)
		}
	})
}

// TestPreferencesSchemaRejectsBadValues: the columns hold what the API
// allows even for a writer that skips Normalize.
func TestPreferencesSchemaRejectsBadValues(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		for col, v := range map[string]string{
			"distance_unit": "yd", "volume_unit": "L", "consumption_unit": "mpg", "electric_consumption_unit": "wh_per_km",
			"gas_consumption_unit": "kg", "currency": "usd", "locale": "", "time_zone": "Local", "language": "x",
		} {
			err := s.write.Exec("INSERT INTO user_preferences (user_id, "+col+", updated_at) VALUES (1, ?, ?)", v, time.Now()).Error
			if err == nil {
				t.Errorf("%s = %q stored", col, v)
			}
		}
		if n := preferenceRows(t, s, 1); n != 0 {
			t.Fatalf("%d rows", n)
		}
		err := s.write.Exec("INSERT INTO user_preferences (user_id, updated_at) VALUES (999, ?)", time.Now()).Error
		if err == nil {
			t.Error("preferences of an unknown user stored")
		}
	})
}

func TestPreferencesPerUserAndDeletedWithTheUser(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		annCtx, ann := as(t, s, "ann")
		bobCtx, bob := as(t, s, "bob")
		if _, err := s.UpdatePreferences(annCtx, fuel.PreferencesUpdate{Currency: ptr("EUR"), TimeZone: ptr("Europe/Berlin")}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.UpdatePreferences(bobCtx, fuel.PreferencesUpdate{Currency: ptr("CNY")}); err != nil {
			t.Fatal(err)
		}
		for name, tc := range map[string]struct {
			ctx                context.Context
			currency, timeZone string
		}{
			"ann": {annCtx, "EUR", "Europe/Berlin"}, "bob": {bobCtx, "CNY", ""}, "built-in": {context.Background(), "", ""},
		} {
			p, err := s.Preferences(tc.ctx)
			if err != nil {
				t.Fatal(err)
			}
			if p.Currency != tc.currency || p.TimeZone != tc.timeZone {
				t.Errorf("%s: %+v, want currency %q time_zone %q", name, p, tc.currency, tc.timeZone)
			}
		}

		if err := s.DeleteUser(context.Background(), ann.ID); err != nil {
			t.Fatal(err)
		}
		if n := preferenceRows(t, s, ann.ID); n != 0 {
			t.Fatalf("ann's preferences outlive her: %d rows", n)
		}
		if n := preferenceRows(t, s, bob.ID); n != 1 {
			t.Fatalf("bob's preferences: %d rows, want 1", n)
		}
		// A request of a user deleted meanwhile writes nothing.
		_, err := s.UpdatePreferences(annCtx, fuel.PreferencesUpdate{Currency: ptr("GBP")})
		wantErr(t, "write for a deleted user", err, fuel.ErrUserGone)
		if n := preferenceRows(t, s, ann.ID); n != 0 {
			t.Fatalf("a deleted user got a row: %d", n)
		}
	})
}

// TestConcurrentPreferencePatches: two patches of different fields at once
// both land, when the row does not exist yet (two inserts race) and when
// it does (two updates race).
func TestConcurrentPreferencePatches(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		const pairs = 20
		race := func(ctx context.Context, a, b fuel.PreferencesUpdate) error {
			var wg sync.WaitGroup
			errs := make([]error, 2)
			for i, u := range []fuel.PreferencesUpdate{a, b} {
				wg.Go(func() { _, errs[i] = s.UpdatePreferences(ctx, u) })
			}
			wg.Wait()
			return errors.Join(errs...)
		}
		ctxs := make([]context.Context, pairs)
		for i := range pairs {
			ctxs[i], _ = as(t, s, fmt.Sprintf("u%d", i))
		}
		var wg sync.WaitGroup
		errs := make([]error, pairs)
		for i := range pairs {
			wg.Go(func() {
				errs[i] = race(ctxs[i], fuel.PreferencesUpdate{DistanceUnit: ptr("mi")}, fuel.PreferencesUpdate{Currency: ptr("GBP")})
			})
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatal(err)
		}
		for i, ctx := range ctxs {
			if p, _ := s.Preferences(ctx); p.DistanceUnit != "mi" || p.Currency != "GBP" {
				t.Errorf("user %d after racing inserts: %+v", i, p)
			}
		}

		ctx := ctxs[0]
		units, currencies := []string{"km", "mi"}, []string{"EUR", "USD"}
		for i := range pairs {
			d, c := units[i%2], currencies[(i/2)%2]
			if err := race(ctx, fuel.PreferencesUpdate{DistanceUnit: ptr(d)}, fuel.PreferencesUpdate{Currency: ptr(c)}); err != nil {
				t.Fatal(err)
			}
			if p, _ := s.Preferences(ctx); p.DistanceUnit != d || p.Currency != c {
				t.Fatalf("round %d: %s/%s, want %s/%s", i, p.DistanceUnit, p.Currency, d, c)
			}
		}
	})
}
